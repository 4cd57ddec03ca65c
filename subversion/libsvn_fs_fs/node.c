/* node.c --- node-revisions, directories, node properties and changed-path
 * lists of committed revisions (node.h; storage layer, read side).
 *
 * Finds items through index.h, reads them through revfile.h / rep_read.h,
 * decodes them with the codecs (noderev_codec.h, dirent_codec.h,
 * changes_codec.h, hashdump.h) and keeps the results in the nodes layer's
 * caches (node_cache.h).  Formats: doc/format/noderev.md, directories.md,
 * changes.md.
 */
#include <stdlib.h>
#include <string.h>
#include <apr_strings.h>

#include "svn_dirent_uri.h"
#include "svn_hash.h"
#include "svn_io.h"
#include "svn_pools.h"
#include "svn_cache_config.h"

#include "cache_admit.h"
#include "caching.h"
#include "changes_codec.h"
#include "corrupt.h"
#include "dirent_codec.h"
#include "hashdump.h"
#include "heapbuf.h"
#include "id.h"
#include "index.h"
#include "node.h"
#include "node_cache.h"
#include "noderev_codec.h"
#include "paths.h"
#include "rep_read.h"
#include "revfile.h"
#include "txn_store.h"

/* First read size for a node-rev; nearly all records are shorter. */
#define NODEREV_FIRST_READ 1024
/* Node-revs longer than this are corrupt (paths are the only long part). */
#define NODEREV_MAX_LEN (16 * 1024 * 1024)
/* Read sizes for changed-path lists: most lists are small, so start with
   a small window and double it on each refill up to the maximum. */
#define CHANGES_FIRST_READ 4096
#define CHANGES_CHUNK (64 * 1024)
/* Entries per cached block of a changed-path list. */
#define CHANGES_BLOCK 256

/* Item kinds block-read pre-parses (ffd->block_read_kinds; chosen by
   FSFS7_BLOCK_READ, a benchmark switch like FSFS7_PACK_ORDER: "none", or
   a comma list of "noderev" (every node-rev of the block), "samerev"
   (those of the revision of the node-rev asked for), "changes").  The
   default is none.  Pre-parsing node-revs cost more CPU than it saved
   on the full maven (hot null-export 2.0 -> 4.7 s user, dump 3.9 ->
   7.1 s; "samerev" 2.5 s and 4.9 s): a block of a pack holds ~200
   node-revs, an export needs a few of them, and a dump needs them all
   but revisions apart, long after a 16 MB membuffer dropped them
   (doc/benchmarks.md, "Pack", "Block-read").  Changed-path lists
   were pre-parsed until values read once stopped going into the caches
   (cache_admit.h): a log reads each list once, so storing its
   neighbours only filled the membuffer ('svnbench null-log -v' of
   packed full maven: 22 MB stored, 28.3 MB peak RSS; without, 23.4 MB
   and a little less CPU, with the revfile blocks serving the
   neighbours' bytes anyway). */
#define PREFILL_NODEREV 1
#define PREFILL_SAMEREV 2
#define PREFILL_NODEREVS (PREFILL_NODEREV | PREFILL_SAMEREV)
#define PREFILL_CHANGES 4
#define PREFILL_DEFAULT 0

/* ------------------------------------------------------------------ */
/* Transaction node-revs (doc/format/noderev.md, directories.md)        */

/* Path of the file of transaction node-rev ID with SUFFIX ("",
   ".children", ".props"): transactions/<txn>.txn/node.<node>.<copy>. */
static const char *
txn_node_path(svn_fs_t *fs, const svn_fs_fs__id_t *id, const char *suffix,
              apr_pool_t *pool)
{
  char txn[SVN_FS_FS__ID_PART_MAX], node[SVN_FS_FS__ID_PART_MAX];
  char copy[SVN_FS_FS__ID_PART_MAX];

  svn_fs_fs__id_txn_unparse(txn, &id->txn_id);
  svn_fs_fs__id_part_unparse(node, &id->node_id);
  svn_fs_fs__id_part_unparse(copy, &id->copy_id);
  return svn_dirent_join_many(pool, svn_fs_fs__path_db(fs, "transactions",
                                                       pool),
                              apr_pstrcat(pool, txn, ".txn", SVN_VA_NULL),
                              apr_pstrcat(pool, "node.", node, ".", copy,
                                          suffix, SVN_VA_NULL),
                              SVN_VA_NULL);
}

/* Contents of the side file SUFFIX of transaction node-rev ID. */
static svn_error_t *
read_txn_file(svn_stringbuf_t **contents, const char **path, svn_fs_t *fs,
              const svn_fs_fs__id_t *id, const char *suffix,
              apr_pool_t *pool)
{
  *path = txn_node_path(fs, id, suffix, pool);
  /* txn_store's reader: no fstat per read (perf). */
  SVN_ERR(svn_fs_fs__txn_file_read(contents, *path, pool));
  if (!*contents)
    return svn_error_createf(SVN_ERR_FS_ID_NOT_FOUND, NULL,
                             "Reference to non-existent node '%s' in "
                             "filesystem '%s'",
                             svn_fs_fs__id_unparse(id, pool)->data,
                             fs->path);
  return SVN_NO_ERROR;
}

/* The node-rev of transaction ID, read from its file. */
static svn_error_t *
read_txn_noderev(svn_fs_fs__noderev_t **noderev, svn_fs_t *fs,
                 const svn_fs_fs__id_t *id, apr_pool_t *result_pool,
                 apr_pool_t *scratch_pool)
{
  svn_stringbuf_t *text;
  const char *path;

  SVN_ERR(read_txn_file(&text, &path, fs, id, "", scratch_pool));
  SVN_ERR(svn_fs_fs__noderev_parse(noderev, text->data, text->len, path,
                                   result_pool, scratch_pool));
  if (!svn_fs_fs__id_eq((*noderev)->id, id))
    return svn_fs_fs__corrupt("NODEREV-2", path,
                              "Node-rev file holds ID '%s'",
                              svn_fs_fs__id_unparse((*noderev)->id,
                                                    scratch_pool)->data);
  return SVN_NO_ERROR;
}

/* ------------------------------------------------------------------ */
/* Node-revisions                                                       */

/* Read the record starting at OFFSET of FILE into *TEXT / *LEN. */
static svn_error_t *
read_record(const char **text, apr_size_t *len, svn_fs_fs__revfile_t *file,
            apr_off_t offset, const char *where, apr_pool_t *pool)
{
  apr_size_t want = NODEREV_FIRST_READ;

  for (;;)
    {
      const char *data;
      apr_size_t got, rec_len;

      SVN_ERR(svn_fs_fs__revfile_read_some(&data, &got, file, offset, want,
                                           pool));
      rec_len = svn_fs_fs__noderev_record_len(data, got);
      if (rec_len)
        {
          *text = data;
          *len = rec_len;
          return SVN_NO_ERROR;
        }
      if (got < want || want >= NODEREV_MAX_LEN)
        return svn_fs_fs__corrupt("NODEREV-1", where,
                                  "Node-rev record is not terminated");
      want *= 4;
    }
}

/* ERR (may be NULL) from reading the node-rev ID.  A damage report
   gets a parent error that names the node-rev: svnadmin verify prints
   both lines, as with stock, and upstream's tests count them. */
static svn_error_t *
name_damaged_noderev(svn_error_t *err, const svn_fs_fs__id_t *id,
                     apr_pool_t *pool)
{
  const char *name;

  if (err == NULL || err->apr_err != SVN_ERR_FS_CORRUPT)
    return err;
  name = svn_fs_fs__id_unparse(id, pool)->data;
  return svn_error_createf(err->apr_err, err,
                           "Corrupt node-revision '%s'", name);
}

/* Node-revs parsed by read_noderev and by block-read (statistics for
   tests; not in node.h). */
apr_uint64_t svn_fs_fs__noderevs_read = 0;
apr_uint64_t svn_fs_fs__block_read_items = 0;
apr_uint64_t svn_fs_fs__block_read_lookups = 0;

/* Fetch the node-rev at (REV, ITEM) from disk. */
static svn_error_t *
read_noderev(svn_fs_fs__noderev_t **noderev, svn_fs_t *fs,
             const svn_fs_fs__id_t *id, apr_pool_t *result_pool,
             apr_pool_t *scratch_pool)
{
  svn_fs_fs__data_t *ffd = SVN_FS_FS__DATA(fs);
  svn_revnum_t rev = id->rev_item.revision;
  svn_fs_fs__revfile_t *file;
  apr_off_t offset;
  const char *text = NULL, *where;
  apr_size_t len = 0;
  svn_error_t *err;

  SVN_ERR(svn_fs_fs__revfile_open(&file, fs, rev, scratch_pool,
                                  scratch_pool));
  file->block_hook = (ffd->block_read_kinds & PREFILL_NODEREVS) != 0;
  SVN_ERR(svn_fs_fs__item_offset(&offset, fs, file, rev,
                                 id->rev_item.number, scratch_pool));
  where = apr_psprintf(scratch_pool, "node-rev %s",
                       svn_fs_fs__id_unparse(id, scratch_pool)->data);
  err = read_record(&text, &len, file, offset, where, scratch_pool);
  svn_fs_fs__noderevs_read++;
  if (!err)
    err = svn_fs_fs__noderev_parse(noderev, text, len, where, result_pool,
                                   scratch_pool);
  SVN_ERR(name_damaged_noderev(err, id, scratch_pool));
  SVN_ERR(svn_fs_fs__revfile_close(file));

  /* NODEREV-2: the record must be the one the ID points at; anything else
     means the index or the ID is broken. */
  if (!svn_fs_fs__id_eq((*noderev)->id, id))
    return svn_fs_fs__corrupt("NODEREV-2", where,
                              "Node-rev at this location has ID '%s'",
                              svn_fs_fs__id_unparse((*noderev)->id,
                                                    scratch_pool)->data);
  return SVN_NO_ERROR;
}

/* Kinds of node-revs.  svn_repos verify asks the kind of every entry of
   every changed directory (1.1 million questions on the full maven), of
   the same few thousand node-revs again and again as the same
   directories change.  Each answer from the membuffer is a lookup in
   its directory, which with -M 1024 is a cache miss of the CPU or two.
   A direct-mapped table of one word per node-rev read, (revision, item,
   kind), answers them from a few hundred kB instead.  Committed node-revs
   never change, and only kinds of node-revs read without error are
   kept, so an answer from here is the answer a read would give. */

