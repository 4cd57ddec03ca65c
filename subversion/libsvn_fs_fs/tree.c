/* tree.c --- revision and transaction roots: the root vtables
 * (semantics layer).
 *
 * Owns: creating revision and transaction roots and answering the
 * loader's per-path questions about them (kinds, ids, node relations,
 * properties, file contents, directory listings, changed paths).  Path
 * lookup is in lookup.c, history and copies in history.c, mergeinfo in
 * mergeinfo.c, tree verification in tree_verify.c.  Revision roots are
 * read-only: their write entries fail with SVN_ERR_FS_NOT_TXN_ROOT.
 * Transaction roots share the read entries (node-revs of a transaction
 * come from its files, changed paths from its folded "changes" file) and
 * take their write entries from tree_mutate.h and merge.h.
 * Rules: doc/format/tree.md.
 */
#include <string.h>
#include <apr_strings.h>

#include "svn_pools.h"
#include "svn_hash.h"
#include "svn_props.h"
/* svn_fs_util.h's error macros expect gettext's _(); our messages are
   not translated. */
#ifndef _
#define _(text) (text)
#endif
#include "private/svn_fs_util.h"
#include "private/svn_subr_private.h"

#include "corrupt.h"
#include "history.h"
#include "id.h"
#include "lookup.h"
#include "merge.h"
#include "node.h"
#include "rep_read.h"
#include "tree.h"
#include "tree_mutate.h"
#include "txn.h"
#include "txn_store.h"

/* ------------------------------------------------------------------ */
/* Node queries                                                        */

static svn_error_t *
root_check_path(svn_node_kind_t *kind_p, svn_fs_root_t *root,
                const char *path, apr_pool_t *pool)
{
  return svn_error_trace(svn_fs_fs__root_kind(kind_p, root, path, pool));
}

static svn_error_t *
root_node_id(const svn_fs_id_t **id_p, svn_fs_root_t *root,
             const char *path, apr_pool_t *pool)
{
  const svn_fs_fs__noderev_t *noderev;

  SVN_ERR(svn_fs_fs__root_lookup(&noderev, root, path, pool));
  *id_p = SVN_FS_FS__PUBLIC_ID(svn_fs_fs__id_copy(noderev->id, pool));
  return SVN_NO_ERROR;
}

static svn_error_t *
root_node_relation(svn_fs_node_relation_t *relation, svn_fs_root_t *root_a,
                   const char *path_a, svn_fs_root_t *root_b,
                   const char *path_b, apr_pool_t *scratch_pool)
{
  const svn_fs_fs__noderev_t *a, *b;

  /* Nodes of different repositories never share history, even if their
     ids happen to look alike. */
  if (root_a->fs != root_b->fs)
    {
      *relation = svn_fs_node_unrelated;
      return SVN_NO_ERROR;
    }
  SVN_ERR(svn_fs_fs__root_lookup(&a, root_a, path_a, scratch_pool));
  SVN_ERR(svn_fs_fs__root_lookup(&b, root_b, path_b, scratch_pool));
  *relation = svn_fs_fs__id_compare(a->id, b->id);
  return SVN_NO_ERROR;
}

/* Nodes of a transaction have no revision yet (SVN_INVALID_REVNUM),
   except a transaction's root that nothing has changed yet: it still
   stands for its base revision's root, as stock reports it. */
static svn_error_t *
root_node_created_rev(svn_revnum_t *revision, svn_fs_root_t *root,
                      const char *path, apr_pool_t *pool)
{
  const svn_fs_fs__noderev_t *noderev;

  SVN_ERR(svn_fs_fs__root_lookup(&noderev, root, path, pool));
  if (noderev->is_fresh_txn_root && noderev->predecessor_id)
    *revision = svn_fs_fs__id_rev(noderev->predecessor_id);
  else
    *revision = svn_fs_fs__id_rev(noderev->id);
  return SVN_NO_ERROR;
}

/* The node-id carries its creation revision ("<number>-<rev>") in every
   id minted by a format-3-or-later repository; only ids without that
   suffix (r0's root, data upgraded from very old formats) require
   following the predecessors back to the node's first node-rev. */
