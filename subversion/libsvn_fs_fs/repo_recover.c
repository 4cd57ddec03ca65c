/* repo_recover.c --- 'svnadmin recover': rebuild db/current from the
 * revisions on disk (repo.h; doc/format/uuid-current.md CURRENT-2).
 *
 *   svn_fs_fs__recover               (all locks held)
 *     find_youngest                  probe rev files above the packs
 *     compare with the old db/current
 *     skip_unfinished                a commit cut between COMMIT-4 and 5
 *     check_root                     the nodes layer reads its root
 *     check_revprops                 the youngest has its revprops
 *     svn_fs_fs__rep_cache_prune     no rows after the youngest
 *     repair_txn_current             only if unreadable (TXN-2)
 *     rewrite db/current
 */
#include <apr_strings.h>

#include "svn_io.h"
#include "svn_pools.h"

#include "private/svn_string_private.h"

#include "corrupt.h"
#include "id.h"
#include "node.h"
#include "paths.h"
#include "repo.h"
#include "node_walk.h"
#include "repo_repcache.h"
#include "txn_store.h"

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

/* A commit killed between COMMIT-4 and COMMIT-5 leaves the rev file of
   revision CURRENT + 1 without its revprops file.  db/current never named
   it, so nobody was told it exists: it is an unfinished commit, not a
   damaged revision, and *YOUNGEST steps back below it (stock refuses to
   recover here; the next commit's move replaces the orphan either way).
   Only above a readable db/current: without one, a missing revprops file
   is damage and check_revprops() says so. */
static svn_error_t *
skip_unfinished(svn_revnum_t *youngest, svn_fs_t *fs, svn_revnum_t current,
                apr_pool_t *pool)
{
  svn_node_kind_t kind;

  if (!SVN_IS_VALID_REVNUM(current) || *youngest != current + 1
      || *youngest < SVN_FS_FS__DATA(fs)->min_unpacked_rev)
    return SVN_NO_ERROR;
  SVN_ERR(svn_io_check_path(svn_fs_fs__path_revprops(fs, *youngest, pool),
                            &kind, pool));
  if (kind == svn_node_none)
    *youngest = current;
  return SVN_NO_ERROR;
}

/* The revision db/current names, or SVN_INVALID_REVNUM if it is missing
   or unreadable. */
static svn_revnum_t
old_current(svn_fs_t *fs, apr_pool_t *pool)
{
  svn_revnum_t rev;
  apr_uint64_t node_id, copy_id;
  svn_error_t *err = svn_fs_fs__read_current(&rev, &node_id, &copy_id, fs,
                                             pool);

  if (err)
    {
      svn_error_clear(err);
      return SVN_INVALID_REVNUM;
    }
  return rev;
}

/* Highest global (OLD-3 style) node and copy ids seen so far. */
typedef struct max_ids_t
{
  apr_uint64_t node_id, copy_id;
  svn_boolean_t any_node, any_copy;
} max_ids_t;

static void
note_id(max_ids_t *max, const svn_fs_fs__id_t *id)
{
  /* Ids of format 3+ ("<n>-<rev>", revision > 0) are not counted. */
  if (id->node_id.revision == 0
      && (!max->any_node || id->node_id.number > max->node_id))
    {
      max->node_id = id->node_id.number;
      max->any_node = TRUE;
    }
  if (id->copy_id.revision == 0
      && (!max->any_copy || id->copy_id.number > max->copy_id))
    {
      max->copy_id = id->copy_id.number;
      max->any_copy = TRUE;
    }
}

/* Note the ids of node-rev ID and of everything below it that revision
   REV created (older children were counted with their own revision). */
static svn_error_t *
scan_new_nodes(max_ids_t *max, svn_fs_t *fs, const svn_fs_fs__id_t *id,
               svn_revnum_t rev, apr_pool_t *scratch_pool)
{
  svn_fs_fs__noderev_t *noderev;
  apr_array_header_t *entries;
  apr_pool_t *iterpool;
  int i;

  note_id(max, id);
  SVN_ERR(svn_fs_fs__get_noderev(&noderev, fs, id, scratch_pool,
                                 scratch_pool));
  if (noderev->kind != svn_node_dir)
    return SVN_NO_ERROR;
  SVN_ERR(svn_fs_fs__dir_entries(&entries, fs, noderev, scratch_pool,
                                 scratch_pool));
  iterpool = svn_pool_create(scratch_pool);
  for (i = 0; i < entries->nelts; i++)
    {
      const svn_fs_dirent_t *dirent
        = APR_ARRAY_IDX(entries, i, svn_fs_dirent_t *);
      const svn_fs_fs__id_t *child = (const svn_fs_fs__id_t *)dirent->id;

      svn_pool_clear(iterpool);
      if (svn_fs_fs__id_rev(child) == rev)
        SVN_ERR(scan_new_nodes(max, fs, child, rev, iterpool));
    }
  svn_pool_destroy(iterpool);
  return SVN_NO_ERROR;
}

/* OLD-3: the db/current text of a format 1 or 2 repository whose
   youngest revision is YOUNGEST: its next node and copy ids are one past
   the highest of any revision. */
