/* txn_store.h --- transactions on disk (storage layer).
 *
 * Owns every file of an uncommitted transaction (doc/format/transactions.md):
 *
 *   db/txn-current                  next transaction sequence number
 *   db/transactions/<txn>.txn/      props, next-ids, changes, itemidx,
 *                                   index.l2p, index.p2l, <sha1>,
 *                                   node.<node>.<copy>[.props|.children]
 *   db/txn-protorevs/<txn>.rev      the proto-revision file
 *   db/txn-protorevs/<txn>.rev-lock its lock file
 *
 * The layout is the stock module's, so that either module can continue,
 * abort or commit a transaction the other began.  Nothing here knows
 * about paths or trees: callers (txn.c, tree_mutate.c, commit.c, merge.c)
 * hand in node-revisions and entries and get bytes on disk.
 *
 * Crash safety: every small file is replaced by write-to-temp + rename, so
 * a crash leaves the old or the new version; append-only files (changes,
 * proto indexes, .children) are only appended to and their readers ignore
 * a torn last record only where the stock module does too.
 *
 * Concurrency: txn-current is bumped under db/txn-current-lock plus the
 * per-repository in-process mutex; a proto-revision file has exactly one
 * writer at a time (its rev-lock, both in process and on disk).
 */
#ifndef FSFS7_TXN_STORE_H
#define FSFS7_TXN_STORE_H

#include <apr_file_io.h>
#include "fsfs7.h"
#include "index.h"
#include "rep_write.h"

/* ------------------------------------------------------------------ */
/* Names                                                               */

/* "<base-rev>-<base36 seq>" of TXN_ID, in POOL. */
const char *
svn_fs_fs__txn_name(const svn_fs_fs__txn_id_t *txn_id, apr_pool_t *pool);

/* Parse NAME into *TXN_ID; SVN_ERR_FS_MALFORMED_TXN_ID if it is not a
   transaction name. */
svn_error_t *
svn_fs_fs__txn_name_parse(svn_fs_fs__txn_id_t *txn_id, const char *name);

/* Absolute path of transaction TXN_ID's directory, or of file NAME inside
   it when NAME is not NULL. */
const char *
svn_fs_fs__txn_path(svn_fs_t *fs, const svn_fs_fs__txn_id_t *txn_id,
                    const char *name, apr_pool_t *pool);

/* ------------------------------------------------------------------ */
/* Life cycle                                                          */

/* Create a new transaction based on revision BASE_REV of FS and return its
   id in *TXN_ID: take the next number from db/txn-current, create the
   directory, an empty proto-revision file and its lock file, an empty
   "changes", "next-ids" = "0 0\n" (the proto indexes and "itemidx" appear
   with the first item, as with the stock module), and the mutable root
   node-rev "node.0.0": a copy of BASE_REV's
   root with id 0.0.t<txn>, predecessor = that root, predecessor count + 1,
   no copy source, is-fresh-txn-root set.  The "props" file is left to
   the caller (svn_fs_fs__txn_set_props).  Nothing is left behind on
   error. */
svn_error_t *
svn_fs_fs__txn_create(svn_fs_fs__txn_id_t *txn_id, svn_fs_t *fs,
                      svn_revnum_t base_rev, apr_pool_t *scratch_pool);

/* SVN_ERR_FS_NO_SUCH_TRANSACTION unless transaction TXN_ID of FS exists
   (its directory is there). */
svn_error_t *
svn_fs_fs__txn_check_exists(svn_fs_t *fs, const svn_fs_fs__txn_id_t *txn_id,
                            apr_pool_t *scratch_pool);

/* Remove every file of transaction TXN_ID (directory, proto-revision file
   and lock).  Missing pieces are no error; a missing transaction is
   SVN_ERR_FS_NO_SUCH_TRANSACTION only when nothing at all was there. */
svn_error_t *
svn_fs_fs__txn_purge(svn_fs_t *fs, const svn_fs_fs__txn_id_t *txn_id,
                     apr_pool_t *scratch_pool);

/* Names (const char *) of all transactions of FS, in RESULT_POOL. */
svn_error_t *
svn_fs_fs__txn_list(apr_array_header_t **names, svn_fs_t *fs,
                    apr_pool_t *result_pool, apr_pool_t *scratch_pool);

