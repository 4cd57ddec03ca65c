/* caching.h --- building the membuffer caches of one svn_fs_t (cache
 * layer).
 *
 * All caches live in the process-wide membuffer (sized by svnserve -M,
 * svnadmin -M, the client's memory-cache-size).  This file knows no other
 * layer: it tells whether the optional caches are on, makes the key
 * prefix that separates one repository from every other in the shared
 * membuffer, builds one cache from a serialiser pair, and makes the
 * zeroed keys of (revision, number) pairs.  Each layer owns its values'
 * serialisers and creates its caches itself (svn_fs_fs__*_init_caches);
 * repo_open.c calls them in turn when a repository is opened.
 */
#ifndef FSFS7_CACHING_H
#define FSFS7_CACHING_H

#include "fsfs7.h"

/* Key of a (revision, number) value: item, rep, block or generation.
   Build it only with svn_fs_fs__pair_cache_key(): the membuffer compares
   keys as raw bytes, so every byte of the struct must be defined. */
typedef struct svn_fs_fs__pair_cache_key_t
{
  svn_revnum_t revision;
  apr_int64_t second;
} svn_fs_fs__pair_cache_key_t;

/* The key (REVISION, SECOND), padding zeroed. */
svn_fs_fs__pair_cache_key_t
svn_fs_fs__pair_cache_key(svn_revnum_t revision, apr_int64_t second);

/* The key prefix of the repository opened in FS, whose db directory has
   the normalised absolute path REPO_PATH (see svn_fs_fs__repo_key_path),
   in RESULT_POOL: "fsfs7:<uuid>/<instance id>/<namespace>:<path>:".  The
   path is part of it because a copy of a repository ('cp -a', rsync, a
   restored backup) keeps both the uuid and the instance id, yet its
   revisions may differ from the original's from the first commit on. */
const char *
svn_fs_fs__cache_prefix(svn_fs_t *fs, const char *repo_path,
                        apr_pool_t *result_pool);

/* Whether FS's config asks for (or allows) the optional caches. */
svn_boolean_t
svn_fs_fs__cache_fulltexts_enabled(svn_fs_t *fs);
svn_boolean_t
svn_fs_fs__cache_deltas_enabled(svn_fs_t *fs);
svn_boolean_t
svn_fs_fs__cache_nodeprops_enabled(svn_fs_t *fs);

/* Where the values with a small working set go in a short-lived
   process: fulltexts, directory listings, node properties, revision
   file images and index headers (one small value per revision file).
   The operation that read them asks for them again soon (a dump reads a
   text as its revision's and as the next version's delta base, a
   listing in r and r-1) or not at all.  So when the process's
   membuffer MEMBUFFER is larger than svn_fs_fs__short_term_bytes()
   allows, they go to a process-wide membuffer of that size, made at the
   first call and kept to the end of the process: a larger membuffer
   only makes each store touch fresh memory.  Once the process has
   stored enough long-term values to make the large membuffer live
   (svn_fs_fs__cache_membuffer), MEMBUFFER itself: a server asked for
   the same export again and again reads the listings of every
   revision its files were last changed in, more than 16 MB of them on
   a history of 6,000 revisions, and Apache rebuilt them per request.
   MEMBUFFER is returned as well when it is small enough, and NULL when
   it is NULL (caching off).  Not owned by the caller. */
svn_membuffer_t *
svn_fs_fs__short_term_membuffer(svn_membuffer_t *membuffer,
                                apr_pool_t *scratch_pool);

/* The membuffer of the long-term values of a repository opened now, to
   be passed to each layer's *_init_caches and to
   svn_fs_fs__short_term_membuffer: the process's, unless that one is
   larger than svn_fs_fs__short_term_bytes() allows and this process has
   stored fewer than a few hundred long-term values so far
   (svn_fs_fs__note_long_term_store), in which case the short-term
   membuffer.  So a short-lived process ('svn export', 'svnadmin dump
   -M 1024' of one repository, a hook's 'svnlook') never makes the large
   membuffer, and takes the time and the memory of the default cache;
   a server makes it after its first requests, and each repository it
   opens from then on keeps its long-term values there.  An svn_fs_t
   keeps the membuffers it opened with.  NULL when caching is off; not
   owned by the caller. */
svn_membuffer_t *
svn_fs_fs__cache_membuffer(apr_pool_t *scratch_pool);

/* The size in bytes of MEMBUFFER, one that svn_fs_fs__cache_membuffer
   returned: the configured cache size for the process's, 16 MB for the
   short-term one, 0 for NULL. */
apr_uint64_t
svn_fs_fs__membuffer_bytes(svn_membuffer_t *membuffer);

/* The bytes that budgets scaled to the cache of FS are sized by: its
   ffd->cache_bytes, or the configured cache size when its caches were
   not made by svn_fs_fs__open_repo. */
apr_uint64_t
svn_fs_fs__cache_bytes(svn_fs_t *fs);

/* Count one long-term value (node-rev, changed-path list, index page)
   stored by this process.  Thread-safe. */
void
svn_fs_fs__note_long_term_store(void);

/* Whether svn_fs_fs__cache_membuffer() now returns the process's
   membuffer even when it is large (for tests). */
svn_boolean_t
svn_fs_fs__large_membuffer_live(void);

/* The membuffer for values whose keys no other svn_fs_t uses (revprops:
   each svn_fs_t has a key space of its own, revprops.c): the short-term
   one whenever the configured cache is larger than 16 MB, even in a
   process whose long-term values have moved to the large one.  There a
   server's every connection stored each revision's revprops in fresh
   memory that no later connection read (svnserve -M 1024: 43 % of its
   CPU for a hot export).  NULL when caching is off; not owned by the
   caller. */
svn_membuffer_t *
svn_fs_fs__own_keys_membuffer(apr_pool_t *scratch_pool);

/* The size of the short-term membuffer for a configured cache of
   CONFIGURED bytes; 0 when the short-term values share that cache. */
apr_uint64_t
svn_fs_fs__short_term_bytes(apr_uint64_t configured);

/* Create a membuffer cache in MEMBUFFER with key length KLEN and the
   given serialiser pair; *CACHE is left NULL when MEMBUFFER is NULL.
   NAME is appended to PREFIX to make the cache's key space. */
svn_error_t *
svn_fs_fs__make_cache(svn_cache__t **cache, svn_membuffer_t *membuffer,
                      svn_cache__serialize_func_t serialize,
                      svn_cache__deserialize_func_t deserialize,
                      apr_ssize_t klen, const char *prefix, const char *name,
                      apr_uint32_t priority, apr_pool_t *result_pool,
                      apr_pool_t *scratch_pool);

#endif
