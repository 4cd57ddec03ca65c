/* nodes_test_util.h --- vector helpers shared by the nodes layer's unit
 * tests (test_id, test_noderev_codec, test_changes_codec,
 * test_dirent_codec).  Header-only; include after cmocka.h.
 *
 * Vectors live in $top_srcdir/tests/vectors/{good,bad}/<codec>/.  A bad
 * vector "<name>.txt" has a sidecar "<name>.expect" holding one line
 * "<error-name> <rule>", e.g. "SVN_ERR_FS_CORRUPT NODEREV-5".
 */
#ifndef NODES_TEST_UTIL_H
#define NODES_TEST_UTIL_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <apr_strings.h>
#include <apr_tables.h>
#include "svn_error.h"
#include "svn_io.h"
#include "svn_pools.h"
#include "svn_sorts.h"

/* Directory of the KIND ("good"/"bad") vectors of CODEC. */
static const char *
vector_dir(const char *kind, const char *codec, apr_pool_t *pool)
{
  const char *top = getenv("top_srcdir");
  return apr_psprintf(pool, "%s/tests/vectors/%s/%s", top ? top : ".",
                      kind, codec);
}

static int
compare_cstrings(const void *a, const void *b)
{
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Sorted names of the files in DIR ending in SUFFIX (NULL: any). */
static apr_array_header_t *
vector_names(const char *dir, const char *suffix, apr_pool_t *pool)
{
  apr_array_header_t *names = apr_array_make(pool, 16, sizeof(char *));
  DIR *d = opendir(dir);
  struct dirent *e;

  assert_non_null(d);
  while ((e = readdir(d)) != NULL)
    {
      size_t n = strlen(e->d_name), s = suffix ? strlen(suffix) : 0;
      if (e->d_name[0] == '.')
        continue;
      if (suffix && (n < s || strcmp(e->d_name + n - s, suffix) != 0))
        continue;
      APR_ARRAY_PUSH(names, char *) = apr_pstrdup(pool, e->d_name);
    }
  closedir(d);
  qsort(names->elts, names->nelts, names->elt_size, compare_cstrings);
  return names;
}

/* Contents of DIR/NAME. */
static svn_stringbuf_t *
vector_load(const char *dir, const char *name, apr_pool_t *pool)
{
  svn_stringbuf_t *buf;
  svn_error_t *err = svn_stringbuf_from_file2(
                       &buf, apr_pstrcat(pool, dir, "/", name, SVN_VA_NULL),
                       pool);
  assert_null(err);
  return buf;
}

/* Parse the sidecar of bad vector NAME ("x.txt" -> "x.expect"). */
static void
vector_expect(apr_status_t *code, const char **rule, const char *dir,
              const char *name, apr_pool_t *pool)
{
  char *base = apr_pstrndup(pool, name, strlen(name) - 4);
  svn_stringbuf_t *e = vector_load(dir, apr_pstrcat(pool, base, ".expect",
                                                    SVN_VA_NULL), pool);
  char *space;

  *code = 0;
  svn_stringbuf_strip_whitespace(e);
  space = strchr(e->data, ' ');
  assert_non_null(space);
  *space = '\0';
  *rule = space + 1;
  if (strcmp(e->data, "SVN_ERR_FS_CORRUPT") == 0)
    *code = SVN_ERR_FS_CORRUPT;
  else if (strcmp(e->data, "SVN_ERR_FS_MALFORMED_NODEREV_ID") == 0)
    *code = SVN_ERR_FS_MALFORMED_NODEREV_ID;
  else
    fail_msg("unknown error name in %s", name);
}

/* Check that ERR matches the CODE / RULE of vector NAME; clears ERR. */
static void
vector_check_error(svn_error_t *err, apr_status_t code, const char *rule,
                   const char *name)
{
  const char *tag;

  if (err == NULL)
    fail_msg("bad vector %s was accepted", name);
  if (err->apr_err != code)
    fail_msg("bad vector %s: error %d, expected %d (%s)", name,
             err->apr_err, code, err->message);
  tag = strstr(err->message, "rule ");
  if (tag == NULL || strncmp(tag + 5, rule, strlen(rule)) != 0
      || (tag[5 + strlen(rule)] != ')' && tag[5 + strlen(rule)] != '\0'))
    fail_msg("bad vector %s: '%s' does not cite rule %s", name,
             err->message, rule);
  svn_error_clear(err);
}

/* Format number from a vector name "f<N>-...". */
static int __attribute__((unused))
vector_format(const char *name)
{
  assert_true(name[0] == 'f' && name[1] >= '6' && name[1] <= '8');
  return name[1] - '0';
}

#endif