/* Table slots: at most one per KIND_MEMO_SHARE bytes of the membuffer
   of the long-term values (ffd->cache_bytes), a power of two between
   KIND_MEMO_MIN and KIND_MEMO_MAX (8 bytes each: up to 64 kB with the
   default 16 MB cache, 512 kB with -M 1024).  The table starts at
   KIND_MEMO_MIN slots and doubles when half of them are taken: the
   slots are hashed, so a read that notes a few thousand kinds would
   otherwise touch every page of the largest table (128 page faults, a
   few ms, for each repository a server opens). */
#define KIND_MEMO_SHARE 2048
#define KIND_MEMO_MIN 4096
#define KIND_MEMO_MAX 65536

typedef struct kind_memo_t
{
  apr_uint64_t *slots;           /* (rev << 33 | item << 2 | kind), 0;
                                    NULL until the first note          */
  apr_size_t mask;
  apr_size_t used;               /* slots that are not 0               */
  apr_size_t max_slots;          /* the most it may grow to            */
  apr_pool_t *pool;              /* whose cleanup unmaps SLOTS         */
} kind_memo_t;

/* Counter for tests: slots of the largest kind memo mapped so far. */
apr_size_t svn_fs_fs__kind_memo_slots = 0;

/* Counter for tests: kinds answered from the memo (added to atomically:
   a threaded server's requests share it). */
apr_uint64_t svn_fs_fs__kind_memo_hits = 0;

/* The word for (REV, ITEM) in *WORD and its slot in MEMO; NULL if the
   pair does not fit a word (then it is not kept). */
static apr_uint64_t *
kind_slot(apr_uint64_t *word, kind_memo_t *memo, svn_revnum_t rev,
          apr_uint64_t item)
{
  apr_uint64_t h;

  if (!memo || !memo->slots || rev < 0 || rev >= (APR_INT64_C(1) << 31)
      || item >= (APR_UINT64_C(1) << 31))
    return NULL;
  *word = ((apr_uint64_t)rev << 33) | (item << 2);
  h = ((apr_uint64_t)rev * APR_UINT64_C(0x9E3779B97F4A7C15))
      ^ (item * APR_UINT64_C(0xC2B2AE3D27D4EB4F));
  return &memo->slots[(h ^ (h >> 32)) & memo->mask];
}

/* The slot of the kept word WORD in MEMO (the pair it was made from). */
static apr_uint64_t *
kind_slot_of_word(kind_memo_t *memo, apr_uint64_t word)
{
  apr_uint64_t ignored;

  return kind_slot(&ignored, memo, (svn_revnum_t)(word >> 33),
                   (word >> 2) & ((APR_UINT64_C(1) << 31) - 1));
}

/* apr cleanup: unmap the slots of the kind_memo_t BATON. */
static apr_status_t
kind_memo_unmap(void *baton)
{
  kind_memo_t *memo = baton;

  svn_fs_fs__pages_free(memo->slots, (memo->mask + 1) * sizeof(*memo->slots));
  memo->slots = NULL;
  return APR_SUCCESS;
}

/* Give MEMO its first KIND_MEMO_MIN slots.  Mapped, not allocated:
   only the slots written take memory, and an open that reads no
   node-rev (svnlook youngest, a hook's first question) touches none.
   Zeroed from a pool at open, the table cost every open 16 page faults
   with the default cache and 128 with -M 1024, 1-2 ms of CPU. */
static void
kind_memo_map(kind_memo_t *memo)
{
  memo->slots = svn_fs_fs__pages_alloc(KIND_MEMO_MIN * sizeof(*memo->slots));
  memo->mask = KIND_MEMO_MIN - 1;
  memo->used = 0;
  if (svn_fs_fs__kind_memo_slots < KIND_MEMO_MIN)
    svn_fs_fs__kind_memo_slots = KIND_MEMO_MIN;
  apr_pool_cleanup_register(memo->pool, memo, kind_memo_unmap,
                            apr_pool_cleanup_null);
}

/* Move MEMO's words to a table of twice as many slots. */
static void
kind_memo_grow(kind_memo_t *memo)
{
  apr_size_t old_count = memo->mask + 1;
  apr_uint64_t *old = memo->slots;
  apr_uint64_t *fresh = svn_fs_fs__pages_alloc(2 * old_count
                                               * sizeof(*old));
  apr_size_t i;

  memo->slots = fresh;
  memo->mask = 2 * old_count - 1;
  memo->used = 0;
  for (i = 0; i < old_count; i++)
    if (old[i])
      {
        apr_uint64_t *slot = kind_slot_of_word(memo, old[i]);

        memo->used += (*slot == 0);
        *slot = old[i];
      }
  svn_fs_fs__pages_free(old, old_count * sizeof(*old));
  if (svn_fs_fs__kind_memo_slots < memo->mask + 1)
    svn_fs_fs__kind_memo_slots = memo->mask + 1;
}

/* Remember that committed node-rev ID has KIND. */
static void
kind_memo_note(svn_fs_t *fs, const svn_fs_fs__id_t *id, svn_node_kind_t kind)
{
  kind_memo_t *memo = SVN_FS_FS__DATA(fs)->kind_memo;
  apr_uint64_t word;
  apr_uint64_t *slot;

  if (memo && !memo->slots)
    kind_memo_map(memo);
  slot = kind_slot(&word, memo, id->rev_item.revision, id->rev_item.number);
  if (!slot || (kind != svn_node_file && kind != svn_node_dir))
    return;
  if (*slot == 0)
    memo->used++;
  *slot = word | (apr_uint64_t)kind;
  if (memo->used * 2 > memo->mask + 1 && memo->mask + 1 < memo->max_slots)
    kind_memo_grow(memo);
}

/* The remembered kind of committed node-rev ID in *KIND; FALSE if none. */
static svn_boolean_t
kind_memo_get(svn_node_kind_t *kind, svn_fs_t *fs, const svn_fs_fs__id_t *id)
{
  apr_uint64_t word;
  apr_uint64_t *slot = kind_slot(&word, SVN_FS_FS__DATA(fs)->kind_memo,
                                 id->rev_item.revision,
                                 id->rev_item.number);

  /* An empty slot (0) has no kind: it never matches, not even the word
     of (r0, item 0). */
  if (!slot || (*slot & 3) == 0 || (*slot & ~(apr_uint64_t)3) != word)
    return FALSE;
  *kind = (svn_node_kind_t)(*slot & 3);
  __atomic_fetch_add(&svn_fs_fs__kind_memo_hits, 1, __ATOMIC_RELAXED);
  return TRUE;
}

/* An empty kind memo in POOL for a membuffer of CACHE_BYTES; its slots
   come with the first note. */
static kind_memo_t *
kind_memo_create(apr_uint64_t cache_bytes, apr_pool_t *pool)
{
  kind_memo_t *memo = apr_pcalloc(pool, sizeof(*memo));
  apr_uint64_t want = cache_bytes / KIND_MEMO_SHARE;

  memo->max_slots = KIND_MEMO_MIN;
  while (memo->max_slots < KIND_MEMO_MAX && memo->max_slots * 2 <= want)
    memo->max_slots *= 2;
  memo->pool = pool;
  return memo;
}

/* Read the node-rev ID of FS from disk into *NODEREV; cache a committed
   one at once with AT_ONCE, else only on its second read from disk
   (cache_admit.h). */
static svn_error_t *
read_and_cache(svn_fs_fs__noderev_t **noderev, svn_fs_t *fs,
               const svn_fs_fs__id_t *id, svn_boolean_t at_once,
               apr_pool_t *result_pool, apr_pool_t *scratch_pool)
{
  svn_fs_fs__data_t *ffd = SVN_FS_FS__DATA(fs);
  svn_fs_fs__pair_cache_key_t key;

  if (svn_fs_fs__id_is_txn(id))
    return svn_error_trace(read_txn_noderev(noderev, fs, id, result_pool,
                                            scratch_pool));
  key = svn_fs_fs__pair_cache_key(id->rev_item.revision,
                                  (apr_int64_t)id->rev_item.number);
  SVN_ERR(svn_fs_fs__ensure_revision_exists(key.revision, fs, scratch_pool));
  SVN_ERR(read_noderev(noderev, fs, id, result_pool, scratch_pool));
  if (ffd->node_revision_cache)
    SVN_ERR(svn_fs_fs__admit_store(ffd->node_revision_cache, ffd->admit_salt,
                                   svn_fs_fs__admit_noderev, &key,
                                   sizeof(key), at_once, *noderev,
                                   scratch_pool));
  kind_memo_note(fs, id, (*noderev)->kind);
  return SVN_NO_ERROR;
}

svn_error_t *
svn_fs_fs__get_noderev(svn_fs_fs__noderev_t **noderev, svn_fs_t *fs,
                       const svn_fs_fs__id_t *id, apr_pool_t *result_pool,
                       apr_pool_t *scratch_pool)
{
  svn_fs_fs__data_t *ffd = SVN_FS_FS__DATA(fs);
  svn_fs_fs__pair_cache_key_t key;
  svn_boolean_t found;

  /* Transaction node-revs are never cached: the fresh read handles them.
     Node-revs this process never stored are not asked for
     (cache_admit.h): a dump asked 404,785 times and found 587. */
  if (!svn_fs_fs__id_is_txn(id) && ffd->node_revision_cache)
    {
      key = svn_fs_fs__pair_cache_key(id->rev_item.revision,
                                      (apr_int64_t)id->rev_item.number);
      SVN_ERR(svn_fs_fs__admit_get((void **)noderev, &found,
                                   ffd->node_revision_cache, ffd->admit_salt,
                                   svn_fs_fs__admit_noderev, &key,
                                   sizeof(key), result_pool));
      if (found)
        {
          kind_memo_note(fs, id, (*noderev)->kind);
          return SVN_NO_ERROR;
        }
    }

  return svn_error_trace(read_and_cache(noderev, fs, id, FALSE,
                                        result_pool, scratch_pool));
}

svn_error_t *
svn_fs_fs__get_noderev_fresh(svn_fs_fs__noderev_t **noderev, svn_fs_t *fs,
                             const svn_fs_fs__id_t *id,
                             apr_pool_t *result_pool,
                             apr_pool_t *scratch_pool)
{
  return svn_error_trace(read_and_cache(noderev, fs, id, TRUE,
                                        result_pool, scratch_pool));
}

