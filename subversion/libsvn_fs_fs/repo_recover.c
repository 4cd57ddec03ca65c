/* repo_recover.c --- 'svnadmin recover': rebuild db/current from the
 * revisions on disk (repo.h; doc/format/uuid-current.md CURRENT-2).
 *
 *   svn_fs_fs__recover               (all locks held)
 *     find_youngest                  probe rev files above the packs
 *     check_root                     the nodes layer reads its root
 *     compare with the old db/current
 *     check_revprops                 the youngest has its revprops
 *     svn_fs_fs__rep_cache_prune     no rows after the youngest
 *     rewrite db/current
 */
#include <apr_strings.h>

#include "svn_io.h"
#include "svn_pools.h"

#include "corrupt.h"
#include "paths.h"
#include "repo.h"
#include "node_walk.h"
#include "repo_repcache.h"

typedef struct recover_baton_t
{
  svn_fs_t *fs;
  svn_cancel_func_t cancel_func;
  void *cancel_baton;
} recover_baton_t;

/* The youngest revision whose file exists, scanning up from the first
   unpacked one (everything below it is in packs). */
static svn_error_t *
find_youngest(svn_revnum_t *youngest, recover_baton_t *b, apr_pool_t *pool)
{
  svn_fs_t *fs = b->fs;
  apr_pool_t *iterpool = svn_pool_create(pool);
  svn_revnum_t rev = SVN_FS_FS__DATA(fs)->min_unpacked_rev;

  for (;; rev++)
    {
      svn_node_kind_t kind;

      svn_pool_clear(iterpool);
      if (b->cancel_func && rev % 1000 == 0)
        SVN_ERR(b->cancel_func(b->cancel_baton));
      SVN_ERR(svn_io_check_path(svn_fs_fs__path_rev(fs, rev, iterpool),
                                &kind, iterpool));
      if (kind != svn_node_file)
        break;
    }
  svn_pool_destroy(iterpool);
  if (rev == 0)
    return svn_fs_fs__corrupt("CURRENT-2", NULL,
                              "No revision files found, not even r0");
  *youngest = rev - 1;
  return SVN_NO_ERROR;
}

/* Read the root node-revision of REV through the nodes layer. */
static svn_error_t *
check_root(svn_fs_t *fs, svn_revnum_t rev, apr_pool_t *pool)
{
  svn_fs_fs__noderev_t *root;

  /* Let the revision count as existing while db/current is unusable. */
  SVN_FS_FS__DATA(fs)->youngest_rev_cache = rev;
  SVN_ERR(svn_fs_fs__node_at_path(&root, fs, rev, "/", pool, pool));
  if (root == NULL || root->kind != svn_node_dir)
    return svn_fs_fs__corrupt("CURRENT-2", NULL,
                              "Root of r%ld is not a directory", rev);
  return SVN_NO_ERROR;
}

/* An unpacked youngest revision needs its revprops file: revprops are
   written after the rev file, so a missing one means more is lost than
   db/current, and recovery stops rather than publish the revision
   (CURRENT-2; stock refuses the same way).  Packed revisions were
   complete when they were packed. */
static svn_error_t *
check_revprops(svn_fs_t *fs, svn_revnum_t rev, apr_pool_t *pool)
{
  svn_node_kind_t kind;

  if (rev < SVN_FS_FS__DATA(fs)->min_unpacked_rev)
    return SVN_NO_ERROR;
  SVN_ERR(svn_io_check_path(svn_fs_fs__path_revprops(fs, rev, pool), &kind,
                            pool));
  if (kind == svn_node_none)
    return svn_fs_fs__corrupt("CURRENT-2", NULL,
                              "Revision %ld has a revs file but no "
                              "revprops file", rev);
  if (kind != svn_node_file)
    return svn_fs_fs__corrupt("CURRENT-2", NULL,
                              "Revision %ld has a non-file where its "
                              "revprops file should be", rev);
  return SVN_NO_ERROR;
}

/* The revision db/current names, or SVN_INVALID_REVNUM if it is missing
   or unreadable. */
static svn_revnum_t
old_current(svn_fs_t *fs, apr_pool_t *pool)
{
  svn_stringbuf_t *text;
  svn_error_t *err = svn_stringbuf_from_file2(
                       &text, svn_fs_fs__path_db(fs, "current", pool), pool);
  apr_int64_t value;

  if (err)
    {
      svn_error_clear(err);
      return SVN_INVALID_REVNUM;
    }
  svn_stringbuf_strip_whitespace(text);
  err = svn_cstring_atoi64(&value, text->data);
  if (err || value < 0)
    {
      svn_error_clear(err);
      return SVN_INVALID_REVNUM;
    }
  return (svn_revnum_t)value;
}

static svn_error_t *
recover_locked(void *baton, apr_pool_t *pool)
{
  recover_baton_t *b = baton;
  svn_fs_t *fs = b->fs;
  svn_revnum_t youngest = 0, current;
  const char *path = svn_fs_fs__path_db(fs, "current", pool);
  const char *text;

  SVN_ERR(find_youngest(&youngest, b, pool));
  SVN_ERR(check_root(fs, youngest, pool));
  current = old_current(fs, pool);
  if (SVN_IS_VALID_REVNUM(current) && current > youngest)
    return svn_error_createf(SVN_ERR_FS_CORRUPT, NULL,
                             "Expected current rev to be <= %ld "
                             "but found %ld", youngest, current);
  SVN_ERR(check_revprops(fs, youngest, pool));
  SVN_ERR(svn_fs_fs__rep_cache_prune(fs->path, youngest, pool));
  text = apr_psprintf(pool, "%ld\n", youngest);
  return svn_error_trace(svn_io_write_atomic2(path, text, strlen(text),
                                              NULL, TRUE, pool));
}

svn_error_t *
svn_fs_fs__recover(svn_fs_t *fs, svn_cancel_func_t cancel_func,
                   void *cancel_baton, apr_pool_t *scratch_pool)
{
  recover_baton_t b;

  b.fs = fs;
  b.cancel_func = cancel_func;
  b.cancel_baton = cancel_baton;
  return svn_error_trace(svn_fs_fs__with_all_locks(fs, recover_locked, &b,
                                                   scratch_pool));
}
