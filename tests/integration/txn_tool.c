/* txn_tool.c --- drive one FS transaction step by step from the command
 * line, so that the integration tests can begin a transaction with one
 * module and continue, commit or abort it with the other (whichever
 * libsvn_fs_fs the loader picks for this process).
 *
 * REPO is a repository directory (its filesystem is REPO/db).
 *
 *   txn_tool begin  REPO                  print the new txn's name
 *   txn_tool edit   REPO TXN PATH TEXT    make/overwrite file PATH = TEXT,
 *                                         set property "tool:n" on it
 *   txn_tool mkdir  REPO TXN PATH
 *   txn_tool commit REPO TXN [noconflict] print the new revision
 *                                         (noconflict: pass no conflict
 *                                         pointer, as the API allows)
 *   txn_tool abort  REPO TXN
 *   txn_tool cat    REPO TXN PATH         print PATH's text in the txn
 *
 * Exit status 0 on success; on error the svn error chain (with its
 * E-codes) on stderr and exit 1.
 */
#include <stdio.h>
#include <string.h>

#include "svn_pools.h"
#include "svn_fs.h"
#include "svn_error.h"
#include "svn_io.h"
#include "svn_string.h"
#include "svn_dirent_uri.h"

static svn_error_t *
open_txn(svn_fs_txn_t **txn, svn_fs_root_t **root, svn_fs_t **fs,
         const char *repo, const char *name, apr_pool_t *pool)
{
  SVN_ERR(svn_fs_open2(fs, svn_dirent_join(repo, "db", pool), NULL, pool,
                       pool));
  SVN_ERR(svn_fs_open_txn(txn, *fs, name, pool));
  return svn_fs_txn_root(root, *txn, pool);
}

static svn_error_t *
cmd_begin(const char *repo, apr_pool_t *pool)
{
  svn_fs_t *fs;
  svn_fs_txn_t *txn;
  svn_revnum_t youngest;
  const char *name;

  SVN_ERR(svn_fs_open2(&fs, svn_dirent_join(repo, "db", pool), NULL, pool,
                       pool));
  SVN_ERR(svn_fs_youngest_rev(&youngest, fs, pool));
  SVN_ERR(svn_fs_begin_txn2(&txn, fs, youngest, 0, pool));
  SVN_ERR(svn_fs_txn_name(&name, txn, pool));
  printf("%s\n", name);
  return SVN_NO_ERROR;
}

static svn_error_t *
cmd_edit(const char *repo, const char *name, const char *path,
         const char *text, apr_pool_t *pool)
{
  svn_fs_t *fs;
  svn_fs_txn_t *txn;
  svn_fs_root_t *root;
  svn_node_kind_t kind;
  svn_stream_t *out;
  apr_size_t len = strlen(text);

  SVN_ERR(open_txn(&txn, &root, &fs, repo, name, pool));
  SVN_ERR(svn_fs_check_path(&kind, root, path, pool));
  if (kind == svn_node_none)
    SVN_ERR(svn_fs_make_file(root, path, pool));
  SVN_ERR(svn_fs_apply_text(&out, root, path, NULL, pool));
  SVN_ERR(svn_stream_write(out, text, &len));
  SVN_ERR(svn_stream_close(out));
  return svn_fs_change_node_prop(root, path, "tool:n",
                                 svn_string_create(text, pool), pool);
}

static svn_error_t *
cmd_mkdir(const char *repo, const char *name, const char *path,
          apr_pool_t *pool)
{
  svn_fs_t *fs;
  svn_fs_txn_t *txn;
  svn_fs_root_t *root;

  SVN_ERR(open_txn(&txn, &root, &fs, repo, name, pool));
  return svn_fs_make_dir(root, path, pool);
}

static svn_error_t *
cmd_commit(const char *repo, const char *name, svn_boolean_t want_conflict,
           apr_pool_t *pool)
{
  svn_fs_t *fs;
  svn_fs_txn_t *txn;
  svn_fs_root_t *root;
  const char *conflict = NULL;
  svn_revnum_t rev = SVN_INVALID_REVNUM;

  SVN_ERR(open_txn(&txn, &root, &fs, repo, name, pool));
  SVN_ERR(svn_fs_commit_txn(want_conflict ? &conflict : NULL, &rev, txn,
                            pool));
  printf("%ld\n", rev);
  return SVN_NO_ERROR;
}

static svn_error_t *
cmd_abort(const char *repo, const char *name, apr_pool_t *pool)
{
  svn_fs_t *fs;
  svn_fs_txn_t *txn;

  SVN_ERR(svn_fs_open2(&fs, svn_dirent_join(repo, "db", pool), NULL, pool,
                       pool));
  SVN_ERR(svn_fs_open_txn(&txn, fs, name, pool));
  return svn_fs_abort_txn(txn, pool);
}

static svn_error_t *
cmd_cat(const char *repo, const char *name, const char *path,
        apr_pool_t *pool)
{
  svn_fs_t *fs;
  svn_fs_txn_t *txn;
  svn_fs_root_t *root;
  svn_stream_t *in, *out;

  SVN_ERR(open_txn(&txn, &root, &fs, repo, name, pool));
  SVN_ERR(svn_fs_file_contents(&in, root, path, pool));
  SVN_ERR(svn_stream_for_stdout(&out, pool));
  return svn_stream_copy3(in, out, NULL, NULL, pool);
}

static svn_error_t *
dispatch(int argc, const char **argv, apr_pool_t *pool)
{
  const char *cmd = argc > 1 ? argv[1] : "";

  if (!strcmp(cmd, "begin") && argc == 3)
    return cmd_begin(argv[2], pool);
  if (!strcmp(cmd, "edit") && argc == 6)
    return cmd_edit(argv[2], argv[3], argv[4], argv[5], pool);
  if (!strcmp(cmd, "mkdir") && argc == 5)
    return cmd_mkdir(argv[2], argv[3], argv[4], pool);
  if (!strcmp(cmd, "commit") && argc == 4)
    return cmd_commit(argv[2], argv[3], TRUE, pool);
  if (!strcmp(cmd, "commit") && argc == 5 && !strcmp(argv[4], "noconflict"))
    return cmd_commit(argv[2], argv[3], FALSE, pool);
  if (!strcmp(cmd, "abort") && argc == 4)
    return cmd_abort(argv[2], argv[3], pool);
  if (!strcmp(cmd, "cat") && argc == 5)
    return cmd_cat(argv[2], argv[3], argv[4], pool);
  return svn_error_create(SVN_ERR_CL_ARG_PARSING_ERROR, NULL,
                          "usage: txn_tool begin|edit|mkdir|commit|abort|cat "
                          "REPO [TXN [PATH [TEXT]]]");
}

int
main(int argc, const char **argv)
{
  apr_pool_t *pool;
  svn_error_t *err;

  if (apr_initialize() != APR_SUCCESS)
    return 2;
  pool = svn_pool_create(NULL);
  err = svn_fs_initialize(pool);
  if (!err)
    err = dispatch(argc, argv, pool);
  if (err)
    {
      svn_handle_error2(err, stderr, FALSE, "txn_tool: ");
      svn_error_clear(err);
      return 1;
    }
  svn_pool_destroy(pool);
  return 0;
}
