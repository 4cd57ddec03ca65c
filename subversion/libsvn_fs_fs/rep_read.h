/* rep_read.h --- reading representations (storage layer).
 *
 * Turns a svn_fs_fs__rep_t into bytes: reads the rep header, follows the
 * delta chain (skip-deltas, shared reps in other revisions), decodes svndiff
 * 0/1/2 windows and verifies the MD5 (SHA1 on request) and the expanded
 * size.  Large files are streamed window by window.  Formats: doc/format/representations.md,
 * doc/format/svndiff.md.  Owner: the reps layer (rep_read.c, rep_header.c,
 * svndiff.c).
 */
#ifndef FSFS7_REP_READ_H
#define FSFS7_REP_READ_H

#include "svn_io.h"
#include "svn_delta.h"
#include "fsfs7.h"

/* A readable stream of the fulltext of REP (an empty stream for NULL).
   When the whole stream has been read, its length and MD5 are checked
   (the SHA1 only by svn_fs_fs__rep_verify; the stock module does not
   check it on reads either).  A wrong length is SVN_ERR_FS_CORRUPT, a
   wrong MD5 an SVN_ERR_FS_CORRUPT wrapping SVN_ERR_CHECKSUM_MISMATCH.
   Everything lives in RESULT_POOL. */
svn_error_t *
svn_fs_fs__rep_contents_stream(svn_stream_t **contents, svn_fs_t *fs,
                               const svn_fs_fs__rep_t *rep,
                               apr_pool_t *result_pool);

/* The same for REP, the text of the committed node-rev OWNER.  Naming
   the node-rev lets a long text of a logically addressed repository be
   checked by the item checksums of the P2L index instead of its MD5,
   which costs a fraction of it; when those checksums cannot prove the
   text, the MD5 is checked as above (doc/format/representations.md,
   REP-9).  With OWNER NULL this is svn_fs_fs__rep_contents_stream().

   HISTORIC says whether the text is read as of a revision older than
   the youngest: then later versions of the file are likely read next
   (dump, verify, walks of history), and their deltas are against this
   text, so it goes into the fulltext cache at once.  A text read as of
   the youngest revision (an export or checkout of HEAD) goes there only
   when it is read from disk the second time (cache_admit.h): most are
   read once, and storing them cost CPU and filled the membuffer's
   memory for nothing. */
svn_error_t *
svn_fs_fs__node_text_stream(svn_stream_t **contents, svn_fs_t *fs,
                            const svn_fs_fs__rep_t *rep,
                            const svn_fs_fs__id_t *owner,
                            svn_boolean_t historic,
                            apr_pool_t *result_pool);

/* For tests and measurements: reads of the process so far whose MD5
   REP-9's item checksums made unnecessary. */
apr_uint32_t
svn_fs_fs__rep_md5_proofs(void);

/* The whole fulltext of REP (NULL rep: empty) in RESULT_POOL, checked as
   above.  Meant for directories, property lists and small files.  With
   LOOKUP the fulltext cache is asked for REP's text first; without, the
   caller knows it would miss (its own cache of what it parses out of the
   text just did).  Either way the text read goes into the fulltext
   cache: it is the base of the next version's delta. */
svn_error_t *
svn_fs_fs__rep_contents(svn_stringbuf_t **contents, svn_fs_t *fs,
                        const svn_fs_fs__rep_t *rep, svn_boolean_t lookup,
                        apr_pool_t *result_pool, apr_pool_t *scratch_pool);

/* Read REP's whole fulltext from disk (bypassing the fulltext cache) and
   check everything REP records about it: length, MD5 and, unlike the
   plain read functions, the SHA1 when known.  For verify_fs / verify_root.
   Errors as above. */
svn_error_t *
svn_fs_fs__rep_verify(svn_fs_t *fs, const svn_fs_fs__rep_t *rep,
                      svn_cancel_func_t cancel_func, void *cancel_baton,
                      apr_pool_t *scratch_pool);

/* A delta stream turning SOURCE's fulltext (NULL: empty) into TARGET's. */
svn_error_t *
svn_fs_fs__rep_delta_stream(svn_txdelta_stream_t **stream, svn_fs_t *fs,
                            const svn_fs_fs__rep_t *source,
                            const svn_fs_fs__rep_t *target,
                            apr_pool_t *pool);

/* The same for the texts of the node-revs SOURCE_OWNER and TARGET_OWNER
   (either may be NULL), so that their reads may be proved and cached as
   for svn_fs_fs__node_text_stream() (HISTORIC for both). */
svn_error_t *
svn_fs_fs__node_delta_stream(svn_txdelta_stream_t **stream, svn_fs_t *fs,
                             const svn_fs_fs__rep_t *source,
                             const svn_fs_fs__id_t *source_owner,
                             const svn_fs_fs__rep_t *target,
                             const svn_fs_fs__id_t *target_owner,
                             svn_boolean_t historic,
                             apr_pool_t *pool);

/* If REP's fulltext is in the cache, hand it to PROCESSOR and set
   *SUCCESS; otherwise set *SUCCESS to FALSE and do nothing. */
svn_error_t *
svn_fs_fs__rep_try_process(svn_boolean_t *success, svn_fs_t *fs,
                           const svn_fs_fs__rep_t *rep,
                           svn_fs_process_contents_func_t processor,
                           void *baton, apr_pool_t *pool);

/* TRUE if A and B reference the same on-disk representation. */
svn_boolean_t
svn_fs_fs__rep_same(const svn_fs_fs__rep_t *a, const svn_fs_fs__rep_t *b);

/* Large fulltexts (over 256 kB) held in memory now, by every svn_fs_t
   of the process: the recent text of each fs, and those that reads are
   collecting or still using (for tests and measurements). */
apr_uint32_t
svn_fs_fs__rep_large_texts_live(void);

/* For tests and measurements: large texts of the process so far that
   took the memory the last released one left (no fresh pages). */
apr_uint32_t
svn_fs_fs__rep_large_reuses(void);

/* For tests and measurements: the most memory (bytes) that reads held
   at once for reconstructing texts -- input, decode and output buffers
   and decoded windows, not the copy collected for the caches -- since
   the last call with RESTART set, which starts a new measurement (reads
   are not measured until then).  Not thread-safe. */
apr_size_t
svn_fs_fs__rep_read_memory_peak(svn_boolean_t restart);

/* For tests: the bytes of input, decode and output buffers that reads
   allocated since the last svn_fs_fs__rep_read_memory_peak(TRUE) and hold
   now.  A read frees them when its text has ended or its stream is
   closed, not only with its pool. */
apr_size_t
svn_fs_fs__rep_read_memory_live(void);

/* Create this layer's caches in MEMBUFFER (see caching.h). */
svn_error_t *
svn_fs_fs__reps_init_caches(svn_fs_t *fs, svn_membuffer_t *membuffer,
                            const char *prefix, apr_pool_t *result_pool,
                            apr_pool_t *scratch_pool);

#endif
