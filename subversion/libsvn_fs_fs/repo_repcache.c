/* repo_repcache.c --- keeping db/rep-cache.db in step with db/current
 * (repo_repcache.h; doc/format/layout.md REPCACHE-1).
 *
 * Recovery and hot copies can publish a youngest revision older than
 * rows already in rep-cache.db (a recovered db/current, a copy taken
 * while commits went on).  Such rows point at revisions that do not
 * exist there; the next commit sharing one of those representations
 * would reference missing data.  So both drop them, as stock does.
 */
#include <sqlite3.h>

#include "svn_dirent_uri.h"
#include "svn_io.h"

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
  if (rc == SQLITE_OK)
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
