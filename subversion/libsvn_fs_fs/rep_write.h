/* rep_write.h --- writing one representation into a proto-revision file
 * (storage layer, write path).
 *
 * The inverse of rep_read.h for a single rep: the caller streams a
 * fulltext in; out come the header line, the data (verbatim for PLAIN,
 * svndiff for DELTA), the "ENDREP\n" trailer, and the numbers a rep
 * reference records (doc/format/representations.md §1-3, REP-1 .. REP-8).
 * Memory stays bounded by a few windows of SVN_FS_FS__DELTA_WINDOW_SIZE bytes
 * whatever the fulltext's size.  Choosing the base, rep sharing, item
 * indexes and the P2L entry are the caller's business.
 * Owner: the reps layer (rep_write.c, svndiff_enc.c, delta_match.c).
 */
#ifndef FSFS7_REP_WRITE_H
#define FSFS7_REP_WRITE_H

#include <apr_file_io.h>
#include "svn_io.h"
#include "fsfs7.h"

/* How the data of a rep is stored and, for deltas, compressed. */
typedef struct svn_fs_fs__rep_write_options_t
{
  /* TRUE: "PLAIN\n" and the fulltext verbatim (no base allowed).
     FALSE: "DELTA...\n" and an svndiff stream. */
  svn_boolean_t plain;

  /* svndiff version 0, 1 or 2 and, for version 1, the zlib level 0..9. */
  int svndiff_version;
  int zlib_level;
} svn_fs_fs__rep_write_options_t;

/* Set OPTIONS for a DELTA rep of FFD's repository the way the stock module
   writes them: svndiff 2 when fsfs.conf asks for LZ4 (format 8), svndiff 0
   for no compression, else svndiff 1 at the configured zlib level
   (doc/format/fsfs-conf.md, FSCONF-5). */
void
svn_fs_fs__rep_write_options_init(svn_fs_fs__rep_write_options_t *options,
                                  const svn_fs_fs__data_t *ffd);

/* The delta base of a DELTA rep: where it is stored (for the header line
   "DELTA <revision> <item_index> <size>", REP-4) and its fulltext. */
typedef struct svn_fs_fs__rep_write_base_t
{
  svn_revnum_t revision;
  apr_uint64_t item_index;     /* item index or offset, as in rep refs */
  svn_filesize_t size;         /* the base's stored data size (REP-3) */

  /* Readable stream of the base's fulltext.  The writer reads it from the
     start, sequentially, one window at a time in step with the target,
     and never further than the target goes.  It closes it once it needs
     no more of it (the base has ended, or the target has), so the stream
     is the writer's from svn_fs_fs__rep_writer_open() on. */
  svn_stream_t *fulltext;
} svn_fs_fs__rep_write_base_t;

/* What was written (the numbers a rep reference and the P2L index
   need). */
typedef struct svn_fs_fs__rep_write_result_t
{
  apr_off_t offset;            /* file offset of the header line */
  apr_off_t total_len;         /* header + data + trailer */
  svn_filesize_t size;         /* data bytes only (REP-3) */
  svn_filesize_t expanded_size;/* fulltext length (REP-7) */
  unsigned char md5_digest[APR_MD5_DIGESTSIZE];
  unsigned char sha1_digest[APR_SHA1_DIGESTSIZE];
} svn_fs_fs__rep_write_result_t;

typedef struct svn_fs_fs__rep_writer_t svn_fs_fs__rep_writer_t;

/* The working memory of a writer (svndiff encoder with its matcher
   tables and section buffers, window and source view buffers: about 1.5
   MB once a full window was written).  Writers borrow it one at a time
   and it keeps its memory in between, so a process holds one such set
   however many reps it writes. */
typedef struct svn_fs_fs__rep_write_space_t svn_fs_fs__rep_write_space_t;

/* A new space that lives until OWNER_POOL is cleared (or, if a writer
   still uses it then, until that writer is done). */
svn_fs_fs__rep_write_space_t *
svn_fs_fs__rep_write_space_create(apr_pool_t *owner_pool);

/* FS's space (created in FS->pool on first use).  Not thread-safe, like
   the svn_fs_t itself. */
svn_fs_fs__rep_write_space_t *
svn_fs_fs__rep_write_space_get(svn_fs_t *fs);

/* Start a rep at the current position of FILE (the end of a proto-rev
   file) and write its header line: "PLAIN\n" if OPTIONS->plain, else
   "DELTA\n" when BASE is NULL (delta against the empty text) or "DELTA
   <rev> <item> <size>\n".  BASE with OPTIONS->plain is a caller bug.
   FILE, BASE's stream and OPTIONS must stay valid until the writer is
   finished; nothing else of BASE or OPTIONS is referenced.  The writer
   lives in RESULT_POOL.  It works in SPACE if no other writer is using
   that, else (or if SPACE is NULL) in a space of its own, and hands SPACE
   back when finished or when RESULT_POOL is cleared; what it writes does
   not depend on which space it got. */
svn_error_t *
svn_fs_fs__rep_writer_open(svn_fs_fs__rep_writer_t **writer,
                           apr_file_t *file,
                           const svn_fs_fs__rep_write_base_t *base,
                           const svn_fs_fs__rep_write_options_t *options,
                           svn_fs_fs__rep_write_space_t *space,
                           apr_pool_t *result_pool,
                           apr_pool_t *scratch_pool);

/* Append LEN bytes of DATA to the fulltext.  Writes a window to FILE
   each time SVN_FS_FS__DELTA_WINDOW_SIZE bytes have gathered. */
svn_error_t *
svn_fs_fs__rep_writer_write(svn_fs_fs__rep_writer_t *writer,
                            const char *data, apr_size_t len);

/* Write the whole fulltext, LEN bytes at DATA, to a WRITER nothing was
   written to yet, and finish it as svn_fs_fs__rep_writer_finish() does.
   Unlike svn_fs_fs__rep_writer_write() it encodes straight from DATA,
   without gathering windows in a buffer of its own. */
svn_error_t *
svn_fs_fs__rep_writer_write_all(svn_fs_fs__rep_write_result_t *result,
                                svn_fs_fs__rep_writer_t *writer,
                                const char *data, apr_size_t len,
                                apr_pool_t *scratch_pool);

/* A writable stream feeding WRITER (in RESULT_POOL).  Closing the stream
   does not finish the rep: call svn_fs_fs__rep_writer_finish(). */
svn_stream_t *
svn_fs_fs__rep_writer_stream(svn_fs_fs__rep_writer_t *writer,
                             apr_pool_t *result_pool);

/* Write the last window and "ENDREP\n" and describe the rep in *RESULT,
   and hand the writer's space back.  FILE is left positioned after the
   trailer.  After an error anywhere the
   file holds a partial rep; the caller truncates it back to where the rep
   started (as a failed commit drops the whole proto-rev file).  The
   writer cannot be used afterwards. */
svn_error_t *
svn_fs_fs__rep_writer_finish(svn_fs_fs__rep_write_result_t *result,
                             svn_fs_fs__rep_writer_t *writer,
                             apr_pool_t *scratch_pool);

/* Fill the location-independent fields of REP (size, expanded size, MD5,
   SHA1) from RESULT; revision, item index, uniquifier and txn id are left
   alone. */
void
svn_fs_fs__rep_write_result_to_rep(
  svn_fs_fs__rep_t *rep,
  const svn_fs_fs__rep_write_result_t *result);

#endif
