/* merge.c --- three-way tree merge into a transaction (semantics layer).
 *
 * Implements the rules of doc/format/merge.md (rule IDs MERGE-n cited
 * below), which were derived by running the stock module over the
 * scenarios of tests/unit/test_merge.c.
 *
 * Call tree:
 *
 *   svn_fs_fs__merge (root vtable)       svn_fs_fs__merge_into_txn (commit)
 *     \__________________ merge_roots ____________________/
 *                           merge_dir (recursive, one directory)
 *                             same_props          MERGE-3
 *                             merge_old_entry     MERGE-4..7 (names in A)
 *                             merge_new_entry     MERGE-8 (names only in S)
 *                             adopt_source        MERGE-9 (pred, counts)
 *
 * The merge always works on whole trees: the paths handed to the vtable
 * entry are ignored, as the stock module does (MERGE-1).  Target
 * directories are changed in place through txn_store.h; a conflict stops
 * the walk and leaves what was merged before it (as stock does).
 * Nothing here adds changed-path entries: the transaction's changes stay
 * those its own edits recorded.
 */
#include <string.h>

#include "svn_pools.h"
#include "svn_hash.h"
#include "private/svn_fspath.h"

#include "merge.h"
#include "id.h"
#include "node.h"
#include "txn.h"
#include "txn_store.h"
#include "tree.h"
#include "tree_mutate.h"

/* What one merge walk needs everywhere. */
typedef struct merge_ctx_t
{
  svn_fs_t *fs;
  svn_fs_root_t *txn_root;
  /* Conflict path for the caller, in its pool (NULL if not wanted). */
  const char **conflict_p;
  apr_pool_t *result_pool;
} merge_ctx_t;

/* The SVN_ERR_FS_CONFLICT error for PATH, recording PATH for the
   caller (MERGE-2). */
static svn_error_t *
conflict_at(merge_ctx_t *ctx, const char *path)
{
  if (ctx->conflict_p)
    *ctx->conflict_p = apr_pstrdup(ctx->result_pool, path);
  return svn_error_createf(SVN_ERR_FS_CONFLICT, NULL,
                           "Conflict at '%s'", path);
}

/* Are prop reps A and B the same property list, judged by key only (the
   stock module never reads the lists here)?  Both absent: yes; one
   absent: no; a rep still in a transaction is never the same as another
   (MERGE-3, MERGE-8). */
static svn_boolean_t
same_props(const svn_fs_fs__rep_t *a, const svn_fs_fs__rep_t *b)
{
  if (!a || !b)
    return a == b;
  if (a->in_txn || b->in_txn)
    return FALSE;
  return a->revision == b->revision && a->item_index == b->item_index;
}

/* Same node line and same copy: the only pairs merge recurses into
   (MERGE-6). */
static svn_boolean_t
same_line(const svn_fs_fs__id_t *a, const svn_fs_fs__id_t *b)
{
  return a->node_id.revision == b->node_id.revision
         && a->node_id.number == b->node_id.number
         && a->copy_id.revision == b->copy_id.revision
         && a->copy_id.number == b->copy_id.number;
}

/* Entries of directory NODEREV keyed by name (svn_fs_dirent_t *). */
static svn_error_t *
entry_hash(apr_hash_t **entries, svn_fs_t *fs,
           const svn_fs_fs__noderev_t *noderev, apr_pool_t *result_pool,
           apr_pool_t *scratch_pool)
{
  apr_array_header_t *list;
  int i;

  SVN_ERR(svn_fs_fs__dir_entries(&list, fs, noderev, result_pool,
                                 scratch_pool));
  *entries = apr_hash_make(result_pool);
  for (i = 0; i < list->nelts; i++)
    {
      svn_fs_dirent_t *d = APR_ARRAY_IDX(list, i, svn_fs_dirent_t *);
      svn_hash_sets(*entries, d->name, d);
    }
  return SVN_NO_ERROR;
}

/* The mergeinfo count of the node-rev of DIRENT (0 when DIRENT is NULL). */
static svn_error_t *
entry_minfo_count(apr_int64_t *count, svn_fs_t *fs,
                  const svn_fs_dirent_t *dirent, apr_pool_t *scratch_pool)
{
  svn_fs_fs__noderev_t *noderev;

  *count = 0;
  if (!dirent)
    return SVN_NO_ERROR;
  SVN_ERR(svn_fs_fs__get_noderev(&noderev, fs, SVN_FS_FS__ID(dirent->id),
                                 scratch_pool, scratch_pool));
  *count = noderev->mergeinfo_count;
  return SVN_NO_ERROR;
}

