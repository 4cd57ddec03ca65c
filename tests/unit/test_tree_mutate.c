/* test_tree_mutate.c --- component tests of tree_mutate.c on a repository
 * with copies of copies, built by the stock module at test time.
 *
 * Two kinds of tests:
 *  - comparison: the same mut_driver script runs through the stock module
 *    and through ours (mut_compare.sh); transaction trees, node files,
 *    changes and ids must be identical (doc/format/tree.md TREE-8..11);
 *  - errors: each refusal of the write entries, called directly on a
 *    transaction root of our module, with the stock module's code.
 * Skipped (exit 77) without svnadmin / svnlook.
 *
 * History of the base repository (mut_driver ops, stock module):
 *   r1  mkdir /A /A/B, mkfile /A/B/f ("hello"), mkfile /A/g
 *   r2  cp /A@1 /C          r3  cp /A@1 /C/X   (a copy inside a copy)
 *   r4  cp /C@3 /E          (copies the nested branch point /C/X)
 *   r5  text /C/X/B/f       r6  cp /C@5 /F
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include <apr_general.h>
#include <apr_strings.h>
#include "svn_pools.h"
#include "svn_hash.h"
#include "svn_io.h"
#include "svn_dirent_uri.h"
#include "svn_checksum.h"

#include "repo.h"
#include "tree.h"
#include "txn.h"
#include "tree_mutate.h"
#include "test_util.h"

static apr_pool_t *test_pool;

typedef struct fixture_t
{
  const char *dir;          /* scratch directory */
  const char *base;         /* the base repository */
  const char *top, *bld;    /* source and build trees */
  svn_boolean_t skip;       /* tools missing */
} fixture_t;

static fixture_t fx;

#define OK(expr) do { svn_error_t *err_ = (expr); \
    if (err_) svn_handle_error2(err_, stderr, FALSE, "test_tree_mutate: "); \
    assert_null(err_); } while (0)

#define FAILS_WITH(code, expr) do { svn_error_t *err_ = (expr); \
    assert_non_null(err_); \
    if (err_->apr_err != (code)) \
      svn_handle_error2(err_, stderr, FALSE, "test_tree_mutate: "); \
    assert_int_equal(err_->apr_err, (code)); \
    svn_error_clear(err_); } while (0)

/* ---- fixture ------------------------------------------------------ */

/* Run CMD through sh; its exit status. */
static int
run(const char *cmd)
{
  int rc = system(cmd);
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : 255;
}

static int
setup(void **state)
{
  char tmpl[] = "/tmp/mut-test-XXXXXX";
  const char *top = getenv("top_srcdir"), *bld = getenv("top_builddir");
  const char *drv, *cmd;

  fx.top = apr_pstrdup(test_pool, top ? top : ".");
  fx.bld = apr_pstrdup(test_pool, bld ? bld : fx.top);
  if (run("svnadmin --version --quiet >/dev/null 2>&1") != 0
      || run("svnlook --version --quiet >/dev/null 2>&1") != 0)
    {
      fx.skip = TRUE;
      return 0;
    }
  if (!mkdtemp(tmpl))
    return -1;
  fx.dir = apr_pstrdup(test_pool, tmpl);
  fx.base = apr_pstrcat(test_pool, fx.dir, "/base", SVN_VA_NULL);
  drv = apr_psprintf(test_pool, "env -u LD_LIBRARY_PATH %s/tests/unit/"
                     "mut_driver %s/db", fx.bld, fx.base);
  cmd = apr_psprintf(test_pool,
    "set -e; env -u LD_LIBRARY_PATH svnadmin create %s; "
    "%s begin 0 mkdir /A mkdir /A/B mkfile /A/B/f text /A/B/f hello "
    "mkfile /A/g commit; %s begin 1 cp 1 /A /C commit; "
    "%s begin 2 cp 1 /A /C/X commit; %s begin 3 cp 3 /C /E commit; "
    "%s begin 4 text /C/X/B/f five commit; %s begin 5 cp 5 /C /F commit"
    " >/dev/null", fx.base, drv, drv, drv, drv, drv, drv);
  return run(cmd) == 0 ? 0 : -1;
}

static int
teardown(void **state)
{
  if (fx.dir)
    svn_error_clear(svn_io_remove_dir2(fx.dir, TRUE, NULL, NULL,
                                       test_pool));
  return 0;
}

/* ---- comparison with the stock module ---------------------------- */

/* Run mut_driver script OPS (begun on r6) through both modules and
   demand identical results. */