static svn_error_t *
root_node_origin_rev(svn_revnum_t *revision, svn_fs_root_t *root,
                     const char *path, apr_pool_t *pool)
{
  const svn_fs_fs__noderev_t *noderev;
  svn_fs_fs__noderev_t *pred;
  apr_pool_t *iterpool;
  int steps = 0;

  SVN_ERR(svn_fs_fs__root_lookup(&noderev, root, path, pool));
  /* A node created in a transaction ("_<n>" node id) has no origin yet. */
  if (noderev->id->node_id.revision == SVN_INVALID_REVNUM)
    {
      *revision = SVN_INVALID_REVNUM;
      return SVN_NO_ERROR;
    }
  if (noderev->id->node_id.revision > 0)
    {
      *revision = noderev->id->node_id.revision;
      return SVN_NO_ERROR;
    }
  iterpool = svn_pool_create(pool);
  pred = (svn_fs_fs__noderev_t *)noderev;
  while (pred->predecessor_id)
    {
      const svn_fs_fs__id_t *pred_id = svn_fs_fs__id_copy(pred->predecessor_id,
                                                          pool);
      svn_pool_clear(iterpool);
      if (++steps > noderev->predecessor_count)
        return svn_fs_fs__corrupt("TREE-3", path,
                                  "Predecessor chain longer than its "
                                  "count %d", noderev->predecessor_count);
      SVN_ERR(svn_fs_fs__get_noderev(&pred, root->fs, pred_id, iterpool,
                                     iterpool));
    }
  *revision = svn_fs_fs__id_rev(pred->id);
  svn_pool_destroy(iterpool);
  return SVN_NO_ERROR;
}

static svn_error_t *
root_node_created_path(const char **created_path, svn_fs_root_t *root,
                       const char *path, apr_pool_t *pool)
{
  const svn_fs_fs__noderev_t *noderev;

  SVN_ERR(svn_fs_fs__root_lookup(&noderev, root, path, pool));
  *created_path = apr_pstrdup(pool, noderev->created_path);
  return SVN_NO_ERROR;
}

/* A node-rev created by a copy records its source; any later change of
   the node starts a node-rev without one. */
static svn_error_t *
root_copied_from(svn_revnum_t *rev_p, const char **path_p,
                 svn_fs_root_t *root, const char *path, apr_pool_t *pool)
{
  const svn_fs_fs__noderev_t *noderev;

  SVN_ERR(svn_fs_fs__root_lookup(&noderev, root, path, pool));
  *rev_p = SVN_INVALID_REVNUM;
  *path_p = NULL;
  if (SVN_IS_VALID_REVNUM(noderev->copyfrom_rev) && noderev->copyfrom_path)
    {
      *rev_p = noderev->copyfrom_rev;
      *path_p = apr_pstrdup(pool, noderev->copyfrom_path);
    }
  return SVN_NO_ERROR;
}

/* ------------------------------------------------------------------ */
/* Properties                                                          */

static svn_error_t *
root_node_proplist(apr_hash_t **table_p, svn_fs_root_t *root,
                   const char *path, apr_pool_t *pool)
{
  const svn_fs_fs__noderev_t *noderev;

  SVN_ERR(svn_fs_fs__root_lookup(&noderev, root, path, pool));
  return svn_error_trace(svn_fs_fs__node_proplist(table_p, root->fs, noderev,
                                                  pool, pool));
}

static svn_error_t *
root_node_prop(svn_string_t **value_p, svn_fs_root_t *root,
               const char *path, const char *propname, apr_pool_t *pool)
{
  apr_hash_t *props;

  SVN_ERR(root_node_proplist(&props, root, path, pool));
  *value_p = svn_hash_gets(props, propname);
  return SVN_NO_ERROR;
}

static svn_error_t *
root_node_has_props(svn_boolean_t *has_props, svn_fs_root_t *root,
                    const char *path, apr_pool_t *scratch_pool)
{
  const svn_fs_fs__noderev_t *noderev;
  apr_hash_t *props;

  SVN_ERR(svn_fs_fs__root_lookup(&noderev, root, path, scratch_pool));
  if (!noderev->prop_rep)
    {
      *has_props = FALSE;
      return SVN_NO_ERROR;
    }
  /* A prop rep may hold an empty list; only its contents can tell. */
  SVN_ERR(svn_fs_fs__node_proplist(&props, root->fs, noderev, scratch_pool,
                                   scratch_pool));
  *has_props = apr_hash_count(props) > 0;
  return SVN_NO_ERROR;
}

/* TRUE if A and B are the same rep reference including the uniquifier,
   i.e. one node-rev's props or text were carried over unchanged to the
   other, not merely shared by rep-sharing. */
static svn_boolean_t
same_rep_instance(const svn_fs_fs__rep_t *a, const svn_fs_fs__rep_t *b)
{
  if (!svn_fs_fs__rep_same(a, b))
    return FALSE;
  if (!a || !a->uniquifier || !b->uniquifier)
    return !a || a->uniquifier == b->uniquifier;
  return strcmp(a->uniquifier, b->uniquifier) == 0;
}

/* Loose mode answers from rep identity alone (a different prop rep
   reference, even one rep-shared with ours, counts as a change), as
   stock does.  Strict mode trusts the MD5 of committed
   property reps (the serialisation is canonical: sorted keys), and reads
   and compares the lists only when one side has no rep at all. */
