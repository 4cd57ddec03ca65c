/* repo_repcache_copy.c --- bringing an earlier hot copy's rep-cache.db
 * up to date by appending rows (repo_repcache.h; doc/format/layout.md
 * HOTCOPY-5).
 *
 * SQLite's backup reads every page of the source and writes every page
 * of the copy, so an incremental hot copy that copies rep-cache.db whole
 * costs what the history holds (302,370 rows, 34 MB at 100,000
 * revisions) instead of what the new revisions added.  Commits only
 * append rows: a rowid table (schema version 1, formats 4-7) gives each
 * new row the next rowid, so the rows an earlier copy lacks are, as a
 * rule, those above its largest rowid.  This file appends them, once
 * the two files are shown to agree on what they share; whatever it
 * cannot show, the caller copies the whole file as before.
 *
 *   svn_fs_fs__rep_cache_append_new
 *     open_pair            source read-only; the copy read-write, never
 *                          created; one read snapshot of the source and
 *                          one write transaction on the copy
 *     schemas_agree        same sqlite_master, user_version 1 both
 *     prefix_agrees        copy's largest rowid D: the source's row D is
 *                          the copy's, and both hold as many rows up to D
 *     append_rows          the source's rows above D, with their rowids,
 *                          in rowid order; rows after the youngest
 *                          revision are left out (REPCACHE-1) while only
 *                          such rows follow them
 *     COMMIT; else ROLLBACK and "not appended" (the caller copies the
 *     whole file), or, on I/O and other failures, an error
 *
 * Cost: the lookups are a descent of the b-trees each (rowid and
 * count of the rows above D) and the rows written are the new ones; the
 * two row counts are the one part that grows with the table: SQLite
 * keeps no count, so each reads every page of the file's smaller b-tree
 * (the hash index, about half the file), one pread(2) per page, writing
 * nothing.  A memory map (PRAGMA mmap_size) would save those calls but
 * put the touched pages in the process's resident set, 64 MB more at
 * 302,370 rows, where stock's copy stays at 10 MB.  Dropping the counts
 * would make the copy flat but blind to a row deleted below D (by hand,
 * or by the prune of a whole-file copy when rows landed out of order),
 * which no later append would bring back.
 */
#include <sqlite3.h>

#include "svn_dirent_uri.h"
#include "svn_io.h"
#include "svn_string.h"

#include "repo_repcache.h"

/* Give up on a rep-cache that a committer keeps locked after this long. */
#define BUSY_TIMEOUT_MS 10000

/* The two connections: S the source (read-only), D the copy. */
typedef struct pair_t
{
  sqlite3 *s;
  sqlite3 *d;
} pair_t;

/* Open PATH into *DB with FLAGS, waiting for a busy file. */
static int
open_one(sqlite3 **db, const char *path, int flags)
{
  int rc = sqlite3_open_v2(path, db, flags, NULL);

  if (rc == SQLITE_OK)
    rc = sqlite3_busy_timeout(*db, BUSY_TIMEOUT_MS);
  return rc;
}

/* Open both files and start a read transaction on the source (its
   snapshot holds from the first read on) and a write transaction on the
   copy.  The copy keeps stock's journal mode: an empty journal file
   beside it, never deleted. */
static int
open_pair(pair_t *p, const char *src, const char *dst)
{
  int rc = open_one(&p->s, src, SQLITE_OPEN_READONLY);

  if (rc == SQLITE_OK)
    rc = open_one(&p->d, dst, SQLITE_OPEN_READWRITE);
  if (rc == SQLITE_OK)
    rc = sqlite3_exec(p->d, "PRAGMA journal_mode = TRUNCATE", NULL, NULL,
                      NULL);
  if (rc == SQLITE_OK)
    rc = sqlite3_exec(p->s, "BEGIN", NULL, NULL, NULL);
  if (rc == SQLITE_OK)
    rc = sqlite3_exec(p->d, "BEGIN IMMEDIATE", NULL, NULL, NULL);
  return rc;
}

/* Run SQL on DB, binding PARAM to ?1 if SQL has it, and set *VALUE to
   the first column of the first row; *FOUND FALSE when there is no row
   or the value is NULL. */
static int
query_int(sqlite3_int64 *value, svn_boolean_t *found, sqlite3 *db,
          const char *sql, sqlite3_int64 param)
{
  sqlite3_stmt *stmt = NULL;
  int rc = sqlite3_prepare_v2(db, sql, -1, &stmt, NULL);

  *found = FALSE;
  if (rc == SQLITE_OK && sqlite3_bind_parameter_count(stmt) > 0)
    rc = sqlite3_bind_int64(stmt, 1, param);
  if (rc == SQLITE_OK)
    rc = sqlite3_step(stmt);
  if (rc == SQLITE_ROW)
    {
      *found = sqlite3_column_type(stmt, 0) != SQLITE_NULL;
      *value = sqlite3_column_int64(stmt, 0);
      rc = SQLITE_OK;
    }
  else if (rc == SQLITE_DONE)
    rc = SQLITE_OK;
  sqlite3_finalize(stmt);
  return rc;
}