/* ------------------------------------------------------------------ */
/* Transaction properties                                              */

/* The "props" file (FINAL: "props-final") of TXN_ID, never NULL. */
svn_error_t *
svn_fs_fs__txn_get_props(apr_hash_t **props, svn_fs_t *fs,
                         const svn_fs_fs__txn_id_t *txn_id,
                         svn_boolean_t final, apr_pool_t *result_pool,
                         apr_pool_t *scratch_pool);

/* Replace the "props" (FINAL: "props-final") file of TXN_ID atomically by
   PROPS (const char * -> svn_string_t *). */
svn_error_t *
svn_fs_fs__txn_set_props(svn_fs_t *fs, const svn_fs_fs__txn_id_t *txn_id,
                         apr_hash_t *props, svn_boolean_t final,
                         apr_pool_t *scratch_pool);

/* ------------------------------------------------------------------ */
/* Ids                                                                 */

/* Allocate the next temporary node id ("_<n>", revision
   SVN_INVALID_REVNUM) or copy id of TXN_ID from its "next-ids" file. */
svn_error_t *
svn_fs_fs__txn_new_node_id(svn_fs_fs__id_part_t *node_id, svn_fs_t *fs,
                           const svn_fs_fs__txn_id_t *txn_id,
                           apr_pool_t *scratch_pool);
svn_error_t *
svn_fs_fs__txn_new_copy_id(svn_fs_fs__id_part_t *copy_id, svn_fs_t *fs,
                           const svn_fs_fs__txn_id_t *txn_id,
                           apr_pool_t *scratch_pool);

/* ------------------------------------------------------------------ */
/* Node-revisions and their side files                                 */

/* Write NODEREV (whose id must be a transaction id) to its node file,
   replacing an older version atomically. */
svn_error_t *
svn_fs_fs__txn_put_noderev(svn_fs_t *fs, const svn_fs_fs__noderev_t *noderev,
                           apr_pool_t *scratch_pool);

/* Remove the node file of transaction node-rev ID and its .props and
   .children side files (deleting a node created in this transaction). */
svn_error_t *
svn_fs_fs__txn_delete_noderev(svn_fs_t *fs, const svn_fs_fs__id_t *id,
                              apr_pool_t *scratch_pool);

/* Set entry NAME of the mutable directory PARENT to ID of KIND, or remove
   it when ID is NULL.  The first change of a listing writes the whole
   current listing to PARENT's ".children" file and makes PARENT's data
   rep mutable (updating *PARENT and its node file; a node id is spent as
   stock spends one on the rep's uniquifier); later changes append one
   incremental record.  PARENT is updated in place: its new data_rep is a
   small struct in FS->pool (PARENT's pool is not known here), shared by
   all such reps of the transaction, that callers must treat as
   read-only. */
svn_error_t *
svn_fs_fs__txn_set_entry(svn_fs_t *fs, svn_fs_fs__noderev_t *parent,
                         const char *name, const svn_fs_fs__id_t *id,
                         svn_node_kind_t kind, apr_pool_t *scratch_pool);

/* Replace the properties of the mutable node NODEREV by PROPS: write its
   ".props" file and, the first time, make its prop rep mutable (updating
   *NODEREV and its node file; new rep as for svn_fs_fs__txn_set_entry). */
svn_error_t *
svn_fs_fs__txn_set_node_props(svn_fs_t *fs, svn_fs_fs__noderev_t *noderev,
                              apr_hash_t *props, apr_pool_t *scratch_pool);

/* ------------------------------------------------------------------ */
/* Changed paths                                                       */

/* Append CHANGE to the "changes" file of TXN_ID (node kind always
   written, whatever the format). */
svn_error_t *
svn_fs_fs__txn_add_change(svn_fs_t *fs, const svn_fs_fs__txn_id_t *txn_id,
                          const svn_fs_fs__change_t *change,
                          apr_pool_t *scratch_pool);

