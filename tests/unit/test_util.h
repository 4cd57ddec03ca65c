/* test_util.h --- helpers shared by the unit tests: golden vectors and
 * main().  Header-only; include after cmocka.h.
 *
 * Vectors live in $top_srcdir/tests/vectors/{good,bad}/<codec>/.  A bad
 * vector "<name>.<ext>" has a sidecar "<name>.expect" holding one line
 * "<error-name> <rule>", e.g. "SVN_ERR_FS_CORRUPT NODEREV-5"; the error
 * must carry that code and cite that rule.
 */
#ifndef TEST_UTIL_H
#define TEST_UTIL_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <apr_general.h>
#include <apr_strings.h>
#include <apr_tables.h>
#include "svn_error.h"
#include "svn_io.h"
#include "svn_pools.h"

/* Every test file uses only some of the helpers below. */
#define TEST_UTIL_FN static __attribute__((unused))

/* ------------------------------------------------------------------ */
/* main()                                                               */

/* Run the cmocka group TESTS (COUNT entries, called GROUP) with APR
   initialized and *POOL a fresh pool for the tests of the file to share;
   the pool is destroyed afterwards.  Returns cmocka's result. */
TEST_UTIL_FN int
run_tests_with_pool(const char *group, const struct CMUnitTest *tests,
                    size_t count, apr_pool_t **pool)
{
  int rc;

  apr_initialize();
  *pool = svn_pool_create(NULL);
  rc = _cmocka_run_group_tests(group, tests, count, NULL, NULL);
  svn_pool_destroy(*pool);
  *pool = NULL;
  apr_terminate();
  return rc;
}

/* run_tests_with_pool() for an array TESTS and a file-level POOL. */
#define RUN_TESTS_WITH_POOL(tests, pool)                                 \
  run_tests_with_pool(#tests, tests, sizeof(tests) / sizeof((tests)[0]), \
                      &(pool))

/* ------------------------------------------------------------------ */
/* Tests that need the stock binaries                                   */

/* 0 when the stock svn and svnadmin run; otherwise a note on stderr
   naming TEST and the exit code for main(): 77 (skip), or 1 under
   CI=true, where a skip would hide a missing dependency. */
TEST_UTIL_FN int
stock_tools_status(const char *test)
{
  const char *ci = getenv("CI");
  int in_ci = ci && strcmp(ci, "true") == 0;

  if (system("svnadmin --version --quiet >/dev/null 2>&1") == 0
      && system("svn --version --quiet >/dev/null 2>&1") == 0)
    return 0;
  fprintf(stderr, "%s: stock svn/svnadmin missing, %s\n", test,
          in_ci ? "FAILED (CI=true)" : "skipping");
  return in_ci ? 1 : 77;
}

/* A fresh directory /tmp/<PREFIX>XXXXXX holding the small stock-made
   repositories of tests/unit/node_repos.sh, in POOL; NULL on failure. */
TEST_UTIL_FN const char *
make_node_repos(const char *prefix, apr_pool_t *pool)
{
  char *tmpl = apr_pstrcat(pool, "/tmp/", prefix, "XXXXXX", SVN_VA_NULL);
  const char *top = getenv("top_srcdir");

  if (!mkdtemp(tmpl))
    return NULL;
  if (system(apr_psprintf(pool, "sh %s/tests/unit/node_repos.sh %s "
                          ">/dev/null 2>&1", top ? top : ".", tmpl)) != 0)
    return NULL;
  return tmpl;
}

/* ------------------------------------------------------------------ */
/* Vector files                                                         */

/* Directory of the KIND ("good"/"bad") vectors of CODEC. */
TEST_UTIL_FN const char *
vector_dir(const char *kind, const char *codec, apr_pool_t *pool)
{
  const char *top = getenv("top_srcdir");
  return apr_psprintf(pool, "%s/tests/vectors/%s/%s", top ? top : ".",
                      kind, codec);
}

/* TRUE if NAME ends with SUFFIX. */
TEST_UTIL_FN svn_boolean_t
vector_name_ends_with(const char *name, const char *suffix)
{
  size_t n = strlen(name), s = strlen(suffix);
  return n >= s && strcmp(name + n - s, suffix) == 0;
}