static svn_error_t *
old_style_current(const char **text, recover_baton_t *b,
                  svn_revnum_t youngest, apr_pool_t *pool)
{
  max_ids_t max = { 0 };
  apr_pool_t *iterpool = svn_pool_create(pool);
  char node_buf[SVN_INT64_BUFFER_SIZE], copy_buf[SVN_INT64_BUFFER_SIZE];
  svn_revnum_t rev;

  for (rev = 0; rev <= youngest; rev++)
    {
      const svn_fs_fs__id_t *root_id;

      svn_pool_clear(iterpool);
      if (b->cancel_func)
        SVN_ERR(b->cancel_func(b->cancel_baton));
      SVN_ERR(svn_fs_fs__rev_root_id(&root_id, b->fs, rev, iterpool,
                                     iterpool));
      SVN_ERR(scan_new_nodes(&max, b->fs, root_id, rev, iterpool));
    }
  svn_pool_destroy(iterpool);
  svn__ui64tobase36(node_buf, max.node_id + 1);
  svn__ui64tobase36(copy_buf, max.copy_id + 1);
  *text = apr_psprintf(pool, "%ld %s %s\n", youngest, node_buf, copy_buf);
  return SVN_NO_ERROR;
}

/* Raise *MAX to the sequence number of every "<rev>-<seq>..." entry of
   the directory DIR (a missing directory has none). */
static svn_error_t *
note_txn_names(apr_uint64_t *max, const char *dir, apr_pool_t *pool)
{
  apr_hash_t *entries;
  apr_hash_index_t *hi;
  svn_error_t *err = svn_io_get_dirents3(&entries, dir, TRUE, pool, pool);

  if (err && APR_STATUS_IS_ENOENT(err->apr_err))
    {
      svn_error_clear(err);
      return SVN_NO_ERROR;
    }
  SVN_ERR(err);
  for (hi = apr_hash_first(pool, entries); hi; hi = apr_hash_next(hi))
    {
      const char *name = apr_hash_this_key(hi);
      const char *dash = strchr(name, '-'), *next;
      apr_uint64_t seq;

      if (dash && svn_fs_fs__txn_base36_parse(&seq, &next, dash + 1,
                                              dash + 1 + strlen(dash + 1))
          && seq >= *max)
        *max = seq + 1;
    }
  return SVN_NO_ERROR;
}

/* TXN-2: a db/txn-current that cannot be parsed refuses every new
   transaction (txn_store.c says so and points here).  Replace it with
   the number after the highest one of a transaction still on disk, so
   that no live transaction's name can be handed out again.  Names of
   finished transactions may be used again, which is harmless: FSFS
   formats 1 and 2 reuse them by design (OLD-4).  A readable file is left
   alone (we hold its lock: nobody is taking a number). */
static svn_error_t *
repair_txn_current(svn_fs_t *fs, apr_pool_t *pool)
{
  const char *path = svn_fs_fs__path_db(fs, "txn-current", pool);
  svn_stringbuf_t *text;
  apr_uint64_t seq = 0;
  char buf[SVN_INT64_BUFFER_SIZE + 1];
  apr_size_t len;
  svn_error_t *err;

  if (SVN_FS_FS__DATA(fs)->format < SVN_FS_FS__MIN_TXN_CURRENT_FORMAT)
    return SVN_NO_ERROR;
  SVN_ERR(svn_fs_fs__txn_file_read(&text, path, pool));
  if (text)
    {
      err = svn_fs_fs__txn_current_parse(&seq, text->data, text->len, path);
      if (!err)
        return SVN_NO_ERROR;
      svn_error_clear(err);
      seq = 0;
    }
  SVN_ERR(note_txn_names(&seq, svn_fs_fs__path_db(fs, "transactions", pool),
                         pool));
  SVN_ERR(note_txn_names(&seq, svn_fs_fs__path_db(fs, "txn-protorevs",
                                                  pool),
                         pool));
  len = svn__ui64tobase36(buf, seq);
  buf[len++] = '\n';
  /* A file that exists keeps its mode (group-shared repositories). */
  return svn_error_trace(svn_io_write_atomic2(path, buf, len,
                                              text ? path : NULL, TRUE,
                                              pool));
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
  current = old_current(fs, pool);
  if (SVN_IS_VALID_REVNUM(current) && current > youngest)
    return svn_error_createf(SVN_ERR_FS_CORRUPT, NULL,
                             "Expected current rev to be <= %ld "
                             "but found %ld", youngest, current);
  SVN_ERR(skip_unfinished(&youngest, fs, current, pool));
  SVN_ERR(check_root(fs, youngest, pool));
  SVN_ERR(check_revprops(fs, youngest, pool));
  SVN_ERR(svn_fs_fs__rep_cache_prune(fs->path, youngest, pool));
  SVN_ERR(repair_txn_current(fs, pool));
  if (SVN_FS_FS__DATA(fs)->format < SVN_FS_FS__MIN_NEW_IDS_FORMAT)
    SVN_ERR(old_style_current(&text, b, youngest, pool));
  else
    text = apr_psprintf(pool, "%ld\n", youngest);
  /* db/current keeps its mode, as with stock: another user of a
     group-shared repository must still be able to commit. */
  return svn_error_trace(svn_io_write_atomic2(path, text, strlen(text),
                                              SVN_IS_VALID_REVNUM(current)
                                                ? path : NULL,
                                              TRUE, pool));
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
