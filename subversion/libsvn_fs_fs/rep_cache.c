/* rep_cache.c --- db/rep-cache.db, the SHA-1 -> representation table
 * (rep_cache.h; doc/format/rep-cache.md RCACHE-*).
 *
 * Call tree:
 *   svn_fs_fs__rep_cache_get  -> open_db (no create) -> lookup_row
 *   svn_fs_fs__rep_cache_add  -> open_db (create, schema) -> insert_row*
 *   svn_fs_fs__rep_cache_match -> svn_fs_fs__rep_contents_stream
 *   svn_fs_fs__rep_cache_walk -> open_db (no create) -> one scan of the rows
 *
 * One sqlite3 connection per svn_fs_t, kept as user data of FS->pool and
 * closed by that pool's cleanup.  Rows are only ever added here; rows
 * naming revisions that a recover or hotcopy dropped are pruned by
 * repo_repcache.c (RCACHE-4).
 */
#include <sqlite3.h>

#include "svn_dirent_uri.h"
#include "svn_io.h"
#include "svn_pools.h"
#include "svn_hash.h"
#include "svn_fs.h"
#include "private/svn_subr_private.h"

#include "noderev_codec.h"
#include "rep_cache.h"
#include "rep_read.h"
#include "paths.h"
#include "durable.h"

/* A committer may hold the database for a moment; wait that long. */
#define BUSY_TIMEOUT_MS 10000

/* Pages SQLite may keep of rep-cache.db.  Its default (2 MB) lets the
   cache grow to the whole file over a load: ~250 kB of heap for
   maven-small's 57 pages, the largest single item at the load's peak.
   SQLite's first block holds 20 pages whatever this says, so this caps
   it there.  The file is in the OS page cache anyway, and a lookup
   touches three or four pages, of which the root and inner pages stay
   cached.  (A string: it goes into a PRAGMA.) */
#define CACHE_PAGES_SQL "10"

/* Key of the open connection in FS->pool's user data: this prefix and
   FS's address, because svn_fs_t objects may share a pool (libsvn_fs
   gives an svn_fs_t the caller's pool), and each must use its own
   repository's database. */
#define DB_USERDATA_KEY "fsfs7-rep-cache-db"

static const char *
db_userdata_key(svn_fs_t *fs, apr_pool_t *pool)
{
  return apr_psprintf(pool, DB_USERDATA_KEY "-%pp", (void *)fs);
}

/* The schema stock writes (RCACHE-1), verbatim, so that either module
   can use a rep-cache.db the other created.  Format 8 repositories get
   the rowid-less table and schema version 2; older formats version 1,
   which the 1.8/1.9 releases they stay compatible with can read. */
#define SCHEMA_COLUMNS_SQL \
  "CREATE TABLE IF NOT EXISTS rep_cache (" \
  "   hash TEXT NOT NULL PRIMARY KEY," \
  "   revision INTEGER NOT NULL," \
  "   offset INTEGER NOT NULL," \
  "   size INTEGER NOT NULL," \
  "   expanded_size INTEGER NOT NULL" \
  "   )"
#define SCHEMA_V1_SQL SCHEMA_COLUMNS_SQL "; PRAGMA user_version = 1;"
#define SCHEMA_V2_SQL SCHEMA_COLUMNS_SQL \
  " WITHOUT ROWID; PRAGMA user_version = 2;"

/* The schema a new rep-cache.db of FS gets, as one transaction. */
static const char *
schema_sql(svn_fs_t *fs)
{
  return SVN_FS_FS__DATA(fs)->format >= 8
         ? "BEGIN IMMEDIATE; " SCHEMA_V2_SQL " COMMIT;"
         : "BEGIN IMMEDIATE; " SCHEMA_V1_SQL " COMMIT;";
}

/* SQLite error RC on DB as the svn error stock gives for it: the codes
   callers test for (a busy or read-only database, a constraint) keep
   their own svn error code. */
