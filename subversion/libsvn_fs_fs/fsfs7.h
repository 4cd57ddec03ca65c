/* fsfs7.h --- the types every layer of the module shares.
 *
 * This header owns the in-memory shapes of the on-disk concepts (node-rev
 * IDs, representation references, node-revisions, changed-path entries)
 * and the per-filesystem private data hung off svn_fs_t->fsap_data.
 * It declares no I/O.  Each layer has its own header for its functions:
 *
 *   codecs      id.h noderev_codec.h changes_codec.h dirent_codec.h
 *               footer.h index_codec.h svndiff.h rep_header.h hashdump.h
 *               format.h revprops_codec.h scan.h
 *   indexes     index.h
 *   storage     paths.h revfile.h rep_read.h node.h revprops.h create.h
 *               fsconf.h
 *   cache       caching.h
 *   semantics   tree.h history.h
 *   glue        loader.c
 *
 * The on-disk formats are specified in doc/format/ (rule IDs cited in code).
 */
#ifndef FSFS7_H
#define FSFS7_H

#include <apr_pools.h>
#include <apr_hash.h>
#include <apr_tables.h>
#include <apr_md5.h>
#include <apr_sha1.h>

#include "svn_types.h"
#include "svn_fs.h"
#include "svn_string.h"
#include "svn_checksum.h"
#include "svn_error.h"
#include "private/svn_cache.h"
#include "private/svn_mutex.h"
#include "libsvn_fs/fs-loader.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Formats we read and write (FORMAT-1 in doc/format/format.md). */
#define SVN_FS_FS__MIN_FORMAT 1
#define SVN_FS_FS__MAX_FORMAT 8
#define SVN_FS_FS__MIN_LOGICAL_ADDRESSING_FORMAT 7

/* Where the old formats differ (doc/format/old-formats.md, OLD-*). */
#define SVN_FS_FS__MIN_SVNDIFF1_FORMAT 2      /* OLD-2: format 1 svndiff0 */
#define SVN_FS_FS__MIN_LAYOUT_FORMAT 3        /* OLD-1: format options */
#define SVN_FS_FS__MIN_TXN_CURRENT_FORMAT 3   /* OLD-4: txn-current */
#define SVN_FS_FS__MIN_NEW_IDS_FORMAT 3       /* OLD-3: "<n>-<rev>" ids */
#define SVN_FS_FS__MIN_MERGEINFO_FORMAT 3     /* OLD-5: minfo-* fields */
#define SVN_FS_FS__MIN_REP_SHARING_FORMAT 4   /* OLD-6: SHA-1, rep-cache */
#define SVN_FS_FS__MIN_KIND_IN_CHANGES_FORMAT 4  /* OLD-7 */
#define SVN_FS_FS__MIN_PACKING_FORMAT 4       /* OLD-8: min-unpacked-rev */
#define SVN_FS_FS__MIN_CONFIG_FILE_FORMAT 4   /* OLD-8: fsfs.conf */
#define SVN_FS_FS__MIN_PACKED_REVPROPS_FORMAT 6  /* OLD-8 */

/* Pre-defined item indexes of every revision (ADDR-2). */
#define SVN_FS_FS__ITEM_INDEX_UNUSED  0
#define SVN_FS_FS__ITEM_INDEX_CHANGES 1
#define SVN_FS_FS__ITEM_INDEX_ROOT_NODE 2
#define SVN_FS_FS__ITEM_INDEX_FIRST_USER 3

/* P2L item types (ADDR-3). */
typedef enum svn_fs_fs__item_type_t
{
  SVN_FS_FS__ITEM_TYPE_UNUSED = 0,
  SVN_FS_FS__ITEM_TYPE_FILE_REP = 1,
  SVN_FS_FS__ITEM_TYPE_DIR_REP = 2,
  SVN_FS_FS__ITEM_TYPE_FILE_PROPS = 3,
  SVN_FS_FS__ITEM_TYPE_DIR_PROPS = 4,
  SVN_FS_FS__ITEM_TYPE_NODEREV = 5,
  SVN_FS_FS__ITEM_TYPE_CHANGES = 6,
  SVN_FS_FS__ITEM_TYPE_ANY_REP = 7
} svn_fs_fs__item_type_t;


/* ------------------------------------------------------------------ */
/* Node-revision IDs (doc/format/ids.md)                               */

/* One of the node-id / copy-id parts.  REVISION is the revision the id
   was minted in ("<base36>-<rev>"), 0 for ids without a suffix (r0 and
   pre-format-3 ids), SVN_INVALID_REVNUM for transaction-local ids
   ("_<base36>"). */
typedef struct svn_fs_fs__id_part_t
{
  svn_revnum_t revision;
  apr_uint64_t number;
} svn_fs_fs__id_part_t;