TEST_UTIL_FN int
vector_compare_names(const void *a, const void *b)
{
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Sorted names of the files in DIR ending in SUFFIX, or with SUFFIX
   NULL of all files but the *.expect sidecars.  There must be some. */
TEST_UTIL_FN apr_array_header_t *
vector_names(const char *dir, const char *suffix, apr_pool_t *pool)
{
  apr_array_header_t *names = apr_array_make(pool, 16, sizeof(char *));
  DIR *d = opendir(dir);
  struct dirent *e;

  assert_non_null(d);
  while ((e = readdir(d)) != NULL)
    {
      if (e->d_name[0] == '.'
          || (suffix && !vector_name_ends_with(e->d_name, suffix))
          || (!suffix && vector_name_ends_with(e->d_name, ".expect")))
        continue;
      APR_ARRAY_PUSH(names, char *) = apr_pstrdup(pool, e->d_name);
    }
  closedir(d);
  qsort(names->elts, names->nelts, names->elt_size, vector_compare_names);
  assert_true(names->nelts > 0);
  return names;
}

/* Contents of DIR/NAME. */
TEST_UTIL_FN svn_stringbuf_t *
vector_load(const char *dir, const char *name, apr_pool_t *pool)
{
  svn_stringbuf_t *buf;
  svn_error_t *err = svn_stringbuf_from_file2(
                       &buf, apr_pstrcat(pool, dir, "/", name, SVN_VA_NULL),
                       pool);
  assert_null(err);
  return buf;
}

/* OUT, what the codec printed for vector NAME, must read as IN. */
TEST_UTIL_FN void
vector_check_printed(const svn_stringbuf_t *out, const svn_stringbuf_t *in,
                     const char *name)
{
  if (strcmp(out->data, in->data) != 0)
    fail_msg("%s: printed\n%s\ninstead of\n%s", name, out->data,
             in->data);
}

/* ------------------------------------------------------------------ */
/* Expected errors                                                      */

/* Error code for the symbolic NAME used in .expect files. */
TEST_UTIL_FN apr_status_t
vector_error_code(const char *name)
{
  static const struct { const char *name; apr_status_t code; } table[] = {
    { "SVN_ERR_FS_CORRUPT", SVN_ERR_FS_CORRUPT },
    { "SVN_ERR_FS_MALFORMED_NODEREV_ID", SVN_ERR_FS_MALFORMED_NODEREV_ID },
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

/* Contents of the sidecar file EXT of vector NAME in DIR
   ("x.txt", ".expect" -> "x.expect"). */
TEST_UTIL_FN svn_stringbuf_t *
vector_load_sidecar(const char *dir, const char *name, const char *ext,
                    apr_pool_t *pool)
{
  const char *dot = strrchr(name, '.');
  char *base = apr_pstrndup(pool, name, dot ? (apr_size_t)(dot - name)
                                            : strlen(name));

  return vector_load(dir, apr_pstrcat(pool, base, ext, SVN_VA_NULL), pool);
}

/* Read the sidecar of bad vector NAME ("x.txt" -> "x.expect"). */
TEST_UTIL_FN void
vector_expect(apr_status_t *code, const char **rule, const char *dir,
              const char *name, apr_pool_t *pool)
{
  svn_stringbuf_t *e = vector_load_sidecar(dir, name, ".expect", pool);
  char *space;

  svn_stringbuf_strip_whitespace(e);
  space = strchr(e->data, ' ');
  assert_non_null(space);
  *space = '\0';
  *rule = space + 1;
  *code = vector_error_code(e->data);
}

/* ERR, from the input called NAME (a vector file, a table case), must
   carry CODE (0: any code) and cite RULE; clears ERR. */
TEST_UTIL_FN void
vector_check_error(svn_error_t *err, apr_status_t code, const char *rule,
                   const char *name)
{
  const char *tag;
  size_t n = strlen(rule);

  if (err == NULL)
    fail_msg("%s: accepted, expected rule %s", name, rule);
  if (code && err->apr_err != code)
    fail_msg("%s: error %d, expected %d (%s)", name, err->apr_err, code,
             err->message);
  tag = err->message ? strstr(err->message, "rule ") : NULL;
  if (tag == NULL || strncmp(tag + 5, rule, n) != 0
      || (tag[5 + n] != ')' && tag[5 + n] != '\0'))
    fail_msg("%s: '%s' does not cite rule %s", name, err->message, rule);
  svn_error_clear(err);
}

/* ------------------------------------------------------------------ */
/* Whole vector directories                                             */

/* A check of the codec under test on IN, the contents of vector NAME. */
typedef void (*vector_check_fn_t)(const svn_stringbuf_t *in,
                                  const char *name, apr_pool_t *pool);

/* The parser under test: decode IN, the contents of vector NAME, and
   return its error. */
typedef svn_error_t *(*vector_parse_fn_t)(const svn_stringbuf_t *in,
                                          const char *name,
                                          apr_pool_t *pool);

/* What vector_each() applies to each vector. */
typedef struct vector_baton_t
{
  vector_check_fn_t check;
  vector_parse_fn_t parse;
} vector_baton_t;

typedef void (*vector_each_fn_t)(const char *dir, const char *name,
                                 const svn_stringbuf_t *in,
                                 const vector_baton_t *baton,
                                 apr_pool_t *pool);

/* Call FN with BATON on each of the (at least MIN_COUNT) vectors of
   tests/vectors/KIND/CODEC whose names end in SUFFIX (NULL: all but the
   sidecars), in name order.  Allocates in a subpool of POOL (which may be
   NULL); FN gets a pool cleared after each vector. */
TEST_UTIL_FN void
vector_each(const char *kind, const char *codec, const char *suffix,
            int min_count, vector_each_fn_t fn, const vector_baton_t *baton,
            apr_pool_t *pool)
{
  apr_pool_t *scratch_pool = svn_pool_create(pool);
  apr_pool_t *iterpool = svn_pool_create(scratch_pool);
  const char *dir = vector_dir(kind, codec, scratch_pool);
  apr_array_header_t *names = vector_names(dir, suffix, scratch_pool);
  int i;

  assert_true(names->nelts >= min_count);
  for (i = 0; i < names->nelts; i++)
    {
      const char *name = APR_ARRAY_IDX(names, i, const char *);

      svn_pool_clear(iterpool);
      fn(dir, name, vector_load(dir, name, iterpool), baton, iterpool);
    }
  svn_pool_destroy(scratch_pool);
}

TEST_UTIL_FN void
vector_run_check(const char *dir, const char *name, const svn_stringbuf_t *in,
                 const vector_baton_t *baton, apr_pool_t *pool)
{
  baton->check(in, name, pool);
}

TEST_UTIL_FN void
vector_run_parse(const char *dir, const char *name, const svn_stringbuf_t *in,
                 const vector_baton_t *baton, apr_pool_t *pool)
{
  apr_status_t code;
  const char *rule;

  vector_expect(&code, &rule, dir, name, pool);
  vector_check_error(baton->parse(in, name, pool), code, rule, name);
}

/* Run CHECK on each good vector of CODEC (see vector_each()). */
TEST_UTIL_FN void
vector_check_good(const char *codec, const char *suffix, int min_count,
                  vector_check_fn_t check, apr_pool_t *pool)
{
  vector_baton_t baton = { check, NULL };

  vector_each("good", codec, suffix, min_count, vector_run_check, &baton,
              pool);
}

/* Each bad vector of CODEC (see vector_each()) makes PARSE fail with the
   error its sidecar names. */
TEST_UTIL_FN void
vector_check_bad(const char *codec, const char *suffix, int min_count,
                 vector_parse_fn_t parse, apr_pool_t *pool)
{
  vector_baton_t baton = { NULL, parse };

  vector_each("bad", codec, suffix, min_count, vector_run_parse, &baton,
              pool);
}

/* Format number from a vector name "f<N>-...". */
TEST_UTIL_FN int
vector_format(const char *name)
{
  assert_true(name[0] == 'f' && name[1] >= '6' && name[1] <= '8');
  return name[1] - '0';
}

/* ------------------------------------------------------------------ */
/* Test data                                                            */

/* Fill LEN bytes at BUF with a fixed pseudo-random sequence continuing
   from *SEED (a linear congruential generator: the same seed gives the
   same bytes on every machine, so failures reproduce). */
TEST_UTIL_FN void
test_random_bytes(char *buf, apr_size_t len, apr_uint32_t *seed)
{
  apr_size_t i;

  for (i = 0; i < len; i++)
    {
      *seed = *seed * 1103515245 + 12345;
      buf[i] = (char)(*seed >> 16);
    }
}

/* LEN pseudo-random bytes from SEED, allocated in POOL. */
TEST_UTIL_FN svn_stringbuf_t *
test_random_text(apr_size_t len, apr_uint32_t seed, apr_pool_t *pool)
{
  svn_stringbuf_t *s = svn_stringbuf_create_ensure(len, pool);

  test_random_bytes(s->data, len, &seed);
  s->len = len;
  s->data[len] = '\0';
  return s;
}

#endif