static svn_error_t *
root_props_changed(int *changed_p, svn_fs_root_t *root1, const char *path1,
                   svn_fs_root_t *root2, const char *path2,
                   svn_boolean_t strict, apr_pool_t *scratch_pool)
{
  const svn_fs_fs__noderev_t *a, *b;
  apr_hash_t *props_a, *props_b;

  if (root1->fs != root2->fs)
    return svn_error_create(SVN_ERR_FS_GENERAL, NULL,
                            "Cannot compare property value between two "
                            "different filesystems");
  SVN_ERR(svn_fs_fs__root_lookup(&a, root1, path1, scratch_pool));
  SVN_ERR(svn_fs_fs__root_lookup(&b, root2, path2, scratch_pool));
  if (!strict)
    {
      *changed_p = !same_rep_instance(a->prop_rep, b->prop_rep);
      return SVN_NO_ERROR;
    }
  if (!a->prop_rep && !b->prop_rep)
    {
      *changed_p = FALSE;
      return SVN_NO_ERROR;
    }
  /* Prop reps of a transaction carry no usable MD5 until committed. */
  if (a->prop_rep && b->prop_rep && !a->prop_rep->in_txn
      && !b->prop_rep->in_txn)
    {
      *changed_p = memcmp(a->prop_rep->md5_digest, b->prop_rep->md5_digest,
                          sizeof(a->prop_rep->md5_digest)) != 0;
      return SVN_NO_ERROR;
    }
  SVN_ERR(svn_fs_fs__node_proplist(&props_a, root1->fs, a, scratch_pool,
                                   scratch_pool));
  SVN_ERR(svn_fs_fs__node_proplist(&props_b, root2->fs, b, scratch_pool,
                                   scratch_pool));
  *changed_p = !svn_fs__prop_lists_equal(props_a, props_b, scratch_pool);
  return SVN_NO_ERROR;
}

/* ------------------------------------------------------------------ */
/* Directories                                                         */

static svn_error_t *
root_dir_entries(apr_hash_t **entries_p, svn_fs_root_t *root,
                 const char *path, apr_pool_t *pool)
{
  const svn_fs_fs__noderev_t *noderev;
  apr_array_header_t *entries;
  apr_hash_t *hash;
  int i;

  SVN_ERR(svn_fs_fs__root_lookup(&noderev, root, path, pool));
  if (noderev->kind != svn_node_dir)
    return svn_error_create(SVN_ERR_FS_NOT_DIRECTORY, NULL,
                            "Can't get entries of non-directory");
  SVN_ERR(svn_fs_fs__dir_entries(&entries, root->fs, noderev, pool, pool));
  hash = svn_hash__make(pool);
  for (i = 0; i < entries->nelts; i++)
    {
      svn_fs_dirent_t *dirent = APR_ARRAY_IDX(entries, i, svn_fs_dirent_t *);
      svn_hash_sets(hash, dirent->name, dirent);
    }
  *entries_p = hash;
  return SVN_NO_ERROR;
}

/* Physically addressed revisions: node-revs of one revision lie in
   ascending offset order in its file, and younger revisions are more
   likely to be hot in the OS cache, so visiting entries by (revision
   descending, offset ascending) turns a tree walk into mostly forward
   reads.  Stock orders the same way, and editor drives (checkout,
   export, dump of a first revision) follow this order, so it is also
   what keeps our output identical. */
static int
compare_by_location(const void *a, const void *b)
{
  const svn_fs_dirent_t *x = *(const svn_fs_dirent_t *const *)a;
  const svn_fs_dirent_t *y = *(const svn_fs_dirent_t *const *)b;
  const svn_fs_fs__id_t *ix = SVN_FS_FS__ID(x->id);
  const svn_fs_fs__id_t *iy = SVN_FS_FS__ID(y->id);

  if (ix->rev_item.revision != iy->rev_item.revision)
    return ix->rev_item.revision > iy->rev_item.revision ? -1 : 1;
  if (ix->rev_item.number != iy->rev_item.number)
    return ix->rev_item.number < iy->rev_item.number ? -1 : 1;
  return strcmp(x->name, y->name);
}

static int
compare_by_name(const void *a, const void *b)
{
  const svn_fs_dirent_t *x = *(const svn_fs_dirent_t *const *)a;
  const svn_fs_dirent_t *y = *(const svn_fs_dirent_t *const *)b;

  return strcmp(x->name, y->name);
}

/* With logical addressing, item numbers say nothing about file offsets
   (packing reorders items), so there is no cheap locality key; like
   stock we then keep the name order of the directory listing. */