static svn_error_t *
sqlite_error(int rc, sqlite3 *db, const char *path)
{
  apr_status_t code;

  switch (rc & 0xff)
    {
      case SQLITE_BUSY:
      case SQLITE_LOCKED:
        code = SVN_ERR_SQLITE_BUSY;
        break;
      case SQLITE_READONLY:
        code = SVN_ERR_SQLITE_READONLY;
        break;
      case SQLITE_CONSTRAINT:
        code = SVN_ERR_SQLITE_CONSTRAINT;
        break;
      default:
        code = SVN_ERR_SQLITE_ERROR;
    }
  /* A file that is no SQLite database, or a damaged one, breaks the
     file's own rule: say so, as every damage report does. */
  return svn_error_createf(code, NULL,
                           "%s, executing statement on '%s'%s",
                           db ? sqlite3_errmsg(db) : sqlite3_errstr(rc),
                           svn_dirent_local_style(path, NULL),
                           ((rc & 0xff) == SQLITE_CORRUPT
                            || (rc & 0xff) == SQLITE_NOTADB)
                           ? " (rule RCACHE-1)" : "");
}

/* End the transaction DB may still be in after ERR (returned): a failed
   statement inside BEGIN ... COMMIT leaves it open, and this connection
   would keep its lock and fail every later use of the rep-cache through
   its svn_fs_t.  ERR must be built first: the ROLLBACK's success
   replaces SQLite's message by "not an error". */
static svn_error_t *
end_failed_txn(svn_error_t *err, sqlite3 *db)
{
  if (!sqlite3_get_autocommit(db))
    sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
  return err;
}

/* Give DB (at PATH) FS's schema unless it has it (user_version 0: a new
   file, or one whose creator was interrupted).  One transaction, so that
   a crash or a failed write leaves either no table or the table with
   user_version 1; never the table without the version, which stock's
   initialization rejects ("table rep_cache already exists"; found by the
   I/O-error campaign, doc/reliability.md). */
static svn_error_t *
ensure_schema(sqlite3 *db, svn_fs_t *fs, const char *path)
{
  sqlite3_stmt *stmt;
  int version = -1;
  int rc = sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &stmt, NULL);

  if (rc == SQLITE_OK && sqlite3_step(stmt) == SQLITE_ROW)
    version = sqlite3_column_int(stmt, 0);
  if (rc == SQLITE_OK)
    rc = sqlite3_finalize(stmt);
  if (rc != SQLITE_OK)
    return sqlite_error(rc, db, path);
  if (version != 0)
    return SVN_NO_ERROR;
  rc = sqlite3_exec(db, schema_sql(fs), NULL, NULL, NULL);
  if (rc != SQLITE_OK)
    return end_failed_txn(sqlite_error(rc, db, path), db);
  return SVN_NO_ERROR;
}

/* Pool cleanup closing the connection. */
static apr_status_t
close_db(void *baton)
{
  sqlite3_close_v2(baton);
  return APR_SUCCESS;
}

/* Another committer may have made the file and not yet its table (two
   first commits at once); recover may meet a file whose creation a crash
   cut short. */
svn_boolean_t
svn_fs_fs__rep_cache_has_table(struct sqlite3 *db)
{
  sqlite3_stmt *stmt = NULL;
  svn_boolean_t found = FALSE;

  if (sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master WHERE "
                         "type = 'table' AND name = 'rep_cache'", -1, &stmt,
                         NULL) == SQLITE_OK)
    found = sqlite3_step(stmt) == SQLITE_ROW;
  sqlite3_finalize(stmt);
  return found;
}

/* Create the empty file PATH (FS's rep-cache.db) with the permissions of
   db/current, as stock does, unless it exists.  SQLite would create it
   with this process's umask: in a repository shared by a group, the
   first committer would own a database no other member may write, and
   every later commit by another user would fail to add its rows. */
static svn_error_t *
create_db_file(svn_fs_t *fs, const char *path, apr_pool_t *scratch_pool)
{
  svn_error_t *err = svn_io_file_create_empty(path, scratch_pool);

  /* Another process made it meanwhile: its creator gave it the mode. */
  if (err && APR_STATUS_IS_EEXIST(err->apr_err))
    {
      svn_error_clear(err);
      return SVN_NO_ERROR;
    }
  SVN_ERR(err);
  return svn_error_trace(svn_io_copy_perms(
           svn_fs_fs__path_db(fs, "current", scratch_pool), path,
           scratch_pool));
}

/* Open (CREATE: creating file and table) FS's rep-cache.db into *DB,
   reusing the connection of an earlier call.  *DB NULL when the file is
   missing and CREATE is FALSE. */