/* Make entry NAME of the mutable TARGET what SOURCE_ENT says (NULL:
   remove it) in place of ANCESTOR_ENT, and add the change of mergeinfo
   count to *INCREMENT (MERGE-5, MERGE-8). */
static svn_error_t *
take_source(merge_ctx_t *ctx, svn_fs_fs__noderev_t *target,
            const char *name, const svn_fs_dirent_t *source_ent,
            const svn_fs_dirent_t *ancestor_ent, apr_int64_t *increment,
            apr_pool_t *scratch_pool)
{
  apr_int64_t s_count, a_count;

  SVN_ERR(entry_minfo_count(&s_count, ctx->fs, source_ent, scratch_pool));
  SVN_ERR(entry_minfo_count(&a_count, ctx->fs, ancestor_ent, scratch_pool));
  *increment += s_count - a_count;
  return svn_fs_fs__txn_set_entry(ctx->fs, target, name,
                                  source_ent ? SVN_FS_FS__ID(source_ent->id)
                                             : NULL,
                                  source_ent ? source_ent->kind
                                             : svn_node_none,
                                  scratch_pool);
}

static svn_error_t *
merge_dir(merge_ctx_t *ctx, const char *path, svn_fs_fs__noderev_t *target,
          const svn_fs_fs__noderev_t *source,
          const svn_fs_fs__noderev_t *ancestor, apr_int64_t *increment,
          apr_pool_t *scratch_pool);

/* Both sides changed entry PATH (S, T, A all present): recurse when all
   three are directories of one node line and copy (MERGE-6), else
   conflict (MERGE-7). */
static svn_error_t *
merge_both_changed(merge_ctx_t *ctx, const char *path,
                   const svn_fs_dirent_t *s, const svn_fs_dirent_t *t,
                   const svn_fs_dirent_t *a, apr_int64_t *increment,
                   apr_pool_t *scratch_pool)
{
  svn_fs_fs__noderev_t *target, *source, *ancestor;

  if (s->kind != svn_node_dir || t->kind != svn_node_dir
      || a->kind != svn_node_dir
      || !same_line(SVN_FS_FS__ID(s->id), SVN_FS_FS__ID(a->id))
      || !same_line(SVN_FS_FS__ID(t->id), SVN_FS_FS__ID(a->id)))
    return conflict_at(ctx, path);
  SVN_ERR(svn_fs_fs__get_noderev(&source, ctx->fs, SVN_FS_FS__ID(s->id),
                                 scratch_pool, scratch_pool));
  SVN_ERR(svn_fs_fs__get_noderev(&ancestor, ctx->fs, SVN_FS_FS__ID(a->id),
                                 scratch_pool, scratch_pool));
  SVN_ERR(svn_fs_fs__make_path_mutable(&target, ctx->txn_root, path,
                                       scratch_pool, scratch_pool));
  return merge_dir(ctx, path, target, source, ancestor, increment,
                   scratch_pool);
}

/* Entry NAME that the ancestor has (A): MERGE-4 .. MERGE-7. */
static svn_error_t *
merge_old_entry(merge_ctx_t *ctx, const char *path,
                svn_fs_fs__noderev_t *target, const char *name,
                const svn_fs_dirent_t *s, const svn_fs_dirent_t *t,
                const svn_fs_dirent_t *a, apr_int64_t *increment,
                apr_pool_t *scratch_pool)
{
  const char *child = svn_fspath__join(path, name, scratch_pool);

  if (s && svn_fs_fs__id_eq(SVN_FS_FS__ID(s->id), SVN_FS_FS__ID(a->id)))
    return SVN_NO_ERROR;                                     /* MERGE-4 */
  if (t && svn_fs_fs__id_eq(SVN_FS_FS__ID(t->id), SVN_FS_FS__ID(a->id)))
    return take_source(ctx, target, name, s, a, increment,   /* MERGE-5 */
                       scratch_pool);
  if (!s || !t)
    return conflict_at(ctx, child);                          /* MERGE-7 */
  return merge_both_changed(ctx, child, s, t, a, increment, scratch_pool);
}