/* A node-revision ID.  PUBLIC must stay first: the loader only sees the
   svn_fs_id_t, and we cast back.  For committed node-revs REV_ITEM holds
   (revision, item index or physical offset) and TXN_ID is unset
   (revision SVN_INVALID_REVNUM); for transaction node-revs TXN_ID holds
   (base revision, txn sequence number) and REV_ITEM.revision is
   SVN_INVALID_REVNUM. */
typedef struct svn_fs_fs__id_t
{
  svn_fs_id_t public;

  /* Where the node-rev lives: committed, or in a transaction. */
  svn_fs_fs__id_part_t rev_item;
  svn_fs_fs__id_part_t txn_id;

  /* Which node (line of history) and which copy it belongs to. */
  svn_fs_fs__id_part_t node_id;
  svn_fs_fs__id_part_t copy_id;
} svn_fs_fs__id_t;


/* A transaction id: base revision and sequence number, written
   "<base-rev>-<base36 seq>" (doc/format/ids.md).  The same pair is the
   TXN_ID part of transaction node-rev ids. */
typedef svn_fs_fs__id_part_t svn_fs_fs__txn_id_t;

/* ------------------------------------------------------------------ */
/* Representation references (doc/format/noderev.md, NODEREV-5)        */

typedef struct svn_fs_fs__rep_t
{
  /* Where the rep lives: revision and item index (logical addressing) or
     offset within the revision (physical addressing). */
  svn_revnum_t revision;
  apr_uint64_t item_index;

  /* On-disk length of the svndiff/plain data, without header and
     trailer, and the length of the reconstructed fulltext. */
  svn_filesize_t size;
  svn_filesize_t expanded_size;

  /* MD5 is always known; SHA1 only when HAS_SHA1. */
  unsigned char md5_digest[APR_MD5_DIGESTSIZE];
  svn_boolean_t has_sha1;
  unsigned char sha1_digest[APR_SHA1_DIGESTSIZE];

  /* Uniquifier (format 4+): "<txn-id>/<number>", kept only so that we
     can write the field back verbatim; NULL when absent or "-". */
  const char *uniquifier;

  /* Transaction the rep belongs to while not committed (IN_TXN set; then
     REVISION is SVN_INVALID_REVNUM). */
  svn_boolean_t in_txn;
  svn_fs_fs__txn_id_t txn_id;
} svn_fs_fs__rep_t;


/* ------------------------------------------------------------------ */
/* Node-revisions (doc/format/noderev.md)                              */

typedef struct svn_fs_fs__noderev_t
{
  const svn_fs_fs__id_t *id;
  svn_node_kind_t kind;

  /* Predecessor id (NULL for the first node-rev of a node) and the
     number of predecessors. */
  const svn_fs_fs__id_t *predecessor_id;
  int predecessor_count;

  /* Copy source, if this node-rev was created by a true copy;
     COPYFROM_REV is SVN_INVALID_REVNUM otherwise. */
  svn_revnum_t copyfrom_rev;
  const char *copyfrom_path;

  /* Root of the nearest copy (defaults to the node-rev itself). */
  svn_revnum_t copyroot_rev;
  const char *copyroot_path;

  /* Contents (file text or directory listing) and properties; NULL when
     empty / absent. */
  svn_fs_fs__rep_t *data_rep;
  svn_fs_fs__rep_t *prop_rep;

  /* Path this node-rev was created at. */
  const char *created_path;

  /* Mergeinfo bookkeeping (format 3+). */
  apr_int64_t mergeinfo_count;
  svn_boolean_t has_mergeinfo;

  /* Transaction root that has not been made mutable yet. */
  svn_boolean_t is_fresh_txn_root;
} svn_fs_fs__noderev_t;


/* ------------------------------------------------------------------ */
/* Changed-path entries (doc/format/changes.md)                        */

typedef struct svn_fs_fs__change_t
{
  /* PATH.data is canonical and absolute. */
  svn_string_t path;
  const svn_fs_fs__id_t *noderev_id;   /* NULL for "reset" entries */
  svn_fs_path_change_kind_t change_kind;
  svn_boolean_t text_mod;
  svn_boolean_t prop_mod;
  svn_tristate_t mergeinfo_mod;        /* unknown before format 7 */
  svn_node_kind_t node_kind;           /* svn_node_unknown before f4 */
  svn_boolean_t copyfrom_known;
  svn_revnum_t copyfrom_rev;           /* SVN_INVALID_REVNUM if no copy */
  const char *copyfrom_path;
} svn_fs_fs__change_t;


