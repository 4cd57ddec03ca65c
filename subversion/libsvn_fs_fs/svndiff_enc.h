/* svndiff_enc.h --- writing svndiff 0/1/2 delta windows (codec layer).
 *
 * The encoding counterpart of svndiff.h: turns (source view, target
 * bytes) pairs into windows as specified by doc/format/svndiff.md, so that
 * they satisfy every rule the decoder checks (SVNDIFF-1 .. SVNDIFF-13).
 * Instruction choice is delta_match.c's; this file spells the result:
 * varints, instruction bytes, sections, zlib (version 1) or LZ4 (version
 * 2) compression.  Bytes in, bytes out; no I/O.  What the writer produces
 * and why: doc/format/svndiff.md §7.  Owner: the reps layer (write path).
 */
#ifndef FSFS7_SVNDIFF_ENC_H
#define FSFS7_SVNDIFF_ENC_H

#include "svn_types.h"
#include "svn_error.h"
#include "svn_string.h"

/* Target bytes per window: 100 kB, what every Subversion writer uses
   (libsvn_delta keeps the same number private).  Readers size their
   buffers for it, so windows should not be larger. */
#define SVN_FS_FS__DELTA_WINDOW_SIZE 102400

/* Reusable encoder state (matcher tables, section buffers). */
typedef struct svn_fs_fs__svndiff_encoder_t svn_fs_fs__svndiff_encoder_t;

/* A new encoder for svndiff VERSION (0, 1 or 2).  ZLIB_LEVEL (0..9) is
   used by version 1 only; 0 stores the sections uncompressed, as the
   stock module does for `compression-level = 0`.  Other values are
   caller bugs (assertion).  The encoder and all its buffers live in
   RESULT_POOL; its memory grows to fit the largest window and is reused
   from then on. */
svn_error_t *
svn_fs_fs__svndiff_encoder_create(svn_fs_fs__svndiff_encoder_t **encoder,
                                  int version, int zlib_level,
                                  apr_pool_t *result_pool);

/* Append the stream header "SVN" + version byte (SVNDIFF-1) of ENCODER's
   version to OUT. */
void
svn_fs_fs__svndiff_encode_header(svn_stringbuf_t *out,
                                 const svn_fs_fs__svndiff_encoder_t *encoder);

/* Append to OUT one window producing TARGET (TARGET_LEN bytes) from the
   source view SOURCE (SOURCE_LEN bytes, may be NULL when 0), which is
   the range [SVIEW_OFFSET, SVIEW_OFFSET + SOURCE_LEN) of the base text.
   Readers (ours and libsvn_delta) expect windows of at most
   SVN_FS_FS__DELTA_WINDOW_SIZE target bytes and source views that do not
   move backwards (SVNDIFF-6); keeping to that is the caller's job.  Errors
   only if the compression library fails. */
svn_error_t *
svn_fs_fs__svndiff_encode_window(svn_stringbuf_t *out,
                                 svn_fs_fs__svndiff_encoder_t *encoder,
                                 svn_filesize_t sview_offset,
                                 const char *source, apr_size_t source_len,
                                 const char *target, apr_size_t target_len);

/* The whole svndiff VERSION stream (ZLIB_LEVEL as above) turning SOURCE
   into TARGET, allocated in RESULT_POOL.  TARGET is cut into windows of
   WINDOW_SIZE bytes (0 means SVN_FS_FS__DELTA_WINDOW_SIZE); window K sees
   the source view [K * WINDOW_SIZE, (K + 1) * WINDOW_SIZE) clipped to
   SOURCE_LEN -- the same alignment the rep writer (rep_write.c) uses when
   streaming.  An empty TARGET gives just the stream header. */
svn_error_t *
svn_fs_fs__svndiff_encode_all(svn_stringbuf_t **result, int version,
                              int zlib_level,
                              const char *source, apr_size_t source_len,
                              const char *target, apr_size_t target_len,
                              apr_size_t window_size,
                              apr_pool_t *result_pool,
                              apr_pool_t *scratch_pool);

#endif
