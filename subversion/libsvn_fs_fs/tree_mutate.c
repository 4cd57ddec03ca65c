/* tree_mutate.c --- changing the tree of a transaction (semantics layer;
 * see tree_mutate.h, rules TREE-8 .. TREE-11 of doc/format/tree.md).
 *
 * Every write entry follows the same three steps, in this order, so that
 * a refused operation leaves the transaction untouched:
 *
 *   1. walk     look the path up from the transaction's root node-rev
 *               (node.0.0), reading every node-rev afresh (transaction
 *               node-revs change under us, so nothing here is cached),
 *               and decide for each committed node on the way which copy
 *               id its clone will carry (TREE-9);
 *   2. clone    make the parent chain mutable top-down: each committed
 *               node becomes a transaction node-rev (TREE-8) and its
 *               parent's entry is pointed at it (txn_store.h);
 *   3. record   change the entry / properties / text and append the
 *               changed-path entry.
 *
 * The node ids the transaction hands out (node.<id>, rep uniquifiers)
 * come from one counter that txn_store.c also draws from when a listing
 * or property list first becomes mutable.  The order of our calls is the
 * stock module's, so that the same operations give the same ids in both.
 *
 * Text: apply_textdelta / apply_text stream the new fulltext into the
 * proto-revision file, which is opened (and so locked against other
 * writers) at the first window and closed when the text ends.
 */
#include <string.h>
#include <apr_strings.h>

#include "svn_pools.h"
#include "svn_props.h"
#include "svn_hash.h"
#ifndef _
#define _(text) (text)
#endif
#include "private/svn_fs_util.h"
#include "private/svn_fspath.h"
#include "private/svn_utf_private.h"
#include "svn_path.h"

#include "corrupt.h"
#include "deltify.h"
#include "id.h"
#include "locks_read.h"
#include "lookup.h"
#include "node.h"
#include "rep_cache.h"
#include "rep_read.h"
#include "rep_write.h"
#include "tree.h"
#include "tree_mutate.h"
#include "txn.h"
#include "txn_store.h"

/* ------------------------------------------------------------------ */
/* Walking a transaction's tree                                        */

/* Which copy id a committed node gets when it is cloned (TREE-9). */
typedef enum inherit_t
{
  INHERIT_SELF,     /* keep its own copy id and copy root */
  INHERIT_PARENT,   /* take the parent's copy id and copy root */
  INHERIT_NEW       /* a fresh copy id, its own copy root */
} inherit_t;

/* One node of a walked path, root first in the PARENT direction. */
typedef struct step_t
{
  /* Current node-rev (committed until cloned), NULL for a missing last
     component; owned by the walk's pool. */
  svn_fs_fs__noderev_t *noderev;
  const char *path;              /* canonical absolute path */
  const char *name;              /* entry name, "" for the root */
  inherit_t inherit;
  struct step_t *parent;
} step_t;

/* The transaction of ROOT, which must be a transaction root. */
static svn_error_t *
check_txn_root(svn_fs_root_t *root)
{
  if (!root->is_txn_root)
    return SVN_FS__NOT_TXN(root);
  return SVN_NO_ERROR;
}

/* Read the root node-rev (node.0.0) of ROOT's transaction. */
static svn_error_t *
read_txn_root(svn_fs_fs__noderev_t **noderev, svn_fs_root_t *root,
              apr_pool_t *result_pool, apr_pool_t *scratch_pool)
{
  static const svn_fs_fs__id_part_t zero = { 0, 0 };
  const svn_fs_fs__id_t *id
    = svn_fs_fs__id_create_txn(&zero, &zero, svn_fs_fs__root_txn_id(root),
                               scratch_pool);

  return svn_error_trace(svn_fs_fs__get_noderev(noderev, root->fs, id,
                                                result_pool, scratch_pool));
}

/* TRUE if copy id parts A and B are equal. */
static svn_boolean_t
part_eq(const svn_fs_fs__id_part_t *a, const svn_fs_fs__id_part_t *b)
{
  return a->revision == b->revision && a->number == b->number;
}

/* Is the node at CHILD's copy root (a committed location) the same node
   as CHILD?  When it is not, CHILD was not itself copied there and only
   lies below that copy. */
static svn_error_t *
copy_root_related(svn_boolean_t *related, svn_fs_t *fs,
                  const svn_fs_fs__noderev_t *child, apr_pool_t *scratch_pool)
{
  svn_fs_root_t *rev_root;
  const svn_fs_fs__noderev_t *at_root;

  if (child->copyroot_rev == svn_fs_fs__id_rev(child->id)
      && strcmp(child->copyroot_path, child->created_path) == 0)
    {
      *related = TRUE;
      return SVN_NO_ERROR;
    }
  SVN_ERR(svn_fs_fs__revision_root(&rev_root, fs, child->copyroot_rev,
                                   scratch_pool));
  SVN_ERR(svn_fs_fs__root_lookup(&at_root, rev_root, child->copyroot_path,
                                 scratch_pool));
  *related = svn_fs_fs__id_check_related(at_root->id, child->id);
  return SVN_NO_ERROR;
}

/* TREE-9: how CHILD (reached at CHILD_PATH below PARENT) inherits its
   copy id when it is cloned. */
static svn_error_t *
choose_inherit(inherit_t *inherit, svn_fs_t *fs,
               const svn_fs_fs__noderev_t *child, const char *child_path,
               const svn_fs_fs__noderev_t *parent, apr_pool_t *scratch_pool)
{
  static const svn_fs_fs__id_part_t zero = { 0, 0 };
  svn_boolean_t related;

  *inherit = INHERIT_SELF;
  if (svn_fs_fs__id_is_txn(child->id))
    return SVN_NO_ERROR;
  *inherit = INHERIT_PARENT;
  if (part_eq(&child->id->copy_id, &zero)
      || part_eq(&child->id->copy_id, &parent->id->copy_id))
    return SVN_NO_ERROR;
  SVN_ERR(copy_root_related(&related, fs, child, scratch_pool));
  if (!related)
    return SVN_NO_ERROR;
  *inherit = strcmp(child->created_path, child_path) == 0 ? INHERIT_SELF
                                                          : INHERIT_NEW;
  return SVN_NO_ERROR;
}

