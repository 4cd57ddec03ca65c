/* rep_cache.h --- db/rep-cache.db, the SHA-1 -> representation table
 * behind rep-sharing (storage layer; schema in doc/format/rep-cache.md).
 * Pruning after recover/hotcopy and build-repcache stay in repo_repcache.h.
 */
#ifndef FSFS7_REP_CACHE_H
#define FSFS7_REP_CACHE_H

#include "fsfs7.h"

/* The committed rep whose fulltext has SHA1_DIGEST, or NULL (also NULL
   when rep-sharing is off or the table is missing, or when the row points
   past the youngest revision).  *REP in RESULT_POOL. */
svn_error_t *
svn_fs_fs__rep_cache_get(svn_fs_fs__rep_t **rep, svn_fs_t *fs,
                         const unsigned char *sha1_digest,
                         apr_pool_t *result_pool, apr_pool_t *scratch_pool);

/* Add REPS (svn_fs_fs__rep_t *, committed, with SHA1) in one sqlite
   transaction, creating rep-cache.db when missing; rows already there are
   kept. */
svn_error_t *
svn_fs_fs__rep_cache_add(svn_fs_t *fs, const apr_array_header_t *reps,
                         apr_pool_t *scratch_pool);

/* Create FS's rep-cache.db (with its table) unless it exists. */
svn_error_t *
svn_fs_fs__rep_cache_ensure(svn_fs_t *fs, apr_pool_t *scratch_pool);

/* Before sharing FOUND (from svn_fs_fs__rep_cache_get) for NEW_REP (a rep
   just written, with MD5 and expanded size): *MATCH is TRUE only if the
   expanded sizes agree and FOUND's fulltext, read back, has NEW_REP's
   MD5 -- a SHA-1 collision or a stale row must never share a rep with
   different contents (RCACHE-3).  Sizes that differ give FALSE; equal
   sizes and other contents (or a rep that does not read) give
   SVN_ERR_FS_AMBIGUOUS_CHECKSUM_REP, a row naming no item the index's
   error, as with stock.  FOUND->md5_digest is set to NEW_REP's. */
svn_error_t *
svn_fs_fs__rep_cache_match(svn_boolean_t *match, svn_fs_t *fs,
                           svn_fs_fs__rep_t *found,
                           const svn_fs_fs__rep_t *new_rep,
                           apr_pool_t *scratch_pool);

/* Called by svn_fs_fs__rep_cache_walk for each row: REP has revision,
   item_index (the row's offset column), size and expanded_size set. */
typedef svn_error_t *
(*svn_fs_fs__rep_cache_walk_func_t)(void *baton,
                                    const svn_fs_fs__rep_t *rep,
                                    apr_pool_t *scratch_pool);

/* For svn_fs_verify: *EXISTS is whether rep-cache.db is there (nothing
   else is done when not); *MAX_REVISION the largest revision any row
   names (SVN_INVALID_REVNUM for an empty table); FUNC is called for the
   rows naming a revision in [START, END], in the table's own order (the
   order stock's verify meets them: by SHA-1 in a format-2 table, by
   insertion in a format-1 one), and its first error ends the walk (and
   is returned; *MAX_REVISION is then incomplete).  Reads every page of
   the table once, even when rep-sharing is off (the caller decides). */
svn_error_t *
svn_fs_fs__rep_cache_walk(svn_boolean_t *exists, svn_revnum_t *max_revision,
                          svn_fs_t *fs, svn_revnum_t start, svn_revnum_t end,
                          svn_fs_fs__rep_cache_walk_func_t func, void *baton,
                          svn_cancel_func_t cancel_func, void *cancel_baton,
                          apr_pool_t *scratch_pool);

struct sqlite3;

/* Whether the open database DB has the rep_cache table; FALSE on any
   error too (the caller's next statement reports it). */
svn_boolean_t
svn_fs_fs__rep_cache_has_table(struct sqlite3 *db);

#endif
