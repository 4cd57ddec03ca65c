/* svndiff.h --- decoding svndiff 0/1/2 delta windows (codec layer).
 *
 * Owns doc/format/svndiff.md (rules SVNDIFF-1 .. SVNDIFF-13): the stream
 * header, the window header of five varints, the instruction and new-data
 * sections (raw in version 0, zlib- or lz4-compressed in versions 1 / 2)
 * and the instructions themselves.  Bytes in, bytes out; no I/O.  Every
 * length is checked before use, so no input can make the decoder read or
 * write outside the buffers it was given.  Errors carry SVN_ERR_SVNDIFF_*
 * codes and the rule they enforce.  Owner: the reps layer.
 */
#ifndef FSFS7_SVNDIFF_H
#define FSFS7_SVNDIFF_H

#include "svn_types.h"
#include "svn_error.h"
#include "svn_string.h"
#include "svn_delta.h"
#include "heapbuf.h"
#include "delta_compose.h"

/* Length of the stream header "SVN" + version byte (SVNDIFF-1). */
#define SVN_FS_FS__SVNDIFF_HEADER_LEN 4

/* Upper bound of the window header: five varints of at most 10 bytes. */
#define SVN_FS_FS__SVNDIFF_WINDOW_HEADER_MAX 50

/* Largest source or target view we accept (SVNDIFF-4).  Writers use
   100 kB windows; the bound only keeps damaged data from making us
   allocate absurd amounts of memory. */
#define SVN_FS_FS__SVNDIFF_MAX_VIEW (16 * 1024 * 1024)

/* The header of one window, as stored. */
typedef struct svn_fs_fs__svndiff_window_t
{
  /* Source view: [SVIEW_OFFSET, SVIEW_OFFSET + SVIEW_LEN) of the base. */
  svn_filesize_t sview_offset;
  apr_size_t sview_len;

  /* Bytes of target this window produces. */
  apr_size_t tview_len;

  /* Stored sizes of the instruction and new-data sections (compressed
     sizes including the length prefix for versions 1 and 2). */
  apr_size_t ins_len;
  apr_size_t new_len;

  /* Size of the five varints; the window occupies
     HEADER_LEN + INS_LEN + NEW_LEN bytes. */
  apr_size_t header_len;
} svn_fs_fs__svndiff_window_t;

/* Parse the 4-byte stream header at DATA (LEN available) and set *VERSION
   to 0, 1 or 2.  SVN_ERR_SVNDIFF_INVALID_HEADER otherwise. */
svn_error_t *
svn_fs_fs__svndiff_parse_header(int *version, const void *data,
                                apr_size_t len);

/* Parse a window header at DATA (LEN bytes available) into *WINDOW.  If
   LEN does not hold the whole header, set *COMPLETE to FALSE and return
   no error (unless LEN >= SVN_FS_FS__SVNDIFF_WINDOW_HEADER_MAX).  Out of
   range values are SVN_ERR_SVNDIFF_CORRUPT_WINDOW. */
svn_error_t *
svn_fs_fs__svndiff_parse_window(svn_fs_fs__svndiff_window_t *window,
                                svn_boolean_t *complete,
                                const void *data, apr_size_t len);

/* Reusable output buffers of the section decoder: grow on demand (to the
   largest section, in heap memory), never shrink, freed with the pool
   given to svn_fs_fs__svndiff_buffers_create(). */
typedef struct svn_fs_fs__svndiff_buffers_t
{
  svn_fs_fs__heapbuf_t ins;
  svn_fs_fs__heapbuf_t new_data;
} svn_fs_fs__svndiff_buffers_t;

svn_fs_fs__svndiff_buffers_t *
svn_fs_fs__svndiff_buffers_create(apr_pool_t *result_pool);

/* Free the memory of BUFS now (they stay usable: they grow again on the
   next use). */
void
svn_fs_fs__svndiff_buffers_free(svn_fs_fs__svndiff_buffers_t *bufs);

/* The decoded sections of one window.  The pointers refer either to the
   caller's input (version 0, or sections stored raw) or to the buffers
   passed to svn_fs_fs__svndiff_decode_sections(). */
typedef struct svn_fs_fs__svndiff_sections_t
{
  const unsigned char *ins;
  apr_size_t ins_len;
  const unsigned char *new_data;
  apr_size_t new_len;
} svn_fs_fs__svndiff_sections_t;

/* Decode the two sections of WINDOW, whose stored bytes start at BODY
   (WINDOW->ins_len + WINDOW->new_len bytes, directly after the window
   header), for svndiff VERSION.  Decompressed data goes to BUFS. */
svn_error_t *
svn_fs_fs__svndiff_decode_sections(svn_fs_fs__svndiff_sections_t *sections,
                                   const svn_fs_fs__svndiff_window_t *window,
                                   int version, const unsigned char *body,
                                   svn_fs_fs__svndiff_buffers_t *bufs);

/* Run the instructions of SECTIONS: write WINDOW->tview_len bytes to
   TARGET, reading source copies from SOURCE (WINDOW->sview_len bytes; may
   be NULL when that is 0).  Any instruction that would reach outside the
   source view, the new data or the target view already written is
   SVN_ERR_SVNDIFF_INVALID_OPS, and so is a window whose instructions do
   not produce exactly tview_len bytes. */
svn_error_t *
svn_fs_fs__svndiff_apply(char *target,
                         const svn_fs_fs__svndiff_window_t *window,
                         const svn_fs_fs__svndiff_sections_t *sections,
                         const char *source);

/* Check SECTIONS like svn_fs_fs__svndiff_apply() and convert them into a
   libsvn_delta window allocated in RESULT_POOL. */
svn_error_t *
svn_fs_fs__svndiff_to_txdelta(svn_txdelta_window_t **result,
                              const svn_fs_fs__svndiff_window_t *window,
                              const svn_fs_fs__svndiff_sections_t *sections,
                              apr_pool_t *result_pool);

/* Check SECTIONS like svn_fs_fs__svndiff_apply() and decode them into
   DWIN (reset first; its memory is reused), for composition with other
   windows (delta_compose.h).  On error DWIN's contents are unspecified. */
svn_error_t *
svn_fs_fs__svndiff_to_dwin(svn_fs_fs__dwin_t *dwin,
                           const svn_fs_fs__svndiff_window_t *window,
                           const svn_fs_fs__svndiff_sections_t *sections);

/* Apply the complete svndiff stream DATA (LEN bytes) to SOURCE (SOURCE_LEN
   bytes, the whole base text) and return the target in RESULT_POOL.
   Source views must lie within SOURCE (SVNDIFF-5).  Used for small
   representations held in memory, by the tests and by the fuzzer. */
svn_error_t *
svn_fs_fs__svndiff_decode_all(svn_stringbuf_t **target,
                              const char *data, apr_size_t len,
                              const char *source, apr_size_t source_len,
                              apr_pool_t *result_pool,
                              apr_pool_t *scratch_pool);

#endif