static svn_error_t *
root_dir_optimal_order(apr_array_header_t **ordered_p, svn_fs_root_t *root,
                       apr_hash_t *entries, apr_pool_t *result_pool,
                       apr_pool_t *scratch_pool)
{
  apr_array_header_t *ordered = apr_array_make(result_pool,
                                               apr_hash_count(entries),
                                               sizeof(svn_fs_dirent_t *));
  apr_hash_index_t *hi;

  for (hi = apr_hash_first(scratch_pool, entries); hi; hi = apr_hash_next(hi))
    APR_ARRAY_PUSH(ordered, svn_fs_dirent_t *) = apr_hash_this_val(hi);
  qsort(ordered->elts, ordered->nelts, ordered->elt_size,
        svn_fs_fs__use_log_addressing(root->fs) ? compare_by_name
                                                : compare_by_location);
  *ordered_p = ordered;
  return SVN_NO_ERROR;
}

/* ------------------------------------------------------------------ */
/* Files                                                               */

/* The file node-rev at PATH, or SVN_ERR_FS_NOT_FILE worded as stock
   does for the operation WHAT ("get length of"). */
static svn_error_t *
lookup_file(const svn_fs_fs__noderev_t **noderev, svn_fs_root_t *root,
            const char *path, const char *what, apr_pool_t *scratch_pool)
{
  SVN_ERR(svn_fs_fs__root_lookup(noderev, root, path, scratch_pool));
  if ((*noderev)->kind != svn_node_file)
    return svn_error_createf(SVN_ERR_FS_NOT_FILE, NULL,
                             "Attempted to %s a *non*-file node", what);
  return SVN_NO_ERROR;
}

static svn_error_t *
root_file_length(svn_filesize_t *length_p, svn_fs_root_t *root,
                 const char *path, apr_pool_t *pool)
{
  const svn_fs_fs__noderev_t *noderev;

  SVN_ERR(lookup_file(&noderev, root, path, "get length of", pool));
  *length_p = noderev->data_rep ? noderev->data_rep->expanded_size : 0;
  return SVN_NO_ERROR;
}

/* MD5 is recorded for every text rep, SHA1 only by 1.6+ writers; we
   report what is recorded and leave computing to the caller (the
   loader's svn_fs_file_checksum does that when asked to force). */
static svn_error_t *
root_file_checksum(svn_checksum_t **checksum, svn_checksum_kind_t kind,
                   svn_fs_root_t *root, const char *path, apr_pool_t *pool)
{
  const svn_fs_fs__noderev_t *noderev;
  const svn_fs_fs__rep_t *rep;

  SVN_ERR(lookup_file(&noderev, root, path, "get checksum of", pool));
  rep = noderev->data_rep;
  *checksum = NULL;
  if (rep && kind == svn_checksum_md5)
    *checksum = svn_checksum__from_digest_md5(rep->md5_digest, pool);
  else if (rep && kind == svn_checksum_sha1 && rep->has_sha1)
    *checksum = svn_checksum__from_digest_sha1(rep->sha1_digest, pool);
  return SVN_NO_ERROR;
}

/* A copy of REP in POOL (NULL stays NULL).  Streams outlive the vtable
   call that made them, but node-revs from the lookup cache do not. */
static const svn_fs_fs__rep_t *
rep_dup(const svn_fs_fs__rep_t *rep, apr_pool_t *pool)
{
  svn_fs_fs__rep_t *copy;

  if (!rep)
    return NULL;
  copy = apr_pmemdup(pool, rep, sizeof(*rep));
  copy->uniquifier = rep->uniquifier ? apr_pstrdup(pool, rep->uniquifier)
                                     : NULL;
  return copy;
}

/* Whether texts read through ROOT are of a revision older than the
   youngest known (svn_fs_fs__node_text_stream's HISTORIC). */
static svn_boolean_t
root_is_historic(svn_fs_root_t *root)
{
  return !root->is_txn_root
         && root->rev < SVN_FS_FS__DATA(root->fs)->youngest_rev_cache;
}

static svn_error_t *
root_file_contents(svn_stream_t **contents, svn_fs_root_t *root,
                   const char *path, apr_pool_t *pool)
{
  const svn_fs_fs__noderev_t *noderev;

  SVN_ERR(lookup_file(&noderev, root, path, "get textual contents of",
                      pool));
  return svn_error_trace(svn_fs_fs__node_text_stream(
                           contents, root->fs,
                           rep_dup(noderev->data_rep, pool),
                           svn_fs_fs__id_copy(noderev->id, pool),
                           root_is_historic(root), pool));
}

static svn_error_t *
root_try_process_file_contents(svn_boolean_t *success,
                               svn_fs_root_t *root, const char *path,
                               svn_fs_process_contents_func_t processor,
                               void *baton, apr_pool_t *pool)
{
  const svn_fs_fs__noderev_t *noderev;

  SVN_ERR(lookup_file(&noderev, root, path, "get textual contents of",
                      pool));
  return svn_error_trace(svn_fs_fs__rep_try_process(
                           success, root->fs, noderev->data_rep, processor,
                           baton, pool));
}

