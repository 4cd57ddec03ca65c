/* history.c --- node history and copy tracing (semantics layer).
 *
 * Owns: the history vtable (svn_fs_history_prev / _location), the root
 * vtable's node_history and closest_copy.  Histories are reconstructed
 * from node-revs alone: the predecessor links give the changes of one
 * line of history, the copy-root fields of the nodes on a path tell
 * where a copy moved that line.  The sequence of locations reported is
 * the stock module's exactly, since svn log, svnlook history, blame and
 * the repos layer's location tracing are built on it.
 * Rules: doc/format/tree.md (TREE-4).
 */
#include <string.h>
#include <apr_strings.h>

#include "svn_pools.h"
/* svn_fs_util.h's error macros expect gettext's _(); our messages are
   not translated. */
#ifndef _
#define _(text) (text)
#endif
#include "private/svn_fs_util.h"
#include "private/svn_fspath.h"

#include "corrupt.h"
#include "history.h"
#include "id.h"
#include "lookup.h"
#include "node.h"
#include "tree.h"

/* svn_fs_history_t->fsap_data.  A history object names a location
   (PATH, REVISION).  INTERESTING says whether that location is one the
   caller should see (otherwise it is an intermediate state of the walk).
   When the location is the destination of a copy, HINT_PATH@HINT_REV is
   where the line of history continues if the caller crosses copies. */
typedef struct history_data_t
{
  svn_fs_t *fs;
  const char *path;
  svn_revnum_t revision;
  svn_boolean_t interesting;
  const char *hint_path;
  svn_revnum_t hint_rev;
} history_data_t;

static const history_vtable_t history_vtable;

/* A history object in POOL. */
static svn_fs_history_t *
make_history(svn_fs_t *fs, const char *path, svn_revnum_t revision,
             svn_boolean_t interesting, const char *hint_path,
             svn_revnum_t hint_rev, apr_pool_t *pool)
{
  svn_fs_history_t *history = apr_pcalloc(pool, sizeof(*history));
  history_data_t *hd = apr_pcalloc(pool, sizeof(*hd));

  hd->fs = fs;
  hd->path = apr_pstrdup(pool, path);
  hd->revision = revision;
  hd->interesting = interesting;
  hd->hint_path = hint_path ? apr_pstrdup(pool, hint_path) : NULL;
  hd->hint_rev = hint_rev;
  history->vtable = &history_vtable;
  history->fsap_data = hd;
  return history;
}

void
svn_fs_fs__youngest_copyroot(svn_revnum_t *rev_p, const char **path_p,
                             const svn_fs_fs__path_step_t *leaf)
{
  const svn_fs_fs__path_step_t *step;

  /* Walking up, a node's copy root replaces the best so far only when it
     is strictly younger: of two copies made in one revision, one nested
     in the other, the deeper is the one that placed the leaf (a directory
     copied into a directory copied in the same transaction). */
  *rev_p = leaf->noderev->copyroot_rev;
  *path_p = leaf->noderev->copyroot_path;
  for (step = leaf->parent; step; step = step->parent)
    if (step->noderev->copyroot_rev > *rev_p)
      {
        *rev_p = step->noderev->copyroot_rev;
        *path_p = step->noderev->copyroot_path;
      }
}

/* If the copy root COPYROOT_PATH@COPYROOT_REV is a copy whose
   destination is PATH or an ancestor of it, set *SRC_PATH / *SRC_REV to
   where PATH came from; otherwise leave them NULL / invalid. */
static svn_error_t *
copy_source_of(const char **src_path, svn_revnum_t *src_rev, svn_fs_t *fs,
               const char *path, svn_revnum_t copyroot_rev,
               const char *copyroot_path, apr_pool_t *result_pool,
               apr_pool_t *scratch_pool)
{
  svn_fs_root_t *copy_root;
  const svn_fs_fs__noderev_t *copy_node;
  const char *remainder;

  *src_path = NULL;
  *src_rev = SVN_INVALID_REVNUM;
  SVN_ERR(svn_fs_fs__revision_root(&copy_root, fs, copyroot_rev,
                                   scratch_pool));
  SVN_ERR(svn_fs_fs__root_lookup(&copy_node, copy_root, copyroot_path,
                                 scratch_pool));
  remainder = svn_fspath__skip_ancestor(copy_node->created_path, path);
  if (remainder && copy_node->copyfrom_path
      && SVN_IS_VALID_REVNUM(copy_node->copyfrom_rev))
    {
      if (copy_node->copyfrom_rev >= copyroot_rev)
        return svn_fs_fs__corrupt("TREE-4", copyroot_path,
                                  "Copy in r%ld from younger r%ld",
                                  copyroot_rev, copy_node->copyfrom_rev);
      *src_path = svn_fspath__join(copy_node->copyfrom_path, remainder,
                                   result_pool);
      *src_rev = copy_node->copyfrom_rev;
    }
  return SVN_NO_ERROR;
}