static svn_error_t *
open_db(sqlite3 **db, svn_fs_t *fs, svn_boolean_t create,
        apr_pool_t *scratch_pool)
{
  const char *path;
  void *held;
  svn_node_kind_t kind;
  svn_error_t *err = SVN_NO_ERROR;
  int rc;

  apr_pool_userdata_get(&held, db_userdata_key(fs, scratch_pool), fs->pool);
  *db = held;
  if (*db)
    return SVN_NO_ERROR;
  path = svn_fs_fs__path_db(fs, "rep-cache.db", scratch_pool);
  SVN_ERR(svn_io_check_path(path, &kind, scratch_pool));
  if (kind != svn_node_file && !create)
    return SVN_NO_ERROR;
  if (kind == svn_node_none)
    SVN_ERR(create_db_file(fs, path, scratch_pool));
  rc = sqlite3_open_v2(path, db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
                       NULL);
  if (rc == SQLITE_OK)
    rc = sqlite3_busy_timeout(*db, BUSY_TIMEOUT_MS);
  if (rc == SQLITE_OK)
    rc = sqlite3_exec(*db, "PRAGMA cache_size = " CACHE_PAGES_SQL, NULL,
                      NULL, NULL);
  /* Stock truncates its journal rather than deleting it. */
  if (rc == SQLITE_OK)
    rc = sqlite3_exec(*db, "PRAGMA journal_mode = TRUNCATE", NULL, NULL,
                      NULL);
  /* The rows are a cache of what the revision files (already durable)
     hold, and the readers check every row before they share a rep, so a
     lost row costs nothing.  But with no fsync at all (stock's choice,
     synchronous = OFF) a power cut can leave database pages of a
     transaction without the journal that undoes them: "file is not a
     database", and every later commit, verify and recover fails on it
     (the power-cut simulator, doc/powercut.md PC-6).  NORMAL is not
     enough either (PC-7): it writes the journal header's record count
     before the records are durable and does not sync the truncation
     that commits a transaction, so a cut can leave a hot journal mixing
     the records of two transactions, whose rollback writes one page's
     bytes over another.  FULL syncs the records before the header, the
     header before the database, and the truncation before the next
     transaction; it is skipped like every other sync of the module with
     SVN_FS_CONFIG_NO_FLUSH_TO_DISK. */
  if (rc == SQLITE_OK)
    rc = sqlite3_exec(*db, !svn_fs_fs__flush_wanted(fs) ? "PRAGMA synchronous = OFF"
                                        : "PRAGMA synchronous = FULL",
                      NULL, NULL, NULL);
  if (rc != SQLITE_OK)
    err = sqlite_error(rc, *db, path);
  else
    err = ensure_schema(*db, fs, path);
  if (err)
    {
      sqlite3_close_v2(*db);
      *db = NULL;
      return err;
    }
  /* userdata_set keeps the key pointer: give it the pool's life.  The
     connection is closed with the pool, but never in a child forked to
     run a hook (apr_pool_cleanup_for_exec): closing takes SQLite's
     connection mutex, which another thread of a threaded server may have
     held at the fork, and the child would wait for it forever. */
  apr_pool_userdata_set(*db, db_userdata_key(fs, fs->pool), NULL, fs->pool);
  apr_pool_cleanup_register(fs->pool, *db, close_db, apr_pool_cleanup_null);
  return SVN_NO_ERROR;
}

/* Fill *REP (RESULT_POOL) from the row of HEX in DB, or NULL. */
static int
lookup_row(svn_fs_fs__rep_t **rep, sqlite3 *db, const char *hex,
           apr_pool_t *result_pool)
{
  sqlite3_stmt *stmt = NULL;
  int rc = sqlite3_prepare_v2(db, "SELECT revision, offset, size, "
                              "expanded_size FROM rep_cache WHERE hash = ?1",
                              -1, &stmt, NULL);

  *rep = NULL;
  if (rc == SQLITE_OK)
    rc = sqlite3_bind_text(stmt, 1, hex, -1, SQLITE_STATIC);
  if (rc == SQLITE_OK)
    rc = sqlite3_step(stmt);
  if (rc == SQLITE_ROW)
    {
      svn_fs_fs__rep_t *r = apr_pcalloc(result_pool, sizeof(*r));
      r->revision = (svn_revnum_t)sqlite3_column_int64(stmt, 0);
      r->item_index = (apr_uint64_t)sqlite3_column_int64(stmt, 1);
      r->size = sqlite3_column_int64(stmt, 2);
      r->expanded_size = sqlite3_column_int64(stmt, 3);
      r->has_sha1 = TRUE;
      *rep = r;
      rc = SQLITE_OK;
    }
  else if (rc == SQLITE_DONE)
    rc = SQLITE_OK;
  sqlite3_finalize(stmt);
  return rc;
}