/* The error stock gives when the component at FILE_PATH is not a
   directory. */
static svn_error_t *
not_a_directory(svn_fs_root_t *root, const char *file_path)
{
  return svn_error_createf(SVN_ERR_FS_NOT_DIRECTORY,
                           SVN_FS__ERR_NOT_DIRECTORY(root->fs, file_path),
                           "Failure opening '%s' in transaction '%s'",
                           file_path, root->txn);
}

/* A step for entry NAME below PARENT (whose path is PARENT->path). */
static step_t *
new_step(step_t *parent, const char *name, apr_pool_t *pool)
{
  step_t *step = apr_pcalloc(pool, sizeof(*step));

  step->parent = parent;
  step->name = apr_pstrdup(pool, name);
  step->path = parent ? svn_fspath__join(parent->path, name, pool) : "/";
  return step;
}

/* Descend from STEP's directory into entry NAME, filling the new step's
   node-rev (NULL when missing) and inheritance. */
static svn_error_t *
descend(step_t **child, svn_fs_root_t *root, step_t *step, const char *name,
        apr_pool_t *pool, apr_pool_t *scratch_pool)
{
  svn_fs_dirent_t *dirent;
  step_t *next = new_step(step, name, pool);

  if (step->noderev->kind != svn_node_dir)
    return not_a_directory(root, step->path);
  SVN_ERR(svn_fs_fs__dir_entry(&dirent, root->fs, step->noderev, name,
                               scratch_pool, scratch_pool));
  if (dirent)
    {
      SVN_ERR(svn_fs_fs__get_noderev(&next->noderev, root->fs,
                                     SVN_FS_FS__ID(dirent->id), pool,
                                     scratch_pool));
      SVN_ERR(choose_inherit(&next->inherit, root->fs, next->noderev,
                             next->path, step->noderev, scratch_pool));
    }
  *child = next;
  return SVN_NO_ERROR;
}

/* Walk PATH (any form) in transaction root ROOT and return its last step
   in *LEAF (POOL).  Every component but the last must exist; the last
   must too unless LAST_OPTIONAL, in which case its node-rev may be NULL.
   Errors name PATH as stock does. */
static svn_error_t *
walk(step_t **leaf, svn_fs_root_t *root, const char *path,
     svn_boolean_t last_optional, apr_pool_t *pool,
     apr_pool_t *scratch_pool)
{
  const char *canon = svn_fs__canonicalize_abspath(path, pool);
  apr_array_header_t *names = svn_cstring_split(canon, "/", FALSE,
                                                scratch_pool);
  apr_pool_t *iterpool = svn_pool_create(scratch_pool);
  step_t *step = new_step(NULL, "", pool);
  int i;

  SVN_ERR(read_txn_root(&step->noderev, root, pool, scratch_pool));
  for (i = 0; i < names->nelts; i++)
    {
      svn_pool_clear(iterpool);
      SVN_ERR(descend(&step, root, step, APR_ARRAY_IDX(names, i, char *),
                      pool, iterpool));
      if (!step->noderev && !(last_optional && i == names->nelts - 1))
        return SVN_FS__NOT_FOUND(root, canon);
    }
  svn_pool_destroy(iterpool);
  *leaf = step;
  return SVN_NO_ERROR;
}

/* ------------------------------------------------------------------ */
/* Copy-on-write                                                       */

/* TREE-8: the transaction clone of committed STEP->noderev, whose parent
   step is already mutable. */
static svn_error_t *
clone_step(step_t *step, svn_fs_root_t *root, apr_pool_t *pool,
           apr_pool_t *scratch_pool)
{
  const svn_fs_fs__txn_id_t *txn_id = svn_fs_fs__root_txn_id(root);
  const svn_fs_fs__noderev_t *old = step->noderev;
  const svn_fs_fs__noderev_t *parent = step->parent->noderev;
  svn_fs_fs__noderev_t *clone = apr_pmemdup(pool, old, sizeof(*old));
  svn_fs_fs__id_part_t copy_id = old->id->copy_id;

  if (step->inherit == INHERIT_PARENT)
    {
      copy_id = parent->id->copy_id;
      clone->copyroot_rev = parent->copyroot_rev;
      clone->copyroot_path = apr_pstrdup(pool, parent->copyroot_path);
    }
  else if (step->inherit == INHERIT_NEW)
    SVN_ERR(svn_fs_fs__txn_new_copy_id(&copy_id, root->fs, txn_id,
                                       scratch_pool));
  clone->id = svn_fs_fs__id_create_txn(&old->id->node_id, &copy_id, txn_id,
                                       pool);
  clone->predecessor_id = old->id;
  clone->predecessor_count = old->predecessor_count + 1;
  clone->copyfrom_rev = SVN_INVALID_REVNUM;
  clone->copyfrom_path = NULL;
  clone->created_path = step->path;
  clone->is_fresh_txn_root = FALSE;
  SVN_ERR(svn_fs_fs__txn_put_noderev(root->fs, clone, scratch_pool));
  step->noderev = clone;
  return SVN_NO_ERROR;
}

/* Point entry STEP->name of the (mutable) parent at STEP's node-rev, or
   remove it when ID is NULL.  The parent's node-rev is updated. */
