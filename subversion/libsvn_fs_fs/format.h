/* format.h --- the db/format file: format number, layout, addressing
 * (codec layer; doc/format/format.md).  Owner: the admin layer.
 *
 * Bytes in, struct out; no I/O.  The storage layer (repo_open.c,
 * repo_create.c) reads and writes the file itself.
 */
#ifndef FSFS7_FORMAT_H
#define FSFS7_FORMAT_H

#include "fsfs7.h"

/* The decoded contents of db/format. */
typedef struct svn_fs_fs__format_t
{
  /* Format number (FORMAT-1); only SVN_FS_FS__MIN_FORMAT ..
     SVN_FS_FS__MAX_FORMAT are accepted by the parser. */
  int format;

  /* Revisions per shard, 0 for the linear layout (FORMAT-3). */
  int max_files_per_dir;

  /* TRUE for "addressing logical" (FORMAT-4, format 7+ only). */
  svn_boolean_t use_log_addressing;
} svn_fs_fs__format_t;

/* Parse the LEN bytes at DATA (the whole file) into *FORMAT.  WHERE names
   the file for error messages (may be NULL).
   Errors: SVN_ERR_BAD_VERSION_FILE_FORMAT for malformed text,
   SVN_ERR_FS_UNSUPPORTED_FORMAT for a well-formed but unsupported format
   number.  Nothing is allocated. */
svn_error_t *
svn_fs_fs__format_parse(svn_fs_fs__format_t *format, const char *data,
                        apr_size_t len, const char *where);

/* The file text for FORMAT, exactly as stock writes it, in RESULT_POOL. */
const char *
svn_fs_fs__format_unparse(const svn_fs_fs__format_t *format,
                          apr_pool_t *result_pool);

#endif