svn_error_t *
svn_fs_fs__get_noderev_kind(svn_node_kind_t *kind, svn_fs_t *fs,
                            const svn_fs_fs__id_t *id,
                            apr_pool_t *scratch_pool)
{
  svn_fs_fs__data_t *ffd = SVN_FS_FS__DATA(fs);
  svn_cache__t *cache = ffd->node_revision_cache;
  svn_fs_fs__noderev_t *noderev;

  if (svn_fs_fs__id_is_txn(id))
    cache = NULL;
  else if (kind_memo_get(kind, fs, id))
    return SVN_NO_ERROR;
  if (cache)
    {
      svn_fs_fs__pair_cache_key_t key;
      svn_boolean_t found;
      void *out;

      key = svn_fs_fs__pair_cache_key(id->rev_item.revision,
                                      (apr_int64_t)id->rev_item.number);
      SVN_ERR(svn_fs_fs__admit_get_partial(&out, &found, cache,
                                           ffd->admit_salt,
                                           svn_fs_fs__admit_noderev, &key,
                                           sizeof(key),
                                           svn_fs_fs__noderev_get_kind, kind,
                                           scratch_pool));
      if (found)
        {
          kind_memo_note(fs, id, *kind);
          return SVN_NO_ERROR;
        }
    }
  /* The cache was asked just now (or has nothing for this id). */
  SVN_ERR(read_and_cache(&noderev, fs, id, FALSE, scratch_pool,
                         scratch_pool));
  *kind = noderev->kind;
  return SVN_NO_ERROR;
}

svn_error_t *
svn_fs_fs__rev_root_id(const svn_fs_fs__id_t **root_id, svn_fs_t *fs,
                       svn_revnum_t rev, apr_pool_t *result_pool,
                       apr_pool_t *scratch_pool)
{
  svn_fs_fs__data_t *ffd = SVN_FS_FS__DATA(fs);
  svn_fs_fs__id_part_t zero = { 0, 0 };
  svn_fs_fs__revfile_t *file;
  apr_off_t root_offset, changes_offset, start, end;
  svn_boolean_t found;

  /* The root directory always has node-id and copy-id 0 (ID-6); with
     logical addressing it is item 2 of its revision (ADDR-2), so no I/O
     is needed.  Physical addressing names it by the trailer's offset. */
  if (svn_fs_fs__use_log_addressing(fs))
    {
      SVN_ERR(svn_fs_fs__ensure_revision_exists(rev, fs, scratch_pool));
      *root_id = svn_fs_fs__id_create_rev(&zero, &zero, rev,
                                          SVN_FS_FS__ITEM_INDEX_ROOT_NODE,
                                          result_pool);
      return SVN_NO_ERROR;
    }

  if (ffd->rev_root_id_cache)
    {
      SVN_ERR(svn_cache__get((void **)root_id, &found, ffd->rev_root_id_cache,
                             &rev, result_pool));
      if (found)
        return SVN_NO_ERROR;
    }
  SVN_ERR(svn_fs_fs__ensure_revision_exists(rev, fs, scratch_pool));

  SVN_ERR(svn_fs_fs__revfile_open(&file, fs, rev, scratch_pool,
                                  scratch_pool));
  SVN_ERR(svn_fs_fs__rev_trailer(&root_offset, &changes_offset, NULL, fs,
                                 file, rev, scratch_pool));
  SVN_ERR(svn_fs_fs__rev_bounds(&start, &end, fs, file, rev, scratch_pool));
  SVN_ERR(svn_fs_fs__revfile_close(file));
  *root_id = svn_fs_fs__id_create_rev(&zero, &zero, rev,
                                      (apr_uint64_t)(root_offset - start),
                                      result_pool);
  if (ffd->rev_root_id_cache)
    SVN_ERR(svn_cache__set(ffd->rev_root_id_cache, &rev, (void *)*root_id,
                           scratch_pool));
  return SVN_NO_ERROR;
}

/* ------------------------------------------------------------------ */
/* Directories                                                          */

/* Mutable directory listings.  A transaction's ".children" file is the
   base listing plus one appended record per change (DIRENT-5), so parsing
   it again for every lookup made adding N entries to one directory cost
   O(N^2).  The sorted result is kept here per svn_fs_t, for one
   transaction at a time, and changes this process appends are applied to
   it in place.  Another process (or the stock module) may append to the
   same transaction at any time, so every use first compares the file's
   size, mtime and inode with those seen when the listing was last in step
   with it, and reloads on any difference: appends always grow the file. */

/* Cached dirents above this many (loaded plus changed since the last
   reset) empty the cache: bounds its memory to a few MB. */
#define TXN_DIR_CACHE_MAX 100000

/* One mutable directory's listing. */
typedef struct txn_dir_t
{
  apr_array_header_t *entries;   /* svn_fs_dirent_t *, sorted by name */
  apr_off_t size;                /* the file as it was when in step */
  apr_time_t mtime;
  apr_ino_t inode;
} txn_dir_t;

struct svn_fs_fs__txn_dir_cache_t
{
  apr_pool_t *pool;              /* everything below; cleared on reset */
  svn_fs_fs__txn_id_t txn_id;    /* the transaction cached, if any */
  svn_boolean_t has_txn;
  apr_hash_t *dirs;              /* children file path -> txn_dir_t * */
  apr_size_t used;               /* dirents allocated in POOL */
};
typedef struct svn_fs_fs__txn_dir_cache_t txn_dir_cache_t;

/* FS's cache, emptied and set to transaction TXN_ID if it held another
   one or would grow past TXN_DIR_CACHE_MAX with EXTRA more dirents. */
static txn_dir_cache_t *
txn_dir_cache(svn_fs_t *fs, const svn_fs_fs__txn_id_t *txn_id,
              apr_size_t extra)
{
  svn_fs_fs__data_t *ffd = SVN_FS_FS__DATA(fs);
  txn_dir_cache_t *c = ffd->txn_dir_cache;

  if (!c)
    {
      c = apr_pcalloc(fs->pool, sizeof(*c));
      c->pool = svn_pool_create(fs->pool);
      c->dirs = apr_hash_make(c->pool);
      ffd->txn_dir_cache = c;
    }
  if (!c->has_txn || c->txn_id.revision != txn_id->revision
      || c->txn_id.number != txn_id->number
      || c->used + extra > TXN_DIR_CACHE_MAX)
    {
      svn_pool_clear(c->pool);
      c->dirs = apr_hash_make(c->pool);
      c->used = 0;
      c->txn_id = *txn_id;
      c->has_txn = TRUE;
    }
  return c;
}

/* The cached listing of the children file PATH of transaction TXN_ID, or
   NULL. */
static txn_dir_t *
txn_dir_get(svn_fs_t *fs, const svn_fs_fs__txn_id_t *txn_id,
            const char *path)
{
  txn_dir_cache_t *c = SVN_FS_FS__DATA(fs)->txn_dir_cache;

  if (!c || !c->has_txn || c->txn_id.revision != txn_id->revision
      || c->txn_id.number != txn_id->number)
    return NULL;
  return svn_hash_gets(c->dirs, path);
}

/* Stat PATH into *FINFO; *FOUND is FALSE if it does not exist. */
static svn_error_t *
stat_children(apr_finfo_t *finfo, svn_boolean_t *found, const char *path,
              apr_pool_t *pool)
{
  apr_status_t status = apr_stat(finfo, path,
                                 APR_FINFO_SIZE | APR_FINFO_MTIME
                                 | APR_FINFO_INODE, pool);

  *found = (status == APR_SUCCESS || status == APR_INCOMPLETE);
  if (*found || APR_STATUS_IS_ENOENT(status)
      || APR_STATUS_IS_ENOTDIR(status))
    return SVN_NO_ERROR;
  return svn_error_wrap_apr(status, "Can't stat '%s'",
                            svn_dirent_local_style(path, pool));
}

/* TRUE if DIR was last in step with a file that FINFO still describes. */
static svn_boolean_t
txn_dir_fresh(const txn_dir_t *dir, const apr_finfo_t *finfo)
{
  return dir->size == finfo->size && dir->mtime == finfo->mtime
         && dir->inode == finfo->inode;
}

/* A copy of D in POOL that shares nothing with D. */
static svn_fs_dirent_t *
dirent_dup(const svn_fs_dirent_t *d, apr_pool_t *pool)
{
  svn_fs_dirent_t *copy = apr_palloc(pool, sizeof(*copy));

  copy->name = apr_pstrdup(pool, d->name);
  copy->kind = d->kind;
  copy->id = SVN_FS_FS__PUBLIC_ID(svn_fs_fs__id_copy(SVN_FS_FS__ID(d->id),
                                                     pool));
  return copy;
}

/* The sorted listing of transaction directory NODEREV (DIRENT-5), valid
   until the next call into this cache: callers copy what they keep.
   From the cache when the children file is unchanged, else parsed from
   the file (and cached, unless it is too big). */
static svn_error_t *
txn_dir_listing(const apr_array_header_t **entries, svn_fs_t *fs,
                const svn_fs_fs__noderev_t *noderev,
                apr_pool_t *scratch_pool)
{
  const svn_fs_fs__txn_id_t *txn_id = &noderev->id->txn_id;
  const char *path = txn_node_path(fs, noderev->id, ".children",
                                   scratch_pool);
  txn_dir_t *dir = txn_dir_get(fs, txn_id, path);
  txn_dir_cache_t *c;
  apr_array_header_t *parsed;
  svn_stringbuf_t *text;
  apr_finfo_t finfo;
  svn_boolean_t found;
  int i;

  /* Stat before reading: a change made after the stat but before the
     read makes the next stat differ, so the listing is reloaded then. */
  SVN_ERR(stat_children(&finfo, &found, path, scratch_pool));
  if (found && dir && txn_dir_fresh(dir, &finfo))
    {
      *entries = dir->entries;
      return SVN_NO_ERROR;
    }

  SVN_ERR(read_txn_file(&text, &path, fs, noderev->id, ".children",
                        scratch_pool));
  SVN_ERR(svn_fs_fs__dirents_parse(&parsed, text->data, text->len, TRUE,
                                   path, scratch_pool, scratch_pool));
  *entries = parsed;
  if (!found || text->len != (apr_size_t)finfo.size
      || parsed->nelts > TXN_DIR_CACHE_MAX / 2)
    {
      /* Changed while read, or too big to keep: use it this once. */
      if (dir)
        svn_fs_fs__txn_dir_forget(fs, noderev->id, scratch_pool);
      return SVN_NO_ERROR;
    }

  c = txn_dir_cache(fs, txn_id, parsed->nelts);
  dir = apr_palloc(c->pool, sizeof(*dir));
  dir->entries = apr_array_make(c->pool, parsed->nelts + 16,
                                sizeof(svn_fs_dirent_t *));
  for (i = 0; i < parsed->nelts; i++)
    APR_ARRAY_PUSH(dir->entries, svn_fs_dirent_t *)
      = dirent_dup(APR_ARRAY_IDX(parsed, i, svn_fs_dirent_t *), c->pool);
  c->used += parsed->nelts;
  dir->size = finfo.size;
  dir->mtime = finfo.mtime;
  dir->inode = finfo.inode;
  svn_hash_sets(c->dirs, apr_pstrdup(c->pool, path), dir);
  *entries = dir->entries;
  return SVN_NO_ERROR;
}