static svn_error_t *
root_get_file_delta_stream(svn_txdelta_stream_t **stream_p,
                           svn_fs_root_t *source_root,
                           const char *source_path,
                           svn_fs_root_t *target_root,
                           const char *target_path, apr_pool_t *pool)
{
  const svn_fs_fs__noderev_t *source = NULL, *target;

  if (source_root && source_path)
    SVN_ERR(lookup_file(&source, source_root, source_path,
                        "get textual contents of", pool));
  SVN_ERR(lookup_file(&target, target_root, target_path,
                      "get textual contents of", pool));
  return svn_error_trace(svn_fs_fs__node_delta_stream(
                           stream_p, target_root->fs,
                           source ? rep_dup(source->data_rep, pool) : NULL,
                           source ? svn_fs_fs__id_copy(source->id, pool)
                                  : NULL,
                           rep_dup(target->data_rep, pool),
                           svn_fs_fs__id_copy(target->id, pool),
                           root_is_historic(target_root), pool));
}

/* Compare two file texts, cheapest evidence first: identical rep, then
   sizes and checksums; both texts are read only when the checksums
   cannot decide. */
static svn_error_t *
texts_equal(svn_boolean_t *equal, svn_fs_t *fs, const svn_fs_fs__rep_t *a,
            const svn_fs_fs__rep_t *b, apr_pool_t *scratch_pool)
{
  svn_stream_t *sa, *sb;

  if (!a || !b || svn_fs_fs__rep_same(a, b))
    {
      *equal = (a == NULL) == (b == NULL);
      return SVN_NO_ERROR;
    }
  if (a->expanded_size != b->expanded_size
      || memcmp(a->md5_digest, b->md5_digest, sizeof(a->md5_digest)) != 0)
    {
      *equal = FALSE;
      return SVN_NO_ERROR;
    }
  if (a->has_sha1 && b->has_sha1)
    {
      *equal = memcmp(a->sha1_digest, b->sha1_digest,
                      sizeof(a->sha1_digest)) == 0;
      return SVN_NO_ERROR;
    }
  SVN_ERR(svn_fs_fs__rep_contents_stream(&sa, fs, a, scratch_pool));
  SVN_ERR(svn_fs_fs__rep_contents_stream(&sb, fs, b, scratch_pool));
  return svn_error_trace(svn_stream_contents_same2(equal, sa, sb,
                                                   scratch_pool));
}

static svn_error_t *
root_contents_changed(int *changed_p, svn_fs_root_t *root1,
                      const char *path1, svn_fs_root_t *root2,
                      const char *path2, svn_boolean_t strict,
                      apr_pool_t *scratch_pool)
{
  const svn_fs_fs__noderev_t *a, *b;
  svn_boolean_t equal;

  if (root1->fs != root2->fs)
    return svn_error_create(SVN_ERR_FS_GENERAL, NULL,
                            "Cannot compare file contents between two "
                            "different filesystems");
  SVN_ERR(svn_fs_fs__root_lookup(&a, root1, path1, scratch_pool));
  if (a->kind != svn_node_file)
    return svn_error_createf(SVN_ERR_FS_NOT_FILE, NULL,
                             "'%s' is not a file", path1);
  SVN_ERR(svn_fs_fs__root_lookup(&b, root2, path2, scratch_pool));
  if (b->kind != svn_node_file)
    return svn_error_createf(SVN_ERR_FS_NOT_FILE, NULL,
                             "'%s' is not a file", path2);
  /* Loose mode, as for properties: another rep instance is a change,
     even one with the same text (a commit that restored older contents
     got the old rep by rep-sharing, under its own uniquifier).  The
     update reporter relies on this to send the new last-changed
     revision (basic_tests.py 68). */
  if (!strict)
    {
      *changed_p = !same_rep_instance(a->data_rep, b->data_rep);
      return SVN_NO_ERROR;
    }
  SVN_ERR(texts_equal(&equal, root1->fs, a->data_rep, b->data_rep,
                      scratch_pool));
  *changed_p = !equal;
  return SVN_NO_ERROR;
}

/* ------------------------------------------------------------------ */
/* Changed paths                                                       */

/* Changes are fetched this many at a time, so that a revision touching
   millions of paths never needs its whole list in memory at once. */
#define CHANGES_BLOCK 256

/* The public form of change C, in POOL. */
static svn_fs_path_change2_t *
public_change2(const svn_fs_fs__change_t *c, apr_pool_t *pool)
{
  svn_fs_path_change2_t *change = svn_fs__path_change_create_internal(
    c->noderev_id ? SVN_FS_FS__PUBLIC_ID(svn_fs_fs__id_copy(c->noderev_id,
                                                            pool))
                  : NULL,
    c->change_kind, pool);

  change->text_mod = c->text_mod;
  change->prop_mod = c->prop_mod;
  change->mergeinfo_mod = c->mergeinfo_mod;
  change->node_kind = c->node_kind;
  change->copyfrom_known = c->copyfrom_known;
  change->copyfrom_rev = c->copyfrom_rev;
  change->copyfrom_path = c->copyfrom_path
                        ? apr_pstrdup(pool, c->copyfrom_path) : NULL;
  return change;
}

