/* repo_repcache.c --- keeping db/rep-cache.db in step with db/current
 * (repo_repcache.h; doc/format/layout.md REPCACHE-1).
 *
 * Recovery and hot copies can publish a youngest revision older than
 * rows already in rep-cache.db (a recovered db/current, a copy taken
 * while commits went on).  Such rows point at revisions that do not
 * exist there; the next commit sharing one of those representations
 * would reference missing data.  So both drop them, as stock does.
 *
 * 'svnadmin build-repcache' goes the other way: it re-adds the rows of
 * existing revisions, e.g. after rep-cache.db was lost or rep-sharing
 * was switched on late.
 */
#include <sqlite3.h>

#include "svn_dirent_uri.h"
#include "svn_io.h"
#include "svn_pools.h"
#include "svn_checksum.h"

#include "node.h"
#include "node_walk.h"
#include "rep_read.h"
#include "rep_cache.h"
#include "repo_repcache.h"

/* Give up on a rep-cache that a committer keeps locked after this long. */
#define BUSY_TIMEOUT_MS 10000

/* Run "DELETE ... WHERE revision > YOUNGEST" on the open DB. */
static int
delete_younger(sqlite3 *db, svn_revnum_t youngest)
{
  sqlite3_stmt *stmt = NULL;
  int rc = sqlite3_prepare_v2(db, "DELETE FROM rep_cache WHERE revision > ?1",
                              -1, &stmt, NULL);

  if (rc == SQLITE_OK)
    rc = sqlite3_bind_int64(stmt, 1, (sqlite3_int64)youngest);
  if (rc == SQLITE_OK)
    rc = sqlite3_step(stmt);
  if (rc == SQLITE_DONE)
    rc = SQLITE_OK;
  sqlite3_finalize(stmt);
  return rc;
}

svn_error_t *
svn_fs_fs__rep_cache_prune(const char *db_path, svn_revnum_t youngest,
                           apr_pool_t *scratch_pool)
{
  const char *path = svn_dirent_join(db_path, "rep-cache.db", scratch_pool);
  sqlite3 *db = NULL;
  svn_node_kind_t kind;
  int rc;

  SVN_ERR(svn_io_check_path(path, &kind, scratch_pool));
  if (kind != svn_node_file)
    return SVN_NO_ERROR;
  /* Without SQLITE_OPEN_CREATE: the file must not appear as a side
     effect (it exists from the first commit that stores a rep on). */
  rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL);
  if (rc == SQLITE_OK)
    rc = sqlite3_busy_timeout(db, BUSY_TIMEOUT_MS);
  /* Stock's SQLite settings truncate the journal instead of deleting
     it, so an empty rep-cache.db-journal stays beside the database. */
  if (rc == SQLITE_OK)
    rc = sqlite3_exec(db, "PRAGMA journal_mode = TRUNCATE", NULL, NULL, NULL);
  /* A database whose creation was cut short (the schema's transaction
     never committed, its hot journal rolled back at this open) has no
     table and so no rows to remove; the next commit creates the table
     (rep_cache.c). */
  if (rc == SQLITE_OK && svn_fs_fs__rep_cache_has_table(db))
    rc = delete_younger(db, youngest);
  if (rc != SQLITE_OK)
    {
      svn_error_t *err = svn_error_createf(
        SVN_ERR_SQLITE_ERROR, NULL,
        "Cannot remove rows after r%ld from '%s': %s", youngest,
        svn_dirent_local_style(path, scratch_pool),
        db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));

      sqlite3_close(db);
      return err;
    }
  sqlite3_close(db);
  return SVN_NO_ERROR;
}

/* Append REP, a text or property rep of a node-rev of REV, to REPS
   (its copy in RESULT_POOL) if REV stored it itself: a rep that REV only
   references (shared, or carried over from a predecessor) has its row
   from its own revision.  Property reps carry no SHA-1 on disk; a commit
   knows the checksum of what it wrote, and so do we after reading the
   property list back (RCACHE-6). */
static svn_error_t *
add_if_own(apr_array_header_t *reps, svn_fs_t *fs,
           const svn_fs_fs__rep_t *rep, svn_revnum_t rev,
           apr_pool_t *result_pool, apr_pool_t *scratch_pool)
{
  svn_fs_fs__rep_t *row;
  svn_stream_t *contents;
  svn_checksum_t *sha1;

  if (!rep || rep->in_txn || rep->revision != rev)
    return SVN_NO_ERROR;
  row = apr_pmemdup(result_pool, rep, sizeof(*rep));
  row->uniquifier = NULL;     /* not part of a row; lives in SCRATCH_POOL */
  if (!row->has_sha1)
    {
      SVN_ERR(svn_fs_fs__rep_contents_stream(&contents, fs, rep,
                                             scratch_pool));
      contents = svn_stream_checksummed2(contents, &sha1, NULL,
                                         svn_checksum_sha1, TRUE,
                                         scratch_pool);
      SVN_ERR(svn_stream_copy3(contents, svn_stream_empty(scratch_pool),
                               NULL, NULL, scratch_pool));
      memcpy(row->sha1_digest, sha1->digest, sizeof(row->sha1_digest));
      row->has_sha1 = TRUE;
    }
  APR_ARRAY_PUSH(reps, const svn_fs_fs__rep_t *) = row;
  return SVN_NO_ERROR;
}