/* Index of the first entry of sorted ENTRIES not before NAME; *FOUND says
   whether it is NAME. */
static int
dirent_lower_bound(svn_boolean_t *found, const apr_array_header_t *entries,
                   const char *name)
{
  int lo = 0, hi = entries->nelts;

  while (lo < hi)
    {
      int mid = lo + (hi - lo) / 2;
      if (strcmp(APR_ARRAY_IDX(entries, mid, svn_fs_dirent_t *)->name,
                 name) < 0)
        lo = mid + 1;
      else
        hi = mid;
    }
  *found = lo < entries->nelts
           && strcmp(APR_ARRAY_IDX(entries, lo, svn_fs_dirent_t *)->name,
                     name) == 0;
  return lo;
}

/* Set NAME to KIND / ID in DIR (remove it if ID is NULL), memory in C. */
static void
txn_dir_apply(txn_dir_t *dir, txn_dir_cache_t *c, const char *name,
              svn_node_kind_t kind, const svn_fs_fs__id_t *id)
{
  apr_array_header_t *list = dir->entries;
  svn_boolean_t found;
  int idx = dirent_lower_bound(&found, list, name);
  svn_fs_dirent_t *d;

  if (!id)
    {
      if (found)
        {
          memmove(list->elts + idx * list->elt_size,
                  list->elts + (idx + 1) * list->elt_size,
                  (list->nelts - idx - 1) * list->elt_size);
          list->nelts--;
        }
      return;
    }

  d = apr_palloc(c->pool, sizeof(*d));
  d->name = apr_pstrdup(c->pool, name);
  d->kind = kind;
  d->id = SVN_FS_FS__PUBLIC_ID(svn_fs_fs__id_copy(id, c->pool));
  c->used++;
  if (found)
    {
      APR_ARRAY_IDX(list, idx, svn_fs_dirent_t *) = d;
      return;
    }
  /* Grow by one (apr doubles the allocation), then open a gap at IDX. */
  APR_ARRAY_PUSH(list, svn_fs_dirent_t *) = d;
  memmove(list->elts + (idx + 1) * list->elt_size,
          list->elts + idx * list->elt_size,
          (list->nelts - 1 - idx) * list->elt_size);
  APR_ARRAY_IDX(list, idx, svn_fs_dirent_t *) = d;
}

svn_error_t *
svn_fs_fs__txn_dir_changed(svn_fs_t *fs, const svn_fs_fs__id_t *dir_id,
                           const char *name, svn_node_kind_t kind,
                           const svn_fs_fs__id_t *id, apr_size_t appended,
                           apr_pool_t *scratch_pool)
{
  const char *path = txn_node_path(fs, dir_id, ".children", scratch_pool);
  txn_dir_t *dir = txn_dir_get(fs, &dir_id->txn_id, path);
  txn_dir_cache_t *c = SVN_FS_FS__DATA(fs)->txn_dir_cache;
  apr_finfo_t finfo;
  svn_boolean_t found;

  if (!dir)
    return SVN_NO_ERROR;
  /* Only if the file is exactly what we had plus our record: anything
     appended by someone else makes it longer. */
  SVN_ERR(stat_children(&finfo, &found, path, scratch_pool));
  if (!found || finfo.inode != dir->inode
      || finfo.size != dir->size + (apr_off_t)appended
      || c->used + 1 > TXN_DIR_CACHE_MAX)
    {
      svn_hash_sets(c->dirs, path, NULL);
      return SVN_NO_ERROR;
    }
  txn_dir_apply(dir, c, name, kind, id);
  dir->size = finfo.size;
  dir->mtime = finfo.mtime;
  return SVN_NO_ERROR;
}

void
svn_fs_fs__txn_dir_forget(svn_fs_t *fs, const svn_fs_fs__id_t *dir_id,
                          apr_pool_t *scratch_pool)
{
  const char *path = txn_node_path(fs, dir_id, ".children", scratch_pool);

  if (txn_dir_get(fs, &dir_id->txn_id, path))
    svn_hash_sets(SVN_FS_FS__DATA(fs)->txn_dir_cache->dirs, path, NULL);
}

void
svn_fs_fs__txn_dir_forget_txn(svn_fs_t *fs,
                              const svn_fs_fs__txn_id_t *txn_id)
{
  txn_dir_cache_t *c = SVN_FS_FS__DATA(fs)->txn_dir_cache;

  if (c && c->has_txn && c->txn_id.revision == txn_id->revision
      && c->txn_id.number == txn_id->number)
    {
      svn_pool_clear(c->pool);
      c->dirs = apr_hash_make(c->pool);
      c->used = 0;
      c->has_txn = FALSE;
    }
}

/* Entries of transaction directory NODEREV, all in RESULT_POOL. */
static svn_error_t *
txn_dir_entries(apr_array_header_t **entries, svn_fs_t *fs,
                const svn_fs_fs__noderev_t *noderev,
                apr_pool_t *result_pool, apr_pool_t *scratch_pool)
{
  const apr_array_header_t *listing;
  int i;

  SVN_ERR(txn_dir_listing(&listing, fs, noderev, scratch_pool));
  *entries = apr_array_make(result_pool, listing->nelts,
                            sizeof(svn_fs_dirent_t *));
  for (i = 0; i < listing->nelts; i++)
    APR_ARRAY_PUSH(*entries, svn_fs_dirent_t *)
      = dirent_dup(APR_ARRAY_IDX(listing, i, svn_fs_dirent_t *),
                   result_pool);
  return SVN_NO_ERROR;
}

/* The recent listings.  A walk over a directory's entries (svn_repos
   verify asks the kind of each entry of each changed directory, right
   after listing it) looks a name up in the same listing many times in a
   row; a dump's replay (svn_fs_props_changed on each changed entry)
   alternates between the changed parent's listing in r and in r-1.
   Each such lookup in the membuffer takes its lock, finds the entry in
   its directory and binary-searches the stored listing: with a large
   membuffer (-M 1024) mostly cache misses of the CPU.  So the last two
   listings listed, or asked for again within two lookups, are kept here
   in their flat form (node_cache.h) and searched in place. */

/* Listings larger than this share of the configured membuffer are not
   copied: 64 kB with the default cache, 4 MB with -M 1024. */
#define RECENT_DIR_SHARE 256

/* Listings kept (each in a slot of its own). */
#define RECENT_DIRS 2

typedef struct recent_slot_t
{
  apr_pool_t *pool;                   /* holds DATA; made on first copy */
  char *data;                         /* the listing of KEY if LEN > 0 */
  apr_size_t len, capacity;
  svn_fs_fs__pair_cache_key_t key;
  apr_uint64_t used;                  /* recent_dir_t's CLOCK when last
                                         kept or found */
} recent_slot_t;

typedef struct recent_dir_t
{
  apr_pool_t *parent;                 /* the svn_fs_t's */
  apr_size_t max;
  apr_uint64_t clock;
  recent_slot_t slots[RECENT_DIRS];
  /* dir_entry's previous two listings, the latest first (revision -1:
     none yet). */
  svn_fs_fs__pair_cache_key_t asked[RECENT_DIRS];
} recent_dir_t;

/* Counter for tests: lookups answered from the recent listings (added
   to atomically, as svn_fs_fs__kind_memo_hits). */
apr_uint64_t svn_fs_fs__recent_dir_hits = 0;

static svn_boolean_t
key_eq(const svn_fs_fs__pair_cache_key_t *a,
       const svn_fs_fs__pair_cache_key_t *b)
{
  return a->revision == b->revision && a->second == b->second;
}

/* FS's recent slot holding KEY's listing, else NULL.  FS has recent
   listings whenever it has a listing cache. */
static const recent_slot_t *
recent_dir_get(svn_fs_t *fs, const svn_fs_fs__pair_cache_key_t *key)
{
  recent_dir_t *recent = SVN_FS_FS__DATA(fs)->recent_dir;
  int i;

  for (i = 0; i < RECENT_DIRS; i++)
    if (recent->slots[i].len && key_eq(&recent->slots[i].key, key))
      {
        __atomic_fetch_add(&svn_fs_fs__recent_dir_hits, 1, __ATOMIC_RELAXED);
        recent->slots[i].used = ++recent->clock;
        return &recent->slots[i];
      }
  return NULL;
}

/* Whether KEY is one of the listings dir_entry was asked for last;
   remember it as the latest either way. */
static svn_boolean_t
recent_dir_asked(recent_dir_t *recent, const svn_fs_fs__pair_cache_key_t *key)
{
  int i;

  for (i = 0; i < RECENT_DIRS; i++)
    if (key_eq(&recent->asked[i], key))
      return TRUE;
  memmove(&recent->asked[1], &recent->asked[0],
          (RECENT_DIRS - 1) * sizeof(recent->asked[0]));
  recent->asked[0] = *key;
  return FALSE;
}

/* Make the LEN bytes at DATA, the flat listing of KEY, one of RECENT's
   listings (in place of the one least recently used) unless they are
   too many. */