static svn_error_t *
set_parent_entry(step_t *step, svn_fs_root_t *root,
                 const svn_fs_fs__id_t *id, svn_node_kind_t kind,
                 apr_pool_t *scratch_pool)
{
  svn_fs_fs__noderev_t *parent = step->parent->noderev;

  /* Writing the root node-rev ends its "fresh" state, as with stock. */
  parent->is_fresh_txn_root = FALSE;
  return svn_error_trace(svn_fs_fs__txn_set_entry(root->fs, parent,
                                                  step->name, id, kind,
                                                  scratch_pool));
}

/* Make every node from the root down to STEP mutable (STEP must exist). */
static svn_error_t *
make_steps_mutable(step_t *step, svn_fs_root_t *root, apr_pool_t *pool,
                   apr_pool_t *scratch_pool)
{
  apr_array_header_t *chain = apr_array_make(scratch_pool, 16,
                                             sizeof(step_t *));
  apr_pool_t *iterpool = svn_pool_create(scratch_pool);
  int i;

  for (; step && !svn_fs_fs__id_is_txn(step->noderev->id);
       step = step->parent)
    APR_ARRAY_PUSH(chain, step_t *) = step;
  for (i = chain->nelts - 1; i >= 0; i--)
    {
      step_t *s = APR_ARRAY_IDX(chain, i, step_t *);

      svn_pool_clear(iterpool);
      SVN_ERR(clone_step(s, root, pool, iterpool));
      SVN_ERR(set_parent_entry(s, root, s->noderev->id, s->noderev->kind,
                               iterpool));
    }
  svn_pool_destroy(iterpool);
  return SVN_NO_ERROR;
}

svn_error_t *
svn_fs_fs__make_path_mutable(svn_fs_fs__noderev_t **noderev,
                             svn_fs_root_t *root, const char *path,
                             apr_pool_t *result_pool,
                             apr_pool_t *scratch_pool)
{
  step_t *leaf;

  SVN_ERR(check_txn_root(root));
  SVN_ERR(walk(&leaf, root, path, FALSE, result_pool, scratch_pool));
  SVN_ERR(make_steps_mutable(leaf, root, result_pool, scratch_pool));
  *noderev = leaf->noderev;
  return SVN_NO_ERROR;
}

/* ------------------------------------------------------------------ */
/* Bookkeeping shared by the write entries                             */

/* Append a changed-path entry for PATH (node NODEREV) to ROOT's txn. */
static svn_error_t *
record_change(svn_fs_root_t *root, const char *path,
              const svn_fs_fs__id_t *id, svn_node_kind_t kind,
              svn_fs_path_change_kind_t change_kind, svn_boolean_t text_mod,
              svn_boolean_t prop_mod, svn_boolean_t mergeinfo_mod,
              svn_revnum_t copyfrom_rev, const char *copyfrom_path,
              apr_pool_t *scratch_pool)
{
  svn_fs_fs__change_t change = {
    .path = { path, strlen(path) },
    .noderev_id = id,
    .change_kind = change_kind,
    .node_kind = kind,
    .text_mod = text_mod,
    .prop_mod = prop_mod,
    /* Formats before 7 have no mergeinfo-mod field (TREE-11). */
    .mergeinfo_mod = SVN_FS_FS__DATA(root->fs)->format < 7
                     ? svn_tristate_unknown
                     : (mergeinfo_mod ? svn_tristate_true : svn_tristate_false),
    .copyfrom_known = TRUE,
    .copyfrom_rev = copyfrom_rev,
    .copyfrom_path = copyfrom_path,
  };

  return svn_error_trace(svn_fs_fs__txn_add_change(
                           root->fs, svn_fs_fs__root_txn_id(root), &change,
                           scratch_pool));
}

/* Add DELTA to the mergeinfo counts of STEP and all its ancestors (all
   mutable) and write them (TREE-6). */
static svn_error_t *
adjust_mergeinfo_up(step_t *step, svn_fs_t *fs, apr_int64_t delta,
                    apr_pool_t *scratch_pool)
{
  apr_pool_t *iterpool = svn_pool_create(scratch_pool);

  for (; step && delta; step = step->parent)
    {
      svn_fs_fs__noderev_t *nr = step->noderev;

      svn_pool_clear(iterpool);
      nr->mergeinfo_count += delta;
      if (nr->mergeinfo_count < 0
          || (nr->kind == svn_node_file && nr->mergeinfo_count > 1))
        return svn_fs_fs__corrupt("TREE-6", step->path,
                                  "Mergeinfo count %" APR_INT64_T_FMT
                                  " out of range", nr->mergeinfo_count);
      nr->is_fresh_txn_root = FALSE;
      SVN_ERR(svn_fs_fs__txn_put_noderev(fs, nr, iterpool));
    }
  svn_pool_destroy(iterpool);
  return SVN_NO_ERROR;
}

/* Remove the node files of NODEREV and of every transaction node below
   it (a subtree being deleted); committed nodes are left alone. */
static svn_error_t *
purge_mutable_tree(svn_fs_t *fs, const svn_fs_fs__noderev_t *noderev,
                   int depth, apr_pool_t *scratch_pool)
{
  apr_array_header_t *entries;
  apr_pool_t *iterpool;
  int i;

  if (!svn_fs_fs__id_is_txn(noderev->id))
    return SVN_NO_ERROR;
  if (depth > SVN_FS_FS__MAX_TREE_DEPTH)
    return svn_fs_fs__corrupt("TREE-2", noderev->created_path,
                              "Directory nesting deeper than %d",
                              SVN_FS_FS__MAX_TREE_DEPTH);
  iterpool = svn_pool_create(scratch_pool);
  if (noderev->kind == svn_node_dir)
    {
      SVN_ERR(svn_fs_fs__dir_entries(&entries, fs, noderev, scratch_pool,
                                     scratch_pool));
      for (i = 0; i < entries->nelts; i++)
        {
          svn_fs_dirent_t *e = APR_ARRAY_IDX(entries, i, svn_fs_dirent_t *);
          svn_fs_fs__noderev_t *child;

          svn_pool_clear(iterpool);
          if (!svn_fs_fs__id_is_txn(SVN_FS_FS__ID(e->id)))
            continue;
          SVN_ERR(svn_fs_fs__get_noderev(&child, fs, SVN_FS_FS__ID(e->id),
                                         iterpool, iterpool));
          SVN_ERR(purge_mutable_tree(fs, child, depth + 1, iterpool));
        }
    }
  svn_pool_destroy(iterpool);
  return svn_error_trace(svn_fs_fs__txn_delete_noderev(fs, noderev->id,
                                                       scratch_pool));
}