/* The changes of TXN_ID folded into one entry per path, the way the
   stock module folds them (a reset drops earlier entries, add + modify is
   an add, add + delete cancels, delete + add is a replace, deleting a
   path drops the entries of everything below it): a hash from path
   (const char *) to svn_fs_fs__change_t *, in RESULT_POOL.  A damaged
   file is SVN_ERR_FS_CORRUPT naming the file and rule. */
svn_error_t *
svn_fs_fs__txn_changes(apr_hash_t **changes, svn_fs_t *fs,
                       const svn_fs_fs__txn_id_t *txn_id,
                       apr_pool_t *result_pool, apr_pool_t *scratch_pool);

/* ------------------------------------------------------------------ */
/* Rep-sharing inside one transaction (the <sha1> files)               */

/* The rep of TXN_ID whose fulltext has SHA1_DIGEST, or NULL. */
svn_error_t *
svn_fs_fs__txn_sha1_rep_get(svn_fs_fs__rep_t **rep, svn_fs_t *fs,
                            const svn_fs_fs__txn_id_t *txn_id,
                            const unsigned char *sha1_digest,
                            apr_pool_t *result_pool,
                            apr_pool_t *scratch_pool);

/* Remember REP (which has a SHA1) under its SHA1 in TXN_ID. */
svn_error_t *
svn_fs_fs__txn_sha1_rep_put(svn_fs_t *fs, const svn_fs_fs__txn_id_t *txn_id,
                            const svn_fs_fs__rep_t *rep,
                            apr_pool_t *scratch_pool);

/* ------------------------------------------------------------------ */
/* The proto-revision file                                             */

/* An open, locked proto-revision file.  FILE is positioned at its end.
   Exactly one exists per transaction at any time, in any process. */
typedef struct svn_fs_fs__protorev_t
{
  svn_fs_t *fs;
  svn_fs_fs__txn_id_t txn_id;
  apr_file_t *file;
  apr_pool_t *pool;
  void *priv;                   /* txn_store.c's lock bookkeeping */
} svn_fs_fs__protorev_t;

/* Open and lock the proto-revision file of TXN_ID for appending.  When
   another writer (this process or another) holds it:
   SVN_ERR_FS_REP_BEING_WRITTEN with the stock module's message.  The
   handle lives in RESULT_POOL; clearing that pool closes and unlocks. */
svn_error_t *
svn_fs_fs__protorev_open(svn_fs_fs__protorev_t **protorev, svn_fs_t *fs,
                         const svn_fs_fs__txn_id_t *txn_id,
                         apr_pool_t *result_pool, apr_pool_t *scratch_pool);

/* Current end offset of PROTOREV (where the next item goes). */
svn_error_t *
svn_fs_fs__protorev_offset(apr_off_t *offset, svn_fs_fs__protorev_t *protorev,
                           apr_pool_t *scratch_pool);

/* Cut PROTOREV back to OFFSET (dropping a rep that turned out to be a
   duplicate, or a partial one after an error) and position it there. */
svn_error_t *
svn_fs_fs__protorev_truncate(svn_fs_fs__protorev_t *protorev,
                             apr_off_t offset, apr_pool_t *scratch_pool);

/* Flush, unlock and close PROTOREV (idempotent). */
svn_error_t *
svn_fs_fs__protorev_close(svn_fs_fs__protorev_t *protorev);

/* Register the item that occupies [OFFSET, OFFSET+SIZE) of PROTOREV as of
   TYPE and return its address in *ITEM_INDEX.  Logical addressing: use
   ITEM_INDEX if it is not SVN_FS_FS__ITEM_INDEX_UNUSED (root node-rev,
   changes), else allocate the next one from "itemidx"; append the proto
   L2P and P2L records (FNV-1a checksum of the item's bytes, read back
   from the file).  Physical addressing: *ITEM_INDEX = OFFSET and nothing
   is recorded. */
svn_error_t *
svn_fs_fs__protorev_add_item(apr_uint64_t *item_index,
                             svn_fs_fs__protorev_t *protorev,
                             apr_off_t offset, apr_off_t size,
                             svn_fs_fs__item_type_t type,
                             apr_uint64_t want_index,
                             apr_pool_t *scratch_pool);

