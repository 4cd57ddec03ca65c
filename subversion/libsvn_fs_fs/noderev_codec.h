/* noderev_codec.h --- node-revision records and rep references as text
 * (codec layer; doc/format/noderev.md).
 *
 * Bytes in, svn_fs_fs__noderev_t out and back.  No I/O.  Owner: the nodes
 * layer.
 */
#ifndef FSFS7_NODEREV_CODEC_H
#define FSFS7_NODEREV_CODEC_H

#include "fsfs7.h"

/* Length of the node-rev record at the start of DATA (LEN bytes) up to and
   including the empty line that ends it (NODEREV-1); 0 if DATA does not
   contain a complete record yet. */
apr_size_t
svn_fs_fs__noderev_record_len(const char *data, apr_size_t len);

/* Parse the node-rev record in the LEN bytes at DATA (the terminating
   empty line may be missing at the very end).  WHERE describes the
   location for error messages (may be NULL).  Corrupt input is
   SVN_ERR_FS_CORRUPT citing a NODEREV-n rule (malformed IDs:
   SVN_ERR_FS_CORRUPT as well, rule NODEREV-2/-4).  Result and everything
   it points to live in RESULT_POOL; DATA need not outlive the call. */
svn_error_t *
svn_fs_fs__noderev_parse(svn_fs_fs__noderev_t **noderev, const char *data,
                         apr_size_t len, const char *where,
                         apr_pool_t *result_pool, apr_pool_t *scratch_pool);

/* Append NODEREV's record, in the field order and notation stock writes
   for FORMAT (NODEREV-12), including the terminating empty line, to OUT. */
void
svn_fs_fs__noderev_unparse(svn_stringbuf_t *out,
                           const svn_fs_fs__noderev_t *noderev, int format,
                           apr_pool_t *scratch_pool);

/* Parse a representation reference (the value of a "text" / "props"
   field, NODEREV-5) of LEN bytes at DATA.  TXN_ID is the transaction of
   the owning node-rev or NULL for committed ones; reps with revision -1
   belong to it. */
svn_error_t *
svn_fs_fs__rep_parse(svn_fs_fs__rep_t **rep, const char *data,
                     apr_size_t len, const svn_fs_fs__txn_id_t *txn_id,
                     const char *where,
                     apr_pool_t *result_pool);

/* Append the text form of REP for FORMAT to OUT (no newline).  With
   MUTABLE_SHORT, a rep of a transaction (txn_id set) is written as the
   bare "-1" that stands for "contents in the txn's side file" (directory
   texts and property lists, NODEREV-5). */
void
svn_fs_fs__rep_unparse(svn_stringbuf_t *out, const svn_fs_fs__rep_t *rep,
                       int format, svn_boolean_t mutable_short);

#endif