svn_error_t *
svn_fs_fs__rep_cache_get(svn_fs_fs__rep_t **rep, svn_fs_t *fs,
                         const unsigned char *sha1_digest,
                         apr_pool_t *result_pool, apr_pool_t *scratch_pool)
{
  svn_fs_fs__data_t *ffd = SVN_FS_FS__DATA(fs);
  svn_checksum_t sum = { sha1_digest, svn_checksum_sha1 };
  sqlite3 *db;
  svn_revnum_t youngest = ffd->youngest_rev_cache;
  int rc;

  svn_error_t *err;

  *rep = NULL;
  if (!ffd->rep_sharing_allowed)
    return SVN_NO_ERROR;
  /* A row is only a hint (RCACHE-3): a rep-cache.db that cannot be
     opened or read (garbage, cut short, busy, a table not created yet)
     gives no row, and the commit stores its own copy, as stock does.
     Adding the rows after the commit then reports the damage
     (COMMIT-8), and verify does (RCACHE-5). */
  err = open_db(&db, fs, FALSE, scratch_pool);
  if (err && (err->apr_err == SVN_ERR_SQLITE_ERROR
              || err->apr_err == SVN_ERR_SQLITE_BUSY
              || err->apr_err == SVN_ERR_SQLITE_READONLY))
    {
      svn_error_clear(err);
      return SVN_NO_ERROR;
    }
  SVN_ERR(err);
  if (!db)
    return SVN_NO_ERROR;
  rc = lookup_row(rep, db, svn_checksum_to_cstring_display(&sum,
                                                           scratch_pool),
                  result_pool);
  if (rc != SQLITE_OK)
    {
      *rep = NULL;
      return SVN_NO_ERROR;
    }
  if (*rep && (*rep)->revision > youngest)
    SVN_ERR(svn_fs_fs__youngest_rev(&youngest, fs, scratch_pool));
  /* A row for a revision that is not there (a crash between the row and
     db/current cannot happen: rows follow current; but a hot copy or a
     recover can leave them, RCACHE-4) must not be shared. */
  if (*rep && ((*rep)->revision > youngest || (*rep)->revision < 1))
    *rep = NULL;
  if (*rep)
    memcpy((*rep)->sha1_digest, sha1_digest, APR_SHA1_DIGESTSIZE);
  return SVN_NO_ERROR;
}

/* Insert the row of committed REP into DB unless its hash is there. */
static int
insert_row(sqlite3 *db, sqlite3_stmt *stmt, const svn_fs_fs__rep_t *rep,
           apr_pool_t *scratch_pool)
{
  svn_checksum_t sum = { rep->sha1_digest, svn_checksum_sha1 };
  int rc = sqlite3_reset(stmt);

  if (rc == SQLITE_OK)
    rc = sqlite3_bind_text(stmt, 1,
                           svn_checksum_to_cstring_display(&sum,
                                                           scratch_pool),
                           -1, SQLITE_TRANSIENT);
  if (rc == SQLITE_OK)
    rc = sqlite3_bind_int64(stmt, 2, rep->revision);
  if (rc == SQLITE_OK)
    rc = sqlite3_bind_int64(stmt, 3, (sqlite3_int64)rep->item_index);
  if (rc == SQLITE_OK)
    rc = sqlite3_bind_int64(stmt, 4, rep->size);
  if (rc == SQLITE_OK)
    rc = sqlite3_bind_int64(stmt, 5, rep->expanded_size);
  if (rc == SQLITE_OK)
    rc = sqlite3_step(stmt);
  return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

/* Insert all of REPS inside one sqlite transaction on DB (at PATH). */
static svn_error_t *
insert_all(sqlite3 *db, const apr_array_header_t *reps, const char *path,
           apr_pool_t *scratch_pool)
{
  apr_pool_t *iterpool = svn_pool_create(scratch_pool);
  sqlite3_stmt *stmt = NULL;
  svn_error_t *err = SVN_NO_ERROR;
  int i;
  int rc = sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL);

  if (rc == SQLITE_OK)
    rc = sqlite3_prepare_v2(db, "INSERT OR IGNORE INTO rep_cache (hash, "
                            "revision, offset, size, expanded_size) "
                            "VALUES (?1, ?2, ?3, ?4, ?5)", -1, &stmt, NULL);
  for (i = 0; rc == SQLITE_OK && i < reps->nelts; i++)
    {
      const svn_fs_fs__rep_t *rep = APR_ARRAY_IDX(reps, i,
                                                  svn_fs_fs__rep_t *);
      svn_pool_clear(iterpool);
      if (rep->has_sha1 && SVN_IS_VALID_REVNUM(rep->revision))
        rc = insert_row(db, stmt, rep, iterpool);
    }
  svn_pool_destroy(iterpool);
  /* The message first: finalizing and rolling back change it. */
  if (rc != SQLITE_OK)
    err = sqlite_error(rc, db, path);
  sqlite3_finalize(stmt);
  /* A COMMIT that fails (a reader holds the database) leaves the
     transaction open, as does a failed INSERT. */
  if (!err)
    {
      rc = sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
      if (rc != SQLITE_OK)
        err = sqlite_error(rc, db, path);
    }
  return err ? end_failed_txn(err, db) : SVN_NO_ERROR;
}