/* Logical addressing: take the next user item index of PROTOREV's
   transaction from "itemidx" (TXN-4) for an item whose index must be
   known before its bytes are written (node-revs carry their own id);
   register it later with svn_fs_fs__protorev_add_item(..., WANT_INDEX =
   that index). */
svn_error_t *
svn_fs_fs__protorev_reserve_item(apr_uint64_t *item_index,
                                 svn_fs_fs__protorev_t *protorev,
                                 apr_pool_t *scratch_pool);

/* A representation being appended to a proto-revision file. */
typedef struct svn_fs_fs__protorev_rep_t svn_fs_fs__protorev_rep_t;

/* Start a representation at the end of PROTOREV: write its header
   (against BASE, or the empty text when BASE is NULL; "PLAIN" when
   OPTIONS->plain) and return in *STREAM a writable stream for its
   fulltext (closing the stream does not finish the rep).  BASE and
   OPTIONS as for svn_fs_fs__rep_writer_open.  Lives in RESULT_POOL. */
svn_error_t *
svn_fs_fs__protorev_rep_begin(svn_fs_fs__protorev_rep_t **rep_writer,
                              svn_stream_t **stream,
                              svn_fs_fs__protorev_t *protorev,
                              const svn_fs_fs__rep_write_base_t *base,
                              const svn_fs_fs__rep_write_options_t *options,
                              apr_pool_t *result_pool,
                              apr_pool_t *scratch_pool);

/* Finish the rep: last window and trailer, register it as an item of TYPE
   (svn_fs_fs__protorev_add_item), and describe it in *REP in RESULT_POOL
   the way the stock module does for reps in a transaction: revision
   SVN_INVALID_REVNUM, txn id set, item index (offset on physical
   addressing), size, expanded size, MD5, SHA1, uniquifier
   "<txn>/_<n>" with <n> a fresh node id of the transaction.  On error the
   file is cut back to where the rep started. */
svn_error_t *
svn_fs_fs__protorev_rep_finish(svn_fs_fs__rep_t **rep,
                               svn_fs_fs__protorev_rep_t *rep_writer,
                               svn_fs_fs__item_type_t type,
                               apr_pool_t *result_pool,
                               apr_pool_t *scratch_pool);

/* Drop an unfinished (or just finished, e.g. found to be a duplicate) rep:
   cut the file back to where it started.  For a finished rep the proto
   index records appended by rep_finish are cut off as well and "itemidx"
   gets its old value back, so the files end up as if the rep had never
   been written (what the stock module leaves after a shared rep). */
svn_error_t *
svn_fs_fs__protorev_rep_abort(svn_fs_fs__protorev_rep_t *rep_writer,
                              apr_pool_t *scratch_pool);

/* Convenience: begin, copy all of CONTENTS, finish. */
svn_error_t *
svn_fs_fs__protorev_write_rep(svn_fs_fs__rep_t **rep,
                              svn_fs_fs__protorev_t *protorev,
                              svn_stream_t *contents,
                              const svn_fs_fs__rep_write_base_t *base,
                              const svn_fs_fs__rep_write_options_t *options,
                              svn_fs_fs__item_type_t type,
                              apr_pool_t *result_pool,
                              apr_pool_t *scratch_pool);

/* Logical addressing: the proto indexes of TXN_ID as the index builders
   of index_codec.h take them: *L2P one apr_array_header_t of apr_off_t
   (indexed by item, -1 unused) and *P2L svn_fs_fs__p2l_entry_t entries in
   offset order, both limited to items that end at or before FILE_SIZE. */
svn_error_t *
svn_fs_fs__txn_proto_indexes(apr_array_header_t **l2p,
                             apr_array_header_t **p2l, svn_fs_t *fs,
                             const svn_fs_fs__txn_id_t *txn_id,
                             apr_off_t file_size, apr_pool_t *result_pool,
                             apr_pool_t *scratch_pool);

/* Logical addressing: the offset in TXN_ID's proto-revision file of item
   ITEM_INDEX, from the proto L2P index (reading reps that live in a
   transaction).  Physical addressing: ITEM_INDEX itself. */
svn_error_t *
svn_fs_fs__txn_item_offset(apr_off_t *offset, svn_fs_t *fs,
                           const svn_fs_fs__txn_id_t *txn_id,
                           apr_uint64_t item_index,
                           apr_pool_t *scratch_pool);

