/* changes_codec.h --- changed-path lists as text (codec layer;
 * doc/format/changes.md).
 *
 * One entry is two lines; a list in a revision ends with an empty line,
 * a transaction's "changes" file simply ends.  No I/O.  Owner: the nodes
 * layer.
 */
#ifndef FSFS7_CHANGES_CODEC_H
#define FSFS7_CHANGES_CODEC_H

#include "fsfs7.h"

/* What sits at the start of a buffer of change-list text. */
typedef enum svn_fs_fs__change_scan_t
{
  svn_fs_fs__change_scan_entry,       /* a complete entry               */
  svn_fs_fs__change_scan_end,         /* the terminating empty line     */
  svn_fs_fs__change_scan_incomplete   /* need more bytes (or EOF)       */
} svn_fs_fs__change_scan_t;

/* Classify the LEN bytes at DATA; for an entry or the terminator *LEN_P
   gets its length in bytes.  Does not validate the entry. */
svn_fs_fs__change_scan_t
svn_fs_fs__change_scan(apr_size_t *len_p, const char *data, apr_size_t len);

/* Parse one complete entry (both lines, as delimited by
   svn_fs_fs__change_scan) of LEN bytes at DATA into *CHANGE, allocated in
   RESULT_POOL.  "reset" entries are only accepted with ALLOW_RESET
   (CHANGES-3).  Bad input: SVN_ERR_FS_CORRUPT citing CHANGES-n; WHERE
   names the location (may be NULL). */
svn_error_t *
svn_fs_fs__change_parse(svn_fs_fs__change_t **change, const char *data,
                        apr_size_t len, svn_boolean_t allow_reset,
                        const char *where, apr_pool_t *result_pool);

/* Parse a whole list held in LEN bytes at DATA: entries up to the
   terminator or the end of DATA.  *CHANGES gets svn_fs_fs__change_t *
   elements; *CONSUMED (may be NULL) the bytes used, terminator included. */
svn_error_t *
svn_fs_fs__changes_parse(apr_array_header_t **changes, apr_size_t *consumed,
                         const char *data, apr_size_t len,
                         svn_boolean_t allow_reset, const char *where,
                         apr_pool_t *result_pool, apr_pool_t *scratch_pool);

/* Append CHANGE's two lines in FORMAT's notation to OUT (CHANGES-6).
   The list terminator is the caller's business (one "\n"). */
void
svn_fs_fs__change_unparse(svn_stringbuf_t *out,
                          const svn_fs_fs__change_t *change, int format);

#endif