/* ------------------------------------------------------------------ */
/* Per-repository data shared by every svn_fs_t of this process that has
   the same repository open (fcntl locks belong to the process, so the
   in-process serialisation must be per repository, not per svn_fs_t).
   Lives as long as the loader's common pool.                          */

typedef struct svn_fs_fs__shared_t
{
  /* Held together with db/write-lock, db/pack-lock, db/txn-current-lock. */
  svn_mutex__t *write_lock;
  svn_mutex__t *pack_lock;
  svn_mutex__t *txn_current_lock;

  /* Guards LOCKED_PROTOREVS: the transactions (name -> non-NULL) whose
     proto-revision file a writer of this process holds. */
  svn_mutex__t *txn_list_lock;
  apr_hash_t *locked_protorevs;

  /* Pool for the members above. */
  apr_pool_t *pool;
} svn_fs_fs__shared_t;

/* ------------------------------------------------------------------ */
/* Per-filesystem private data (svn_fs_t->fsap_data)                   */

typedef struct svn_fs_fs__data_t
{
  /* From db/format: format number, shard size (0 = linear layout),
     addressing mode. */
  int format;
  int max_files_per_dir;
  svn_boolean_t use_log_addressing;

  /* Second line of db/uuid (format 7+); the uuid itself is fs->uuid. */
  const char *instance_id;

  /* Oldest revision not in a pack file; refreshed from
     db/min-unpacked-rev whenever a revision below it is requested. */
  svn_revnum_t min_unpacked_rev;

  /* Last youngest revision read from db/current.  Only grows. */
  svn_revnum_t youngest_rev_cache;

  /* fsfs.conf knobs (doc/format/fsfs-conf.md). */
  svn_boolean_t rep_sharing_allowed;
  int max_deltification_walk;
  int max_linear_deltification;
  svn_boolean_t deltify_directories;
  svn_boolean_t deltify_properties;
  svn_boolean_t compress_packed_revprops;
  apr_int64_t revprop_pack_size;       /* bytes */
  apr_int64_t block_size;              /* bytes */
  svn_boolean_t block_read;            /* [io] block-read, fs config    */
  unsigned int block_read_kinds;       /* what node.c pre-parses; 0 off */
  apr_int64_t l2p_page_size;           /* entries */
  apr_int64_t p2l_page_size;           /* bytes */
  svn_boolean_t pack_after_commit;
  int delta_compression_level;
  svn_boolean_t fail_stop;
  svn_boolean_t verify_before_commit;

  /* Caches (caching.h); any of them may be NULL (caching disabled), in
     which case callers go straight to disk.  Keys and values are listed
     in caching.h beside each field's constructor. */
  svn_cache__t *rev_root_id_cache;     /* revnum -> root noderev id      */
  svn_cache__t *node_revision_cache;   /* (rev,item) -> noderev          */
  svn_cache__t *path_node_cache;       /* (rev,path) -> noderev (lookup.c) */
  svn_cache__t *dir_cache;             /* rep key -> sorted dirent array */
  svn_cache__t *fulltext_cache;        /* rep key -> fulltext            */
  svn_cache__t *fulltext_long_cache;   /* the same, in the large
                                          membuffer (rep_read.c)        */
  svn_cache__t *properties_cache;      /* rep key -> prop hash           */
  svn_cache__t *changes_cache;         /* revnum -> change array         */
  svn_cache__t *l2p_header_cache;      /* index header                   */
  svn_cache__t *l2p_page_cache;        /* index page                     */
  svn_cache__t *p2l_header_cache;
  svn_cache__t *p2l_page_cache;
  svn_cache__t *revprop_cache;         /* revnum -> revprop hash         */
  svn_cache__t *packed_offset_cache;   /* shard -> manifest offsets (f6) */
  svn_cache__t *revfile_image_cache;   /* revnum -> bytes of a small
                                          unpacked revision file      */

  /* Prefix that makes cache keys of this repository unique within the
     process-wide membuffer. */
  const char *cache_prefix;

  /* Fingerprint salt of this repository for the admission table
     (cache_admit.h). */
  apr_uint64_t admit_salt;

  /* Bytes of the membuffer that holds this svn_fs_t's long-term values
     (svn_fs_fs__cache_membuffer): the configured cache size, or 16 MB
     while a large one is not made yet.  What the tables and budgets
     scaled to the cache are sized by. */
  apr_uint64_t cache_bytes;

  /* Small set of open revision / pack files shared by all reads of this
     svn_fs_t (revfile.c owns it). */
  void *open_files;

  /* Descriptors of the shard directories last opened files in, one per
     kind of file (shard_dir.c owns them). */
  void *shard_dirs;

  /* The most recent large fulltext read through this svn_fs_t, kept
     outside the membuffer (rep_read.c owns it). */
  void *recent_text;

  /* Whether thrifty REP-9 proofs may expand P2L pages of pack files:
     0 not known yet, 1 yes, -1 no (rep_read.c). */
  int thrifty_index;

  /* The one open file's P2L page memo that may hold a page (index.c
     owns it). */
  void *p2l_memo;

  /* Path caches shared by the revision roots of a few revisions
     (lookup.c owns them, cache_set_t there); NULL until first needed. */
  void *root_caches;

  /* A copy of the committed directory listing last walked over through
     this svn_fs_t (node.c owns it, recent_dir_t there); NULL when the
     listing cache is off. */
  void *recent_dir;

  /* Kinds of committed node-revs read through this svn_fs_t (node.c owns
     it, kind_memo_t there); NULL when the node-rev cache is off. */
  void *kind_memo;

  /* Where the blocks of the changed-path lists last read start (node.c
     owns them, block_starts_t there); NULL until first needed. */
  void *changes_block_starts;

  /* Revprop generation, parsed manifests and open revprop files of this
     svn_fs_t (revprops.c owns it, revprop_state_t there); NULL until
     first needed. */
  void *revprop_state;

  /* Serialises writers within this process, in addition to the on-disk
     write-lock file. */
  svn_mutex__t *fs_write_lock;

  /* This svn_fs_t finished a transaction before, so it recycles
     transaction files (txn_spare.c, svn_fs_fs__txn_spare_join). */
  svn_boolean_t spare_user;

  /* Per-repository in-process locks (see svn_fs_fs__shared_t). */
  svn_fs_fs__shared_t *shared;

  /* The read-only "mutable rep of transaction X" struct that txn_store.c
     hands out (in the fs pool) for the last transaction that needed one;
     see new_mutable_rep. */
  svn_fs_fs__rep_t *txn_mutable_rep;

  /* Working memory lent to rep writers one at a time (rep_write.c);
     NULL until the first rep is written. */
  struct svn_fs_fs__rep_write_space_t *rep_write_space;

  /* Sorted listings of the mutable directories of one transaction, kept
     by node.c (txn_dir_cache_t there); NULL until first needed. */
  struct svn_fs_fs__txn_dir_cache_t *txn_dir_cache;

  /* libsvn_fs's svn_fs_open, handed to us by set_svn_fs_open. */
  svn_error_t *(*svn_fs_open_)(svn_fs_t **, const char *, apr_hash_t *,
                               apr_pool_t *, apr_pool_t *);
} svn_fs_fs__data_t;

