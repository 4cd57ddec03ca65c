/* admin_test_util.h --- the names under which the admin layer's older unit
 * tests (repo_create, fsconf, locks, revprops, recover, hotcopy) call the
 * vector helpers of test_util.h.  Include after cmocka.h.  New tests use
 * test_util.h directly.
 */
#ifndef ADMIN_TEST_UTIL_H
#define ADMIN_TEST_UTIL_H

#include "test_util.h"

#define admin_vector_dir vector_dir
#define admin_vector_load vector_load
#define admin_vector_expect vector_expect
#define admin_check_error vector_check_error

/* Sorted names of the vector files in DIR (everything but *.expect). */
#define admin_vector_names(dir, pool) vector_names((dir), NULL, (pool))

#endif
