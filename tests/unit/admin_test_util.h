/* admin_test_util.h --- vector helpers for the admin layer's unit tests
 * (test_format, test_hashdump, test_revprops_codec, test_repo_create).
 * Header-only; include after cmocka.h.
 *
 * Vectors live in $top_srcdir/tests/vectors/{good,bad}/<codec>/.  A bad
 * vector "<name>.<ext>" has a sidecar "<name>.expect" with one line
 * "<error-name> <rule>", e.g. "SVN_ERR_FS_CORRUPT HASH-2".
 */
#ifndef ADMIN_TEST_UTIL_H
#define ADMIN_TEST_UTIL_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <apr_strings.h>
#include <apr_tables.h>
#include "svn_error.h"
#include "svn_io.h"
#include "svn_pools.h"

/* Directory of the KIND ("good"/"bad") vectors of CODEC. */
static const char *
admin_vector_dir(const char *kind, const char *codec, apr_pool_t *pool)
{
  const char *top = getenv("top_srcdir");
  return apr_psprintf(pool, "%s/tests/vectors/%s/%s", top ? top : ".",
                      kind, codec);
}

static int
admin_compare_names(const void *a, const void *b)
{
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Sorted names of the vector files in DIR (everything but *.expect). */
static apr_array_header_t *
admin_vector_names(const char *dir, apr_pool_t *pool)
{
  apr_array_header_t *names = apr_array_make(pool, 16, sizeof(char *));
  DIR *d = opendir(dir);
  struct dirent *e;

  assert_non_null(d);
  while ((e = readdir(d)) != NULL)
    {
      size_t n = strlen(e->d_name);
      if (e->d_name[0] == '.'
          || (n > 7 && strcmp(e->d_name + n - 7, ".expect") == 0))
        continue;
      APR_ARRAY_PUSH(names, char *) = apr_pstrdup(pool, e->d_name);
    }
  closedir(d);
  qsort(names->elts, names->nelts, names->elt_size, admin_compare_names);
  assert_true(names->nelts > 0);
  return names;
}

/* Contents of DIR/NAME. */
static svn_stringbuf_t *
admin_vector_load(const char *dir, const char *name, apr_pool_t *pool)
{
  svn_stringbuf_t *buf;
  svn_error_t *err = svn_stringbuf_from_file2(
                       &buf, apr_pstrcat(pool, dir, "/", name, SVN_VA_NULL),
                       pool);
  assert_null(err);
  return buf;
}

/* Error code for the symbolic NAME used in .expect files. */
static apr_status_t
admin_error_code(const char *name)
{
  static const struct { const char *name; apr_status_t code; } table[] = {
    { "SVN_ERR_FS_CORRUPT", SVN_ERR_FS_CORRUPT },
    { "SVN_ERR_BAD_VERSION_FILE_FORMAT", SVN_ERR_BAD_VERSION_FILE_FORMAT },
    { "SVN_ERR_FS_UNSUPPORTED_FORMAT", SVN_ERR_FS_UNSUPPORTED_FORMAT },
    { "SVN_ERR_FS_CORRUPT_REVPROP_MANIFEST",
      SVN_ERR_FS_CORRUPT_REVPROP_MANIFEST },
    { NULL, 0 }
  };
  int i;

  for (i = 0; table[i].name; i++)
    if (strcmp(table[i].name, name) == 0)
      return table[i].code;
  fail_msg("unknown error name '%s'", name);
  return 0;
}

/* Read the sidecar of bad vector NAME ("x.txt" -> "x.expect"). */
static void
admin_vector_expect(apr_status_t *code, const char **rule, const char *dir,
                    const char *name, apr_pool_t *pool)
{
  const char *dot = strrchr(name, '.');
  char *base = apr_pstrndup(pool, name, dot ? (apr_size_t)(dot - name)
                                            : strlen(name));
  svn_stringbuf_t *e = admin_vector_load(
    dir, apr_pstrcat(pool, base, ".expect", SVN_VA_NULL), pool);
  char *space;

  svn_stringbuf_strip_whitespace(e);
  space = strchr(e->data, ' ');
  assert_non_null(space);
  *space = '\0';
  *rule = space + 1;
  *code = admin_error_code(e->data);
}

/* ERR must carry CODE and cite RULE; clears ERR. */
static void
admin_check_error(svn_error_t *err, apr_status_t code, const char *rule,
                  const char *name)
{
  const char *tag;
  size_t n = strlen(rule);

  if (err == NULL)
    fail_msg("bad vector %s was accepted", name);
  if (err->apr_err != code)
    fail_msg("bad vector %s: error %d, expected %d (%s)", name,
             err->apr_err, code, err->message);
  tag = err->message ? strstr(err->message, "rule ") : NULL;
  if (tag == NULL || strncmp(tag + 5, rule, n) != 0
      || (tag[5 + n] != ')' && tag[5 + n] != '\0'))
    fail_msg("bad vector %s: '%s' does not cite rule %s", name,
             err->message, rule);
  svn_error_clear(err);
}

#endif
