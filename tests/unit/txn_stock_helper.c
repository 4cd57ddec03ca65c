/* txn_stock_helper.c --- drives the *stock* libsvn_fs (linked without our
 * module, run without LD_LIBRARY_PATH) for test_txn_store:
 *
 *   txn_stock_helper make DB         begin a txn on youngest, mkdir /d, add
 *                                    /d/f and /g ("hello world\n" each: the
 *                                    second is shared), prop p=v on /d/f,
 *                                    svn:log, copy /a to /acopy, delete /b;
 *                                    leave it open and print its name
 *   txn_stock_helper commit DB NAME  commit transaction NAME, print the rev
 */
#include <stdio.h>
#include <string.h>
#include "svn_fs.h"
#include "svn_pools.h"
#include "svn_string.h"

#define E(x) do { svn_error_t *e_ = (x); if (e_) {                   \
    svn_handle_error2(e_, stderr, FALSE, "txn_stock_helper: ");      \
    return 1; } } while (0)

static int
make_file(svn_fs_root_t *root, const char *path, apr_pool_t *pool)
{
  svn_stream_t *s;
  apr_size_t n = 12;

  E(svn_fs_make_file(root, path, pool));
  E(svn_fs_apply_text(&s, root, path, NULL, pool));
  E(svn_stream_write(s, "hello world\n", &n));
  E(svn_stream_close(s));
  return 0;
}

static int
make(svn_fs_t *fs, apr_pool_t *pool)
{
  svn_fs_txn_t *txn;
  svn_fs_root_t *root, *rev_root;
  svn_revnum_t youngest;
  const char *name;

  E(svn_fs_youngest_rev(&youngest, fs, pool));
  E(svn_fs_begin_txn2(&txn, fs, youngest, 0, pool));
  E(svn_fs_txn_root(&root, txn, pool));
  E(svn_fs_make_dir(root, "/d", pool));
  if (make_file(root, "/d/f", pool) || make_file(root, "/g", pool))
    return 1;
  E(svn_fs_change_node_prop(root, "/d/f", "p", svn_string_create("v", pool),
                            pool));
  E(svn_fs_change_txn_prop(txn, "svn:log", svn_string_create("msg", pool),
                           pool));
  E(svn_fs_revision_root(&rev_root, fs, youngest, pool));
  E(svn_fs_copy(rev_root, "/a", root, "/acopy", pool));
  E(svn_fs_delete(root, "/b", pool));
  E(svn_fs_txn_name(&name, txn, pool));
  printf("%s\n", name);
  return 0;
}

int
main(int argc, char **argv)
{
  apr_pool_t *pool;
  svn_fs_t *fs;
  svn_fs_txn_t *txn;
  svn_revnum_t rev;
  const char *conflict;

  if (argc < 3)
    return 2;
  apr_initialize();
  pool = svn_pool_create(NULL);
  E(svn_fs_initialize(pool));
  E(svn_fs_open2(&fs, argv[2], NULL, pool, pool));
  if (strcmp(argv[1], "make") == 0)
    return make(fs, pool);
  if (strcmp(argv[1], "commit") != 0 || argc < 4)
    return 2;
  E(svn_fs_open_txn(&txn, fs, argv[3], pool));
  E(svn_fs_commit_txn(&conflict, &rev, txn, pool));
  printf("%ld\n", rev);
  return 0;
}
