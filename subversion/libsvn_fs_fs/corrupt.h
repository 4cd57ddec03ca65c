/* corrupt.h --- the one place where rejected on-disk data becomes an error.
 *
 * Every check that refuses bytes read from a repository goes through
 * svn_fs_fs__corrupt() (or the index variant), naming the rule of
 * doc/format/ it enforces.  Put a breakpoint on these two functions to stop
 * at any corruption the module detects.
 */
#ifndef FSFS7_CORRUPT_H
#define FSFS7_CORRUPT_H

#include "svn_error.h"
#include "svn_types.h"

/* An SVN_ERR_FS_CORRUPT error: RULE is the rule ID of the format document
   (e.g. "NODEREV-3"), WHERE a short description of the location (a path,
   "r5 offset 1234", ...; may be NULL); FMT and the rest describe what is
   wrong.  The message reads "<what> (<where>, rule <RULE>)". */
svn_error_t *
svn_fs_fs__corrupt(const char *rule, const char *where, const char *fmt, ...)
  __attribute__((format(printf, 3, 4)));

/* Same with SVN_ERR_FS_INDEX_CORRUPTION, for L2P / P2L / footer data. */
svn_error_t *
svn_fs_fs__index_corrupt(const char *rule, const char *where,
                         const char *fmt, ...)
  __attribute__((format(printf, 3, 4)));

/* Same with an explicit error code (e.g. SVN_ERR_FS_CORRUPT_REVPROP_MANIFEST
   or SVN_ERR_BAD_VERSION_FILE_FORMAT). */
svn_error_t *
svn_fs_fs__corrupt_code(apr_status_t code, const char *rule, const char *where,
                        const char *fmt, ...)
  __attribute__((format(printf, 4, 5)));

/* SVN_ERR_UNSUPPORTED_FEATURE naming OPERATION, for vtable entries that are
   not implemented yet. */
svn_error_t *
svn_fs_fs__unsupported(const char *operation);

#endif