/* ------------------------------------------------------------------ */
/* make_dir, make_file, delete                                         */

/* SVN_ERR_FS_PATH_SYNTAX unless PATH may name a new node: UTF-8 without
   "." or ".." components.  libsvn_fs checks this before calling us; we
   check again for callers inside the module. */
static svn_error_t *
check_path_valid(const char *path)
{
  if (!svn_utf__cstring_is_valid(path))
    return svn_error_createf(SVN_ERR_FS_PATH_SYNTAX, NULL,
                             "Path '%s' is not in UTF-8", path);
  if (svn_path_is_backpath_present(path) || svn_path_is_dotpath_present(path))
    return svn_error_createf(SVN_ERR_FS_PATH_SYNTAX, NULL,
                             "Path '%s' contains '.' or '..' element", path);
  return SVN_NO_ERROR;
}

/* With SVN_FS_TXN_CHECK_LOCKS, refuse to change PATH (and, if RECURSE,
   anything below it) when it is locked by someone else or without a
   token in the access context -- at the change itself, as stock does, so
   that clients learn it before they send the whole commit. */
static svn_error_t *
check_locks(svn_fs_root_t *root, const char *path, svn_boolean_t recurse,
            apr_pool_t *pool)
{
  if (!(root->txn_flags & SVN_FS_TXN_CHECK_LOCKS))
    return SVN_NO_ERROR;
  return svn_error_trace(svn_fs_fs__allow_locked_operation(root->fs, path,
                                                           recurse, pool));
}

/* TREE-10: a new, empty node of KIND at PATH. */
static svn_error_t *
make_node(svn_fs_root_t *root, const char *path, svn_node_kind_t kind,
          apr_pool_t *pool)
{
  apr_pool_t *scratch_pool = svn_pool_create(pool);
  step_t *leaf;
  svn_fs_fs__noderev_t *nr, *parent;
  svn_fs_fs__id_part_t node_id;

  SVN_ERR(check_txn_root(root));
  SVN_ERR(check_path_valid(path));
  SVN_ERR(walk(&leaf, root, path, TRUE, scratch_pool, scratch_pool));
  if (leaf->noderev)
    return SVN_FS__ALREADY_EXISTS(root, leaf->path);
  SVN_ERR(check_locks(root, leaf->path, FALSE, scratch_pool));
  SVN_ERR(make_steps_mutable(leaf->parent, root, scratch_pool,
                             scratch_pool));
  parent = leaf->parent->noderev;
  SVN_ERR(svn_fs_fs__txn_new_node_id(&node_id, root->fs,
                                     svn_fs_fs__root_txn_id(root),
                                     scratch_pool));
  nr = apr_pcalloc(scratch_pool, sizeof(*nr));
  nr->id = svn_fs_fs__id_create_txn(&node_id, &parent->id->copy_id,
                                    svn_fs_fs__root_txn_id(root),
                                    scratch_pool);
  nr->kind = kind;
  nr->copyfrom_rev = SVN_INVALID_REVNUM;
  nr->copyroot_rev = parent->copyroot_rev;
  nr->copyroot_path = parent->copyroot_path;
  nr->created_path = leaf->path;
  SVN_ERR(svn_fs_fs__txn_put_noderev(root->fs, nr, scratch_pool));
  SVN_ERR(set_parent_entry(leaf, root, nr->id, kind, scratch_pool));
  /* Stock records a new file as text-modified, a new directory not. */
  SVN_ERR(record_change(root, leaf->path, nr->id, kind,
                        svn_fs_path_change_add, kind == svn_node_file,
                        FALSE, FALSE, SVN_INVALID_REVNUM, NULL,
                        scratch_pool));
  svn_pool_destroy(scratch_pool);
  return SVN_NO_ERROR;
}

svn_error_t *
svn_fs_fs__txn_make_dir(svn_fs_root_t *root, const char *path,
                        apr_pool_t *pool)
{
  return svn_error_trace(make_node(root, path, svn_node_dir, pool));
}

svn_error_t *
svn_fs_fs__txn_make_file(svn_fs_root_t *root, const char *path,
                         apr_pool_t *pool)
{
  return svn_error_trace(make_node(root, path, svn_node_file, pool));
}