/* Merge the entries of directory PATH: every name of the ancestor, then
   the names only the source has (MERGE-8).  Names in sorted order. */
static svn_error_t *
merge_entries(merge_ctx_t *ctx, const char *path,
              svn_fs_fs__noderev_t *target,
              const svn_fs_fs__noderev_t *source,
              const svn_fs_fs__noderev_t *ancestor, apr_int64_t *increment,
              apr_pool_t *scratch_pool)
{
  apr_pool_t *iterpool = svn_pool_create(scratch_pool);
  apr_hash_t *s_ents, *t_ents, *a_ents;
  apr_array_header_t *s_list, *a_list;
  int i;

  SVN_ERR(entry_hash(&s_ents, ctx->fs, source, scratch_pool, iterpool));
  SVN_ERR(entry_hash(&t_ents, ctx->fs, target, scratch_pool, iterpool));
  SVN_ERR(entry_hash(&a_ents, ctx->fs, ancestor, scratch_pool, iterpool));
  SVN_ERR(svn_fs_fs__dir_entries(&a_list, ctx->fs, ancestor, scratch_pool,
                                 iterpool));
  SVN_ERR(svn_fs_fs__dir_entries(&s_list, ctx->fs, source, scratch_pool,
                                 iterpool));
  for (i = 0; i < a_list->nelts; i++)
    {
      const char *name = APR_ARRAY_IDX(a_list, i, svn_fs_dirent_t *)->name;

      svn_pool_clear(iterpool);
      SVN_ERR(merge_old_entry(ctx, path, target, name,
                              svn_hash_gets(s_ents, name),
                              svn_hash_gets(t_ents, name),
                              svn_hash_gets(a_ents, name), increment,
                              iterpool));
    }
  for (i = 0; i < s_list->nelts; i++)
    {
      svn_fs_dirent_t *s = APR_ARRAY_IDX(s_list, i, svn_fs_dirent_t *);

      svn_pool_clear(iterpool);
      if (svn_hash_gets(a_ents, s->name))
        continue;
      if (svn_hash_gets(t_ents, s->name))
        return conflict_at(ctx, svn_fspath__join(path, s->name, iterpool));
      /* An addition does not go into a directory whose properties the
         target changed (MERGE-8). */
      if (!same_props(target->prop_rep, ancestor->prop_rep))
        return conflict_at(ctx, path);
      SVN_ERR(take_source(ctx, target, s->name, s, NULL, increment,
                          iterpool));
    }
  svn_pool_destroy(iterpool);
  return SVN_NO_ERROR;
}

/* After a successful merge of directory TARGET: it now succeeds SOURCE
   (predecessor and its count) and its mergeinfo count moves by
   INCREMENT (MERGE-9). */
static svn_error_t *
adopt_source(merge_ctx_t *ctx, svn_fs_fs__noderev_t *target,
             const svn_fs_fs__noderev_t *source, apr_int64_t increment,
             apr_pool_t *scratch_pool)
{
  target->predecessor_id = source->id;
  target->predecessor_count = source->predecessor_count + 1;
  target->mergeinfo_count += increment;
  target->is_fresh_txn_root = FALSE;
  return svn_fs_fs__txn_put_noderev(ctx->fs, target, scratch_pool);
}

/* Merge directory PATH: SOURCE's changes since ANCESTOR into the mutable
   TARGET; *INCREMENT grows by the change of mergeinfo count below.
   MERGE-3 first, then the entries, then MERGE-9. */
static svn_error_t *
merge_dir(merge_ctx_t *ctx, const char *path, svn_fs_fs__noderev_t *target,
          const svn_fs_fs__noderev_t *source,
          const svn_fs_fs__noderev_t *ancestor, apr_int64_t *increment,
          apr_pool_t *scratch_pool)
{
  apr_int64_t here = 0;

  if (target->kind != svn_node_dir || source->kind != svn_node_dir
      || ancestor->kind != svn_node_dir)
    return conflict_at(ctx, path);
  if (!same_props(source->prop_rep, ancestor->prop_rep))
    return conflict_at(ctx, path);
  SVN_ERR(merge_entries(ctx, path, target, source, ancestor, &here,
                        scratch_pool));
  *increment += here;
  return adopt_source(ctx, target, source, here, scratch_pool);
}