svn_error_t *
svn_fs_fs__rep_cache_add(svn_fs_t *fs, const apr_array_header_t *reps,
                         apr_pool_t *scratch_pool)
{
  sqlite3 *db;
  const char *path;

  if (!SVN_FS_FS__DATA(fs)->rep_sharing_allowed)
    return SVN_NO_ERROR;
  /* Stock creates the database at every commit, also one without a rep
     to record (a first commit that only adds a directory). */
  SVN_ERR(open_db(&db, fs, TRUE, scratch_pool));
  if (reps->nelts == 0)
    return SVN_NO_ERROR;
  path = svn_fs_fs__path_db(fs, "rep-cache.db", scratch_pool);
  /* The connection may have been opened by a lookup before the table
     existed. */
  if (!svn_fs_fs__rep_cache_has_table(db))
    SVN_ERR(ensure_schema(db, fs, path));
  return svn_error_trace(insert_all(db, reps, path, scratch_pool));
}

/* Fill the location fields of *REP from the current row of STMT
   (columns revision, offset, size, expanded_size, hash). */
static void
row_to_rep(svn_fs_fs__rep_t *rep, sqlite3_stmt *stmt)
{
  memset(rep, 0, sizeof(*rep));
  rep->revision = (svn_revnum_t)sqlite3_column_int64(stmt, 0);
  rep->item_index = (apr_uint64_t)sqlite3_column_int64(stmt, 1);
  rep->size = sqlite3_column_int64(stmt, 2);
  rep->expanded_size = sqlite3_column_int64(stmt, 3);
}

svn_error_t *
svn_fs_fs__rep_cache_walk(svn_boolean_t *exists, svn_revnum_t *max_revision,
                          svn_fs_t *fs, svn_revnum_t start, svn_revnum_t end,
                          svn_fs_fs__rep_cache_walk_func_t func, void *baton,
                          svn_cancel_func_t cancel_func, void *cancel_baton,
                          apr_pool_t *scratch_pool)
{
  apr_pool_t *iterpool;
  sqlite3 *db;
  sqlite3_stmt *stmt = NULL;
  svn_error_t *err = SVN_NO_ERROR;
  int rc;

  *exists = FALSE;
  *max_revision = SVN_INVALID_REVNUM;
  SVN_ERR(open_db(&db, fs, FALSE, scratch_pool));
  if (!db)
    return SVN_NO_ERROR;
  *exists = TRUE;
  /* The table has no index on revision: MAX(revision) and a WHERE on the
     range would each read every page.  One scan of every row gives both,
     in the table's order, so the walk reads the table once however long
     the history (stock reads it twice). */
  rc = sqlite3_prepare_v2(db, "SELECT revision, offset, size, "
                          "expanded_size FROM rep_cache", -1, &stmt, NULL);
  iterpool = svn_pool_create(scratch_pool);
  while (rc == SQLITE_OK && !err)
    {
      svn_fs_fs__rep_t rep;

      rc = sqlite3_step(stmt);
      if (rc != SQLITE_ROW)
        break;
      rc = SQLITE_OK;
      row_to_rep(&rep, stmt);
      if (!SVN_IS_VALID_REVNUM(*max_revision)
          || rep.revision > *max_revision)
        *max_revision = rep.revision;
      if (rep.revision < start || rep.revision > end)
        continue;
      svn_pool_clear(iterpool);
      if (cancel_func)
        err = cancel_func(cancel_baton);
      if (!err)
        err = func(baton, &rep, iterpool);
    }
  svn_pool_destroy(iterpool);
  sqlite3_finalize(stmt);
  SVN_ERR(err);
  if (rc != SQLITE_OK && rc != SQLITE_DONE)
    return sqlite_error(rc, db, svn_fs_fs__path_db(fs, "rep-cache.db",
                                                   scratch_pool));
  return SVN_NO_ERROR;
}