static void
compare(const char *name, const char *ops)
{
  const char *cmd;
  int rc;

  if (fx.skip)
    skip();
  cmd = apr_psprintf(test_pool, "%s/tests/unit/mut_compare.sh %s %s/%s "
                     "begin 6 %s", fx.top, fx.base, fx.dir, name, ops);
  rc = run(cmd);
  if (rc == 77)
    skip();
  if (rc != 0)
    fail_msg("%s: stock and fsfs7 differ (see above)", name);
}

static void
test_compare_copy_inheritance(void **state)
{
  /* TREE-9 rules 1-4: own created path, nested branch point, copy id 0,
     children below a renumbered branch point. */
  compare("inherit", "text /E/X/B/f a text /C/X/B/f b text /A/B/f c "
          "text /E/B/f d text /F/X/B/f e prop /F/X/g p v");
}

static void
test_compare_two_step_inheritance(void **state)
{
  /* The parent is renumbered by one operation, its child edited by the
     next. */
  compare("twostep", "prop /F/X p v text /F/X/B/f two prop /E/X q w "
          "mkdir /E/X/new mkfile /E/X/new/n");
}

static void
test_compare_make_delete(void **state)
{
  compare("mkrm", "mkdir /Z mkfile /Z/q mkdir /Z/d mkfile /Z/d/x "
          "text /Z/d/x xx rm /Z/d rm /A/g mkdir /A/g rm /E/X/B");
}

static void
test_compare_copies(void **state)
{
  compare("copies", "cp 1 /A /E/B cp 5 /C/X/B /A/B2 cp 1 /A/B/f /Q "
          "mkdir /Z cp 3 /A /Z mkdir /Y cp 4 /E /Y/E link 3 /C link 6 /F "
          "link 1 /A/g");
}

static void
test_compare_mergeinfo(void **state)
{
  compare("minfo", "prop /A/B/f svn:mergeinfo /A:1 prop / svn:mergeinfo "
          "/C:3 prop /A/B svn:mergeinfo /C:2 prop /A/B/f svn:mergeinfo - "
          "prop /A bad:name v prop /A svn:mergeinfo garbage "
          "cp 6 /A /E/X rm /A/B");
}

static void
test_compare_errors(void **state)
{
  compare("errors", "mkdir /A/g/h mkfile /nope/x rm / rm /nope "
          "mkdir /A/B/f/y mkdir /A/B/f text /A nope cp 1 /nope /Q "
          "delta /A/B/f 5d41402abc4b2a76b9719d911017c592 xyz "
          "delta /A/B/f - abc cp 1 /A /A/B/new/x prop /nope a b");
}

static void
test_commit_verifies(void **state)
{
  /* What our mutations leave behind commits (through our module) into a
     revision the stock module verifies, with the tree stock makes. */
  const char *ops = "text /E/X/B/f a prop /F/X p v mkdir /Z cp 1 /A /Z/A "
                    "prop /Z svn:mergeinfo /A:1 rm /C/g commit";
  const char *cmd;

  if (fx.skip)
    skip();
  cmd = apr_psprintf(test_pool,
    "set -e; cd %s; rm -rf cs co; cp -a %s cs; cp -a %s co; "
    "env -u LD_LIBRARY_PATH %s/tests/unit/mut_driver cs/db begin 6 %s "
    ">/dev/null; %s/tools/fsfs7-run %s/tests/unit/mut_driver co/db "
    "begin 6 %s >/dev/null; env -u LD_LIBRARY_PATH svnadmin verify -q co; "
    "env -u LD_LIBRARY_PATH svnlook tree --show-ids cs > cs.tree; "
    "env -u LD_LIBRARY_PATH svnlook tree --show-ids co > co.tree; "
    "diff -u cs.tree co.tree", fx.dir, fx.base, fx.base, fx.bld, ops,
    fx.top, fx.bld, ops);
  assert_int_equal(run(cmd), 0);
}

/* ---- errors, on our module directly ------------------------------ */

typedef struct txn_fixture_t
{
  svn_fs_t *fs;
  svn_fs_txn_t *txn;
  svn_fs_root_t *root, *rev_root;
  apr_pool_t *pool;
} txn_fixture_t;

/* Open a fresh copy of the base repository through our internals and
   begin a transaction on r6. */