svn_error_t *
svn_fs_fs__txn_delete_node(svn_fs_root_t *root, const char *path,
                           apr_pool_t *pool)
{
  apr_pool_t *scratch_pool = svn_pool_create(pool);
  step_t *leaf;
  const svn_fs_fs__noderev_t *nr;

  SVN_ERR(check_txn_root(root));
  if (strcmp(svn_fs__canonicalize_abspath(path, scratch_pool), "/") == 0)
    return svn_error_create(SVN_ERR_FS_ROOT_DIR, NULL,
                            "The root directory cannot be deleted");
  SVN_ERR(walk(&leaf, root, path, FALSE, scratch_pool, scratch_pool));
  SVN_ERR(check_locks(root, leaf->path, TRUE, scratch_pool));
  SVN_ERR(make_steps_mutable(leaf->parent, root, scratch_pool,
                             scratch_pool));
  nr = leaf->noderev;
  SVN_ERR(purge_mutable_tree(root->fs, nr, 0, scratch_pool));
  SVN_ERR(set_parent_entry(leaf, root, NULL, nr->kind, scratch_pool));
  SVN_ERR(adjust_mergeinfo_up(leaf->parent, root->fs, -nr->mergeinfo_count,
                              scratch_pool));
  SVN_ERR(record_change(root, leaf->path, nr->id, nr->kind,
                        svn_fs_path_change_delete, FALSE, FALSE, FALSE,
                        SVN_INVALID_REVNUM, NULL, scratch_pool));
  svn_pool_destroy(scratch_pool);
  return SVN_NO_ERROR;
}

/* ------------------------------------------------------------------ */
/* copy and revision_link                                              */

/* Refuse copies stock refuses: into a revision root, across
   filesystems, out of a transaction. */
static svn_error_t *
check_copy_roots(svn_fs_root_t *from_root, svn_fs_root_t *to_root)
{
  SVN_ERR(check_txn_root(to_root));
  if (from_root->fs != to_root->fs)
    return svn_error_createf(SVN_ERR_UNSUPPORTED_FEATURE, NULL,
                             "Cannot copy between two different "
                             "filesystems ('%s' and '%s')",
                             from_root->fs->path, to_root->fs->path);
  if (from_root->is_txn_root)
    return svn_error_create(SVN_ERR_UNSUPPORTED_FEATURE, NULL,
                            "Copy from mutable tree not currently "
                            "supported");
  return SVN_NO_ERROR;
}

/* TREE-4 in a transaction: the node-rev a copy with history of FROM
   (FROM_PATH in revision FROM_REV) to TO_PATH creates, written. */
static svn_error_t *
write_copy_noderev(const svn_fs_fs__noderev_t **copy, svn_fs_root_t *root,
                   const svn_fs_fs__noderev_t *from, svn_revnum_t from_rev,
                   const char *from_path, const char *to_path,
                   apr_pool_t *pool)
{
  const svn_fs_fs__txn_id_t *txn_id = svn_fs_fs__root_txn_id(root);
  svn_fs_fs__noderev_t *nr = apr_pmemdup(pool, from, sizeof(*from));
  svn_fs_fs__id_part_t copy_id;

  SVN_ERR(svn_fs_fs__txn_new_copy_id(&copy_id, root->fs, txn_id, pool));
  nr->id = svn_fs_fs__id_create_txn(&from->id->node_id, &copy_id, txn_id,
                                    pool);
  nr->predecessor_id = svn_fs_fs__id_copy(from->id, pool);
  nr->predecessor_count = from->predecessor_count + 1;
  nr->copyfrom_rev = from_rev;
  nr->copyfrom_path = from_path;
  /* The copy is its own copy root; the codec leaves that implicit. */
  nr->copyroot_rev = SVN_INVALID_REVNUM;
  nr->copyroot_path = to_path;
  nr->created_path = to_path;
  nr->is_fresh_txn_root = FALSE;
  SVN_ERR(svn_fs_fs__txn_put_noderev(root->fs, nr, pool));
  *copy = nr;
  return SVN_NO_ERROR;
}

/* Copy FROM_PATH of revision root FROM_ROOT to TO_PATH of transaction
   root TO_ROOT, as a new node-rev with history (PRESERVE_HISTORY) or as
   a link to the very same node-rev. */
static svn_error_t *
copy_node(svn_fs_root_t *from_root, const char *from_path,
          svn_fs_root_t *to_root, const char *to_path,
          svn_boolean_t preserve_history, apr_pool_t *pool)
{
  const svn_fs_fs__noderev_t *from, *copy;
  const svn_fs_fs__noderev_t *old;
  step_t *leaf;

  SVN_ERR(check_copy_roots(from_root, to_root));
  SVN_ERR(check_path_valid(to_path));
  from_path = svn_fs__canonicalize_abspath(from_path, pool);
  SVN_ERR(svn_fs_fs__root_lookup(&from, from_root, from_path, pool));
  from = apr_pmemdup(pool, from, sizeof(*from));
  SVN_ERR(walk(&leaf, to_root, to_path, TRUE, pool, pool));
  if (!leaf->parent)
    return svn_error_create(SVN_ERR_FS_ROOT_DIR, NULL,
                            "The root directory cannot be replaced");
  old = leaf->noderev;
  if (old && svn_fs_fs__id_eq(old->id, from->id))
    return SVN_NO_ERROR;
  SVN_ERR(check_locks(to_root, leaf->path, TRUE, pool));
  SVN_ERR(make_steps_mutable(leaf->parent, to_root, pool, pool));
  copy = from;
  if (preserve_history)
    SVN_ERR(write_copy_noderev(&copy, to_root, from, from_root->rev,
                               from_path, leaf->path, pool));
  SVN_ERR(set_parent_entry(leaf, to_root, copy->id, copy->kind, pool));
  SVN_ERR(adjust_mergeinfo_up(leaf->parent, to_root->fs,
                              from->mergeinfo_count
                              - (old ? old->mergeinfo_count : 0), pool));
  return svn_error_trace(record_change(
           to_root, leaf->path, copy->id, copy->kind,
           old ? svn_fs_path_change_replace : svn_fs_path_change_add,
           FALSE, FALSE, FALSE, from_root->rev, from_path, pool));
}

svn_error_t *
svn_fs_fs__txn_copy(svn_fs_root_t *from_root, const char *from_path,
                    svn_fs_root_t *to_root, const char *to_path,
                    apr_pool_t *pool)
{
  apr_pool_t *scratch_pool = svn_pool_create(pool);

  SVN_ERR(copy_node(from_root, from_path, to_root, to_path, TRUE,
                    scratch_pool));
  svn_pool_destroy(scratch_pool);
  return SVN_NO_ERROR;
}