/* Path of TXN_ID's proto-revision file and of its proto indexes. */
const char *
svn_fs_fs__txn_protorev_path(svn_fs_t *fs, const svn_fs_fs__txn_id_t *txn_id,
                             apr_pool_t *pool);

/* ------------------------------------------------------------------ */
/* Helpers and pure parsers shared by txn_store.c, txn_changes.c,      */
/* txn_protorev.c, the unit tests and the fuzz targets.                */

/* Replace PATH by LEN bytes of DATA.  FLUSH: atomically and durably
   (temp file, fsync, rename); otherwise rewritten in place, as the stock
   module writes the files of a transaction. */
svn_error_t *
svn_fs_fs__txn_file_write(const char *path, const char *data,
                          apr_size_t len, svn_boolean_t flush,
                          apr_pool_t *scratch_pool);

/* Write the LEN bytes at DATA over PATH, which held OLD_LEN bytes (0:
   missing) -- a small counter file (next-ids, itemidx) that only grows. */
svn_error_t *
svn_fs_fs__txn_file_overwrite(const char *path, const char *data,
                              apr_size_t len, apr_size_t old_len,
                              apr_pool_t *scratch_pool);

/* Append LEN bytes of DATA to PATH (created if missing) in one write;
   the bytes are handed to the OS before this returns. */
svn_error_t *
svn_fs_fs__txn_file_append(const char *path, const void *data,
                           apr_size_t len, apr_pool_t *scratch_pool);

/* Whole contents of PATH in RESULT_POOL, or NULL if it does not exist. */
svn_error_t *
svn_fs_fs__txn_file_read(svn_stringbuf_t **contents, const char *path,
                         apr_pool_t *result_pool);

/* Parse a base-36 number (lowercase, 1..13 digits, fits 64 bits) at
   [DATA, END); *NEXT gets the first byte after it.  FALSE if none. */
svn_boolean_t
svn_fs_fs__txn_base36_parse(apr_uint64_t *value, const char **next,
                            const char *data, const char *end);

/* db/txn-current contents (TXN-2): the next sequence number. */
svn_error_t *
svn_fs_fs__txn_current_parse(apr_uint64_t *next_seq, const char *data,
                             apr_size_t len, const char *where);

/* A "next-ids" file (TXN-3). */
svn_error_t *
svn_fs_fs__txn_next_ids_parse(apr_uint64_t *node_id, apr_uint64_t *copy_id,
                              const char *data, apr_size_t len,
                              const char *where);

/* An "itemidx" file (TXN-4): the next free item index (decimal, no
   newline, at least SVN_FS_FS__ITEM_INDEX_FIRST_USER). */
svn_error_t *
svn_fs_fs__txn_itemidx_parse(apr_uint64_t *next_item, const char *data,
                             apr_size_t len, const char *where);

/* A <sha1> file (TXN-10): the rep reference of the rep of TXN_ID whose
   fulltext has SHA1_DIGEST. */
svn_error_t *
svn_fs_fs__txn_sha1_parse(svn_fs_fs__rep_t **rep, const char *data,
                          apr_size_t len, const svn_fs_fs__txn_id_t *txn_id,
                          const unsigned char *sha1_digest, const char *where,
                          apr_pool_t *result_pool);

/* Fold one more entry CHANGE of a changes file into CHANGES (path ->
   svn_fs_fs__change_t *, values in RESULT_POOL) by the rules of
   txn_changes.c (TXN-9a..d).  CHANGES starts empty and holds only what
   this function put there (its values carry private state). */
svn_error_t *
svn_fs_fs__txn_changes_fold(apr_hash_t *changes,
                            const svn_fs_fs__change_t *change,
                            const char *where, apr_pool_t *result_pool,
                            apr_pool_t *scratch_pool);

/* Fold into CHANGES (as svn_fs_fs__txn_changes_fold) the complete
   entries at the start of the LEN bytes at DATA, a piece of a changes
   file that begins at an entry; *CONSUMED gets the bytes they took.  A
   torn entry at the end is left for the caller, who either has more of
   the file to append to it or found the file cut short (TXN-9). */