static void
recent_dir_keep(recent_dir_t *recent, const svn_fs_fs__pair_cache_key_t *key,
                const void *data, apr_size_t len)
{
  recent_slot_t *slot = &recent->slots[0];
  int i;

  if (len == 0 || len > recent->max)
    return;
  for (i = 1; i < RECENT_DIRS; i++)
    if (recent->slots[i].used < slot->used)
      slot = &recent->slots[i];
  if (len > slot->capacity)
    {
      if (!slot->pool)
        slot->pool = svn_pool_create(recent->parent);
      else
        svn_pool_clear(slot->pool);
      slot->capacity = 2 * slot->capacity;
      if (slot->capacity > recent->max)
        slot->capacity = recent->max;
      if (slot->capacity < len)
        slot->capacity = len;
      slot->data = apr_palloc(slot->pool, slot->capacity);
    }
  memcpy(slot->data, data, len);
  slot->len = len;
  slot->key = *key;
  slot->used = ++recent->clock;
}

/* Baton of recent_dir_fill. */
typedef struct recent_fill_t
{
  recent_dir_t *recent;
  const svn_fs_fs__pair_cache_key_t *key;
  const char *name;              /* NULL: hand out a copy of the value */
  apr_size_t len;                /* out: the value's length */
} recent_fill_t;

/* svn_cache__partial_getter_func_t for the listing cache: keep the value
   as a recent listing, and hand out its entry NAME, or without NAME a
   copy of the whole value in RESULT_POOL: one membuffer lookup. */
static svn_error_t *
recent_dir_fill(void **out, const void *data, apr_size_t data_len,
                void *baton, apr_pool_t *result_pool)
{
  recent_fill_t *b = baton;

  recent_dir_keep(b->recent, b->key, data, data_len);
  b->len = data_len;
  if (b->name)
    return svn_error_trace(svn_fs_fs__dirents_get_entry(
                             out, data, data_len, (void *)b->name,
                             result_pool));
  *out = apr_pmemdup(result_pool, data, data_len);
  return SVN_NO_ERROR;
}

/* The cached listing of KEY in *ENTRIES (in RESULT_POOL), *FOUND says
   whether it was cached; it becomes one of FS's recent listings. */
static svn_error_t *
cached_dir_entries(apr_array_header_t **entries, svn_boolean_t *found,
                   svn_fs_t *fs, const svn_fs_fs__pair_cache_key_t *key,
                   apr_pool_t *result_pool)
{
  svn_fs_fs__data_t *ffd = SVN_FS_FS__DATA(fs);
  const recent_slot_t *recent;
  recent_fill_t b;
  void *copy;

  *found = FALSE;
  if (!ffd->dir_cache)
    return SVN_NO_ERROR;
  recent = recent_dir_get(fs, key);
  if (recent)
    {
      *found = TRUE;
      return svn_error_trace(svn_fs_fs__dirents_deserialize(
                               (void **)entries,
                               apr_pmemdup(result_pool, recent->data,
                                           recent->len),
                               recent->len, result_pool));
    }
  b.recent = ffd->recent_dir;
  b.key = key;
  b.name = NULL;
  b.len = 0;
  SVN_ERR(svn_cache__get_partial(&copy, found, ffd->dir_cache, key,
                                 recent_dir_fill, &b, result_pool));
  if (*found)
    SVN_ERR(svn_fs_fs__dirents_deserialize((void **)entries, copy, b.len,
                                           result_pool));
  return SVN_NO_ERROR;
}

/* The entry NAME of the cached listing of KEY in *DIRENT (NULL if it has
   none), *FOUND says whether the listing was cached.  A listing asked
   for again within two lookups becomes one of FS's recent listings. */
static svn_error_t *
cached_dir_entry(svn_fs_dirent_t **dirent, svn_boolean_t *found,
                 svn_fs_t *fs, const svn_fs_fs__pair_cache_key_t *key,
                 const char *name, apr_pool_t *result_pool)
{
  svn_fs_fs__data_t *ffd = SVN_FS_FS__DATA(fs);
  recent_dir_t *recent = ffd->recent_dir;
  const recent_slot_t *held = recent_dir_get(fs, key);
  recent_fill_t b;

  if (held)
    {
      *found = TRUE;
      return svn_error_trace(svn_fs_fs__dirents_get_entry(
                               (void **)dirent, held->data, held->len,
                               (void *)name, result_pool));
    }
  if (recent_dir_asked(recent, key))
    {
      b.recent = recent;
      b.key = key;
      b.name = name;
      b.len = 0;
      return svn_error_trace(svn_cache__get_partial(
                               (void **)dirent, found, ffd->dir_cache, key,
                               recent_dir_fill, &b, result_pool));
    }
  return svn_error_trace(svn_cache__get_partial(
                           (void **)dirent, found, ffd->dir_cache, key,
                           svn_fs_fs__dirents_get_entry, (void *)name,
                           result_pool));
}

/* svn_fs_fs__dir_entries and svn_fs_fs__dir_entries_fresh: with FRESH,
   a committed listing is read from its representation without asking
   the listing cache first. */
static svn_error_t *
dir_entries(apr_array_header_t **entries, svn_fs_t *fs,
            const svn_fs_fs__noderev_t *noderev, svn_boolean_t fresh,
            apr_pool_t *result_pool, apr_pool_t *scratch_pool)
{
  svn_fs_fs__data_t *ffd = SVN_FS_FS__DATA(fs);
  const svn_fs_fs__rep_t *rep = noderev->data_rep;
  svn_fs_fs__pair_cache_key_t key;
  svn_stringbuf_t *text;
  svn_boolean_t found;
  const char *where;

  if (noderev->kind != svn_node_dir)
    return svn_error_create(SVN_ERR_FS_NOT_DIRECTORY, NULL,
                            "Can't get entries of non-directory");
  if (rep && rep->in_txn)
    return svn_error_trace(txn_dir_entries(entries, fs, noderev, result_pool,
                                           scratch_pool));
  if (rep == NULL)
    {
      *entries = apr_array_make(result_pool, 0, sizeof(svn_fs_dirent_t *));
      return SVN_NO_ERROR;
    }
  key = svn_fs_fs__pair_cache_key(rep->revision, (apr_int64_t)rep->item_index);
  if (!fresh)
    {
      SVN_ERR(cached_dir_entries(entries, &found, fs, &key, result_pool));
      if (found)
        return SVN_NO_ERROR;
    }

  /* With a listing cache, the fulltext cache would not have the text
     either (both are filled together below). */
  SVN_ERR(svn_fs_fs__rep_contents(&text, fs, rep, ffd->dir_cache == NULL,
                                  scratch_pool, scratch_pool));
  where = apr_psprintf(scratch_pool, "directory of %s",
                       noderev->created_path);
  SVN_ERR(svn_fs_fs__dirents_parse(entries, text->data, text->len, FALSE,
                                   where, result_pool, scratch_pool));
  if (ffd->dir_cache)
    SVN_ERR(svn_cache__set(ffd->dir_cache, &key, *entries, scratch_pool));
  return SVN_NO_ERROR;
}

svn_error_t *
svn_fs_fs__dir_entries(apr_array_header_t **entries, svn_fs_t *fs,
                       const svn_fs_fs__noderev_t *noderev,
                       apr_pool_t *result_pool, apr_pool_t *scratch_pool)
{
  return svn_error_trace(dir_entries(entries, fs, noderev, FALSE,
                                     result_pool, scratch_pool));
}

svn_error_t *
svn_fs_fs__dir_entries_fresh(apr_array_header_t **entries, svn_fs_t *fs,
                             const svn_fs_fs__noderev_t *noderev,
                             apr_pool_t *result_pool,
                             apr_pool_t *scratch_pool)
{
  return svn_error_trace(dir_entries(entries, fs, noderev, TRUE,
                                     result_pool, scratch_pool));
}

svn_error_t *
svn_fs_fs__dir_entry(svn_fs_dirent_t **dirent, svn_fs_t *fs,
                     const svn_fs_fs__noderev_t *noderev, const char *name,
                     apr_pool_t *result_pool, apr_pool_t *scratch_pool)
{
  svn_fs_fs__data_t *ffd = SVN_FS_FS__DATA(fs);
  const svn_fs_fs__rep_t *rep = noderev->data_rep;
  apr_array_header_t *entries;
  svn_boolean_t missed = FALSE;
  int idx;

  /* Hot path of every path walk: look the name up inside the cached
     value without deserialising the whole listing. */
  if (ffd->dir_cache && rep && !rep->in_txn
      && noderev->kind == svn_node_dir)
    {
      svn_fs_fs__pair_cache_key_t key;
      svn_boolean_t found;

      key = svn_fs_fs__pair_cache_key(rep->revision,
                                      (apr_int64_t)rep->item_index);
      SVN_ERR(cached_dir_entry(dirent, &found, fs, &key, name,
                               result_pool));
      if (found)
        return SVN_NO_ERROR;
      missed = TRUE;
    }

  if (rep && rep->in_txn && noderev->kind == svn_node_dir)
    {
      /* Straight from the cached listing: no copy of the whole. */
      const apr_array_header_t *listing;

      SVN_ERR(txn_dir_listing(&listing, fs, noderev, scratch_pool));
      idx = svn_fs_fs__dirent_find(listing, name);
      *dirent = idx < 0 ? NULL
              : dirent_dup(APR_ARRAY_IDX(listing, idx, svn_fs_dirent_t *),
                           result_pool);
      return SVN_NO_ERROR;
    }

  /* The cache just missed: asking it again for the whole listing would
     only miss again (a whole-history dump: 185,087 such lookups). */
  SVN_ERR(dir_entries(&entries, fs, noderev, missed, scratch_pool,
                      scratch_pool));
  idx = svn_fs_fs__dirent_find(entries, name);
  if (idx < 0)
    *dirent = NULL;
  else
    {
      const svn_fs_dirent_t *d = APR_ARRAY_IDX(entries, idx,
                                               svn_fs_dirent_t *);
      *dirent = apr_palloc(result_pool, sizeof(**dirent));
      (*dirent)->name = apr_pstrdup(result_pool, d->name);
      (*dirent)->kind = d->kind;
      (*dirent)->id = SVN_FS_FS__PUBLIC_ID(
                        svn_fs_fs__id_copy(SVN_FS_FS__ID(d->id),
                                           result_pool));
    }
  return SVN_NO_ERROR;
}

/* ------------------------------------------------------------------ */
/* Properties                                                           */