/* Where NODE's predecessor was created (NODE, at PATH, was created in
   REVISION).  Going back in time must terminate even on damaged data,
   so the predecessor must be older (TREE-3). */
static svn_error_t *
predecessor_location(const char **commit_path, svn_revnum_t *commit_rev,
                     svn_fs_t *fs, const svn_fs_fs__noderev_t *node,
                     const char *path, svn_revnum_t revision,
                     apr_pool_t *pool)
{
  svn_fs_fs__noderev_t *pred;

  SVN_ERR(svn_fs_fs__get_noderev(&pred, fs, node->predecessor_id, pool,
                                 pool));
  *commit_path = pred->created_path;
  *commit_rev = svn_fs_fs__id_rev(pred->id);
  if (*commit_rev >= revision)
    return svn_fs_fs__corrupt("TREE-3", path,
                              "Predecessor in r%ld is not older than r%ld",
                              *commit_rev, revision);
  return SVN_NO_ERROR;
}

/* One step back from HD.  The result may be an uninteresting
   intermediate location; *PREV is NULL when the line of history ends
   (or continues only across a copy and CROSS_COPIES is FALSE). */
static svn_error_t *
history_step(svn_fs_history_t **prev, const history_data_t *hd,
             svn_boolean_t cross_copies, apr_pool_t *result_pool,
             apr_pool_t *scratch_pool)
{
  const char *path = hd->path, *commit_path, *src_path, *copyroot_path;
  svn_revnum_t revision = hd->revision, commit_rev, src_rev, copyroot_rev;
  svn_boolean_t reported = hd->interesting;
  svn_fs_root_t *root;
  svn_fs_fs__path_step_t *leaf;
  const svn_fs_fs__noderev_t *node;

  /* After reporting a copy destination, continue from its source. */
  if (hd->hint_path && SVN_IS_VALID_REVNUM(hd->hint_rev))
    {
      *prev = NULL;
      if (!cross_copies)
        return SVN_NO_ERROR;
      reported = FALSE;
      path = hd->hint_path;
      revision = hd->hint_rev;
    }
  SVN_ERR(svn_fs_fs__revision_root(&root, hd->fs, revision, scratch_pool));
  SVN_ERR(svn_fs_fs__root_walk(&leaf, root, path, scratch_pool,
                               scratch_pool));
  node = leaf->noderev;
  commit_path = node->created_path;
  commit_rev = svn_fs_fs__id_rev(node->id);

  /* A line of history has at most one interesting point per revision:
     once REVISION is reported, move on to the predecessor. */
  if (revision == commit_rev)
    {
      if (!reported)
        {
          *prev = make_history(hd->fs, commit_path, commit_rev, TRUE, NULL,
                               SVN_INVALID_REVNUM, result_pool);
          return SVN_NO_ERROR;
        }
      *prev = NULL;
      if (!node->predecessor_id)
        return SVN_NO_ERROR;
      SVN_ERR(predecessor_location(&commit_path, &commit_rev, hd->fs, node,
                                   path, revision, scratch_pool));
    }

  /* A copy younger than that change moved the line to PATH. */
  svn_fs_fs__youngest_copyroot(&copyroot_rev, &copyroot_path, leaf);
  src_path = NULL;
  src_rev = SVN_INVALID_REVNUM;
  if (copyroot_rev > commit_rev)
    SVN_ERR(copy_source_of(&src_path, &src_rev, hd->fs, path, copyroot_rev,
                           copyroot_path, scratch_pool, scratch_pool));
  if (src_path)
    {
      /* The copy may be the very location we just reported. */
      svn_boolean_t again = (copyroot_rev == revision && reported);

      *prev = make_history(hd->fs, path, copyroot_rev, !again, src_path,
                           src_rev, result_pool);
    }
  else
    *prev = make_history(hd->fs, commit_path, commit_rev, TRUE, NULL,
                         SVN_INVALID_REVNUM, result_pool);
  return SVN_NO_ERROR;
}