svn_error_t *
svn_fs_fs__txn_revision_link(svn_fs_root_t *from_root, svn_fs_root_t *to_root,
                             const char *path, apr_pool_t *pool)
{
  apr_pool_t *scratch_pool = svn_pool_create(pool);

  SVN_ERR(copy_node(from_root, path, to_root, path, FALSE, scratch_pool));
  svn_pool_destroy(scratch_pool);
  return SVN_NO_ERROR;
}

/* ------------------------------------------------------------------ */
/* Properties                                                          */

svn_error_t *
svn_fs_fs__txn_change_node_prop(svn_fs_root_t *root, const char *path,
                                const char *name, const svn_string_t *value,
                                apr_pool_t *pool)
{
  apr_pool_t *scratch_pool = svn_pool_create(pool);
  svn_boolean_t is_mergeinfo = strcmp(name, SVN_PROP_MERGEINFO) == 0;
  step_t *leaf;
  svn_fs_fs__noderev_t *nr;
  apr_hash_t *props;

  SVN_ERR(check_txn_root(root));
  SVN_ERR(walk(&leaf, root, path, FALSE, scratch_pool, scratch_pool));
  SVN_ERR(check_locks(root, leaf->path, FALSE, scratch_pool));
  SVN_ERR(make_steps_mutable(leaf, root, scratch_pool, scratch_pool));
  nr = leaf->noderev;
  SVN_ERR(svn_fs_fs__node_proplist(&props, root->fs, nr, scratch_pool,
                                   scratch_pool));
  svn_hash_sets(props, apr_pstrdup(scratch_pool, name),
                value ? svn_string_dup(value, scratch_pool) : NULL);
  nr->is_fresh_txn_root = FALSE;
  SVN_ERR(svn_fs_fs__txn_set_node_props(root->fs, nr, props, scratch_pool));
  /* TREE-5/6: the flag follows the property, the counts follow the
     flag, on the node itself and on every ancestor. */
  if (is_mergeinfo && nr->has_mergeinfo != (value != NULL))
    {
      nr->has_mergeinfo = (value != NULL);
      SVN_ERR(adjust_mergeinfo_up(leaf, root->fs, value ? 1 : -1,
                                  scratch_pool));
    }
  SVN_ERR(record_change(root, leaf->path, nr->id, nr->kind,
                        svn_fs_path_change_modify, FALSE, TRUE, is_mergeinfo,
                        SVN_INVALID_REVNUM, NULL, scratch_pool));
  svn_pool_destroy(scratch_pool);
  return SVN_NO_ERROR;
}

/* ------------------------------------------------------------------ */
/* File contents                                                       */

/* The state of one new text being streamed into the proto-rev file. */
typedef struct text_baton_t
{
  svn_fs_root_t *root;
  const char *path;
  const svn_fs_fs__id_t *node_id;      /* the mutable file's node-rev */
  const svn_fs_fs__rep_t *old_rep;     /* contents before (textdelta) */
  svn_checksum_t *result_checksum;     /* may be NULL */

  /* Set from the first window (or write) until the text ends. */
  svn_fs_fs__protorev_t *protorev;
  svn_fs_fs__protorev_rep_t *rep_writer;
  svn_stream_t *target;
  svn_txdelta_window_handler_t apply_handler;
  void *apply_baton;

  apr_pool_t *pool;                    /* everything above */
} text_baton_t;

/* An MD5 checksum object holding DIGEST. */
static svn_checksum_t *
md5_checksum(const unsigned char *digest, apr_pool_t *pool)
{
  svn_checksum_t *md5 = svn_checksum_create(svn_checksum_md5, pool);

  memcpy((unsigned char *)md5->digest, digest, APR_MD5_DIGESTSIZE);
  return md5;
}

/* The MD5 of the current contents of file node NR. */
static svn_checksum_t *
contents_md5(const svn_fs_fs__noderev_t *nr, apr_pool_t *pool)
{
  if (!nr->data_rep)
    return svn_checksum_empty_checksum(svn_checksum_md5, pool);
  return md5_checksum(nr->data_rep->md5_digest, pool);
}

/* SVN_ERR_CHECKSUM_MISMATCH unless the file at LEAF has BASE_CHECKSUM. */
static svn_error_t *
check_base_checksum(step_t *leaf, svn_fs_root_t *root,
                    svn_checksum_t *base_checksum, apr_pool_t *pool)
{
  svn_checksum_t *actual;

  if (leaf->noderev->kind != svn_node_file)
    return svn_error_create(SVN_ERR_FS_NOT_FILE, NULL,
                            "Attempted to get checksum of a *non*-file node");
  actual = contents_md5(leaf->noderev, pool);
  if (base_checksum->kind == svn_checksum_md5
      && !svn_checksum_match(base_checksum, actual))
    return svn_checksum_mismatch_err(base_checksum, actual, pool,
                                     "Base checksum mismatch on '%s'",
                                     leaf->path);
  return SVN_NO_ERROR;
}

/* Walk to the file at PATH of ROOT, check BASE_CHECKSUM (may be NULL)
   against its current contents, make it mutable and start a baton for
   its new text.  NOT_FILE_MSG is the error text for a non-file. */