svn_error_t *
svn_fs_fs__node_proplist(apr_hash_t **props, svn_fs_t *fs,
                         const svn_fs_fs__noderev_t *noderev,
                         apr_pool_t *result_pool, apr_pool_t *scratch_pool)
{
  svn_fs_fs__data_t *ffd = SVN_FS_FS__DATA(fs);
  const svn_fs_fs__rep_t *rep = noderev->prop_rep;
  svn_cache__t *cache = svn_fs_fs__cache_nodeprops_enabled(fs)
                      ? ffd->properties_cache : NULL;
  svn_fs_fs__pair_cache_key_t key;
  svn_stringbuf_t *text;
  svn_boolean_t found;

  if (rep && rep->in_txn)
    {
      /* NODEREV-5: changed properties sit in node.<id>.props. */
      const char *path;
      SVN_ERR(read_txn_file(&text, &path, fs, noderev->id, ".props",
                            scratch_pool));
      return svn_error_trace(svn_fs_fs__hashdump_parse(props, NULL,
                                                       text->data, text->len,
                                                       path, result_pool));
    }
  if (rep == NULL)
    {
      *props = apr_hash_make(result_pool);
      return SVN_NO_ERROR;
    }
  key = svn_fs_fs__pair_cache_key(rep->revision, (apr_int64_t)rep->item_index);
  if (cache)
    {
      SVN_ERR(svn_cache__get((void **)props, &found, cache, &key,
                             result_pool));
      if (found)
        return SVN_NO_ERROR;
    }

  SVN_ERR(svn_fs_fs__rep_contents(&text, fs, rep, cache == NULL,
                                  scratch_pool, scratch_pool));
  SVN_ERR(svn_fs_fs__hashdump_parse(props, NULL, text->data, text->len,
                                    apr_psprintf(scratch_pool,
                                                 "properties of %s",
                                                 noderev->created_path),
                                    result_pool));
  if (cache)
    SVN_ERR(svn_cache__set(cache, &key, *props, scratch_pool));
  return SVN_NO_ERROR;
}

/* ------------------------------------------------------------------ */
/* Changed-path lists                                                   */

/* Sequential reader of change-list text.  Only the current window of the
   file is in memory; it lives in POOL, which is cleared on each refill,
   so walking a huge list needs constant memory. */
typedef struct changes_reader_t
{
  svn_fs_fs__revfile_t *file;
  apr_off_t buf_offset;            /* file offset of BUF[0] */
  const char *buf;
  apr_size_t len, pos;
  apr_size_t window;               /* size of the next read */
  svn_boolean_t eof;               /* BUF ends where the file ends */
  svn_revnum_t rev;                /* whose list this is */
  apr_pool_t *pool;
  apr_pool_t *where_pool;          /* for reader_where() */
} changes_reader_t;

/* "r<rev> changed-path list" for an error about R's list, formatted only
   then: a log reads a list per revision and hardly ever reports one. */
static const char *
reader_where(changes_reader_t *r)
{
  return apr_psprintf(r->where_pool, "r%ld changed-path list", r->rev);
}

/* Classify the text at R's position (CHANGES-1), refilling as needed. */
static svn_error_t *
reader_next(svn_fs_fs__change_scan_t *what, apr_size_t *n,
            changes_reader_t *r)
{
  for (;;)
    {
      apr_size_t want = r->window;

      *what = svn_fs_fs__change_scan(n, r->buf + r->pos, r->len - r->pos);
      if (*what != svn_fs_fs__change_scan_incomplete)
        return SVN_NO_ERROR;
      if (r->eof)
        return svn_fs_fs__corrupt("CHANGES-1", reader_where(r),
                                  "Changed-path list is not terminated");

      /* One entry larger than the window: grow the window. */
      if (r->pos == 0 && r->len > 0 && want <= r->len)
        want = r->len * 2;
      if (want > NODEREV_MAX_LEN * 4)
        return svn_fs_fs__corrupt("CHANGES-1", reader_where(r),
                                  "Changed-path entry is too long");
      r->buf_offset += r->pos;
      svn_pool_clear(r->pool);
      SVN_ERR(svn_fs_fs__revfile_read_some(&r->buf, &r->len, r->file,
                                           r->buf_offset, want, r->pool));
      r->pos = 0;
      r->eof = r->len < want;
      if (r->window < CHANGES_CHUNK)
        r->window *= 2;
    }
}

/* Where the blocks of a changed-path list start.  A cache miss on block K
   of a list used to mean scanning the list from entry 0; remembering the
   file offset of every block start met on the way lets the next miss
   begin at block K (or the nearest known block before it), so walking a
   list of N entries block by block costs O(N), not O(N^2 / 256).  The
   offsets of the lists of the last few revisions read are kept per
   svn_fs_t, in subpools of fs->pool (ffd->changes_block_starts; an
   svn_fs_t is used by one thread at a time).  Offsets depend on whether the
   revision is packed, so a slot is reset when that changes. */
typedef struct block_starts_t
{
  svn_revnum_t rev;                /* SVN_INVALID_REVNUM: slot unused */
  svn_boolean_t is_packed;
  apr_array_header_t *offsets;     /* apr_off_t; [k] = start of block k */
  apr_pool_t *pool;
} block_starts_t;

#define BLOCK_STARTS_SLOTS 4
/* Offsets kept per list: 512 KiB, i.e. lists of up to 16M entries;
   longer lists scan from the last known block. */
#define BLOCK_STARTS_MAX (64 * 1024)

/* Changed-path entries scanned from disk (a statistic for tests). */
apr_uint64_t svn_fs_fs__changes_entries_scanned = 0;

/* The slot of FS for REV (packed or not), emptied if it was another's. */
static block_starts_t *
block_starts_get(svn_fs_t *fs, svn_revnum_t rev, svn_boolean_t is_packed)
{
  svn_fs_fs__data_t *ffd = SVN_FS_FS__DATA(fs);
  block_starts_t *slots = ffd->changes_block_starts;
  block_starts_t *slot;
  int k;

  if (slots == NULL)
    {
      slots = apr_pcalloc(fs->pool, sizeof(*slots) * BLOCK_STARTS_SLOTS);
      for (k = 0; k < BLOCK_STARTS_SLOTS; k++)
        slots[k].rev = SVN_INVALID_REVNUM;
      ffd->changes_block_starts = slots;
    }
  for (k = 0; k < BLOCK_STARTS_SLOTS; k++)
    if (slots[k].rev == rev)
      break;
  slot = &slots[k < BLOCK_STARTS_SLOTS ? k : rev % BLOCK_STARTS_SLOTS];
  if (slot->rev != rev || slot->is_packed != is_packed)
    {
      if (slot->pool)
        svn_pool_clear(slot->pool);
      else
        slot->pool = svn_pool_create(fs->pool);
      slot->rev = rev;
      slot->is_packed = is_packed;
      slot->offsets = apr_array_make(slot->pool, 4, sizeof(apr_off_t));
    }
  return slot;
}

/* Block BLOCK_NO of the list in STARTS starts at OFFSET.  Only the next
   unknown block is recorded, so the known blocks are always 0..n-1. */
static void
block_starts_note(block_starts_t *starts, apr_size_t block_no,
                  apr_off_t offset)
{
  if (starts && block_no == (apr_size_t)starts->offsets->nelts
      && block_no < BLOCK_STARTS_MAX)
    APR_ARRAY_PUSH(starts->offsets, apr_off_t) = offset;
}

/* Skip SKIP entries, then read up to MAX entries into BLOCK.  ENTRY_NO is
   the list position of R's current entry; block starts met on the way are
   noted in STARTS. */
static svn_error_t *
read_block(svn_fs_fs__changes_block_t *block, changes_reader_t *r,
           apr_size_t skip, apr_size_t max, apr_size_t entry_no,
           block_starts_t *starts, apr_pool_t *result_pool)
{
  block->changes = apr_array_make(result_pool, 16,
                                  sizeof(svn_fs_fs__change_t *));
  block->done = FALSE;
  for (;; entry_no++)
    {
      svn_fs_fs__change_scan_t what;
      svn_fs_fs__change_t *change;
      apr_size_t n;

      SVN_ERR(reader_next(&what, &n, r));
      if (what == svn_fs_fs__change_scan_end)
        {
          block->done = TRUE;
          r->pos += n;
          break;
        }
      if (skip == 0 && (apr_size_t)block->changes->nelts == max)
        break;
      if (entry_no % CHANGES_BLOCK == 0)
        block_starts_note(starts, entry_no / CHANGES_BLOCK,
                          r->buf_offset + (apr_off_t)r->pos);
      svn_fs_fs__changes_entries_scanned++;
      if (skip)
        skip--;
      else
        {
          /* CHANGES-3: "reset" entries never appear in revisions.  The
             location is formatted only for an error. */
          svn_error_t *err = svn_fs_fs__change_parse(&change,
                                                     r->buf + r->pos, n,
                                                     FALSE, NULL,
                                                     result_pool);
          if (err)
            {
              svn_error_clear(err);
              SVN_ERR(svn_fs_fs__change_parse(&change, r->buf + r->pos, n,
                                              FALSE, reader_where(r),
                                              result_pool));
            }
          APR_ARRAY_PUSH(block->changes, svn_fs_fs__change_t *) = change;
        }
      r->pos += n;
    }
  block->next_offset = r->buf_offset + (apr_off_t)r->pos;
  return SVN_NO_ERROR;
}

/* File offset of the first entry of REV's list (FILE is REV's file);
   under physical addressing *TRAILER receives where the list must end
   (CHANGES-7), else it is left alone. */
static svn_error_t *
list_start(apr_off_t *offset, apr_off_t *trailer, svn_fs_t *fs,
           svn_fs_fs__revfile_t *file, svn_revnum_t rev,
           apr_pool_t *scratch_pool)
{
  apr_off_t root_offset;

  if (svn_fs_fs__use_log_addressing(fs))
    return svn_error_trace(svn_fs_fs__item_offset(
                             offset, fs, file, rev,
                             SVN_FS_FS__ITEM_INDEX_CHANGES, scratch_pool));
  return svn_error_trace(svn_fs_fs__rev_trailer(&root_offset, offset,
                                                trailer, fs, file, rev,
                                                scratch_pool));
}

