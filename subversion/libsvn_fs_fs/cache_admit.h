/* cache_admit.h --- which values read from disk go into the membuffer
 * (cache layer).
 *
 * The membuffer costs twice for every value stored: the serialisation
 * and copy, and the memory it writes to.  Its pages are touched as
 * values arrive (first the quarter it calls L1, then the rest as values
 * leave L1), so a process's resident share of a 16 MB cache is roughly
 * the bytes it has stored, up to 16 MB.  A value that is read once --
 * every node-rev of an export, every changed-path list of a log --
 * gains nothing from being stored and pays both costs.
 *
 * So some caches store a value read from disk only when the same key
 * was read from disk recently before: a process-wide table of
 * fingerprints, two candidate slots per fingerprint, remembers the keys
 * that missed and how often.  A key that misses for the second time (a
 * node-rev: the third, cache_admit.c says why) while its slot still
 * holds it is stored.  Servers keep that benefit: the table is shared
 * by every svn_fs_t of the process (mod_dav_svn opens one per request),
 * so the third request for a node-rev stores it.  Lossy by
 * design: a key whose two slots other keys hold may not be remembered
 * (its next read then stores nothing; cache_admit.c tosses a coin so
 * that it is some time), and a colliding fingerprint stores a value
 * early; neither changes what a read returns.
 */
#ifndef FSFS7_CACHE_ADMIT_H
#define FSFS7_CACHE_ADMIT_H

#include "fsfs7.h"

/* The caches that consult the table; part of the fingerprint, so that
   equal keys of two caches are told apart. */
typedef enum svn_fs_fs__admit_kind_t
{
  svn_fs_fs__admit_noderev = 1,
  svn_fs_fs__admit_changes,
  svn_fs_fs__admit_l2p_page,
  svn_fs_fs__admit_text,
  svn_fs_fs__admit_p2l_page,
  svn_fs_fs__admit_revfile_image,
  svn_fs_fs__admit_path,          /* lookup.c's node-revs by path */
  svn_fs_fs__admit_revprops       /* the last: cache_admit.c's tables
                                     have one filter per kind up to it */
} svn_fs_fs__admit_kind_t;

/* The salt that keeps the fingerprints of the repository whose cache key
   prefix is PREFIX apart from those of other repositories in the same
   process (a hash of PREFIX; never 0). */
apr_uint64_t
svn_fs_fs__admit_salt(const char *prefix);

/* Whether the value of KIND under KEY (KLEN bytes) of the repository
   with SALT, just read from disk after the cache missed, should be
   stored: TRUE when the same key missed often enough before (once;
   twice for a node-rev) and its slot still remembers it.  Either way
   the key is remembered for next time.  Thread-safe; never blocks.
   With FSFS7_CACHE_ADMIT=always in the environment (a benchmark
   switch) every value is stored, as before this table existed. */
svn_boolean_t
svn_fs_fs__admit(apr_uint64_t salt, svn_fs_fs__admit_kind_t kind,
                 const void *key, apr_size_t klen);

/* Remember that the value of KIND under KEY (KLEN bytes) of the
   repository with SALT was stored in the membuffer (however it came to
   be: admitted, or stored at once). */
void
svn_fs_fs__admit_note_stored(apr_uint64_t salt, svn_fs_fs__admit_kind_t kind,
                             const void *key, apr_size_t klen);

/* FALSE when KEY of KIND was certainly never stored by this process
   (svn_fs_fs__admit_note_stored), so that asking the membuffer would
   miss; TRUE when it may have been.  A bit per fingerprint, never
   cleared: a whole-history dump stores few node-revs and skips ~400,000
   lookups that would all miss, while a long-running server's bits fill
   up and it asks the membuffer every time, as without the filter. */
svn_boolean_t
svn_fs_fs__admit_maybe_stored(apr_uint64_t salt,
                              svn_fs_fs__admit_kind_t kind,
                              const void *key, apr_size_t klen);

/* svn_cache__get, svn_cache__get_partial and svn_cache__has_key on
   CACHE for KEY (KLEN bytes, of KIND in the repository with SALT),
   skipped when svn_fs_fs__admit_maybe_stored() says this process never
   stored it: then *FOUND is FALSE at once.  For caches whose misses are
   the rule on some reads (a log asks for each revision's changed paths,
   revision properties and revision file once). */
svn_error_t *
svn_fs_fs__admit_get(void **value, svn_boolean_t *found, svn_cache__t *cache,
                     apr_uint64_t salt, svn_fs_fs__admit_kind_t kind,
                     const void *key, apr_size_t klen,
                     apr_pool_t *result_pool);

svn_error_t *
svn_fs_fs__admit_get_partial(void **value, svn_boolean_t *found,
                             svn_cache__t *cache, apr_uint64_t salt,
                             svn_fs_fs__admit_kind_t kind, const void *key,
                             apr_size_t klen,
                             svn_cache__partial_getter_func_t func,
                             void *baton, apr_pool_t *result_pool);

svn_error_t *
svn_fs_fs__admit_has_key(svn_boolean_t *found, svn_cache__t *cache,
                         apr_uint64_t salt, svn_fs_fs__admit_kind_t kind,
                         const void *key, apr_size_t klen,
                         apr_pool_t *scratch_pool);

/* Store VALUE under KEY in CACHE (the same arguments as above) with
   AT_ONCE, or else if svn_fs_fs__admit() admits it now, which counts
   this miss; a stored KEY is noted for svn_fs_fs__admit_maybe_stored().
   The one entry for values read from disk into the caches that consult
   the table. */
svn_error_t *
svn_fs_fs__admit_store(svn_cache__t *cache, apr_uint64_t salt,
                       svn_fs_fs__admit_kind_t kind, const void *key,
                       apr_size_t klen, svn_boolean_t at_once, void *value,
                       apr_pool_t *scratch_pool);

/* Forget every remembered key and stored value and look at
   FSFS7_CACHE_ADMIT again (for tests). */
void
svn_fs_fs__admit_reset(void);

#endif
