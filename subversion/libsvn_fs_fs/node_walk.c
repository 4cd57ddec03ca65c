/* node_walk.c --- finding the node-revision at a path of a committed
 * revision (node_walk.h).
 *
 *   svn_fs_fs__node_at_path(rev, "/a/b")
 *     svn_fs_fs__rev_root_id   -> root id        (node.c, cached)
 *     for "a", "b":
 *       svn_fs_fs__get_noderev -> directory      (node.c, cached)
 *       svn_fs_fs__dir_entry   -> entry's id     (node.c, dir cache)
 *     svn_fs_fs__get_noderev   -> the result, in the caller's pool
 *
 * Intermediate node-revisions live in an iterpool; only the last one is
 * read again into the result pool (a cache hit), so deep paths cost no
 * more memory than shallow ones.
 */
#include <string.h>
#include <apr_strings.h>

#include "svn_pools.h"

#include "node.h"
#include "node_walk.h"

/* The next component of *PATH (skipping "/"s) in POOL, advancing *PATH
   past it; NULL at the end. */
static const char *
next_component(const char **path, apr_pool_t *pool)
{
  const char *start = *path, *end;

  while (*start == '/')
    start++;
  if (*start == '\0')
    return NULL;
  end = strchr(start, '/');
  if (end == NULL)
    end = start + strlen(start);
  *path = end;
  return apr_pstrndup(pool, start, end - start);
}

/* *CHILD_ID = the id of entry NAME of the node-revision with DIR_ID, or
   NULL if that is no directory or has no such entry. */
static svn_error_t *
child_id(const svn_fs_fs__id_t **child_id_p, svn_fs_t *fs,
         const svn_fs_fs__id_t *dir_id, const char *name,
         apr_pool_t *result_pool, apr_pool_t *scratch_pool)
{
  svn_fs_fs__noderev_t *dir;
  svn_fs_dirent_t *dirent;

  *child_id_p = NULL;
  SVN_ERR(svn_fs_fs__get_noderev(&dir, fs, dir_id, scratch_pool,
                                 scratch_pool));
  if (dir->kind != svn_node_dir)
    return SVN_NO_ERROR;
  SVN_ERR(svn_fs_fs__dir_entry(&dirent, fs, dir, name, result_pool,
                               scratch_pool));
  if (dirent)
    *child_id_p = (const svn_fs_fs__id_t *)dirent->id;
  return SVN_NO_ERROR;
}

svn_error_t *
svn_fs_fs__node_at_path(svn_fs_fs__noderev_t **noderev, svn_fs_t *fs,
                        svn_revnum_t rev, const char *path,
                        apr_pool_t *result_pool, apr_pool_t *scratch_pool)
{
  apr_pool_t *pools[2];
  const svn_fs_fs__id_t *id;
  const char *name;
  int turn = 0;

  /* Each step's id must outlive the pool of the step that follows, so
     two iterpools take turns. */
  pools[0] = svn_pool_create(scratch_pool);
  pools[1] = svn_pool_create(scratch_pool);
  *noderev = NULL;
  SVN_ERR(svn_fs_fs__rev_root_id(&id, fs, rev, pools[turn], pools[turn]));
  while (id != NULL && (name = next_component(&path, scratch_pool)) != NULL)
    {
      turn = !turn;
      svn_pool_clear(pools[turn]);
      SVN_ERR(child_id(&id, fs, id, name, pools[turn], pools[turn]));
    }
  if (id != NULL)
    SVN_ERR(svn_fs_fs__get_noderev(noderev, fs, id, result_pool,
                                   scratch_pool));
  svn_pool_destroy(pools[0]);
  svn_pool_destroy(pools[1]);
  return SVN_NO_ERROR;
}