/* CHANGES-7: under physical addressing REV's list, which ended at file
   offset END (FILE is REV's file), must end where the trailer line
   begins.  The trailer is the only pointer to the list and no checksum
   covers it: with a damaged changes offset that hit an empty line the
   list read as empty, and 'svn log -v' and 'svnadmin dump' printed a
   revision without its changes where stock reported the damage.
   TRAILER_OFFSET is the trailer line's offset if list_start() just
   read it, else -1 (then it is read here).  R is the list's reader. */
static svn_error_t *
check_list_end(svn_fs_t *fs, svn_fs_fs__revfile_t *file, svn_revnum_t rev,
               apr_off_t end, apr_off_t trailer_offset, changes_reader_t *r,
               apr_pool_t *scratch_pool)
{
  apr_off_t root_offset, changes_offset;

  if (svn_fs_fs__use_log_addressing(fs))
    return SVN_NO_ERROR;
  if (trailer_offset < 0)
    SVN_ERR(svn_fs_fs__rev_trailer(&root_offset, &changes_offset,
                                   &trailer_offset, fs, file, rev,
                                   scratch_pool));
  if (end != trailer_offset)
    return svn_fs_fs__corrupt("CHANGES-7", reader_where(r),
             "Changed-path list ends at offset %" APR_OFF_T_FMT ", not at "
             "the revision trailer (offset %" APR_OFF_T_FMT ")", end,
             trailer_offset);
  return SVN_NO_ERROR;
}

/* Block BLOCK_NO of REV's list from disk.  HINT is the file offset of the
   block's first entry if known, else -1; then the nearest known block
   start at or before BLOCK_NO is where the scan begins. */
static svn_error_t *
load_block(svn_fs_fs__changes_block_t *block, svn_fs_t *fs,
           svn_revnum_t rev, apr_size_t block_no, apr_off_t hint,
           apr_pool_t *result_pool, apr_pool_t *scratch_pool)
{
  changes_reader_t r;
  block_starts_t *starts;
  apr_size_t from = block_no;      /* block at which the scan begins */
  apr_off_t trailer = -1;          /* physical: where the list ends */

  memset(&r, 0, sizeof(r));
  r.rev = rev;
  r.where_pool = scratch_pool;
  r.pool = svn_pool_create(scratch_pool);
  r.buf = "";
  r.window = CHANGES_FIRST_READ;
  SVN_ERR(svn_fs_fs__revfile_open(&r.file, fs, rev, scratch_pool,
                                  scratch_pool));
  r.file->block_hook = (SVN_FS_FS__DATA(fs)->block_read_kinds
                        & PREFILL_CHANGES) != 0;
  starts = block_starts_get(fs, rev, r.file->is_packed);
  if (hint >= 0)
    r.buf_offset = hint;
  else if (starts->offsets->nelts > 0)
    {
      apr_size_t known = (apr_size_t)starts->offsets->nelts;
      from = block_no < known ? block_no : known - 1;
      r.buf_offset = APR_ARRAY_IDX(starts->offsets, from, apr_off_t);
    }
  else
    {
      from = 0;
      SVN_ERR(list_start(&r.buf_offset, &trailer, fs, r.file, rev,
                         scratch_pool));
    }
  SVN_ERR(read_block(block, &r, (block_no - from) * CHANGES_BLOCK,
                     CHANGES_BLOCK, from * CHANGES_BLOCK, starts,
                     result_pool));
  if (!block->done)
    block_starts_note(starts, block_no + 1, block->next_offset);
  else
    SVN_ERR(check_list_end(fs, r.file, rev, block->next_offset, trailer,
                           &r, scratch_pool));
  SVN_ERR(svn_fs_fs__revfile_close(r.file));
  svn_pool_destroy(r.pool);
  return SVN_NO_ERROR;
}

/* Block BLOCK_NO of REV's list, from the cache or disk. */
static svn_error_t *
get_block(svn_fs_fs__changes_block_t **block, svn_fs_t *fs, svn_revnum_t rev,
          apr_size_t block_no, apr_off_t hint, apr_pool_t *result_pool,
          apr_pool_t *scratch_pool)
{
  svn_cache__t *cache = SVN_FS_FS__DATA(fs)->changes_cache;
  apr_uint64_t salt = SVN_FS_FS__DATA(fs)->admit_salt;
  svn_fs_fs__pair_cache_key_t key;
  svn_boolean_t found;

  key = svn_fs_fs__pair_cache_key(rev, (apr_int64_t)block_no);
  if (cache)
    {
      /* A log reads each revision's list once: never stored, never
         asked for (cache_admit.h). */
      SVN_ERR(svn_fs_fs__admit_get((void **)block, &found, cache, salt,
                                   svn_fs_fs__admit_changes, &key,
                                   sizeof(key), result_pool));
      if (found)
        return SVN_NO_ERROR;

      /* Resume where the cached previous block ended. */
      if (hint < 0 && block_no > 0)
        {
          apr_off_t *next = NULL;
          key.second--;
          SVN_ERR(svn_fs_fs__admit_get_partial(
                    (void **)&next, &found, cache, salt,
                    svn_fs_fs__admit_changes, &key, sizeof(key),
                    svn_fs_fs__changes_block_get_next, NULL, scratch_pool));
          key.second++;
          if (found && next)
            hint = *next;
        }
    }

  *block = apr_pcalloc(result_pool, sizeof(**block));
  SVN_ERR(load_block(*block, fs, rev, block_no, hint, result_pool,
                     scratch_pool));
  if (cache)
    SVN_ERR(svn_fs_fs__admit_store(cache, salt, svn_fs_fs__admit_changes,
                                   &key, sizeof(key), FALSE, *block,
                                   scratch_pool));
  return SVN_NO_ERROR;
}

svn_error_t *
svn_fs_fs__rev_changes_block(apr_array_header_t **changes,
                             svn_boolean_t *done, svn_fs_t *fs,
                             svn_revnum_t rev, apr_size_t first,
                             apr_size_t max_count, apr_pool_t *result_pool,
                             apr_pool_t *scratch_pool)
{
  apr_pool_t *iterpool = svn_pool_create(scratch_pool);
  apr_size_t block_no = first / CHANGES_BLOCK;
  apr_size_t i = first % CHANGES_BLOCK;
  apr_off_t hint = -1;

  SVN_ERR(svn_fs_fs__ensure_revision_exists(rev, fs, scratch_pool));
  *changes = apr_array_make(result_pool, 16, sizeof(svn_fs_fs__change_t *));
  *done = FALSE;
  for (;; block_no++, i = 0)
    {
      svn_fs_fs__changes_block_t *block;
      apr_size_t n;

      svn_pool_clear(iterpool);
      SVN_ERR(get_block(&block, fs, rev, block_no, hint, result_pool,
                        iterpool));
      n = block->changes->nelts;
      for (; i < n && (apr_size_t)(*changes)->nelts < max_count; i++)
        APR_ARRAY_PUSH(*changes, svn_fs_fs__change_t *)
          = APR_ARRAY_IDX(block->changes, i, svn_fs_fs__change_t *);
      if (i >= n && block->done)
        {
          *done = TRUE;
          break;
        }
      if ((apr_size_t)(*changes)->nelts == max_count)
        break;
      hint = block->next_offset;
    }
  svn_pool_destroy(iterpool);
  return SVN_NO_ERROR;
}

svn_error_t *
svn_fs_fs__rev_changes(apr_array_header_t **changes, svn_fs_t *fs,
                       svn_revnum_t rev, apr_pool_t *result_pool,
                       apr_pool_t *scratch_pool)
{
  svn_boolean_t done;

  return svn_error_trace(svn_fs_fs__rev_changes_block(
                           changes, &done, fs, rev, 0, APR_SIZE_MAX,
                           result_pool, scratch_pool));
}

/* ------------------------------------------------------------------ */
/* Block-read                                                           */


/* The application asked for block-read (fsfs-block-read=1: svnserve
   --block-read yes, SVNBlockRead on).  Its "0", which svnadmin and
   svnserve pass unless told otherwise, does not switch it off: then
   fsfs.conf's [io] block-read decides. */
static svn_boolean_t
block_read_requested(svn_fs_t *fs)
{
  const char *value = fs->config ? svn_hash_gets(fs->config,
                                     SVN_FS_CONFIG_FSFS_BLOCK_READ)
                                 : NULL;

  return value && (strcmp(value, "1") == 0
                   || svn_cstring_casecmp(value, "true") == 0);
}

static unsigned int
prefill_kinds(void)
{
  const char *env = getenv("FSFS7_BLOCK_READ");
  unsigned int kinds = 0;

  if (env == NULL || *env == '\0')
    return PREFILL_DEFAULT;
  if (strstr(env, "noderev"))
    kinds |= PREFILL_NODEREV;
  if (strstr(env, "samerev"))
    kinds |= PREFILL_SAMEREV;
  if (strstr(env, "changes"))
    kinds |= PREFILL_CHANGES;
  return kinds;
}

/* Cache the node-rev of ENTRY, whose LEN bytes are at TEXT, unless it is
   cached already.  Text that does not parse or names another ID is left
   alone: reading the item the ordinary way reports it. */
static svn_error_t *
prefill_noderev(svn_fs_t *fs, const svn_fs_fs__p2l_entry_t *entry,
                const char *text, apr_size_t len, apr_pool_t *pool)
{
  svn_cache__t *cache = SVN_FS_FS__DATA(fs)->node_revision_cache;
  svn_fs_fs__pair_cache_key_t key;
  svn_fs_fs__noderev_t *noderev;
  svn_boolean_t found;
  apr_size_t rec_len = svn_fs_fs__noderev_record_len(text, len);

  if (cache == NULL)
    return SVN_NO_ERROR;
  key = svn_fs_fs__pair_cache_key(entry->revision,
                                  (apr_int64_t)entry->item_index);
  SVN_ERR(svn_fs_fs__admit_has_key(&found, cache,
                                   SVN_FS_FS__DATA(fs)->admit_salt,
                                   svn_fs_fs__admit_noderev, &key,
                                   sizeof(key), pool));
  if (found || rec_len == 0)
    return SVN_NO_ERROR;
  SVN_ERR(svn_fs_fs__noderev_parse(&noderev, text, rec_len, NULL, pool,
                                   pool));
  if (svn_fs_fs__id_is_txn(noderev->id)
      || noderev->id->rev_item.revision != entry->revision
      || noderev->id->rev_item.number != entry->item_index)
    return SVN_NO_ERROR;
  svn_fs_fs__block_read_items++;
  return svn_error_trace(svn_fs_fs__admit_store(
                           cache, SVN_FS_FS__DATA(fs)->admit_salt,
                           svn_fs_fs__admit_noderev, &key, sizeof(key), TRUE,
                           noderev, pool));
}

