/* commit_date_tool.c --- helper of test_commit: commit one transaction
 * begun with SVN_FS_TXN_CLIENT_DATE through whichever module libsvn_fs
 * loads, optionally setting svn:date first, and print the new
 * revision's svn:date.
 *
 *   commit_date_tool REPO [DATE]
 *   commit_date_tool REPO wait    print "same" if the revision got the
 *                                 begin-time date (2 s before the commit)
 *   commit_date_tool REPO delete  delete svn:date first (an empty line:
 *                                 the revision has none)
 */
#include <unistd.h>
#include <string.h>
#include <stdio.h>

#include "svn_pools.h"
#include "svn_fs.h"
#include "svn_props.h"
#include "svn_dirent_uri.h"

static svn_error_t *
run(const char *repo, const char *date, apr_pool_t *pool)
{
  svn_fs_t *fs;
  svn_fs_txn_t *txn;
  svn_fs_root_t *root;
  svn_revnum_t youngest, new_rev;
  const char *conflict;
  svn_string_t *value;

  SVN_ERR(svn_fs_open2(&fs, svn_dirent_join(repo, "db", pool), NULL, pool,
                       pool));
  SVN_ERR(svn_fs_youngest_rev(&youngest, fs, pool));
  SVN_ERR(svn_fs_begin_txn2(&txn, fs, youngest, SVN_FS_TXN_CLIENT_DATE,
                            pool));
  SVN_ERR(svn_fs_txn_root(&root, txn, pool));
  SVN_ERR(svn_fs_make_dir(root, apr_psprintf(pool, "/d%ld", youngest),
                          pool));
  if (date && strcmp(date, "wait") == 0)
    {
      svn_string_t *begin_date;

      SVN_ERR(svn_fs_txn_prop(&begin_date, txn, SVN_PROP_REVISION_DATE,
                              pool));
      sleep(2);
      SVN_ERR(svn_fs_commit_txn(&conflict, &new_rev, txn, pool));
      SVN_ERR(svn_fs_revision_prop2(&value, fs, new_rev,
                                    SVN_PROP_REVISION_DATE, FALSE, pool,
                                    pool));
      printf("%s\n", begin_date && value
                      && svn_string_compare(begin_date, value)
                      ? "same" : "later");
      return SVN_NO_ERROR;
    }
  if (date)
    SVN_ERR(svn_fs_change_txn_prop(txn, SVN_PROP_REVISION_DATE,
                                   strcmp(date, "delete") == 0
                                   ? NULL : svn_string_create(date, pool),
                                   pool));
  SVN_ERR(svn_fs_commit_txn(&conflict, &new_rev, txn, pool));
  SVN_ERR(svn_fs_revision_prop2(&value, fs, new_rev, SVN_PROP_REVISION_DATE,
                                FALSE, pool, pool));
  printf("%s\n", value ? value->data : "");
  return SVN_NO_ERROR;
}

int
main(int argc, const char *argv[])
{
  apr_pool_t *pool;
  svn_error_t *err;

  if (argc < 2 || apr_initialize() != APR_SUCCESS)
    return 2;
  pool = svn_pool_create(NULL);
  err = run(argv[1], argc > 2 ? argv[2] : NULL, pool);
  if (err)
    {
      svn_handle_error2(err, stderr, FALSE, "commit_date_tool: ");
      return 1;
    }
  return 0;
}