/* Transaction roots: the folded changes of the transaction, keyed by
   path, converted wholesale (the list lives in one file of the
   transaction and is folded in memory anyway). */
static svn_error_t *
txn_paths_changed(apr_hash_t **changed_paths_p, svn_fs_root_t *root,
                  apr_pool_t *pool)
{
  apr_hash_t *changes, *result = svn_hash__make(pool);
  apr_hash_index_t *hi;
  apr_pool_t *scratch_pool = svn_pool_create(pool);

  SVN_ERR(svn_fs_fs__txn_changes(&changes, root->fs,
                                 svn_fs_fs__root_txn_id(root), scratch_pool,
                                 scratch_pool));
  for (hi = apr_hash_first(scratch_pool, changes); hi; hi = apr_hash_next(hi))
    {
      const svn_fs_fs__change_t *c = apr_hash_this_val(hi);

      apr_hash_set(result, apr_pstrmemdup(pool, c->path.data, c->path.len),
                   c->path.len, public_change2(c, pool));
    }
  svn_pool_destroy(scratch_pool);
  *changed_paths_p = result;
  return SVN_NO_ERROR;
}

static svn_error_t *
root_paths_changed(apr_hash_t **changed_paths_p, svn_fs_root_t *root,
                   apr_pool_t *pool)
{
  apr_hash_t *result = svn_hash__make(pool);
  apr_pool_t *iterpool = svn_pool_create(pool);
  svn_boolean_t done = FALSE;
  apr_size_t first = 0;

  if (root->is_txn_root)
    return svn_error_trace(txn_paths_changed(changed_paths_p, root, pool));
  while (!done)
    {
      apr_array_header_t *block;
      int i;

      svn_pool_clear(iterpool);
      SVN_ERR(svn_fs_fs__rev_changes_block(&block, &done, root->fs, root->rev,
                                           first, CHANGES_BLOCK, iterpool,
                                           iterpool));
      for (i = 0; i < block->nelts; i++)
        {
          const svn_fs_fs__change_t *c = APR_ARRAY_IDX(block, i,
                                                 const svn_fs_fs__change_t *);

          apr_hash_set(result, apr_pstrmemdup(pool, c->path.data,
                                              c->path.len),
                       c->path.len, public_change2(c, pool));
        }
      first += block->nelts;
      if (block->nelts == 0)
        break;
    }
  svn_pool_destroy(iterpool);
  *changed_paths_p = result;
  return SVN_NO_ERROR;
}

/* Iterator state of report_changes. */
typedef struct changes_iter_t
{
  svn_fs_t *fs;
  svn_revnum_t rev;
  apr_array_header_t *block;   /* current block, in BLOCK_POOL */
  int next;                    /* index into BLOCK */
  apr_size_t block_start;      /* list position of BLOCK's first entry */
  svn_boolean_t done;          /* no block after BLOCK */
  apr_pool_t *block_pool;
  svn_fs_path_change3_t *change;   /* the struct we hand out */
} changes_iter_t;

static svn_error_t *
changes_iter_get(svn_fs_path_change3_t **change,
                 svn_fs_path_change_iterator_t *iterator)
{
  changes_iter_t *it = iterator->fsap_data;
  const svn_fs_fs__change_t *c;

  while (it->next >= it->block->nelts)
    {
      if (it->done)
        {
          *change = NULL;
          return SVN_NO_ERROR;
        }
      it->block_start += it->block->nelts;
      svn_pool_clear(it->block_pool);
      SVN_ERR(svn_fs_fs__rev_changes_block(&it->block, &it->done, it->fs,
                                           it->rev, it->block_start,
                                           CHANGES_BLOCK, it->block_pool,
                                           it->block_pool));
      it->next = 0;
      if (it->block->nelts == 0)
        it->done = TRUE;
    }
  c = APR_ARRAY_IDX(it->block, it->next++, const svn_fs_fs__change_t *);
  it->change->path = c->path;
  it->change->change_kind = c->change_kind;
  it->change->node_kind = c->node_kind;
  it->change->text_mod = c->text_mod;
  it->change->prop_mod = c->prop_mod;
  it->change->mergeinfo_mod = c->mergeinfo_mod;
  it->change->copyfrom_known = c->copyfrom_known;
  it->change->copyfrom_rev = c->copyfrom_rev;
  it->change->copyfrom_path = c->copyfrom_path;
  *change = it->change;
  return SVN_NO_ERROR;
}

static const changes_iterator_vtable_t changes_iter_vtable = {
  changes_iter_get
};