/* Cache the changed-path list of ENTRY, whose LEN bytes (terminator
   included) are at TEXT, in blocks of CHANGES_BLOCK as get_block() would,
   unless its first block is cached already. */
static svn_error_t *
prefill_changes(svn_fs_t *fs, const svn_fs_fs__p2l_entry_t *entry,
                const char *text, apr_size_t len, apr_pool_t *pool)
{
  svn_cache__t *cache = SVN_FS_FS__DATA(fs)->changes_cache;
  svn_fs_fs__pair_cache_key_t key;
  svn_fs_fs__changes_block_t block;
  svn_boolean_t found;
  apr_size_t pos = 0, block_no = 0;
  apr_pool_t *block_pool;

  if (cache == NULL)
    return SVN_NO_ERROR;
  key = svn_fs_fs__pair_cache_key(entry->revision, 0);
  SVN_ERR(svn_fs_fs__admit_has_key(&found, cache,
                                   SVN_FS_FS__DATA(fs)->admit_salt,
                                   svn_fs_fs__admit_changes, &key,
                                   sizeof(key), pool));
  if (found)
    return SVN_NO_ERROR;
  block.changes = apr_array_make(pool, 16, sizeof(svn_fs_fs__change_t *));
  /* Each block's changes and its serialized copy live only until the
     block is in the cache: in POOL, a list of 6,516 changes held 26
     blocks' worth at once, 2 MB that the allocator kept (peak RSS of
     'svnbench null-log -v' of packed full maven). */
  block_pool = svn_pool_create(pool);
  for (;;)
    {
      apr_size_t n;
      svn_fs_fs__change_scan_t what = svn_fs_fs__change_scan(&n, text + pos,
                                                             len - pos);
      svn_fs_fs__change_t *change;

      if (what == svn_fs_fs__change_scan_incomplete)
        return SVN_NO_ERROR;          /* not a whole list: leave it */
      if (what == svn_fs_fs__change_scan_end
          || block.changes->nelts == CHANGES_BLOCK)
        {
          block.done = what == svn_fs_fs__change_scan_end;
          block.next_offset = entry->offset + (apr_off_t)pos
                              + (block.done ? (apr_off_t)n : 0);
          key = svn_fs_fs__pair_cache_key(entry->revision,
                                          (apr_int64_t)block_no++);
          SVN_ERR(svn_fs_fs__admit_store(cache,
                                         SVN_FS_FS__DATA(fs)->admit_salt,
                                         svn_fs_fs__admit_changes, &key,
                                         sizeof(key), TRUE, &block,
                                         block_pool));
          if (block.done)
            break;
          apr_array_clear(block.changes);
          svn_pool_clear(block_pool);
          continue;
        }
      SVN_ERR(svn_fs_fs__change_parse(&change, text + pos, n, FALSE, NULL,
                                      block_pool));
      APR_ARRAY_PUSH(block.changes, svn_fs_fs__change_t *) = change;
      pos += n;
    }
  svn_fs_fs__block_read_items++;
  return SVN_NO_ERROR;
}

/* The block hook (revfile.h): parse the node-revs and changed-path lists
   that lie wholly inside the block just read into their caches, so that
   the next lookups of a reader walking the block find them there.  The
   item at READ_AT is skipped: its reader parses it anyway. */
static svn_error_t *
prefill_block(svn_fs_fs__revfile_t *file, apr_off_t block_start,
              const unsigned char *data, apr_size_t len, apr_off_t read_at,
              apr_pool_t *scratch_pool)
{
  svn_fs_t *fs = file->fs;
  svn_fs_fs__data_t *ffd = SVN_FS_FS__DATA(fs);
  unsigned int kinds = ffd->block_read_kinds;
  apr_off_t end = block_start + (apr_off_t)len;
  apr_array_header_t *entries;
  apr_pool_t *iterpool;
  svn_revnum_t asked_rev = SVN_INVALID_REVNUM;
  int i;

  if (!svn_fs_fs__use_log_addressing(fs))
    return SVN_NO_ERROR;
  /* A revision's own file holds one changed-path list, the one whose
     reader is here: looking for others cost a P2L index lookup per
     revision file, 15 % of the CPU of 'svnbench null-log -v' of
     unpacked full maven. */
  if (!file->is_packed)
    kinds &= ~PREFILL_CHANGES;
  if (kinds == 0)
    return SVN_NO_ERROR;
  svn_fs_fs__block_read_lookups++;
  SVN_ERR(svn_fs_fs__revfile_read_footer(file, scratch_pool));
  if (block_start >= file->l2p_offset)
    return SVN_NO_ERROR;                   /* the indexes, not items */
  if (end > file->l2p_offset)
    end = file->l2p_offset;
  SVN_ERR(svn_fs_fs__p2l_index_lookup(&entries, fs, file,
                                      file->start_revision, block_start,
                                      end - block_start, scratch_pool,
                                      scratch_pool));
  /* The revision of the item asked for, for PREFILL_SAMEREV. */
  for (i = 0; i < entries->nelts; i++)
    if (APR_ARRAY_IDX(entries, i, svn_fs_fs__p2l_entry_t).offset == read_at)
      asked_rev = APR_ARRAY_IDX(entries, i, svn_fs_fs__p2l_entry_t).revision;
  iterpool = svn_pool_create(scratch_pool);
  for (i = 0; i < entries->nelts; i++)
    {
      const svn_fs_fs__p2l_entry_t *e
        = &APR_ARRAY_IDX(entries, i, svn_fs_fs__p2l_entry_t);
      const char *text = (const char *)data + (e->offset - block_start);
      apr_size_t size = (apr_size_t)e->size;

      if (e->offset < block_start || e->offset + e->size > end
          || e->offset == read_at || !SVN_IS_VALID_REVNUM(e->revision))
        continue;
      svn_pool_clear(iterpool);
      if (e->type == SVN_FS_FS__ITEM_TYPE_NODEREV
          && ((kinds & PREFILL_NODEREV)
              || ((kinds & PREFILL_SAMEREV) && e->revision == asked_rev)))
        SVN_ERR(prefill_noderev(fs, e, text, size, iterpool));
      else if (e->type == SVN_FS_FS__ITEM_TYPE_CHANGES
               && (kinds & PREFILL_CHANGES))
        SVN_ERR(prefill_changes(fs, e, text, size, iterpool));
    }
  svn_pool_destroy(iterpool);
  return SVN_NO_ERROR;
}

/* ------------------------------------------------------------------ */
/* Caches                                                               */

svn_error_t *
svn_fs_fs__nodes_init_caches(svn_fs_t *fs, svn_membuffer_t *membuffer,
                             const char *prefix, apr_pool_t *result_pool,
                             apr_pool_t *scratch_pool)
{
  svn_fs_fs__data_t *ffd = SVN_FS_FS__DATA(fs);
  apr_ssize_t pair = sizeof(svn_fs_fs__pair_cache_key_t);
  svn_membuffer_t *short_term = svn_fs_fs__short_term_membuffer(
                                  membuffer, scratch_pool);

  SVN_ERR(svn_fs_fs__make_cache(&ffd->rev_root_id_cache, membuffer,
                                svn_fs_fs__id_serialize,
                                svn_fs_fs__id_deserialize,
                                sizeof(svn_revnum_t), prefix,
                                "nodes:root-id",
                                SVN_CACHE__MEMBUFFER_HIGH_PRIORITY,
                                result_pool, scratch_pool));
  SVN_ERR(svn_fs_fs__make_cache(&ffd->node_revision_cache, membuffer,
                                svn_fs_fs__noderev_serialize,
                                svn_fs_fs__noderev_deserialize,
                                pair, prefix, "nodes:noderev",
                                SVN_CACHE__MEMBUFFER_HIGH_PRIORITY,
                                result_pool, scratch_pool));
  SVN_ERR(svn_fs_fs__make_cache(&ffd->dir_cache, short_term,
                                svn_fs_fs__dirents_serialize,
                                svn_fs_fs__dirents_deserialize,
                                pair, prefix, "nodes:dir",
                                SVN_CACHE__MEMBUFFER_HIGH_PRIORITY,
                                result_pool, scratch_pool));
  ffd->kind_memo = ffd->node_revision_cache
                 ? kind_memo_create(svn_fs_fs__cache_bytes(fs), result_pool)
                 : NULL;
  ffd->recent_dir = NULL;
  if (ffd->dir_cache)
    {
      recent_dir_t *recent = apr_pcalloc(result_pool, sizeof(*recent));
      int i;

      recent->max = (apr_size_t)(svn_fs_fs__cache_bytes(fs)
                                 / RECENT_DIR_SHARE);
      recent->parent = result_pool;
      for (i = 0; i < RECENT_DIRS; i++)
        recent->asked[i].revision = SVN_INVALID_REVNUM;
      ffd->recent_dir = recent;
    }
  SVN_ERR(svn_fs_fs__make_cache(&ffd->properties_cache, short_term,
                                svn_fs_fs__props_serialize,
                                svn_fs_fs__props_deserialize,
                                pair, prefix, "nodes:props",
                                SVN_CACHE__MEMBUFFER_DEFAULT_PRIORITY,
                                result_pool, scratch_pool));
  SVN_ERR(svn_fs_fs__make_cache(&ffd->changes_cache, membuffer,
                                svn_fs_fs__changes_block_serialize,
                                svn_fs_fs__changes_block_deserialize,
                                pair, prefix, "nodes:changes",
                                SVN_CACHE__MEMBUFFER_DEFAULT_PRIORITY,
                                result_pool, scratch_pool));

  /* Block-read fills these caches: only with all of them there and
     logical addressing (the P2L index says what a block holds). */
  ffd->block_read_kinds = 0;
  if ((ffd->block_read || block_read_requested(fs))
      && ffd->use_log_addressing
      && ffd->node_revision_cache && ffd->changes_cache)
    ffd->block_read_kinds = prefill_kinds();
  svn_fs_fs__revfile_set_block_hook(fs, ffd->block_read_kinds
                                        ? prefill_block : NULL);
  return SVN_NO_ERROR;
}