/* MD5 of the fulltext of REP, read back from disk, in *MD5. */
static svn_error_t *
fulltext_md5(svn_checksum_t **md5, svn_fs_t *fs, const svn_fs_fs__rep_t *rep,
             apr_pool_t *scratch_pool)
{
  svn_stream_t *contents;

  SVN_ERR(svn_fs_fs__rep_contents_stream(&contents, fs, rep, scratch_pool));
  contents = svn_stream_checksummed2(contents, md5, NULL, svn_checksum_md5,
                                     TRUE, scratch_pool);
  return svn_error_trace(svn_stream_copy3(contents,
                                          svn_stream_empty(scratch_pool),
                                          NULL, NULL, scratch_pool));
}

/* The stock module's error for FOUND, named by a row with NEW_REP's
   SHA-1, whose contents are not NEW_REP's (CAUSE: what reading FOUND
   gave, or NULL for a plain MD5 mismatch, taken over). */
static svn_error_t *
ambiguous_rep(svn_fs_t *fs, const svn_fs_fs__rep_t *found,
              const svn_fs_fs__rep_t *new_rep, svn_checksum_t *actual,
              svn_error_t *cause, apr_pool_t *scratch_pool)
{
  int format = SVN_FS_FS__DATA(fs)->format;
  svn_stringbuf_t *a = svn_stringbuf_create_empty(scratch_pool);
  svn_stringbuf_t *b = svn_stringbuf_create_empty(scratch_pool);
  svn_checksum_t sha1 = { new_rep->sha1_digest, svn_checksum_sha1 };
  svn_checksum_t md5 = { new_rep->md5_digest, svn_checksum_md5 };

  if (!cause)
    cause = svn_checksum_mismatch_err(&md5, actual, scratch_pool,
                                      "Checksum mismatch while reading "
                                      "representation");
  svn_fs_fs__rep_unparse(a, found, format, FALSE);
  svn_fs_fs__rep_unparse(b, new_rep, format, FALSE);
  return svn_error_createf(SVN_ERR_FS_AMBIGUOUS_CHECKSUM_REP, cause,
                           "SHA1 of reps '%s' and '%s' matches (%s) but "
                           "contents differ", a->data, b->data,
                           svn_checksum_to_cstring_display(&sha1,
                                                           scratch_pool));
}

svn_error_t *
svn_fs_fs__rep_cache_match(svn_boolean_t *match, svn_fs_t *fs,
                           svn_fs_fs__rep_t *found,
                           const svn_fs_fs__rep_t *new_rep,
                           apr_pool_t *scratch_pool)
{
  svn_checksum_t *md5 = NULL;
  svn_error_t *err;

  *match = FALSE;
  if (found->expanded_size != new_rep->expanded_size)
    return SVN_NO_ERROR;
  /* The row does not record an MD5; the reader may check the one in
     FOUND, so give it the one we hope for, and compute it ourselves too
     (RCACHE-3). */
  memcpy(found->md5_digest, new_rep->md5_digest, APR_MD5_DIGESTSIZE);
  err = fulltext_md5(&md5, fs, found, scratch_pool);
  /* A row naming no item at all fails with the index's own error; a rep
     that is there but reads back as something else (or not at all) is
     an ambiguous checksum, as with stock: the commit fails rather than
     silently storing a second copy. */
  if (err && (err->apr_err == SVN_ERR_FS_NO_SUCH_REVISION
              || err->apr_err == SVN_ERR_FS_INDEX_OVERFLOW
              || err->apr_err == SVN_ERR_FS_INDEX_REVISION))
    return svn_error_trace(err);
  if (!err && md5 && !memcmp(md5->digest, new_rep->md5_digest,
                             APR_MD5_DIGESTSIZE))
    {
      *match = TRUE;
      return SVN_NO_ERROR;
    }
  return ambiguous_rep(fs, found, new_rep, md5, err, scratch_pool);
}

svn_error_t *
svn_fs_fs__rep_cache_ensure(svn_fs_t *fs, apr_pool_t *scratch_pool)
{
  sqlite3 *db;

  return svn_error_trace(open_db(&db, fs, TRUE, scratch_pool));
}