static svn_error_t *
text_baton_create(text_baton_t **tb_p, svn_fs_root_t *root, const char *path,
                  svn_checksum_t *base_checksum,
                  svn_checksum_t *result_checksum, const char *not_file_msg,
                  apr_pool_t *pool)
{
  text_baton_t *tb = apr_pcalloc(pool, sizeof(*tb));
  step_t *leaf;

  SVN_ERR(check_txn_root(root));
  SVN_ERR(walk(&leaf, root, path, FALSE, pool, pool));
  if (base_checksum)
    SVN_ERR(check_base_checksum(leaf, root, base_checksum, pool));
  SVN_ERR(make_steps_mutable(leaf, root, pool, pool));
  if (leaf->noderev->kind != svn_node_file)
    return svn_error_create(SVN_ERR_FS_NOT_FILE, NULL, not_file_msg);
  tb->root = root;
  tb->path = leaf->path;
  tb->node_id = leaf->noderev->id;
  tb->old_rep = leaf->noderev->data_rep;
  tb->result_checksum = result_checksum
                        ? svn_checksum_dup(result_checksum, pool) : NULL;
  tb->pool = pool;
  *tb_p = tb;
  return SVN_NO_ERROR;
}

/* Lock the proto-rev file of TB's transaction.  Done when the text
   stream is handed out, not at its first write: like the stock module,
   a second file of the transaction cannot get a stream while one is
   open (SVN_ERR_FS_REP_BEING_WRITTEN; see svn_fs_apply_text). */
static svn_error_t *
lock_protorev(text_baton_t *tb, apr_pool_t *scratch_pool)
{
  return svn_error_trace(svn_fs_fs__protorev_open(
                           &tb->protorev, tb->root->fs,
                           svn_fs_fs__root_txn_id(tb->root), tb->pool,
                           scratch_pool));
}

/* Lock the proto-rev file unless TB holds it, and start the new rep of
   TB's file against the delta base the skip-delta rule picks. */
static svn_error_t *
begin_write(text_baton_t *tb, apr_pool_t *scratch_pool)
{
  svn_fs_t *fs = tb->root->fs;
  svn_fs_fs__noderev_t *nr;
  svn_fs_fs__rep_t *base_rep;
  const svn_fs_fs__rep_write_base_t *base;
  svn_fs_fs__rep_write_options_t *options;

  SVN_ERR(svn_fs_fs__get_noderev(&nr, fs, tb->node_id, scratch_pool,
                                 scratch_pool));
  if (!tb->protorev)
    SVN_ERR(lock_protorev(tb, scratch_pool));
  SVN_ERR(svn_fs_fs__choose_delta_base(&base_rep, fs, nr, FALSE, tb->pool,
                                       scratch_pool));
  SVN_ERR(svn_fs_fs__delta_base_open(&base, fs, base_rep, tb->pool,
                                     scratch_pool));
  options = apr_pcalloc(tb->pool, sizeof(*options));
  svn_fs_fs__rep_write_options_init(options, SVN_FS_FS__DATA(fs));
  return svn_error_trace(svn_fs_fs__protorev_rep_begin(
                           &tb->rep_writer, &tb->target, tb->protorev, base,
                           options, tb->pool, scratch_pool));
}

/* Drop whatever TB has written and unlock; returns ERR. */
static svn_error_t *
abort_write(text_baton_t *tb, svn_error_t *err)
{
  if (tb->rep_writer)
    err = svn_error_compose_create(
            err, svn_fs_fs__protorev_rep_abort(tb->rep_writer, tb->pool));
  tb->rep_writer = NULL;
  if (tb->protorev)
    err = svn_error_compose_create(err,
                                   svn_fs_fs__protorev_close(tb->protorev));
  tb->protorev = NULL;
  return err;
}

/* An identical rep already stored (in this transaction or, through the
   rep-cache, in a revision) that REP can share, or NULL. */
static svn_error_t *
find_shared_rep(svn_fs_fs__rep_t **shared, text_baton_t *tb,
                const svn_fs_fs__rep_t *rep, apr_pool_t *scratch_pool)
{
  svn_fs_t *fs = tb->root->fs;

  *shared = NULL;
  if (!SVN_FS_FS__DATA(fs)->rep_sharing_allowed || !rep->has_sha1)
    return SVN_NO_ERROR;
  SVN_ERR(svn_fs_fs__txn_sha1_rep_get(shared, fs,
                                      svn_fs_fs__root_txn_id(tb->root),
                                      rep->sha1_digest, tb->pool,
                                      scratch_pool));
  if (!*shared)
    {
      svn_boolean_t match;

      SVN_ERR(svn_fs_fs__rep_cache_get(shared, fs, rep->sha1_digest,
                                       tb->pool, scratch_pool));
      /* rep-cache rows carry no MD5: compare contents before sharing. */
      if (*shared)
        SVN_ERR(svn_fs_fs__rep_cache_match(&match, fs, *shared, rep,
                                           scratch_pool));
      if (*shared && !match)
        *shared = NULL;
    }
  if (*shared && (*shared)->expanded_size != rep->expanded_size)
    *shared = NULL;
  if (*shared)
    {
      /* Stock keeps the new rep's checksums and uniquifier and takes
         only the location of the old one. */
      svn_fs_fs__rep_t *merged = apr_pmemdup(tb->pool, rep, sizeof(*rep));
      merged->revision = (*shared)->revision;
      merged->item_index = (*shared)->item_index;
      merged->size = (*shared)->size;
      merged->in_txn = (*shared)->in_txn;
      merged->txn_id = (*shared)->txn_id;
      *shared = merged;
    }
  return SVN_NO_ERROR;
}

/* Finish the rep, check it against the expected result, share it if an
   identical one exists, and make it the file's text. */