/* History vtable prev.  The root directory changes in every revision,
   so its history is simply every revision down to 0. */
static svn_error_t *
history_prev(svn_fs_history_t **prev_history_p, svn_fs_history_t *history,
             svn_boolean_t cross_copies, apr_pool_t *result_pool,
             apr_pool_t *scratch_pool)
{
  const history_data_t *hd = history->fsap_data;
  svn_fs_history_t *prev = history;
  apr_pool_t *iterpool;

  if (strcmp(hd->path, "/") == 0)
    {
      *prev_history_p = NULL;
      if (!hd->interesting)
        *prev_history_p = make_history(hd->fs, "/", hd->revision, TRUE, NULL,
                                       SVN_INVALID_REVNUM, result_pool);
      else if (hd->revision > 0)
        *prev_history_p = make_history(hd->fs, "/", hd->revision - 1, TRUE,
                                       NULL, SVN_INVALID_REVNUM,
                                       result_pool);
      return SVN_NO_ERROR;
    }

  iterpool = svn_pool_create(scratch_pool);
  do
    {
      svn_pool_clear(iterpool);
      SVN_ERR(history_step(&prev, prev->fsap_data, cross_copies,
                           result_pool, iterpool));
    }
  while (prev && !((history_data_t *)prev->fsap_data)->interesting);
  svn_pool_destroy(iterpool);
  *prev_history_p = prev;
  return SVN_NO_ERROR;
}

static svn_error_t *
history_location(const char **path, svn_revnum_t *revision,
                 svn_fs_history_t *history, apr_pool_t *pool)
{
  const history_data_t *hd = history->fsap_data;

  *path = apr_pstrdup(pool, hd->path);
  *revision = hd->revision;
  return SVN_NO_ERROR;
}

static const history_vtable_t history_vtable = {
  history_prev,
  history_location
};

svn_error_t *
svn_fs_fs__node_history(svn_fs_history_t **history_p, svn_fs_root_t *root,
                        const char *path, apr_pool_t *result_pool,
                        apr_pool_t *scratch_pool)
{
  const svn_fs_fs__noderev_t *noderev;

  if (root->is_txn_root)
    return svn_error_create(SVN_ERR_FS_NOT_REVISION_ROOT, NULL, NULL);
  SVN_ERR(svn_fs_fs__root_lookup_maybe(&noderev, root, path, scratch_pool));
  if (!noderev)
    return SVN_FS__NOT_FOUND(root, path);
  *history_p = make_history(root->fs,
                            svn_fs__canonicalize_abspath(path, scratch_pool),
                            root->rev, FALSE, NULL, SVN_INVALID_REVNUM,
                            result_pool);
  return SVN_NO_ERROR;
}

/* The node at the copy destination must be PATH's own line of history,
   and must really come from the copy: a node added under a freshly
   copied directory in the same revision shares the copy root but was not
   copied itself. */
svn_error_t *
svn_fs_fs__closest_copy(svn_fs_root_t **root_p, const char **path_p,
                        svn_fs_root_t *root, const char *path,
                        apr_pool_t *pool)
{
  svn_fs_fs__path_step_t *leaf;
  svn_revnum_t copy_rev;
  const char *copy_path;
  svn_fs_root_t *copy_root;
  const svn_fs_fs__noderev_t *copy_node;
  apr_pool_t *scratch_pool = svn_pool_create(pool);

  *root_p = NULL;
  *path_p = NULL;
  SVN_ERR(svn_fs_fs__root_walk(&leaf, root, path, scratch_pool,
                               scratch_pool));
  svn_fs_fs__youngest_copyroot(&copy_rev, &copy_path, leaf);
  if (SVN_IS_VALID_REVNUM(copy_rev) && copy_rev > 0)
    {
      SVN_ERR(svn_fs_fs__revision_root(&copy_root, root->fs, copy_rev,
                                       pool));
      SVN_ERR(svn_fs_fs__root_lookup_maybe(&copy_node, copy_root, path,
                                           scratch_pool));
      if (copy_node
          && svn_fs_fs__id_check_related(copy_node->id, leaf->noderev->id)
          && (svn_fs_fs__id_rev(copy_node->id) != copy_rev
              || copy_node->predecessor_id))
        {
          *root_p = copy_root;
          *path_p = apr_pstrdup(pool, copy_path);
        }
      else
        svn_pool_destroy(copy_root->pool);
    }
  svn_pool_destroy(scratch_pool);
  return SVN_NO_ERROR;
}