static int
compare_change_paths(const void *a, const void *b)
{
  const svn_fs_fs__change_t *x = *(const svn_fs_fs__change_t *const *)a;
  const svn_fs_fs__change_t *y = *(const svn_fs_fs__change_t *const *)b;

  return strcmp(x->path.data, y->path.data);
}

/* Load the folded changes of transaction root ROOT into IT as its one
   and only block, in path order. */
static svn_error_t *
txn_changes_block(changes_iter_t *it, svn_fs_root_t *root,
                  apr_pool_t *scratch_pool)
{
  apr_hash_t *changes;
  apr_hash_index_t *hi;

  SVN_ERR(svn_fs_fs__txn_changes(&changes, root->fs,
                                 svn_fs_fs__root_txn_id(root),
                                 it->block_pool, scratch_pool));
  it->block = apr_array_make(it->block_pool, apr_hash_count(changes),
                             sizeof(const svn_fs_fs__change_t *));
  for (hi = apr_hash_first(scratch_pool, changes); hi; hi = apr_hash_next(hi))
    APR_ARRAY_PUSH(it->block, const svn_fs_fs__change_t *)
      = apr_hash_this_val(hi);
  qsort(it->block->elts, it->block->nelts, it->block->elt_size,
        compare_change_paths);
  it->done = TRUE;
  return SVN_NO_ERROR;
}

static svn_error_t *
root_report_changes(svn_fs_path_change_iterator_t **iterator,
                    svn_fs_root_t *root, apr_pool_t *result_pool,
                    apr_pool_t *scratch_pool)
{
  changes_iter_t *it = apr_pcalloc(result_pool, sizeof(*it));
  svn_fs_path_change_iterator_t *result = apr_pcalloc(result_pool,
                                                      sizeof(*result));

  it->fs = root->fs;
  it->rev = root->rev;
  it->block_pool = svn_pool_create(result_pool);
  it->change = svn_fs__path_change_create_internal2(
                 svn_fs_path_change_modify, result_pool);
  if (root->is_txn_root)
    SVN_ERR(txn_changes_block(it, root, scratch_pool));
  else
    SVN_ERR(svn_fs_fs__rev_changes_block(&it->block, &it->done, it->fs,
                                         it->rev, 0, CHANGES_BLOCK,
                                         it->block_pool, scratch_pool));
  result->fsap_data = it;
  result->vtable = &changes_iter_vtable;
  *iterator = result;
  return SVN_NO_ERROR;
}

/* ------------------------------------------------------------------ */
/* Write side: revision roots are immutable                            */

static svn_error_t *
root_make_dir(svn_fs_root_t *root, const char *path, apr_pool_t *pool)
{
  return SVN_FS__NOT_TXN(root);
}

static svn_error_t *
root_delete_node(svn_fs_root_t *root, const char *path, apr_pool_t *pool)
{
  return SVN_FS__NOT_TXN(root);
}

static svn_error_t *
root_copy(svn_fs_root_t *from_root, const char *from_path,
          svn_fs_root_t *to_root, const char *to_path, apr_pool_t *pool)
{
  return SVN_FS__NOT_TXN(to_root);
}

static svn_error_t *
root_revision_link(svn_fs_root_t *from_root, svn_fs_root_t *to_root,
                   const char *path, apr_pool_t *pool)
{
  return SVN_FS__NOT_TXN(to_root);
}

static svn_error_t *
root_change_node_prop(svn_fs_root_t *root, const char *path,
                      const char *name, const svn_string_t *value,
                      apr_pool_t *pool)
{
  return SVN_FS__NOT_TXN(root);
}

static svn_error_t *
root_make_file(svn_fs_root_t *root, const char *path, apr_pool_t *pool)
{
  return SVN_FS__NOT_TXN(root);
}

static svn_error_t *
root_apply_textdelta(svn_txdelta_window_handler_t *contents_p,
                     void **contents_baton_p, svn_fs_root_t *root,
                     const char *path, svn_checksum_t *base_checksum,
                     svn_checksum_t *result_checksum, apr_pool_t *pool)
{
  return SVN_FS__NOT_TXN(root);
}

static svn_error_t *
root_apply_text(svn_stream_t **contents_p, svn_fs_root_t *root,
                const char *path, svn_checksum_t *result_checksum,
                apr_pool_t *pool)
{
  return SVN_FS__NOT_TXN(root);
}

static svn_error_t *
root_merge(const char **conflict_p, svn_fs_root_t *source_root,
           const char *source_path, svn_fs_root_t *target_root,
           const char *target_path, svn_fs_root_t *ancestor_root,
           const char *ancestor_path, apr_pool_t *pool)
{
  return SVN_FS__NOT_TXN(target_root);
}

/* ------------------------------------------------------------------ */
/* Roots                                                               */

