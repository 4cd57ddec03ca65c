/* id.h --- node-revision IDs (codec layer; doc/format/ids.md).
 *
 * Parsing and printing of IDs in stock's textual form
 * ("<node>.<copy>.r<rev>/<item>" for committed node-revs,
 * "<node>.<copy>.t<txn>" inside transactions),
 * comparison, and the id vtable the loader calls.  Owner: the nodes layer.
 */
#ifndef FSFS7_ID_H
#define FSFS7_ID_H

#include "fsfs7.h"

/* Parse the LEN bytes at DATA; NULL if they are not a valid ID.  The
   result lives in POOL. */
svn_fs_fs__id_t *
svn_fs_fs__id_parse(const char *data, apr_size_t len, apr_pool_t *pool);

/* Same, but malformed input is an SVN_ERR_FS_MALFORMED_NODEREV_ID error. */
svn_error_t *
svn_fs_fs__id_parse_checked(svn_fs_fs__id_t **id, const char *data,
                            apr_size_t len, apr_pool_t *pool);

/* Textual form of ID, in POOL. */
svn_string_t *
svn_fs_fs__id_unparse(const svn_fs_fs__id_t *id, apr_pool_t *pool);

/* A committed node-rev ID, in POOL. */
svn_fs_fs__id_t *
svn_fs_fs__id_create_rev(const svn_fs_fs__id_part_t *node_id,
                         const svn_fs_fs__id_part_t *copy_id,
                         svn_revnum_t revision, apr_uint64_t item_index,
                         apr_pool_t *pool);

/* Deep copy of ID into POOL. */
svn_fs_fs__id_t *
svn_fs_fs__id_copy(const svn_fs_fs__id_t *id, apr_pool_t *pool);

/* Same node-rev? */
svn_boolean_t
svn_fs_fs__id_eq(const svn_fs_fs__id_t *a, const svn_fs_fs__id_t *b);

/* Same node (line of history)? */
svn_boolean_t
svn_fs_fs__id_check_related(const svn_fs_fs__id_t *a,
                            const svn_fs_fs__id_t *b);

/* Relation of A and B as svn_fs_compare_ids defines it. */
svn_fs_node_relation_t
svn_fs_fs__id_compare(const svn_fs_fs__id_t *a, const svn_fs_fs__id_t *b);

/* Revision a committed ID lives in (SVN_INVALID_REVNUM for txn ids). */
svn_revnum_t
svn_fs_fs__id_rev(const svn_fs_fs__id_t *id);

/* A transaction node-rev ID ("<node>.<copy>.t<txn>"), in POOL. */
svn_fs_fs__id_t *
svn_fs_fs__id_create_txn(const svn_fs_fs__id_part_t *node_id,
                         const svn_fs_fs__id_part_t *copy_id,
                         const svn_fs_fs__id_part_t *txn_id,
                         apr_pool_t *pool);

/* Make *ID (caller-owned storage) a valid public ID: sets the vtable and
   points fsap_data at ID itself.  Needed after copying the struct by
   value, e.g. out of a cache buffer. */
void
svn_fs_fs__id_init_public(svn_fs_fs__id_t *id);

/* TRUE if ID names a node-rev inside a transaction. */
svn_boolean_t
svn_fs_fs__id_is_txn(const svn_fs_fs__id_t *id);

/* Parse one node-id / copy-id part ("0", "1a-5", "_3") from the LEN bytes
   at DATA into *PART; FALSE if malformed (ID-2). */
svn_boolean_t
svn_fs_fs__id_part_parse(svn_fs_fs__id_part_t *part, const char *data,
                         apr_size_t len);

/* Parse a transaction name "<rev>-<base36>" (ID-4) into *PART. */
svn_boolean_t
svn_fs_fs__id_txn_parse(svn_fs_fs__id_part_t *part, const char *data,
                        apr_size_t len);

/* Write the text of a node/copy part (with a '_' or "-<rev>" as needed)
   resp. of a transaction name into BUF, which must hold at least
   SVN_FS_FS__ID_PART_MAX bytes; returns the length (BUF is NUL-terminated). */
#define SVN_FS_FS__ID_PART_MAX 48
apr_size_t
svn_fs_fs__id_part_unparse(char *buf, const svn_fs_fs__id_part_t *part);
apr_size_t
svn_fs_fs__id_txn_unparse(char *buf, const svn_fs_fs__id_part_t *txn_id);

/* Longest textual form of an ID svn_fs_fs__id_unparse_to can write. */
#define SVN_FS_FS__ID_MAX (3 * SVN_FS_FS__ID_PART_MAX + 4)

/* Write the textual form of ID into BUF (SVN_FS_FS__ID_MAX bytes);
   returns the length.  The allocation-free sibling of _unparse. */
apr_size_t
svn_fs_fs__id_unparse_to(char *buf, const svn_fs_fs__id_t *id);

/* Cast helpers between the loader's view and ours. */
#define SVN_FS_FS__ID(public_id) ((const svn_fs_fs__id_t *)(public_id))
#define SVN_FS_FS__PUBLIC_ID(id) (&(id)->public)

#endif
