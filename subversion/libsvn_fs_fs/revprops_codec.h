/* revprops_codec.h --- packed revprop manifests and pack containers
 * (codec layer; doc/format/revprops.md, RPPACK-*).  Owner: the admin layer.
 * Bytes in, structs out; no I/O.
 */
#ifndef FSFS7_REVPROPS_CODEC_H
#define FSFS7_REVPROPS_CODEC_H

#include "fsfs7.h"

/* One manifest line: the pack file "<start_rev>.<counter>". */
typedef struct svn_fs_fs__revprop_manifest_entry_t
{
  svn_revnum_t start_rev;
  apr_int64_t counter;
} svn_fs_fs__revprop_manifest_entry_t;

/* Parse a manifest whose first line describes FIRST_REV into *ENTRIES
   (array of svn_fs_fs__revprop_manifest_entry_t, one per revision, in
   RESULT_POOL).  Rejects lines that are not "<digits>.<digits>\n", pack
   files starting after the revision they hold or before FIRST_REV, and
   start revisions that go backwards (RPPACK-1..3).
   Errors: SVN_ERR_FS_CORRUPT_REVPROP_MANIFEST. */
svn_error_t *
svn_fs_fs__revprop_manifest_parse(apr_array_header_t **entries,
                                  const char *data, apr_size_t len,
                                  svn_revnum_t first_rev, const char *where,
                                  apr_pool_t *result_pool);

/* Append the manifest text of ENTRIES to OUT. */
void
svn_fs_fs__revprop_manifest_unparse(svn_stringbuf_t *out,
                                    const apr_array_header_t *entries);

/* File name "<start_rev>.<counter>" of ENTRY, in RESULT_POOL. */
const char *
svn_fs_fs__revprop_pack_name(const svn_fs_fs__revprop_manifest_entry_t *entry,
                             apr_pool_t *result_pool);

/* A decoded (uncompressed) pack container.  Points into the caller's
   buffer; OFFSETS / SIZES are arrays of COUNT apr_size_t in the pool
   given to the parser. */
typedef struct svn_fs_fs__revprop_pack_t
{
  svn_revnum_t start_rev;
  int count;
  const char *body;            /* serialized revprops, back to back */
  apr_size_t *offsets;         /* of each revision's dump within BODY */
  apr_size_t *sizes;
} svn_fs_fs__revprop_pack_t;

/* Parse the container of LEN bytes at DATA (already decompressed).
   The sizes must add up to exactly the bytes after the header
   (RPPACK-5, RPPACK-6).  Errors: SVN_ERR_FS_CORRUPT. */
svn_error_t *
svn_fs_fs__revprop_pack_parse(svn_fs_fs__revprop_pack_t *pack,
                              const char *data, apr_size_t len,
                              const char *where, apr_pool_t *result_pool);

/* Append a container for START_REV with the serialized revprops DUMPS
   (array of svn_stringbuf_t *) to OUT. */
void
svn_fs_fs__revprop_pack_unparse(svn_stringbuf_t *out, svn_revnum_t start_rev,
                                const apr_array_header_t *dumps,
                                apr_pool_t *scratch_pool);

/* Undo the compression wrapper of a pack file (RPPACK-4): varint of the
   plain size, then the plain bytes or their zlib stream.  *PLAIN is
   allocated in RESULT_POOL.  Errors: SVN_ERR_FS_CORRUPT. */
svn_error_t *
svn_fs_fs__revprop_pack_unwrap(svn_stringbuf_t **plain, const char *data,
                               apr_size_t len, const char *where,
                               apr_pool_t *result_pool);

/* Apply the wrapper to PLAIN: zlib at the default level if COMPRESS,
   else none.  Result in RESULT_POOL. */
svn_error_t *
svn_fs_fs__revprop_pack_wrap(svn_stringbuf_t **wrapped,
                             const svn_stringbuf_t *plain,
                             svn_boolean_t compress,
                             apr_pool_t *result_pool);

#endif