static void
open_txn(txn_fixture_t *t, const char *name)
{
  const char *copy = apr_psprintf(test_pool, "%s/%s", fx.dir, name);

  if (fx.skip)
    skip();
  t->pool = svn_pool_create(test_pool);
  assert_int_equal(run(apr_psprintf(t->pool, "rm -rf %s && cp -a %s %s",
                                    copy, fx.base, copy)), 0);
  t->fs = apr_pcalloc(t->pool, sizeof(*t->fs));
  t->fs->pool = t->pool;
  t->fs->config = apr_hash_make(t->pool);
  t->fs->path = apr_pstrcat(t->pool, copy, "/db", SVN_VA_NULL);
  OK(svn_fs_fs__open_repo(t->fs, t->fs->path, t->pool));
  OK(svn_fs_fs__begin_txn(&t->txn, t->fs, 6, 0, t->pool));
  OK(svn_fs_fs__txn_root(&t->root, t->txn, t->pool));
  OK(svn_fs_fs__revision_root(&t->rev_root, t->fs, 6, t->pool));
}

static void
test_errors_paths(void **state)
{
  txn_fixture_t t;
  svn_fs_fs__noderev_t *nr;

  open_txn(&t, "e-paths");
  FAILS_WITH(SVN_ERR_FS_ALREADY_EXISTS,
             svn_fs_fs__txn_make_dir(t.root, "/A/B/f", t.pool));
  FAILS_WITH(SVN_ERR_FS_ALREADY_EXISTS,
             svn_fs_fs__txn_make_file(t.root, "/", t.pool));
  FAILS_WITH(SVN_ERR_FS_NOT_DIRECTORY,
             svn_fs_fs__txn_make_dir(t.root, "/A/g/h", t.pool));
  FAILS_WITH(SVN_ERR_FS_NOT_FOUND,
             svn_fs_fs__txn_make_file(t.root, "/nope/x", t.pool));
  FAILS_WITH(SVN_ERR_FS_PATH_SYNTAX,
             svn_fs_fs__txn_make_dir(t.root, "/A/../x", t.pool));
  FAILS_WITH(SVN_ERR_FS_ROOT_DIR,
             svn_fs_fs__txn_delete_node(t.root, "/", t.pool));
  FAILS_WITH(SVN_ERR_FS_NOT_FOUND,
             svn_fs_fs__txn_delete_node(t.root, "/nope", t.pool));
  FAILS_WITH(SVN_ERR_FS_NOT_FOUND,
             svn_fs_fs__txn_change_node_prop(t.root, "/nope", "a", NULL,
                                             t.pool));
  FAILS_WITH(SVN_ERR_FS_NOT_TXN_ROOT,
             svn_fs_fs__make_path_mutable(&nr, t.rev_root, "/A", t.pool,
                                          t.pool));
  FAILS_WITH(SVN_ERR_FS_NOT_TXN_ROOT,
             svn_fs_fs__txn_make_dir(t.rev_root, "/new", t.pool));
  /* Nothing of the above changed the transaction. */
  OK(svn_fs_fs__make_path_mutable(&nr, t.root, "/A/B", t.pool, t.pool));
  assert_int_equal(nr->predecessor_count, 1);
  svn_pool_destroy(t.pool);
}

static void
test_errors_copy(void **state)
{
  txn_fixture_t t, other;

  open_txn(&t, "e-copy");
  open_txn(&other, "e-copy2");
  FAILS_WITH(SVN_ERR_FS_NOT_TXN_ROOT,
             svn_fs_fs__txn_copy(t.rev_root, "/A", t.rev_root, "/Q",
                                 t.pool));
  FAILS_WITH(SVN_ERR_UNSUPPORTED_FEATURE,
             svn_fs_fs__txn_copy(t.root, "/A", t.root, "/Q", t.pool));
  FAILS_WITH(SVN_ERR_UNSUPPORTED_FEATURE,
             svn_fs_fs__txn_copy(other.rev_root, "/A", t.root, "/Q",
                                 t.pool));
  FAILS_WITH(SVN_ERR_FS_NOT_FOUND,
             svn_fs_fs__txn_copy(t.rev_root, "/nope", t.root, "/Q",
                                 t.pool));
  FAILS_WITH(SVN_ERR_FS_NOT_FOUND,
             svn_fs_fs__txn_copy(t.rev_root, "/A", t.root, "/no/Q",
                                 t.pool));
  FAILS_WITH(SVN_ERR_FS_ROOT_DIR,
             svn_fs_fs__txn_copy(t.rev_root, "/A", t.root, "/", t.pool));
  OK(svn_fs_fs__txn_copy(t.rev_root, "/A", t.root, "/Q", t.pool));
  svn_pool_destroy(other.pool);
  svn_pool_destroy(t.pool);
}