static const root_vtable_t revision_root_vtable = {
  root_paths_changed,
  root_report_changes,
  root_check_path,
  svn_fs_fs__node_history,
  root_node_id,
  root_node_relation,
  root_node_created_rev,
  root_node_origin_rev,
  root_node_created_path,
  root_delete_node,
  root_copy,
  root_revision_link,
  root_copied_from,
  svn_fs_fs__closest_copy,
  root_node_prop,
  root_node_proplist,
  root_node_has_props,
  root_change_node_prop,
  root_props_changed,
  root_dir_entries,
  root_dir_optimal_order,
  root_make_dir,
  root_file_length,
  root_file_checksum,
  root_file_contents,
  root_try_process_file_contents,
  root_make_file,
  root_apply_textdelta,
  root_apply_text,
  root_contents_changed,
  root_get_file_delta_stream,
  root_merge,
  svn_fs_fs__root_mergeinfo
};

/* Transaction roots: same read entries; history needs a revision root
   (history.c refuses), writes go to tree_mutate.c and merge.c. */
static const root_vtable_t txn_root_vtable = {
  root_paths_changed,
  root_report_changes,
  root_check_path,
  svn_fs_fs__node_history,
  root_node_id,
  root_node_relation,
  root_node_created_rev,
  root_node_origin_rev,
  root_node_created_path,
  svn_fs_fs__txn_delete_node,
  svn_fs_fs__txn_copy,
  svn_fs_fs__txn_revision_link,
  root_copied_from,
  svn_fs_fs__closest_copy,
  root_node_prop,
  root_node_proplist,
  root_node_has_props,
  svn_fs_fs__txn_change_node_prop,
  root_props_changed,
  root_dir_entries,
  root_dir_optimal_order,
  svn_fs_fs__txn_make_dir,
  root_file_length,
  root_file_checksum,
  root_file_contents,
  root_try_process_file_contents,
  svn_fs_fs__txn_make_file,
  svn_fs_fs__txn_apply_textdelta,
  svn_fs_fs__txn_apply_text,
  root_contents_changed,
  root_get_file_delta_stream,
  svn_fs_fs__merge,
  svn_fs_fs__root_mergeinfo
};

svn_boolean_t
svn_fs_fs__is_revision_root(svn_fs_root_t *root)
{
  return root->vtable == &revision_root_vtable;
}

svn_boolean_t
svn_fs_fs__is_txn_root(svn_fs_root_t *root)
{
  return root->vtable == &txn_root_vtable;
}

const svn_fs_fs__txn_id_t *
svn_fs_fs__root_txn_id(svn_fs_root_t *root)
{
  SVN_ERR_ASSERT_NO_RETURN(svn_fs_fs__is_txn_root(root));
  return &SVN_FS_FS__ROOT_DATA(root)->txn_id;
}

/* A root object in a fresh subpool of POOL with empty root data; the
   caller fills in what kind of root it is. */
static svn_fs_root_t *
root_alloc(svn_fs_t *fs, svn_revnum_t rev, apr_pool_t *pool)
{
  apr_pool_t *root_pool = svn_pool_create(pool);
  svn_fs_root_t *root = apr_pcalloc(root_pool, sizeof(*root));
  svn_fs_fs__root_data_t *rd = apr_pcalloc(root_pool, sizeof(*rd));

  rd->fs = fs;
  rd->rev = rev;
  root->pool = root_pool;
  root->fs = fs;
  root->rev = rev;
  root->fsap_data = rd;
  return root;
}

svn_error_t *
svn_fs_fs__txn_root_create(svn_fs_root_t **root_p, svn_fs_t *fs,
                           const svn_fs_fs__txn_id_t *txn_id,
                           const char *txn_name, svn_revnum_t base_rev,
                           apr_uint32_t flags, apr_pool_t *pool)
{
  svn_fs_root_t *root = root_alloc(fs, base_rev, pool);
  svn_fs_fs__root_data_t *rd = SVN_FS_FS__ROOT_DATA(root);

  rd->in_txn = TRUE;
  rd->txn_id = *txn_id;
  root->is_txn_root = TRUE;
  root->txn = apr_pstrdup(root->pool, txn_name);
  root->txn_flags = flags;
  root->vtable = &txn_root_vtable;
  *root_p = root;
  return SVN_NO_ERROR;
}

svn_error_t *
svn_fs_fs__revision_root(svn_fs_root_t **root_p, svn_fs_t *fs,
                         svn_revnum_t rev, apr_pool_t *pool)
{
  svn_fs_root_t *root;

  SVN_ERR(svn_fs__check_fs(fs, TRUE));
  SVN_ERR(svn_fs_fs__ensure_revision_exists(rev, fs, pool));
  /* The root node-rev is read when first needed (svn_fs_fs__root_noderev):
     a reader of changed paths only must not fail on a damaged root. */
  root = root_alloc(fs, rev, pool);
  root->vtable = &revision_root_vtable;
  *root_p = root;
  return SVN_NO_ERROR;
}