/* The private data of FS. */
#define SVN_FS_FS__DATA(fs) ((svn_fs_fs__data_t *)(fs)->fsap_data)

/* TRUE if items of REV in FS are addressed logically (L2P lookup). */
svn_boolean_t
svn_fs_fs__use_log_addressing(svn_fs_t *fs);

/* TRUE if REV of FS lives in a pack file (uses the cached
   min_unpacked_rev; callers that need certainty refresh it first). */
svn_boolean_t
svn_fs_fs__is_packed_rev(svn_fs_t *fs, svn_revnum_t rev);

/* Check that REV exists in FS (refreshing the youngest revision if
   needed); SVN_ERR_FS_NO_SUCH_REVISION otherwise. */
svn_error_t *
svn_fs_fs__ensure_revision_exists(svn_revnum_t rev, svn_fs_t *fs,
                                  apr_pool_t *scratch_pool);

/* Parse the LEN bytes of db/current at DATA (CURRENT-1, OLD-3): the
   youngest revision and, when present (written by formats 1 and 2, kept
   by upgrades), the next node and copy ids; both 0 when absent.  FALSE if
   malformed. */
svn_boolean_t
svn_fs_fs__current_parse(svn_revnum_t *rev, apr_uint64_t *next_node_id,
                         apr_uint64_t *next_copy_id, const char *data,
                         apr_size_t len);

/* Read db/current with svn_fs_fs__current_parse. */
svn_error_t *
svn_fs_fs__read_current(svn_revnum_t *rev, apr_uint64_t *next_node_id,
                        apr_uint64_t *next_copy_id, svn_fs_t *fs,
                        apr_pool_t *scratch_pool);

/* Read db/current: the youngest revision.  Also updates the cache. */
svn_error_t *
svn_fs_fs__youngest_rev(svn_revnum_t *youngest, svn_fs_t *fs,
                        apr_pool_t *scratch_pool);

/* Re-read db/min-unpacked-rev into the private data. */
svn_error_t *
svn_fs_fs__update_min_unpacked_rev(svn_fs_t *fs, apr_pool_t *scratch_pool);

#ifdef __cplusplus
}
#endif

#endif /* FSFS7_H */