/* Write TEXT to PATH with apply_text, expecting RESULT_MD5 (hex or
   NULL). */
static svn_error_t *
put_text(svn_fs_root_t *root, const char *path, const char *text,
         const char *result_md5, apr_pool_t *pool)
{
  svn_stream_t *stream;
  svn_checksum_t *md5 = NULL;

  if (result_md5)
    SVN_ERR(svn_checksum_parse_hex(&md5, svn_checksum_md5, result_md5,
                                   pool));
  SVN_ERR(svn_fs_fs__txn_apply_text(&stream, root, path, md5, pool));
  SVN_ERR(svn_stream_puts(stream, text));
  return svn_stream_close(stream);
}

static void
test_errors_text(void **state)
{
  txn_fixture_t t;
  svn_checksum_t *base;
  svn_txdelta_window_handler_t handler;
  void *baton;
  svn_stream_t *s1, *s2;
  svn_stringbuf_t *got;
  svn_stream_t *contents;

  open_txn(&t, "e-text");
  FAILS_WITH(SVN_ERR_FS_NOT_FILE,
             put_text(t.root, "/A", "x", NULL, t.pool));
  FAILS_WITH(SVN_ERR_FS_NOT_FOUND,
             put_text(t.root, "/A/nope", "x", NULL, t.pool));
  /* md5("hello") is the base; /A/B/f holds "hello". */
  OK(svn_checksum_parse_hex(&base, svn_checksum_md5,
                            "5d41402abc4b2a76b9719d911017c592", t.pool));
  OK(svn_fs_fs__txn_apply_textdelta(&handler, &baton, t.root, "/A/B/f",
                                    base, NULL, t.pool));
  OK(svn_txdelta_send_string(svn_string_create("hello!", t.pool), handler,
                             baton, t.pool));
  FAILS_WITH(SVN_ERR_CHECKSUM_MISMATCH,
             svn_fs_fs__txn_apply_textdelta(&handler, &baton, t.root,
                                            "/A/B/f", base, NULL, t.pool));
  /* A wrong result checksum is refused and the txn stays usable. */
  FAILS_WITH(SVN_ERR_CHECKSUM_MISMATCH,
             put_text(t.root, "/A/g", "abc", "00000000000000000000000000"
                      "000001", t.pool));
  OK(put_text(t.root, "/A/g", "abc", "900150983cd24fb0d6963f7d28e17f72",
              t.pool));
  /* One writer at a time on the proto-rev file: as with stock, the
     second stream is refused while the first is open, not just its
     first write (fs-test 59). */
  OK(svn_fs_fs__txn_apply_text(&s1, t.root, "/A/g", NULL, t.pool));
  FAILS_WITH(SVN_ERR_FS_REP_BEING_WRITTEN,
             svn_fs_fs__txn_apply_text(&s2, t.root, "/A/B/f", NULL,
                                       t.pool));
  FAILS_WITH(SVN_ERR_FS_REP_BEING_WRITTEN,
             svn_fs_fs__txn_apply_textdelta(&handler, &baton, t.root,
                                            "/A/B/f", NULL, NULL, t.pool));
  OK(svn_stream_puts(s1, "one"));
  OK(svn_stream_close(s1));
  OK(svn_fs_fs__txn_apply_text(&s2, t.root, "/A/B/f", NULL, t.pool));
  OK(svn_stream_puts(s2, "two"));
  OK(svn_stream_close(s2));
  OK(t.root->vtable->file_contents(&contents, t.root, "/A/B/f", t.pool));
  OK(svn_stringbuf_from_stream(&got, contents, 0, t.pool));
  assert_string_equal(got->data, "two");
  svn_pool_destroy(t.pool);
}

int
main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_compare_copy_inheritance),
    cmocka_unit_test(test_compare_two_step_inheritance),
    cmocka_unit_test(test_compare_make_delete),
    cmocka_unit_test(test_compare_copies),
    cmocka_unit_test(test_compare_mergeinfo),
    cmocka_unit_test(test_compare_errors),
    cmocka_unit_test(test_commit_verifies),
    cmocka_unit_test(test_errors_paths),
    cmocka_unit_test(test_errors_copy),
    cmocka_unit_test(test_errors_text),
  };
  int rc;

  apr_initialize();
  test_pool = svn_pool_create(NULL);
  rc = cmocka_run_group_tests(tests, setup, teardown);
  svn_pool_destroy(test_pool);
  apr_terminate();
  return rc;
}
