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
#include "heapbuf.h"

/* Target bytes per window: 100 kB, what every Subversion writer uses
   (libsvn_delta keeps the same number private).  Readers size their
   buffers for it, so windows should not be larger. */
#define SVN_FS_FS__DELTA_WINDOW_SIZE 102400


/* Reusable encoder state (matcher tables, zlib stream, section
   buffers). */
typedef struct svn_fs_fs__svndiff_encoder_t svn_fs_fs__svndiff_encoder_t;

/* A new encoder for svndiff VERSION (0, 1 or 2).  ZLIB_LEVEL (0..9) is
   used by version 1 only; 0 stores the sections uncompressed, as the
   stock module does for `compression-level = 0`.  Other values are
   caller bugs (assertion).  The encoder lives in RESULT_POOL; its buffers
   are heap memory that grows to fit the largest window, is reused from
   then on and is freed when RESULT_POOL is cleared. */
svn_error_t *
svn_fs_fs__svndiff_encoder_create(svn_fs_fs__svndiff_encoder_t **encoder,
                                  int version, int zlib_level,
                                  apr_pool_t *result_pool);

/* Make ENCODER start a new svndiff stream of VERSION and ZLIB_LEVEL (as
   for svn_fs_fs__svndiff_encoder_create), keeping its memory.  Nothing of
   the previous stream carries over: the windows it encodes next are
   byte for byte what a new encoder would produce.  This is how one
   encoder serves every rep writer of an svn_fs_t (rep_write.c). */
svn_error_t *
svn_fs_fs__svndiff_encoder_reset(svn_fs_fs__svndiff_encoder_t *encoder,
                                 int version, int zlib_level);

/* Append the stream header "SVN" + version byte (SVNDIFF-1) of ENCODER's
   version to OUT. */
void
svn_fs_fs__svndiff_encode_header(svn_stringbuf_t *out,
                                 const svn_fs_fs__svndiff_encoder_t *encoder);

/* One encoded window as up to five byte ranges to be written in order
   (the five header varints, then each section's length and its stored
   bytes).  They point into this struct, the encoder, the target or the
   buffers lent to the encoder, and stay valid until the next use of
   either.  Sections that are stored uncompressed are not copied. */
#define SVN_FS_FS__SVNDIFF_WINDOW_PARTS 5
typedef struct svn_fs_fs__svndiff_window_bytes_t
{
  char header[5 * 10];
  char ins_prefix[10];        /* the sections' lengths (version 1, 2) */
  char new_prefix[10];
  struct
  {
    const char *data;
    apr_size_t len;
  } parts[SVN_FS_FS__SVNDIFF_WINDOW_PARTS];
  int nparts;
} svn_fs_fs__svndiff_window_bytes_t;

/* Encode one window as svn_fs_fs__svndiff_encode_window() does, but
   describe its bytes in *BYTES instead of appending them to a buffer, so
   that the caller can write them out without another copy.

   SOURCE_BUF and TARGET_BUF (each may be NULL) are heap buffers the
   caller lends for the window's new data and its compressed form, which
   then need no buffers of the encoder's own: the encoder may overwrite
   and grow them once it has found the copies.  SOURCE may lie in
   SOURCE_BUF.  TARGET may lie in TARGET_BUF only at its start (TARGET ==
   TARGET_BUF->data); if it lies elsewhere, TARGET_BUF must hold nothing
   the caller needs.  TARGET must not lie in SOURCE_BUF.  Afterwards the
   lent buffers' contents and lengths are unspecified.  The bytes come
   out the same whatever is lent. */
svn_error_t *
svn_fs_fs__svndiff_encode_window_bytes(
  svn_fs_fs__svndiff_window_bytes_t *bytes,
  svn_fs_fs__svndiff_encoder_t *encoder,
  svn_filesize_t sview_offset,
  const char *source, apr_size_t source_len,
  const char *target, apr_size_t target_len,
  svn_fs_fs__heapbuf_t *source_buf, svn_fs_fs__heapbuf_t *target_buf);

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
