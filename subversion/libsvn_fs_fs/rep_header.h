/* rep_header.h --- the first line of a representation (codec layer).
 *
 * Owns the three header forms of doc/format/representations.md (REP-1 ..
 * REP-4): "PLAIN\n", "DELTA\n" (delta against the empty text) and
 * "DELTA <rev> <item> <len>\n" (delta against another representation).
 * Bytes in, struct out; no I/O.  Owner: the reps layer.
 */
#ifndef FSFS7_REP_HEADER_H
#define FSFS7_REP_HEADER_H

#include "svn_types.h"
#include "svn_error.h"
#include "svn_string.h"

/* Longest header we accept: "DELTA " plus three 20-digit numbers, two
   blanks and the newline fit comfortably (REP-2). */
#define SVN_FS_FS__REP_HEADER_MAX 80

/* The trailer that follows the data of every representation (REP-5). */
#define SVN_FS_FS__REP_TRAILER "ENDREP\n"
#define SVN_FS_FS__REP_TRAILER_LEN 7

typedef enum svn_fs_fs__rep_kind_t
{
  /* Fulltext follows verbatim. */
  svn_fs_fs__rep_plain,

  /* svndiff against the empty text ("DELTA\n"). */
  svn_fs_fs__rep_self_delta,

  /* svndiff against the fulltext of the BASE_* representation. */
  svn_fs_fs__rep_delta
} svn_fs_fs__rep_kind_t;

typedef struct svn_fs_fs__rep_header_t
{
  svn_fs_fs__rep_kind_t kind;

  /* Only for svn_fs_fs__rep_delta: where the base lives (revision and item
     index, or offset under physical addressing) and its on-disk length
     without header and trailer. */
  svn_revnum_t base_revision;
  apr_uint64_t base_item_index;
  svn_filesize_t base_length;

  /* Bytes taken by the header line, including its '\n'. */
  apr_size_t header_size;
} svn_fs_fs__rep_header_t;

/* Parse the header line at the start of DATA (LEN bytes available; the line
   must end within the first SVN_FS_FS__REP_HEADER_MAX of them) into
   *HEADER.  WHERE describes the location for error messages (may be NULL).
   Malformed input is SVN_ERR_FS_CORRUPT citing REP-1..REP-4. */
svn_error_t *
svn_fs_fs__rep_header_parse(svn_fs_fs__rep_header_t *header,
                            const char *data, apr_size_t len,
                            const char *where);

/* The on-disk form of HEADER (HEADER->header_size is ignored), allocated
   in RESULT_POOL. */
svn_stringbuf_t *
svn_fs_fs__rep_header_unparse(const svn_fs_fs__rep_header_t *header,
                              apr_pool_t *result_pool);

#endif