static svn_error_t *
finish_write(text_baton_t *tb, apr_pool_t *scratch_pool)
{
  svn_fs_t *fs = tb->root->fs;
  svn_fs_fs__rep_t *rep, *shared;
  svn_fs_fs__noderev_t *nr;
  svn_checksum_t *actual;

  SVN_ERR(svn_fs_fs__protorev_rep_finish(&rep, tb->rep_writer,
                                         SVN_FS_FS__ITEM_TYPE_FILE_REP,
                                         tb->pool, scratch_pool));
  actual = md5_checksum(rep->md5_digest, scratch_pool);
  if (tb->result_checksum && !svn_checksum_match(tb->result_checksum,
                                                 actual))
    return svn_checksum_mismatch_err(tb->result_checksum, actual,
                                     scratch_pool,
                                     "Checksum mismatch for '%s'", tb->path);
  SVN_ERR(find_shared_rep(&shared, tb, rep, scratch_pool));
  if (shared)
    SVN_ERR(svn_fs_fs__protorev_rep_abort(tb->rep_writer, scratch_pool));
  else if (SVN_FS_FS__DATA(fs)->rep_sharing_allowed && rep->has_sha1)
    SVN_ERR(svn_fs_fs__txn_sha1_rep_put(fs, svn_fs_fs__root_txn_id(tb->root),
                                        rep, scratch_pool));
  tb->rep_writer = NULL;
  SVN_ERR(svn_fs_fs__protorev_close(tb->protorev));
  tb->protorev = NULL;
  SVN_ERR(svn_fs_fs__get_noderev(&nr, fs, tb->node_id, scratch_pool,
                                 scratch_pool));
  nr->data_rep = shared ? shared : rep;
  SVN_ERR(svn_fs_fs__txn_put_noderev(fs, nr, scratch_pool));
  return svn_error_trace(record_change(
           tb->root, tb->path, nr->id, svn_node_file,
           svn_fs_path_change_modify, TRUE, FALSE, FALSE, SVN_INVALID_REVNUM,
           NULL, scratch_pool));
}

/* Run STEP (begin or finish) on TB; on failure drop the partial rep and
   unlock, leaving the transaction as it was. */
static svn_error_t *
guarded(text_baton_t *tb,
        svn_error_t *(*step)(text_baton_t *, apr_pool_t *))
{
  apr_pool_t *scratch_pool = svn_pool_create(tb->pool);
  svn_error_t *err = step(tb, scratch_pool);

  svn_pool_destroy(scratch_pool);
  if (err)
    return svn_error_trace(abort_write(tb, err));
  return SVN_NO_ERROR;
}

/* begin_write plus the delta applier reading the old contents. */
static svn_error_t *
begin_delta(text_baton_t *tb, apr_pool_t *scratch_pool)
{
  svn_stream_t *source;

  SVN_ERR(begin_write(tb, scratch_pool));
  SVN_ERR(svn_fs_fs__rep_contents_stream(&source, tb->root->fs, tb->old_rep,
                                         tb->pool));
  svn_txdelta_apply(source, tb->target, NULL, tb->path, tb->pool,
                    &tb->apply_handler, &tb->apply_baton);
  return SVN_NO_ERROR;
}

/* svn_txdelta_window_handler_t of apply_textdelta. */
static svn_error_t *
window_consumer(svn_txdelta_window_t *window, void *baton)
{
  text_baton_t *tb = baton;
  svn_error_t *err;

  if (!tb->rep_writer)
    SVN_ERR(guarded(tb, begin_delta));
  err = tb->apply_handler(window, tb->apply_baton);
  if (err)
    return svn_error_trace(abort_write(tb, err));
  if (window == NULL)
    return svn_error_trace(guarded(tb, finish_write));
  return SVN_NO_ERROR;
}

svn_error_t *
svn_fs_fs__txn_apply_textdelta(svn_txdelta_window_handler_t *contents_p,
                               void **contents_baton_p, svn_fs_root_t *root,
                               const char *path,
                               svn_checksum_t *base_checksum,
                               svn_checksum_t *result_checksum,
                               apr_pool_t *pool)
{
  text_baton_t *tb;

  SVN_ERR(check_locks(root, path, FALSE, pool));
  SVN_ERR(text_baton_create(&tb, root, path, base_checksum, result_checksum,
                            "Attempted to get textual contents of a "
                            "*non*-file node", svn_pool_create(pool)));
  SVN_ERR(guarded(tb, lock_protorev));
  *contents_p = window_consumer;
  *contents_baton_p = tb;
  return SVN_NO_ERROR;
}

/* svn_write_fn_t of apply_text's stream. */
static svn_error_t *
text_write(void *baton, const char *data, apr_size_t *len)
{
  text_baton_t *tb = baton;
  svn_error_t *err;

  if (!tb->rep_writer)
    SVN_ERR(guarded(tb, begin_write));
  err = svn_stream_write(tb->target, data, len);
  if (err)
    return svn_error_trace(abort_write(tb, err));
  return SVN_NO_ERROR;
}

/* svn_close_fn_t of apply_text's stream: the text is complete. */
static svn_error_t *
text_close(void *baton)
{
  text_baton_t *tb = baton;

  if (!tb->rep_writer)
    SVN_ERR(guarded(tb, begin_write));
  return svn_error_trace(guarded(tb, finish_write));
}

svn_error_t *
svn_fs_fs__txn_apply_text(svn_stream_t **contents_p, svn_fs_root_t *root,
                          const char *path, svn_checksum_t *result_checksum,
                          apr_pool_t *pool)
{
  text_baton_t *tb;
  svn_stream_t *stream;

  SVN_ERR(check_locks(root, path, FALSE, pool));
  SVN_ERR(text_baton_create(&tb, root, path, NULL, result_checksum,
                            "Attempted to set textual contents of a "
                            "*non*-file node", svn_pool_create(pool)));
  SVN_ERR(guarded(tb, lock_protorev));
  stream = svn_stream_create(tb, pool);
  svn_stream_set_write(stream, text_write);
  svn_stream_set_close(stream, text_close);
  *contents_p = stream;
  return SVN_NO_ERROR;
}