/* Append to BUF every column of every row SQL gives on DB (with
   ROWID bound to ?1 if SQL has it), each value with its type, so that
   two results are equal as text only if they are equal as values. */
static int
dump_rows(svn_stringbuf_t *buf, sqlite3 *db, const char *sql,
          sqlite3_int64 rowid)
{
  sqlite3_stmt *stmt = NULL;
  int rc = sqlite3_prepare_v2(db, sql, -1, &stmt, NULL);
  int i;

  if (rc == SQLITE_OK && sqlite3_bind_parameter_count(stmt) > 0)
    rc = sqlite3_bind_int64(stmt, 1, rowid);
  while (rc == SQLITE_OK && (rc = sqlite3_step(stmt)) == SQLITE_ROW)
    {
      rc = SQLITE_OK;
      for (i = 0; i < sqlite3_column_count(stmt); i++)
        {
          /* The type first: reading the bytes may convert the value. */
          char type = (char)('0' + sqlite3_column_type(stmt, i));
          const void *bytes = sqlite3_column_blob(stmt, i);
          int len = sqlite3_column_bytes(stmt, i);

          svn_stringbuf_appendbyte(buf, type);
          svn_stringbuf_appendbytes(buf, (const char *)&len, sizeof(len));
          if (bytes)
            svn_stringbuf_appendbytes(buf, bytes, len);
        }
      svn_stringbuf_appendbyte(buf, '\n');
    }
  sqlite3_finalize(stmt);
  return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

/* Do the files have the same schema, a rowid table of version 1?  A
   format-8 table (WITHOUT ROWID, version 2) has no rowids to go by. */
static int
schemas_agree(svn_boolean_t *agree, pair_t *p, apr_pool_t *pool)
{
  static const char *const sql = "SELECT type, name, tbl_name, sql FROM "
                                 "sqlite_master ORDER BY type, name";
  svn_stringbuf_t *s = svn_stringbuf_create_empty(pool);
  svn_stringbuf_t *d = svn_stringbuf_create_empty(pool);
  sqlite3_int64 sv = 0, dv = 0;
  svn_boolean_t found;
  int rc = dump_rows(s, p->s, sql, 0);

  *agree = FALSE;
  if (rc == SQLITE_OK)
    rc = dump_rows(d, p->d, sql, 0);
  if (rc == SQLITE_OK)
    rc = query_int(&sv, &found, p->s, "PRAGMA user_version", 0);
  if (rc == SQLITE_OK)
    rc = query_int(&dv, &found, p->d, "PRAGMA user_version", 0);
  *agree = rc == SQLITE_OK && sv == 1 && dv == 1 && s->len > 0
           && svn_stringbuf_compare(s, d);
  return rc;
}

/* Do the files agree on the rows up to the copy's largest rowid, which
   goes to *LAST (0 for an empty table)?  The row at *LAST must be the
   same in both and name a revision up to YOUNGEST, and the source must
   hold as many rows up to *LAST as the copy: a row the copy lost
   (deleted by hand, or pruned by an earlier copy below rows it kept),
   one the source lost (a recover), or a source rebuilt from scratch
   fails one of these. */
static int
prefix_agrees(svn_boolean_t *agree, sqlite3_int64 *last, pair_t *p,
              svn_revnum_t youngest, apr_pool_t *pool)
{
  static const char *const row_sql = "SELECT hash, revision, offset, size, "
                                     "expanded_size FROM rep_cache "
                                     "WHERE rowid = ?1";
  svn_stringbuf_t *s = svn_stringbuf_create_empty(pool);
  svn_stringbuf_t *d = svn_stringbuf_create_empty(pool);
  sqlite3_int64 d_rows = 0, s_rows = 0, s_above = 0, rev = 0;
  svn_boolean_t found;
  int rc = query_int(last, &found, p->d, "SELECT max(rowid) FROM rep_cache",
                     0);

  *agree = FALSE;
  if (rc != SQLITE_OK)
    return rc;
  if (!found)
    *last = 0;
  else
    {
      rc = dump_rows(s, p->s, row_sql, *last);
      if (rc == SQLITE_OK)
        rc = dump_rows(d, p->d, row_sql, *last);
      if (rc == SQLITE_OK)
        rc = query_int(&rev, &found, p->d, "SELECT revision FROM rep_cache "
                       "WHERE rowid = ?1", *last);
      if (rc != SQLITE_OK || s->len == 0 || !svn_stringbuf_compare(s, d)
          || rev > youngest)
        return rc;
    }
  rc = query_int(&d_rows, &found, p->d, "SELECT count(*) FROM rep_cache", 0);
  if (rc == SQLITE_OK)
    rc = query_int(&s_rows, &found, p->s, "SELECT count(*) FROM rep_cache", 0);
  if (rc == SQLITE_OK)
    rc = query_int(&s_above, &found, p->s, "SELECT count(*) FROM rep_cache "
                   "WHERE rowid > ?1", *last);
  *agree = rc == SQLITE_OK && s_rows - s_above == d_rows;
  return rc;
}

/* Insert into the copy the source's rows above LAST, rowids kept, up to
   YOUNGEST (REPCACHE-1).  A row after the youngest revision that is
   followed by one up to it (a commit's rows landing after a later
   commit's) would leave a hole below the copy's new largest rowid, which
   no later append would fill: *IN_ORDER FALSE then. */
static int
append_rows(svn_boolean_t *in_order, pair_t *p, sqlite3_int64 last,
            svn_revnum_t youngest)
{
  sqlite3_stmt *from = NULL, *into = NULL;
  svn_boolean_t skipped = FALSE;
  int i, rc = sqlite3_prepare_v2(p->s, "SELECT rowid, hash, revision, "
                                 "offset, size, expanded_size FROM "
                                 "rep_cache WHERE rowid > ?1 ORDER BY rowid",
                                 -1, &from, NULL);

  *in_order = TRUE;
  if (rc == SQLITE_OK)
    rc = sqlite3_prepare_v2(p->d, "INSERT INTO rep_cache (rowid, hash, "
                            "revision, offset, size, expanded_size) VALUES "
                            "(?1, ?2, ?3, ?4, ?5, ?6)", -1, &into, NULL);
  if (rc == SQLITE_OK)
    rc = sqlite3_bind_int64(from, 1, last);
  while (rc == SQLITE_OK && (rc = sqlite3_step(from)) == SQLITE_ROW)
    {
      rc = SQLITE_OK;
      if (sqlite3_column_int64(from, 2) > youngest)
        {
          skipped = TRUE;
          continue;
        }
      if (skipped)
        {
          *in_order = FALSE;
          break;
        }
      /* The values as they are, types included: the copy gets the very
         rows a whole-file copy would give it. */
      for (i = 0; rc == SQLITE_OK && i < 6; i++)
        rc = sqlite3_bind_value(into, i + 1, sqlite3_column_value(from, i));
      if (rc == SQLITE_OK)
        rc = sqlite3_step(into);
      if (rc == SQLITE_DONE)
        rc = sqlite3_reset(into);
    }
  sqlite3_finalize(from);
  sqlite3_finalize(into);
  return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

/* The work of svn_fs_fs__rep_cache_append_new on the open pair P. */
static int
append_new(svn_boolean_t *appended, pair_t *p, svn_revnum_t youngest,
           apr_pool_t *pool)
{
  svn_boolean_t agree = FALSE, in_order = FALSE;
  sqlite3_int64 last = 0;
  int rc = schemas_agree(&agree, p, pool);

  if (rc == SQLITE_OK && agree)
    rc = prefix_agrees(&agree, &last, p, youngest, pool);
  if (rc == SQLITE_OK && agree)
    rc = append_rows(&in_order, p, last, youngest);
  if (rc == SQLITE_OK && agree && in_order)
    rc = sqlite3_exec(p->d, "COMMIT", NULL, NULL, NULL);
  *appended = rc == SQLITE_OK && agree && in_order;
  return rc;
}

/* Does RC say the copy's file must be replaced rather than appended to
   (damaged, or holding a row of a hash the source has above D)?  Other
   failures (I/O, a full disk, no access) would befall the whole-file
   copy too, and are reported. */
static svn_boolean_t
replace_on(int rc)
{
  return (rc & 0xff) == SQLITE_CORRUPT || (rc & 0xff) == SQLITE_NOTADB
         || (rc & 0xff) == SQLITE_CONSTRAINT;
}

svn_error_t *
svn_fs_fs__rep_cache_append_new(svn_boolean_t *appended,
                                const char *src_path, const char *dst_path,
                                svn_revnum_t youngest,
                                apr_pool_t *scratch_pool)
{
  pair_t p = { NULL, NULL };
  svn_node_kind_t kind;
  int rc;

  *appended = FALSE;
  SVN_ERR(svn_io_check_path(dst_path, &kind, scratch_pool));
  if (kind != svn_node_file)
    return SVN_NO_ERROR;
  rc = open_pair(&p, src_path, dst_path);
  if (rc == SQLITE_OK)
    rc = append_new(appended, &p, youngest, scratch_pool);
  /* A failed append leaves the copy as it was. */
  if (p.d && !sqlite3_get_autocommit(p.d))
    sqlite3_exec(p.d, "ROLLBACK", NULL, NULL, NULL);
  if (p.s && !sqlite3_get_autocommit(p.s))
    sqlite3_exec(p.s, "ROLLBACK", NULL, NULL, NULL);
  sqlite3_close(p.s);
  sqlite3_close(p.d);
  if (rc == SQLITE_OK || replace_on(rc))
    return SVN_NO_ERROR;
  /* Name both files, as the whole-file copy does; the copy first, the
     file an admin is most likely to have to look at. */
  return svn_error_createf(SVN_ERR_SQLITE_ERROR, NULL,
                           "Cannot append to '%s' the new rows of '%s': %s",
                           svn_dirent_local_style(dst_path, scratch_pool),
                           svn_dirent_local_style(src_path, scratch_pool),
                           sqlite3_errstr(rc));
}