/* Add to REPS (RESULT_POOL) the shareable reps that REV itself wrote for
   the node now at PATH in REV, if any. */
static svn_error_t *
reps_at_path(apr_array_header_t *reps, svn_fs_t *fs, svn_revnum_t rev,
             const char *path, apr_pool_t *result_pool,
             apr_pool_t *scratch_pool)
{
  svn_fs_fs__noderev_t *node;

  SVN_ERR(svn_fs_fs__node_at_path(&node, fs, rev, path, scratch_pool,
                                  scratch_pool));
  if (node == NULL)
    return SVN_NO_ERROR;
  /* Listings of directories are not shared (RCACHE-2). */
  if (node->kind == svn_node_file)
    SVN_ERR(add_if_own(reps, fs, node->data_rep, rev, result_pool,
                       scratch_pool));
  return svn_error_trace(add_if_own(reps, fs, node->prop_rep, rev,
                                    result_pool, scratch_pool));
}

/* *REPS (RESULT_POOL) gets the shareable reps REV stored.  A node-rev
   written with a new text or property rep lies at one of the paths of
   REV's changed-path list; it is found by path, because from format 7
   on the list names the transaction's ids.  Node-revs rewritten only for
   a changed child keep older reps and add nothing. */
static svn_error_t *
reps_of_revision(apr_array_header_t **reps, svn_fs_t *fs, svn_revnum_t rev,
                 apr_pool_t *result_pool, apr_pool_t *scratch_pool)
{
  apr_pool_t *block_pool = svn_pool_create(scratch_pool);
  svn_boolean_t last_block = FALSE;
  apr_size_t seen;

  *reps = apr_array_make(result_pool, 4, sizeof(const svn_fs_fs__rep_t *));
  for (seen = 0; !last_block; )
    {
      apr_array_header_t *block;
      int k;

      svn_pool_clear(block_pool);
      SVN_ERR(svn_fs_fs__rev_changes_block(&block, &last_block, fs, rev,
                                           seen, 256, block_pool,
                                           block_pool));
      if (block->nelts == 0)
        break;
      seen += block->nelts;
      for (k = 0; k < block->nelts; k++)
        {
          const svn_fs_fs__change_t *c
            = APR_ARRAY_IDX(block, k, svn_fs_fs__change_t *);

          if (c->change_kind != svn_fs_path_change_delete)
            SVN_ERR(reps_at_path(*reps, fs, rev, c->path.data, result_pool,
                                 block_pool));
        }
    }
  svn_pool_destroy(block_pool);
  return SVN_NO_ERROR;
}

svn_error_t *
svn_fs_fs__repcache_fill(svn_fs_t *fs,
                         const svn_fs_fs__repcache_range_t *range,
                         svn_cancel_func_t cancel_func, void *cancel_baton,
                         apr_pool_t *scratch_pool)
{
  svn_revnum_t first = SVN_IS_VALID_REVNUM(range->start_rev)
                       ? range->start_rev : 1;
  apr_pool_t *rev_pool;
  svn_revnum_t r;

  if (!SVN_FS_FS__DATA(fs)->rep_sharing_allowed)
    return svn_error_create(SVN_ERR_FS_REP_SHARING_NOT_ALLOWED, NULL,
                            "Rep-sharing is disabled in fsfs.conf: no "
                            "rep-cache.db to build");
  SVN_ERR(svn_fs_fs__ensure_revision_exists(range->end_rev, fs,
                                            scratch_pool));
  /* A run over at least one revision leaves a rep-cache.db behind, even
     if nothing in it could be shared: stock does the same. */
  if (first <= range->end_rev)
    SVN_ERR(svn_fs_fs__rep_cache_ensure(fs, scratch_pool));
  rev_pool = svn_pool_create(scratch_pool);
  for (r = first; r <= range->end_rev; r++)
    {
      apr_array_header_t *found;

      svn_pool_clear(rev_pool);
      if (cancel_func)
        SVN_ERR(cancel_func(cancel_baton));
      SVN_ERR(reps_of_revision(&found, fs, r, rev_pool, rev_pool));
      SVN_ERR(svn_fs_fs__rep_cache_add(fs, found, rev_pool));
      if (range->progress_func)
        range->progress_func(r, range->progress_baton, rev_pool);
    }
  svn_pool_destroy(rev_pool);
  return SVN_NO_ERROR;
}
