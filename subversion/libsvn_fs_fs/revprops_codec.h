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

/* A manifest split into lines but not parsed: readers parse only the
   line of the revision they want, so that one damaged line refuses only
   its own revision (doc/format/revprops.md, "What a reader needs").
   Points into the caller's text. */
typedef struct svn_fs_fs__revprop_manifest_t
{
  const char *data;
  svn_revnum_t first_rev;       /* described by the first line */
  int count;                    /* lines; the last may lack its LF */
  apr_size_t *starts;           /* COUNT + 1 offsets; the last is LEN */
} svn_fs_fs__revprop_manifest_t;

/* Split the LEN bytes at DATA, the manifest whose first line describes
   FIRST_REV, into *MANIFEST (arrays in RESULT_POOL).  Never fails: what
   the lines say is checked by svn_fs_fs__revprop_manifest_get. */
void
svn_fs_fs__revprop_manifest_index(svn_fs_fs__revprop_manifest_t *manifest,
                                  const char *data, apr_size_t len,
                                  svn_revnum_t first_rev,
                                  apr_pool_t *result_pool);

/* The entry of REV in MANIFEST: its line must exist and be
   "<digits>.<digits>\n" (RPPACK-1) and name a pack starting in the shard
   at or before REV (RPPACK-2).  WHERE names the file in errors.
   Errors: SVN_ERR_FS_CORRUPT_REVPROP_MANIFEST naming REV. */
svn_error_t *
svn_fs_fs__revprop_manifest_get(svn_fs_fs__revprop_manifest_entry_t *entry,
                                const svn_fs_fs__revprop_manifest_t *manifest,
                                svn_revnum_t rev, const char *where);

/* RPPACK-3 at REV: its pack does not start before that of REV - 1, when
   both lines are readable (a damaged neighbour is its own revision's
   error).  For verification; readers do not need it.
   Errors: SVN_ERR_FS_CORRUPT_REVPROP_MANIFEST. */
svn_error_t *
svn_fs_fs__revprop_manifest_check_order(
  const svn_fs_fs__revprop_manifest_t *manifest, svn_revnum_t rev,
  const char *where);

/* RPPACK-1 for the manifest as a whole: no more lines than EXPECTED, the
   revisions of its shard (a missing line is its revision's error, from
   svn_fs_fs__revprop_manifest_get).  For verification and for writers
   that replace the manifest; readers do not need it.
   Errors: SVN_ERR_FS_CORRUPT (stock's code for a manifest with too many
   entries) naming the manifest's first revision. */
svn_error_t *
svn_fs_fs__revprop_manifest_check_count(
  const svn_fs_fs__revprop_manifest_t *manifest, int expected,
  const char *where);

/* Parse a whole manifest whose first line describes FIRST_REV into
   *ENTRIES (array of svn_fs_fs__revprop_manifest_entry_t, one per
   revision, in RESULT_POOL), as a writer that replaces the manifest needs
   it: every line must pass svn_fs_fs__revprop_manifest_get and
   svn_fs_fs__revprop_manifest_check_order, and there must be one.
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
