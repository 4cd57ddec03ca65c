/* footer.h --- codecs for the ends of rev / pack files (codec layer).
 *
 * Logical addressing: the footer after the indexes ("<l2p offset> <md5>
 * <p2l offset> <md5>" plus a length byte).  Physical addressing: the
 * trailer line "<root offset> <changes offset>\n" ending each revision,
 * and the manifest of a pack file (one decimal offset per revision).
 * Pure parsers, no I/O.  Rules FOOTER-*, TRAILER-*, MANIFEST-* of
 * doc/format/addressing.md.
 */
#ifndef FSFS7_FOOTER_H
#define FSFS7_FOOTER_H

#include "fsfs7.h"

/* The longest footer the format allows: the length byte can say 255. */
#define SVN_FS_FS__FOOTER_MAX_LEN 256

/* How many bytes at the end of a revision are enough to hold its
   physical-addressing trailer (two 20-digit numbers and separators). */
#define SVN_FS_FS__TRAILER_MAX_LEN 64

typedef struct svn_fs_fs__footer_t
{
  apr_off_t l2p_offset;
  unsigned char l2p_md5[APR_MD5_DIGESTSIZE];
  apr_off_t p2l_offset;
  unsigned char p2l_md5[APR_MD5_DIGESTSIZE];
  apr_off_t footer_offset;     /* where the footer text starts         */
} svn_fs_fs__footer_t;

/* Parse the footer of a file of FILE_SIZE bytes from TAIL, its last LEN
   bytes (LEN = min(FILE_SIZE, SVN_FS_FS__FOOTER_MAX_LEN) is always
   enough).  Checks FOOTER-1..FOOTER-3.  WHERE names the file. */
svn_error_t *
svn_fs_fs__footer_parse(svn_fs_fs__footer_t *footer,
                        const unsigned char *tail, apr_size_t len,
                        apr_off_t file_size, const char *where);

/* Write FOOTER's text and length byte to BUF (at least
   SVN_FS_FS__FOOTER_MAX_LEN bytes); returns the byte count. */
apr_size_t
svn_fs_fs__footer_unparse(char *buf, const svn_fs_fs__footer_t *footer);

/* Parse the trailer of a revision whose data ends at absolute REV_END
   (exclusive); TAIL holds its last LEN bytes (at most the revision).
   *ROOT_OFFSET and *CHANGES_OFFSET receive the two numbers as written
   (relative to the revision start), after checking TRAILER-1..TRAILER-2;
   *LINE_OFFSET, if not NULL, where the trailer line starts (relative
   too: the changed-path list ends there, CHANGES-7).  REV_LEN is the
   revision's length in bytes. */
svn_error_t *
svn_fs_fs__trailer_parse(apr_off_t *root_offset, apr_off_t *changes_offset,
                         apr_off_t *line_offset, const char *tail,
                         apr_size_t len, apr_off_t rev_len,
                         const char *where);

/* Parse a pack manifest of LEN bytes at DATA into *OFFSETS (allocated
   in RESULT_POOL): EXPECTED_COUNT offsets (the shard size), then
   PACK_SIZE.  Only the number of lines is checked here (MANIFEST-1: with
   a line too many or too few, no line can be trusted to belong to its
   revision); a line that is not a decimal number gets the offset -1, and
   the order and bounds are left to svn_fs_fs__manifest_bounds, so that a
   damaged line or a truncated pack file costs only the revisions whose
   bytes they concern. */
svn_error_t *
svn_fs_fs__manifest_parse(apr_off_t **offsets, const char *data,
                          apr_size_t len, int expected_count,
                          apr_off_t pack_size, const char *where,
                          apr_pool_t *result_pool);

/* The bytes [*START, *END) of revision INDEX (0-based in the shard, which
   starts with revision SHARD_START; for messages) of a pack file of
   FILE_SIZE bytes, from the COUNT + 1 OFFSETS made by
   svn_fs_fs__manifest_parse.  Checks what this revision needs of the
   manifest: its line and the next one are numbers (MANIFEST-1), the
   first revision starts at 0, it starts before it ends and ends inside
   the pack file (MANIFEST-2).  WHERE names the manifest in errors. */
svn_error_t *
svn_fs_fs__manifest_bounds(apr_off_t *start, apr_off_t *end,
                           const apr_off_t *offsets, int count, int index,
                           svn_revnum_t shard_start, apr_off_t file_size,
                           const char *where);

#endif