/* Merge the tree of SOURCE_ROOT since ANCESTOR_ROOT into the transaction
   root TXN_ROOT (MERGE-1). */
static svn_error_t *
merge_roots(merge_ctx_t *ctx, svn_fs_root_t *source_root,
            svn_fs_root_t *ancestor_root, apr_pool_t *scratch_pool)
{
  const svn_fs_id_t *s_id, *a_id, *t_id;
  svn_fs_fs__noderev_t *source, *ancestor, *target;
  apr_int64_t increment = 0;

  SVN_ERR(source_root->vtable->node_id(&s_id, source_root, "/",
                                       scratch_pool));
  SVN_ERR(ancestor_root->vtable->node_id(&a_id, ancestor_root, "/",
                                         scratch_pool));
  if (svn_fs_fs__id_eq(SVN_FS_FS__ID(s_id), SVN_FS_FS__ID(a_id)))
    return SVN_NO_ERROR;                                     /* MERGE-1 */
  SVN_ERR(ctx->txn_root->vtable->node_id(&t_id, ctx->txn_root, "/",
                                         scratch_pool));
  if (svn_fs_fs__id_eq(SVN_FS_FS__ID(t_id), SVN_FS_FS__ID(a_id)))
    return svn_error_createf(SVN_ERR_FS_GENERAL, NULL,
                             "Bad merge; target '/' has id '%s', same as "
                             "ancestor",
                             svn_fs_fs__id_unparse(SVN_FS_FS__ID(t_id),
                                                   scratch_pool)->data);
  SVN_ERR(svn_fs_fs__get_noderev(&source, ctx->fs, SVN_FS_FS__ID(s_id),
                                 scratch_pool, scratch_pool));
  SVN_ERR(svn_fs_fs__get_noderev(&ancestor, ctx->fs, SVN_FS_FS__ID(a_id),
                                 scratch_pool, scratch_pool));
  SVN_ERR(svn_fs_fs__make_path_mutable(&target, ctx->txn_root, "/",
                                       scratch_pool, scratch_pool));
  return merge_dir(ctx, "/", target, source, ancestor, &increment,
                   scratch_pool);
}

svn_error_t *
svn_fs_fs__merge(const char **conflict_p, svn_fs_root_t *source_root,
                 const char *source_path, svn_fs_root_t *target_root,
                 const char *target_path, svn_fs_root_t *ancestor_root,
                 const char *ancestor_path, apr_pool_t *pool)
{
  merge_ctx_t ctx;
  apr_pool_t *scratch_pool;
  svn_error_t *err;

  if (!target_root->is_txn_root)
    return svn_error_createf(SVN_ERR_FS_NOT_TXN_ROOT, NULL,
                             "Root object must be a transaction root");
  if (source_root->fs != ancestor_root->fs
      || target_root->fs != ancestor_root->fs)
    return svn_error_create(SVN_ERR_FS_GENERAL, NULL,
                            "Bad merge; ancestor, source, and target not "
                            "all in same fs");
  ctx.fs = target_root->fs;
  ctx.txn_root = target_root;
  ctx.conflict_p = conflict_p;
  ctx.result_pool = pool;
  scratch_pool = svn_pool_create(pool);
  err = merge_roots(&ctx, source_root, ancestor_root, scratch_pool);
  svn_pool_destroy(scratch_pool);
  return svn_error_trace(err);
}

svn_error_t *
svn_fs_fs__merge_into_txn(const char **conflict_p, svn_fs_root_t *txn_root,
                          svn_revnum_t ancestor_rev, svn_revnum_t source_rev,
                          apr_pool_t *result_pool, apr_pool_t *scratch_pool)
{
  svn_fs_root_t *source_root, *ancestor_root;

  /* svn_fs_commit_txn lets its caller pass no conflict pointer. */
  if (conflict_p)
    *conflict_p = "";
  SVN_ERR(svn_fs_fs__revision_root(&source_root, txn_root->fs, source_rev,
                                   scratch_pool));
  SVN_ERR(svn_fs_fs__revision_root(&ancestor_root, txn_root->fs,
                                   ancestor_rev, scratch_pool));
  return svn_error_trace(svn_fs_fs__merge(conflict_p, source_root, "/",
                                          txn_root, "/", ancestor_root, "/",
                                          result_pool));
}