svn_error_t *
svn_fs_fs__txn_changes_fold_some(apr_hash_t *changes, apr_size_t *consumed,
                                 const char *data, apr_size_t len,
                                 const char *where, apr_pool_t *result_pool,
                                 apr_pool_t *scratch_pool);

/* Parse a whole changes file (LEN bytes at DATA) and fold it. */
svn_error_t *
svn_fs_fs__txn_changes_parse_fold(apr_hash_t **changes, const char *data,
                                  apr_size_t len, const char *where,
                                  apr_pool_t *result_pool,
                                  apr_pool_t *scratch_pool);

/* A fresh uniquifier "<txn>/_<n>" for a rep of TXN_ID (takes a node id,
   as the stock module does). */
svn_error_t *
svn_fs_fs__txn_new_uniquifier(const char **uniquifier, svn_fs_t *fs,
                              const svn_fs_fs__txn_id_t *txn_id,
                              apr_pool_t *result_pool,
                              apr_pool_t *scratch_pool);

/* ------------------------------------------------------------------ */
/* Spare files (txn_spare.c): inodes of finished transactions reused   */

/* Spares are used only by an svn_fs_t that has already finished a
   transaction (a load, an svnsync, a session with several commits):
   one commit per session, the common case of a server, leaves nothing
   behind.  Such an svn_fs_t joins the transactions directory PARENT;
   when the last one that joined closes (FS_POOL's cleanup), the spare
   directories of PARENT are removed, so a server's repository holds no
   "<txn>.spare" between bursts (a hot copy or a backup sees stock's
   files). */
svn_error_t *
svn_fs_fs__txn_spare_join(const char *parent, apr_pool_t *fs_pool,
                          apr_pool_t *scratch_pool);

/* Instead of deleting transaction directory TXN_DIR, turn its files and
   EXTRA (the proto-revision lock file, may be missing) into spares and
   keep the directory, renamed "<txn>.spare", for the next transaction of
   this process.  *HANDLED is FALSE when TXN_DIR was left as it was (the
   caller removes it). */
svn_error_t *
svn_fs_fs__txn_spare_keep(svn_boolean_t *handled, const char *txn_dir,
                          const char *extra, apr_pool_t *scratch_pool);

/* Make the directory TXN_DIR of a new transaction: a spare directory of
   the same parent renamed, else a new one. */
svn_error_t *
svn_fs_fs__txn_spare_make_dir(const char *txn_dir, apr_pool_t *scratch_pool);

/* When transaction directory TXN_DIR has a spare file and PATH does not
   exist, rename the spare to PATH and set *TOOK: PATH then holds stale
   bytes that the caller must overwrite or cut. */
svn_error_t *
svn_fs_fs__txn_spare_take(svn_boolean_t *took, const char *txn_dir,
                          const char *path, apr_pool_t *scratch_pool);

/* Replace PATH atomically and, with FLUSH, durably by LEN bytes at DATA
   like svn_io_write_atomic2 (same steps and flushes), but with a spare
   file of SPARE_DIR as the temporary file.  The replaced file is freed,
   not kept: readers may hold it open.  Without a spare (or SPARE_DIR
   NULL): exactly svn_io_write_atomic2. */
svn_error_t *
svn_fs_fs__txn_spare_write_atomic(const char *path, const char *data,
                                  apr_size_t len,
                                  const char *copy_perms_path,
                                  svn_boolean_t flush, const char *spare_dir,
                                  apr_pool_t *scratch_pool);

/* A spare directory kept for the transactions directory PARENT (path in
   POOL), or NULL. */
const char *
svn_fs_fs__txn_spare_any_dir(const char *parent, apr_pool_t *pool);

/* PATH, a file of a transaction that is about to be created and then
   appended to: if a spare can take its place, it does, emptied. */
svn_error_t *
svn_fs_fs__txn_file_prepare(const char *path, apr_pool_t *scratch_pool);

/* Path of the lock file of TXN_ID's proto-revision file. */
const char *
svn_fs_fs__txn_protorev_lock_path(svn_fs_t *fs,
                                  const svn_fs_fs__txn_id_t *txn_id,
                                  apr_pool_t *pool);

#endif
