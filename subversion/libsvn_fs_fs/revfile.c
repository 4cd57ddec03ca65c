/* revfile.c --- opening and reading revision and pack files (revfile.h).
 *
 * The only code that opens files under db/revs/ for reading.  Reads are
 * the hot path of every operation (a dump reads every item of every
 * revision), so opening must be cheap when repeated:
 *
 *   svn_fs_fs__revfile_open(fs, rev)
 *     -> file_set_t (ffd->open_files, lives in a subpool of fs->pool)
 *          a few slot_file_t slots, keyed by (first revision, packed)
 *          each: OS handle, size, footer once parsed, manifest once
 *                parsed (db/revs/<shard>.pack/manifest, also kept in
 *                the membuffer), and a few aligned read blocks (LRU)
 *     -> handle_t in the caller's RESULT_POOL referencing a slot
 *   svn_fs_fs__revfile_read(handle, offset, len)
 *     -> served from one of the slot's blocks (pread of block_size bytes,
 *        into the least recently used block, when none holds the range)
 *
 * Lifetimes: a shared slot is only closed when no handle references it
 * (REFCOUNT); handles drop their reference on svn_fs_fs__revfile_close()
 * or when their pool is cleared.  If the fs pool goes first, its cleanup
 * detaches the remaining handles so that their later cleanups do nothing.
 * Nothing the caller receives lives in a pool the caller may clear except
 * the handle itself.
 *
 * Why several blocks per file: a pack file holds a whole shard, and a
 * reader walking its revisions alternates between distant parts of it
 * (the L2P pages near the end, the changed-path lists at the start, the
 * root node of each revision in the middle).  With a single block every
 * step re-read 64 KiB it had just dropped; a handful of blocks per file
 * turns that into one read per block.  The budget is per file
 * (BLOCK_CACHE_BYTES, at least MIN_BLOCKS blocks), allocated only as the
 * file is actually read, and for all files of the set together
 * (SET_BLOCK_BYTES): block buffers belong to the set and move to
 * whichever file needs one.
 *
 * Images: an unpacked rev file smaller than a block, once opened twice,
 * is kept whole in the membuffer; later opens by any svn_fs_t of the
 * process build its slot from there without touching the disk ("Images
 * of small revision files" below).
 *
 * Block-read: a layer that owns caches of items may register a block
 * hook (svn_fs_fs__revfile_set_block_hook) and mark the handles of its
 * item lookups (BLOCK_HOOK).  Each block that a copying read through
 * such a handle touches is then handed to the hook once that read has
 * its bytes, once per stay of the block in memory, so that the hook can
 * parse the block's other items into its caches (doc/architecture.md,
 * "Block-read").  This file knows nothing of what the bytes mean.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sys/resource.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>
#include <apr_strings.h>
#include <apr_portable.h>

#include "svn_pools.h"
#include "private/svn_atomic.h"
#include "private/svn_string_private.h"

#include "cache_admit.h"
#include "caching.h"
#include "corrupt.h"
#include "footer.h"
#include "heapbuf.h"
#include "paths.h"
#include "revfile.h"
#include "shard_dir.h"

/* Idle open files kept per svn_fs_t (those no handle references), with
   their blocks and parsed indexes; the descriptors of those pushed out
   are parked (PARK_SLOTS).  Four rather than eight since files are
   parked: the same CPU for dump of packed full maven (2.87 vs 2.88 s),
   export 0-2 % more, and 0.5-2 MB less peak RSS (an idle pack file held
   ~100 kB of index headers and memos: dump 29.5-29.9 MB vs 30.1-32.1,
   'svnbench null-log -v' of packed f7 29.4-29.5 vs 30.3-30.4). */
#define FILE_SET_SLOTS 4

/* Files the set can track at once, busy ones included.  A delta chain
   holds a handle on every file it passes until the read ends, so with
   only FILE_SET_SLOTS entries the bottom of any chain longer than that
   became an overflow file, opened and indexed anew by every read: on
   an unpacked history of linear 12-link chains the r1 at their bottom
   was opened 936 times by one export.  Busy files hold a descriptor
   anyway; keeping their slot costs nothing, and the idle ones are
   trimmed back to FILE_SET_SLOTS when released (trim_idle). */
#define FILE_SET_MAX 64

/* Descriptors of closed rev files kept open per svn_fs_t, so that a
   reader coming back to a file soon skips open(), fstat() and the footer
   (parked_t).  An export of unpacked full maven's trunk (10,133 files)
   opened 12,023 rev files, 2,482 distinct ones; kept in a least
   recently used list of 64 it would have opened 5,732.  Unlike an idle
   slot, a parked file holds no memory beyond its descriptor: the 64
   idle slots tried first cost 1.7 MB of peak RSS. */
#define PARK_SLOTS 64

/* ... and in the whole process no more than this, nor more than an
   eighth of its RLIMIT_NOFILE: a threaded server has an svn_fs_t per
   connection, and descriptors kept for speed must never be the ones a
   new connection lacks. */
#define PARK_PROCESS_MAX 256

/* Read block bounds when fsfs.conf's block-size is unset or odd. */
#define DEFAULT_BLOCK_SIZE (64 * 1024)
#define MAX_BLOCK_SIZE (4 * 1024 * 1024)

/* Largest block actually read.  fsfs.conf's block-size (64 KiB unless
   set) says where the format's blocks start, not how much a reader must
   copy at a time.  svnadmin verify of full maven (134 MB of packs) read
   2,655 distinct 64 KiB blocks 170,794 times, 10.9 GB through the
   kernel: the node-revs and reps it visits per revision are spread over
   more blocks than a file keeps.  Replayed through the same per-file
   budget, 16 KiB blocks miss about as often (145k vs 139k) but copy a
   quarter of the bytes; measured: verify -4..-9 %, packed dump -6 %,
   cold packed dump -7 %, export, list and log unchanged or faster. */
#define READ_BLOCK_CAP (16 * 1024)

/* Read blocks kept per open file: as many as fit in BLOCK_CACHE_BYTES,
   but never fewer than MIN_BLOCKS nor more than MAX_BLOCKS. */
#define BLOCK_CACHE_BYTES (1024 * 1024)
#define MIN_BLOCKS 2
#define MAX_BLOCKS 64

/* ... and all open files of one svn_fs_t together no more than this
   (at least SET_MIN_BLOCKS blocks).  Each file's blocks once lived and
   died with it: a dump or export that keeps eight pack files open held
   up to 8 MiB of them, 12 MB of peak RSS above stock's on a packed
   maven dump.  Now block buffers belong to the set, go back to it when
   their file is closed, and past this budget a new block takes the
   least recently used one of any file.  512 kB rather than 2 MiB: on
   packed full maven (format 8) dump and verify take the same CPU with
   either (1 MiB: 3.24 and 3.95 s, 2 MiB 3.23 and 3.95; verify -M 1024
   3.77 vs 3.88), and each halving took 0.5-1.5 MB off their peak RSS
   (512 kB, 3 runs: dump 3.55 s vs 3.60, 30.0-31.7 MB vs 31.5-33.0;
   verify 4.12 vs 4.06 s, 34.0-35.7 MB vs 34.7-36.1). */
#define SET_BLOCK_BYTES (512 * 1024)
#define SET_MIN_BLOCKS 8

/* ... but the set starts at this budget and only grows towards
   SET_BLOCK_BYTES while most blocks that must be read are blocks pushed
   out recently ("ghost" hits, see ghost_key): then a bigger budget saves
   most reads.  Readers differ.  In windows of 64 misses of pack file
   blocks (packed full maven), 'svnadmin dump' and 'verify' re-read 32-47
   ghosts in the windows where they grow, and their working set of blocks
   is what made 16 kB blocks pay (doc/benchmarks.md, "Pack");
   'svnbench null-export' re-reads 8-31 (28 % overall), and a 2 MB budget
   (the cap then) spared it 394 of 8,078 preads, no measurable CPU, for
   1.5 MB of peak RSS; 'svn list -R -v' re-reads 0-23.  So: each
   GHOST_WINDOW misses, the budget grows by one block per 4 ghost hits if
   at least GHOST_MIN_HITS of them were ghosts. */
#define SET_START_BYTES (256 * 1024)
#define GHOST_WINDOW 64
#define GHOST_MIN_HITS 32

/* Blocks made for unpacked rev files count against this smaller budget
   (at least REV_MIN_BLOCKS blocks); past it they take the least recently
   used block like everybody past SET_BLOCK_BYTES.  An unpacked rev file
   is one revision: a reader of many revisions (export, list -R, dump of
   an unpacked history) rarely comes back to a block of one before the
   block is pushed out, so the full budget only held ~2 MB that stock
   never holds.  Measured on full maven, unpacked, with 16 kB blocks:
   512 kB left 'svn list -R -v' of trunk 0.8 MB above stock's peak RSS;
   256 kB takes 0.4 MB of that for 3.5 % more preads and no measurable
   CPU; 128 kB saves little more (0.1 MB) for 16 % more preads on an
   export. */
#define SET_REV_BLOCK_BYTES (256 * 1024)
#define REV_MIN_BLOCKS 2

/* Blocks noted for the block hook by one copying read; a read spans at
   most two blocks (it is shorter than one), so more are never needed. */
#define FRESH_MAX 4

/* One aligned read block of a file. */
typedef struct read_block_t
{
  unsigned char *data;            /* NULL until first used             */
  apr_off_t start;                /* -1: holds nothing                 */
  apr_size_t len;                 /* valid bytes in DATA               */
  apr_uint64_t last_use;
  svn_boolean_t set_owned;        /* DATA belongs to the file set      */
  int owned_at;                   /* if so: its entry in set->owned    */
  struct slot_file_t *owner;      /*   and the file it belongs to      */
  svn_boolean_t offered;          /* handed to the block hook          */
} read_block_t;

typedef struct handle_t handle_t;
typedef struct file_set_t file_set_t;

/* An evicted file's descriptor with what was learnt of the file (it
   never changes once in place): its size and, once read, its footer. */
typedef struct parked_t
{
  svn_revnum_t start_revision;
  svn_boolean_t is_packed;
  int fd;
  apr_off_t file_size;
  svn_boolean_t footer_read;
  svn_fs_fs__footer_t footer;
  apr_uint64_t parked_at;         /* SET's clock when parked           */
} parked_t;

typedef struct slot_file_t
{
  file_set_t *set;
  apr_pool_t *pool;               /* owns everything below             */
  svn_revnum_t start_revision;
  svn_boolean_t is_packed;
  apr_file_t *file;
  int fd;
  apr_off_t file_size;
  int refcount;                   /* live handles                      */
  svn_boolean_t in_set;           /* FALSE: overflow file, dies at 0   */
  apr_uint64_t last_use;
  svn_boolean_t referenced;       /* acquired again since opened or
                                     since trim_idle last passed it    */
  const char *description;        /* svn_fs_fs__revfile_describe()     */

  svn_boolean_t footer_read;
  svn_fs_fs__footer_t footer;
  svn_checksum_t *l2p_checksum;
  svn_checksum_t *p2l_checksum;

  /* Pack files with physical addressing: the parsed manifest, flat
     (element 0 the revision count N, 1..N the offsets, N+1 the pack
     size); NULL until first asked for. */
  apr_off_t *manifest;

  /* Per-file values derived from its (immutable) bytes, kept here by
     the index layer (svn_fs_fs__revfile_memo). */
  void *memo[SVN_FS_FS__REVFILE_MEMO_SLOTS];

  apr_size_t block_size;
  int owned_blocks;               /* BLOCKS holding set-owned buffers  */
  int block_count;                /* entries of BLOCKS                 */
  read_block_t blocks[];          /* BLOCK_COUNT entries (new_slot)    */
} slot_file_t;

struct file_set_t
{
  apr_pool_t *pool;
  slot_file_t *slots[FILE_SET_MAX];  /* the first COUNT are used    */
  int count;
  apr_uint64_t clock;
  apr_uint64_t os_opens;          /* svn_fs_fs__revfile_os_opens()     */
  apr_uint64_t unparks;           /* svn_fs_fs__revfile_unparks()      */
  apr_uint64_t image_hits;        /* svn_fs_fs__revfile_image_hits()   */
  handle_t *handles;              /* live handles, for detaching       */

  /* Descriptors of evicted files (PARK_SLOTS), the first PARKED_COUNT
     in use. */
  parked_t parked[PARK_SLOTS];
  int parked_count;

  /* Block buffers of files in the set: BLOCKS_MADE of them were
     carved from ARENA (at most BLOCK_LIMIT); SPARE holds the
     SPARE_COUNT that no file uses now. */
  unsigned char *arena;           /* see arena_create()                */
  apr_size_t arena_bytes;
  int block_limit;
  int rev_block_limit;            /* the same for unpacked rev files   */
  int grown_limit;                /* current budget, <= BLOCK_LIMIT    */
  int blocks_made;

  /* Blocks recently pushed out, as ghost_key() fingerprints in a
     direct-mapped table of BLOCK_LIMIT entries (0: empty). */
  apr_uint64_t *ghosts;
  int window_misses, window_hits; /* of the current GHOST_WINDOW       */
  int spare_count;
  unsigned char **spare;

  /* The blocks that hold a set buffer now (OWNED_COUNT of them), in no
     order: the least recently used one is found among these, not among
     every block of every file (up to 64 x 64), which cost 1.8 % of an
     export once the budget was spent. */
  read_block_t **owned;
  int owned_count;

  /* One block of the arena for probe_size(): at first its last, later
     whichever buffer probe_keep() traded for it. */
  unsigned char *probe;

  /* Block-read (revfile.h): the registered hook, the blocks the current
     read noted for it, and whether it is running (reads it makes itself
     are not handed to it again). */
  svn_fs_fs__revfile_block_hook_t hook;
  svn_boolean_t noting;           /* a read through a hooked handle */
  int fresh_count;
  apr_off_t fresh[FRESH_MAX];
  slot_file_t *fresh_slot[FRESH_MAX];
  svn_boolean_t in_hook;
};

struct handle_t
{
  svn_fs_fs__revfile_t public;
  slot_file_t *shared;          /* NULL once closed                  */
  handle_t *prev, *next;
};


/* ------------------------------------------------------------------ */
/* Shared slots                                                        */

static void
trim_idle(file_set_t *set);

static void
unpark_close(file_set_t *set, int k);

static void
shared_release(slot_file_t *shared)
{
  if (--shared->refcount > 0)
    return;
  if (!shared->in_set)
    svn_pool_destroy(shared->pool);
  else
    trim_idle(shared->set);
}

/* Pool cleanup of a handle: drop its reference. */
static apr_status_t
handle_cleanup(void *baton)
{
  handle_t *h = baton;

  if (h->shared)
    {
      file_set_t *set = h->shared->set;

      if (h->prev)
        h->prev->next = h->next;
      else
        set->handles = h->next;
      if (h->next)
        h->next->prev = h->prev;
      shared_release(h->shared);
      h->shared = NULL;
      h->public.file = NULL;
    }
  return APR_SUCCESS;
}

/* Cleanup of the set pool (the fs is going away): handles in pools that
   outlive it must not touch it later. */
static apr_status_t
file_set_cleanup(void *baton)
{
  file_set_t *set = baton;
  handle_t *h;

  for (h = set->handles; h; h = h->next)
    {
      apr_pool_cleanup_kill(h->public.pool, h, handle_cleanup);
      h->shared = NULL;
      h->public.file = NULL;
    }
  set->handles = NULL;
  while (set->parked_count > 0)
    unpark_close(set, set->parked_count - 1);
  return APR_SUCCESS;
}

static apr_size_t
block_size_of(svn_fs_t *fs);

/* Pool cleanup of a set's pool: unmap its arena (BATON, the set).
   Registered before file_set_cleanup, so it runs after it. */
static apr_status_t
arena_cleanup(void *baton)
{
  file_set_t *set = baton;

  svn_fs_fs__pages_free(set->arena, set->arena_bytes);
  set->arena = NULL;
  return APR_SUCCESS;
}

/* Map the arena of SET: room for its BLOCK_LIMIT blocks and the probe,
   each BLOCK_SIZE bytes, in pages of their own that the kernel provides
   as they are first written.  From the set's pool each 16 kB block took
   whatever free node of the pool's allocator was first large enough,
   often one of 32 kB that a closed file's pool had given back: 1.2 MB
   resident for 35 blocks at the peak of 'svnadmin verify' of packed
   full maven, 0.56 MB of which were blocks. */
static void
arena_create(file_set_t *set, apr_size_t block_size)
{
  set->arena_bytes = ((apr_size_t)set->block_limit + 1) * block_size;
  set->arena = svn_fs_fs__pages_alloc(set->arena_bytes);
  set->probe = set->arena + (apr_size_t)set->block_limit * block_size;
  apr_pool_cleanup_register(set->pool, set, arena_cleanup,
                            apr_pool_cleanup_null);
}

/* BYTES of blocks of BLOCK_SIZE, as a block count within [LO, HI]. */
static int
budget_blocks(apr_size_t bytes, apr_size_t block_size, int lo, int hi)
{
  apr_size_t n = bytes / block_size;

  return n < (apr_size_t)lo ? lo : n > (apr_size_t)hi ? hi : (int)n;
}

static file_set_t *
get_file_set(svn_fs_t *fs)
{
  svn_fs_fs__data_t *ffd = SVN_FS_FS__DATA(fs);

  if (ffd->open_files == NULL)
    {
      apr_pool_t *pool = svn_pool_create(fs->pool);
      file_set_t *set = apr_pcalloc(pool, sizeof(*set));
      apr_size_t block_size = block_size_of(fs);

      set->pool = pool;
      set->block_limit = budget_blocks(SET_BLOCK_BYTES, block_size,
                                       SET_MIN_BLOCKS, INT_MAX);
      set->rev_block_limit = budget_blocks(SET_REV_BLOCK_BYTES, block_size,
                                           REV_MIN_BLOCKS,
                                           set->block_limit);
      set->grown_limit = budget_blocks(SET_START_BYTES, block_size,
                                       set->rev_block_limit,
                                       set->block_limit);
      set->ghosts = apr_pcalloc(pool, set->block_limit
                                      * sizeof(*set->ghosts));
      set->spare = apr_palloc(pool, set->block_limit * sizeof(*set->spare));
      set->owned = apr_palloc(pool, set->block_limit * sizeof(*set->owned));
      arena_create(set, block_size);
      apr_pool_cleanup_register(pool, set, file_set_cleanup,
                                apr_pool_cleanup_null);
      ffd->open_files = set;
    }
  return ffd->open_files;
}

static apr_size_t
block_size_of(svn_fs_t *fs)
{
  apr_int64_t size = SVN_FS_FS__DATA(fs)->block_size;

  if (size < 4096 || size > MAX_BLOCK_SIZE)
    size = DEFAULT_BLOCK_SIZE;
  return size > READ_BLOCK_CAP ? READ_BLOCK_CAP : (apr_size_t)size;
}

/* How many read blocks of BLOCK_SIZE bytes a file keeps. */
static int
blocks_per_file(apr_size_t block_size)
{
  return budget_blocks(BLOCK_CACHE_BYTES, block_size, MIN_BLOCKS,
                       MAX_BLOCKS);
}

/* pread up to LEN bytes at OFFSET of FD into BUF; *GOT receives the
   count (short only at EOF).  With ONE_SHORT, a short read is taken for
   EOF without a second pread to confirm it (POSIX: a regular file's
   read only comes back short at its end or when a signal interrupted
   it, and ours are not interrupted); without, the loop continues until
   a read returns nothing. */
static apr_status_t
pread_all(apr_size_t *got, int fd, void *buf, apr_size_t len,
          apr_off_t offset, svn_boolean_t one_short)
{
  apr_size_t done = 0;

  *got = 0;
  while (done < len)
    {
      ssize_t n = pread(fd, (char *)buf + done, len - done,
                        offset + (apr_off_t)done);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        return APR_FROM_OS_ERROR(errno);
      if (n == 0)
        break;
      done += (apr_size_t)n;
      if (one_short)
        break;
    }
  *got = done;
  return APR_SUCCESS;
}

/* SHARED's file is the LEN bytes at DATA, all of it: copy them into its
   block 0, which no other block ever replaces. */
static void
hold_whole_file(slot_file_t *shared, const void *data, apr_size_t len)
{
  read_block_t *b = &shared->blocks[0];

  shared->file_size = (apr_off_t)len;
  b->data = apr_pmemdup(shared->pool, data, len ? len : 1);
  b->set_owned = FALSE;
  b->start = 0;
  b->len = len;
}

/* Learn the size of SHARED, just opened, by reading its first block
   into SET's probe buffer instead of asking fstat: a short read is the
   whole file (rev files never change once in place), and is kept as
   the file's block 0.  Most rev files of an unpacked repository are a
   few kB, and a delta chain opens one per link: the fstat was a quarter
   of the syscalls of an export of such a history.  *FULL is set when
   the file fills the probe (its size then comes from fstat; the probe
   holds block 0 until probe_keep). */
static apr_status_t
probe_size(svn_boolean_t *full, slot_file_t *shared, file_set_t *set)
{
  apr_size_t got;
  apr_status_t status;

  status = pread_all(&got, shared->fd, set->probe, shared->block_size, 0,
                     TRUE);
  if (status)
    return status;
  *full = got == shared->block_size;
  if (*full)
    {
      apr_finfo_t finfo;

      status = apr_file_info_get(&finfo, APR_FINFO_SIZE, shared->file);
      shared->file_size = finfo.size;
      return status;
    }
  hold_whole_file(shared, set->probe, got);
  return APR_SUCCESS;
}

static void
give_block_buffer(read_block_t *b, slot_file_t *shared);

/* SHARED's probe filled a whole block (probe_size): now that SHARED has
   its place in the set, make that its block 0.  A buffer of the set's
   arena trades places with the probe instead of taking a copy of it:
   'svnbench null-log -v' of unpacked maven opens 1,186 files larger than
   a block, and copied 64 kB for each. */
static void
probe_keep(slot_file_t *shared)
{
  read_block_t *b = &shared->blocks[0];
  file_set_t *set = shared->set;

  give_block_buffer(b, shared);
  if (b->set_owned)
    {
      unsigned char *fresh = b->data;

      b->data = set->probe;
      set->probe = fresh;
    }
  else
    memcpy(b->data, set->probe, shared->block_size);
  b->start = 0;
  b->len = shared->block_size;
  b->last_use = ++shared->set->clock;
}

/* Pool cleanup of a slot: close its descriptor (unless parked). */
static apr_status_t
close_slot_fd(void *baton)
{
  slot_file_t *shared = baton;

  close(shared->fd);
  return APR_SUCCESS;
}

/* A new empty slot of SET for blocks of BLOCK_SIZE, in its own subpool
   of SET's. */
static slot_file_t *
new_slot(file_set_t *set, apr_size_t block_size)
{
  apr_pool_t *pool = svn_pool_create(set->pool);
  int count = blocks_per_file(block_size);
  /* Sized for the blocks it can have: a slot is made per open of a small
     file, and zeroing MAX_BLOCKS entries showed in profiles. */
  slot_file_t *shared = apr_pcalloc(pool, offsetof(slot_file_t, blocks)
                                          + count * sizeof(read_block_t));
  int k;

  shared->set = set;
  shared->pool = pool;
  shared->block_size = block_size;
  shared->block_count = count;
  for (k = 0; k < shared->block_count; k++)
    shared->blocks[k].start = -1;  /* DATA is allocated on first use */
  return shared;
}

/* Make FD SHARED's file, to be closed with SHARED's pool. */
static void
adopt_fd(slot_file_t *shared, int fd)
{
  apr_os_file_t os_fd = fd;

  shared->fd = fd;
  apr_os_file_put(&shared->file, &os_fd, APR_READ, shared->pool);
  apr_pool_cleanup_register(shared->pool, shared, close_slot_fd,
                            apr_pool_cleanup_null);
}

/* Take FOOTER as SHARED's parsed footer. */
static void
adopt_footer(slot_file_t *shared, const svn_fs_fs__footer_t *footer)
{
  shared->footer = *footer;
  shared->l2p_checksum = svn_checksum_create(svn_checksum_md5, shared->pool);
  memcpy((unsigned char *)shared->l2p_checksum->digest, footer->l2p_md5,
         APR_MD5_DIGESTSIZE);
  shared->p2l_checksum = svn_checksum_create(svn_checksum_md5, shared->pool);
  memcpy((unsigned char *)shared->p2l_checksum->digest, footer->p2l_md5,
         APR_MD5_DIGESTSIZE);
  shared->footer_read = TRUE;
}

/* Open PATH into a new shared slot allocated in a subpool of SET.
   REV_FS, if not NULL, is the svn_fs_t of an unpacked revision file
   PATH: it is opened relative to its shard directory (shard_dir.h), and
   as it is immutable its size comes from probe_size(), *PROBE_FULL
   telling whether probe_keep() must follow.  An APR error (ENOENT in
   particular) is returned unwrapped so that the caller can tell a
   missing file from a broken one. */
static apr_status_t
shared_open(slot_file_t **result, svn_boolean_t *probe_full,
            file_set_t *set, const char *path, apr_size_t block_size,
            svn_fs_t *rev_fs)
{
  slot_file_t *shared;
  apr_finfo_t finfo;
  apr_status_t status;
  int fd, err;

  *probe_full = FALSE;
  if (rev_fs)
    err = svn_fs_fs__shard_dir_open(&fd, rev_fs, svn_fs_fs__dir_revs, path);
  else
    {
      do
        fd = open(path, O_RDONLY | O_CLOEXEC);
      while (fd < 0 && errno == EINTR);
      err = fd < 0 ? errno : 0;
    }
  if (fd < 0)
    return APR_FROM_OS_ERROR(err);
  shared = new_slot(set, block_size);
  adopt_fd(shared, fd);
  if (rev_fs)
    status = probe_size(probe_full, shared, set);
  else
    {
      status = apr_file_info_get(&finfo, APR_FINFO_SIZE, shared->file);
      shared->file_size = finfo.size;
    }
  if (status)
    {
      svn_pool_destroy(shared->pool);
      return status;
    }
  *result = shared;
  return APR_SUCCESS;
}

/* The slot for (START, PACKED) in SET, or NULL. */
static slot_file_t *
find_slot(file_set_t *set, svn_revnum_t start, svn_boolean_t packed)
{
  int k;

  for (k = 0; k < set->count; k++)
    if (set->slots[k]->start_revision == start
        && set->slots[k]->is_packed == packed)
      return set->slots[k];
  return NULL;
}

/* A non-zero fingerprint of the block at START of SHARED's file that
   outlives the open file (the set may close and reopen it). */
static apr_uint64_t
ghost_key(const slot_file_t *shared, apr_off_t start)
{
  apr_uint64_t key = (apr_uint64_t)shared->start_revision * 2
                     + (shared->is_packed ? 1 : 0);

  key = key * 0x9E3779B97F4A7C15ull
        ^ ((apr_uint64_t)start / shared->block_size);
  key ^= key >> 29;
  return key | 1;
}

/* The block at START of SHARED is being pushed out: remember it. */
static void
ghost_add(slot_file_t *shared, apr_off_t start)
{
  file_set_t *set = shared->set;
  apr_uint64_t key;

  if (start < 0 || !shared->in_set)
    return;
  key = ghost_key(shared, start);
  set->ghosts[key % (apr_uint64_t)set->block_limit] = key;
}

/* The block at START of SHARED is about to be read from disk: count the
   miss, and whether the block was pushed out recently; at the end of a
   window of misses, grow the budget if enough of them were such. */
static void
ghost_check(slot_file_t *shared, apr_off_t start)
{
  file_set_t *set = shared->set;
  apr_uint64_t key, *entry;

  if (!shared->in_set || !shared->is_packed
      || set->grown_limit >= set->block_limit)
    return;
  key = ghost_key(shared, start);
  entry = &set->ghosts[key % (apr_uint64_t)set->block_limit];
  if (*entry == key)
    {
      *entry = 0;
      set->window_hits++;
    }
  if (++set->window_misses < GHOST_WINDOW)
    return;
  if (set->window_hits >= GHOST_MIN_HITS)
    {
      set->grown_limit += set->window_hits / 4;
      if (set->grown_limit > set->block_limit)
        set->grown_limit = set->block_limit;
    }
  set->window_misses = 0;
  set->window_hits = 0;
}

/* Block B of OWNER now holds a buffer of SET. */
static void
owned_add(file_set_t *set, read_block_t *b, slot_file_t *owner)
{
  b->owner = owner;
  b->owned_at = set->owned_count;
  set->owned[set->owned_count++] = b;
  owner->owned_blocks++;
}

/* Block B gives its buffer of SET up. */
static void
owned_remove(file_set_t *set, read_block_t *b)
{
  read_block_t *last = set->owned[--set->owned_count];

  set->owned[b->owned_at] = last;
  last->owned_at = b->owned_at;
  b->owner->owned_blocks--;
}

/* Give the set-owned block buffers of SHARED, which is about to be
   destroyed, back to its set. */
static void
return_blocks(slot_file_t *shared)
{
  file_set_t *set = shared->set;
  int k;

  /* Most slots (small files, images) never had one: skip the walk. */
  for (k = 0; k < shared->block_count && shared->owned_blocks > 0; k++)
    if (shared->blocks[k].data && shared->blocks[k].set_owned)
      {
        ghost_add(shared, shared->blocks[k].start);
        owned_remove(set, &shared->blocks[k]);
        set->spare[set->spare_count++] = shared->blocks[k].data;
        shared->blocks[k].data = NULL;
        shared->blocks[k].start = -1;
      }
}

/* A block buffer for block B of SHARED: a spare one of the set, a new one
   while the set is under its budget, else the least recently used block
   of any file of the set (emptied).  Files outside the set use their own
   pool, as does everybody when no block can be taken. */
static void
give_block_buffer(read_block_t *b, slot_file_t *shared)
{
  file_set_t *set = shared->set;
  read_block_t *lru = NULL;
  int i;

  /* A file smaller than a block (most rev files of a repository of small
     commits) is read into a buffer of its own size that dies with it:
     full-size set blocks for them made up ~0.8 MB of a load's peak RSS
     (eight recent rev files of a few kB, each holding 64 kB). */
  if (shared->file_size < (apr_off_t)shared->block_size)
    {
      b->data = apr_palloc(shared->pool, shared->file_size > 0
                                         ? (apr_size_t)shared->file_size
                                         : 1);
      b->set_owned = FALSE;
      return;
    }
  if (shared->in_set && set->spare_count > 0)
    b->data = set->spare[--set->spare_count];
  else if (shared->in_set
           && set->blocks_made < (shared->is_packed ? set->grown_limit
                                                    : set->rev_block_limit))
    b->data = set->arena + (apr_size_t)set->blocks_made++
                           * shared->block_size;
  else if (shared->in_set)
    {
      /* B holds no buffer, so it is not among the owned. */
      for (i = 0; i < set->owned_count; i++)
        if (lru == NULL || set->owned[i]->last_use < lru->last_use)
          lru = set->owned[i];
      if (lru)
        {
          ghost_add(lru->owner, lru->start);
          owned_remove(set, lru);
          b->data = lru->data;
          lru->data = NULL;
          lru->start = -1;
        }
    }
  b->set_owned = b->data != NULL;
  if (b->set_owned)
    owned_add(set, b, shared);
  if (b->data == NULL)
    b->data = apr_palloc(shared->pool, shared->block_size);
}

/* ------------------------------------------------------------------ */
/* Parked descriptors                                                  */

/* Descriptors parked by all file sets of the process, and the most
   there may be (park_limit_init). */
static volatile svn_atomic_t parked_in_process = 0;
static int park_limit;
static pthread_once_t park_limit_once = PTHREAD_ONCE_INIT;

static void
park_limit_init(void)
{
  struct rlimit limit;

  park_limit = PARK_PROCESS_MAX;
  if (getrlimit(RLIMIT_NOFILE, &limit) == 0
      && limit.rlim_cur != RLIM_INFINITY
      && limit.rlim_cur / 8 < (rlim_t)park_limit)
    park_limit = (int)(limit.rlim_cur / 8);
}

/* Count one more parked descriptor in the process, if it may have one. */
static svn_boolean_t
claim_park(void)
{
  pthread_once(&park_limit_once, park_limit_init);
  if ((int)svn_atomic_inc(&parked_in_process) < park_limit)
    return TRUE;
  svn_atomic_dec(&parked_in_process);
  return FALSE;
}

/* Close the descriptor of entry K of SET's parked ones (the last entry
   takes its place). */
static void
unpark_close(file_set_t *set, int k)
{
  close(set->parked[k].fd);
  svn_atomic_dec(&parked_in_process);
  set->parked[k] = set->parked[--set->parked_count];
}

/* SHARED, an idle file of SET, is being closed: keep its descriptor
   among SET's parked ones instead, pushing out the longest parked one
   if there is no room, unless the process has parked all it may. */
static void
park(file_set_t *set, slot_file_t *shared)
{
  parked_t *p;

  if (shared->fd < 0)
    return;                     /* made from an image: no descriptor */
  if (set->parked_count == PARK_SLOTS)
    {
      int k, oldest = 0;

      for (k = 1; k < set->parked_count; k++)
        if (set->parked[k].parked_at < set->parked[oldest].parked_at)
          oldest = k;
      unpark_close(set, oldest);
    }
  if (!claim_park())
    return;
  apr_pool_cleanup_kill(shared->pool, shared, close_slot_fd);
  p = &set->parked[set->parked_count++];
  p->start_revision = shared->start_revision;
  p->is_packed = shared->is_packed;
  p->fd = shared->fd;
  p->file_size = shared->file_size;
  p->footer_read = shared->footer_read;
  if (shared->footer_read)
    p->footer = shared->footer;
  p->parked_at = ++set->clock;
}

/* A slot of SET for the parked file (START, PACKED), with blocks of
   BLOCK_SIZE, or NULL if that file is not parked. */
static slot_file_t *
unpark(file_set_t *set, svn_revnum_t start, svn_boolean_t packed,
       apr_size_t block_size)
{
  slot_file_t *shared;
  parked_t *p;
  int k;

  for (k = 0; k < set->parked_count; k++)
    if (set->parked[k].start_revision == start
        && set->parked[k].is_packed == packed)
      break;
  if (k == set->parked_count)
    return NULL;
  p = &set->parked[k];
  shared = new_slot(set, block_size);
  adopt_fd(shared, p->fd);
  shared->file_size = p->file_size;
  if (p->footer_read)
    adopt_footer(shared, &p->footer);
  svn_atomic_dec(&parked_in_process);
  set->parked[k] = set->parked[--set->parked_count];
  set->unparks++;
  return shared;
}

/* Close the idle file in entry K of SET (the last entry takes its
   place), parking its descriptor if it may. */
static void
evict(file_set_t *set, int k)
{
  return_blocks(set->slots[k]);
  park(set, set->slots[k]);
  svn_pool_destroy(set->slots[k]->pool);
  set->slots[k] = set->slots[--set->count];
  set->slots[set->count] = NULL;
}

/* The entry of SET's idle file to close next, or -1 if none is idle.
   Least recently used first, but a file acquired again since it was
   opened (or since it was last passed over here) gets a second chance:
   a reader streaming through many files used once each (an export of
   linear delta chains, each link in a different rev file) must not push
   out the one file every chain ends in. */
static int
choose_victim(file_set_t *set)
{
  int k, victim = -1, oldest = -1;

  for (k = 0; k < set->count; k++)
    {
      slot_file_t *s = set->slots[k];

      if (s->refcount > 0)
        continue;
      if (oldest < 0 || s->last_use < set->slots[oldest]->last_use)
        oldest = k;
      if (!s->referenced
          && (victim < 0 || s->last_use < set->slots[victim]->last_use))
        victim = k;
    }
  if (victim < 0)
    victim = oldest;
  /* The referenced files older than the victim were passed over: they
     have used their second chance. */
  for (k = 0; victim >= 0 && k < set->count; k++)
    if (set->slots[k]->refcount == 0
        && set->slots[k]->last_use <= set->slots[victim]->last_use)
      set->slots[k]->referenced = FALSE;
  return victim;
}

/* Close idle files of SET until at most FILE_SET_SLOTS are left. */
static void
trim_idle(file_set_t *set)
{
  int k, idle = 0;

  for (k = 0; k < set->count; k++)
    if (set->slots[k]->refcount == 0)
      idle++;
  for (; idle > FILE_SET_SLOTS; idle--)
    evict(set, choose_victim(set));
}

/* Put SHARED into a free entry of SET, closing an idle file if there is
   none; if every entry is busy it stays outside the set (closed when
   released). */
static void
insert_slot(file_set_t *set, slot_file_t *shared)
{
  if (set->count == FILE_SET_MAX)
    {
      int victim = choose_victim(set);

      if (victim < 0)
        return;
      evict(set, victim);
    }
  set->slots[set->count++] = shared;
  shared->in_set = TRUE;
}


/* ------------------------------------------------------------------ */
/* Images of small revision files                                      */

/* A revision file shorter than a read block is read whole by the probe
   that opens it (probe_size), and never changes once in place.  A long
   history's delta chains come back to the same few-kB files far apart:
   'svnbench null-export' of lc2 (doc/benchmarks.md) opened 2,993 rev
   files 10,537 times, and only 30 % of those opens would have been
   spared by keeping the last 4 MB of them.  So the bytes of such a file
   opened a second time (cache_admit.h) go into the membuffer under its
   revision, and an acquire that finds them there makes the slot from
   them: no open(), pread() or close(), and the membuffer, not this
   set, bounds what is kept.  The slot has no descriptor (fd -1), is
   never parked, and its block 0 holds the whole file, so no read of it
   reaches the disk. */

/* The image cache holds a file's bytes: serialising hands the membuffer
   the data of the slot's block 0 (the whole file), which it copies.
   Slots are made from images by image_to_slot() through
   svn_cache__get_partial(); the plain deserialiser, which the cache
   constructor requires, is never used for a read here. */
static svn_error_t *
serialize_image(void **data, apr_size_t *len, void *in, apr_pool_t *pool)
{
  read_block_t *b = in;

  *data = b->data;              /* the membuffer copies it (index.c) */
  *len = b->len;
  return SVN_NO_ERROR;
}

static svn_error_t *
deserialize_image(void **out, void *data, apr_size_t len, apr_pool_t *pool)
{
  *out = data;
  return SVN_NO_ERROR;
}

/* Baton of image_to_slot(). */
typedef struct image_baton_t
{
  file_set_t *set;
  apr_size_t block_size;
} image_baton_t;

/* svn_cache__get_partial() callback: a new slot of BATON's set whose
   block 0 is a copy of the image DATA (LEN bytes), or NULL when LEN
   cannot be a small file's.  The slot's pool is made only on a hit. */
static svn_error_t *
image_to_slot(void **out, const void *data, apr_size_t len, void *baton,
              apr_pool_t *pool)
{
  image_baton_t *ib = baton;
  slot_file_t *shared;
  apr_os_file_t none = -1;

  *out = NULL;
  if (len == 0 || len >= ib->block_size)
    return SVN_NO_ERROR;
  shared = new_slot(ib->set, ib->block_size);
  shared->fd = -1;
  /* Layers above test the handle's FILE for "open"; nothing reads it. */
  apr_os_file_put(&shared->file, &none, APR_READ, shared->pool);
  hold_whole_file(shared, data, len);
  *out = shared;
  return SVN_NO_ERROR;
}

/* A slot for unpacked revision REV of FS made from its image, or NULL
   if the membuffer has none (or cannot be asked). */
static slot_file_t *
image_slot(file_set_t *set, svn_fs_t *fs, svn_revnum_t rev,
           apr_size_t block_size)
{
  svn_cache__t *cache = SVN_FS_FS__DATA(fs)->revfile_image_cache;
  svn_fs_fs__pair_cache_key_t key = svn_fs_fs__pair_cache_key(rev, 0);
  image_baton_t baton;
  slot_file_t *shared = NULL;   /* stays NULL unless found and usable */
  svn_boolean_t found;
  svn_error_t *err;

  if (cache == NULL)
    return NULL;
  baton.set = set;
  baton.block_size = block_size;
  /* An image this process never stored is not asked for (cache_admit.h):
     a log opens each revision file once. */
  err = svn_fs_fs__admit_get_partial((void **)&shared, &found, cache,
                                     SVN_FS_FS__DATA(fs)->admit_salt,
                                     svn_fs_fs__admit_revfile_image, &key,
                                     sizeof(key), image_to_slot, &baton,
                                     set->pool);
  if (err)
    {
      svn_error_clear(err);     /* the disk still has the file */
      return NULL;
    }
  if (shared)
    set->image_hits++;
  return shared;
}

/* SHARED, unpacked revision REV of FS just opened from disk and read
   whole by its probe (its block 0 is the file, hold_whole_file), may
   become an image: if it is not empty, this is its second open
   (cache_admit.h) and REV is committed as far as FS knows. */
static void
image_offer(svn_fs_t *fs, slot_file_t *shared, svn_revnum_t rev,
            apr_pool_t *scratch_pool)
{
  svn_fs_fs__data_t *ffd = SVN_FS_FS__DATA(fs);
  svn_fs_fs__pair_cache_key_t key;

  if (ffd->revfile_image_cache == NULL || rev > ffd->youngest_rev_cache
      || shared->file_size == 0)
    return;
  key = svn_fs_fs__pair_cache_key(rev, 0);
  svn_error_clear(svn_fs_fs__admit_store(ffd->revfile_image_cache,
                                         ffd->admit_salt,
                                         svn_fs_fs__admit_revfile_image,
                                         &key, sizeof(key), FALSE,
                                         &shared->blocks[0], scratch_pool));
}


/* ------------------------------------------------------------------ */
/* Opening                                                             */

/* Get a referenced slot for the file holding REV of FS, assuming it is
   packed iff PACKED.  Returns the APR status of the open on failure. */
static apr_status_t
acquire(slot_file_t **result, svn_fs_t *fs, svn_revnum_t rev,
        svn_boolean_t packed, apr_pool_t *scratch_pool)
{
  file_set_t *set = get_file_set(fs);
  svn_revnum_t start = packed ? svn_fs_fs__shard_start(fs, rev) : rev;
  slot_file_t *shared = find_slot(set, start, packed);
  svn_boolean_t probe_full = FALSE;

  if (shared)
    shared->referenced = TRUE;
  else
    {
      shared = unpark(set, start, packed, block_size_of(fs));
      if (shared == NULL && !packed)
        shared = image_slot(set, fs, rev, block_size_of(fs));
      if (shared == NULL)
        {
          const char *path = packed
                           ? svn_fs_fs__path_rev_packed(fs, rev, "pack",
                                                        scratch_pool)
                           : svn_fs_fs__path_rev(fs, rev, scratch_pool);
          apr_status_t status = shared_open(&shared, &probe_full, set, path,
                                            block_size_of(fs),
                                            packed ? NULL : fs);
          if (status)
            return status;
          set->os_opens++;
          if (!packed && !probe_full)
            image_offer(fs, shared, rev, scratch_pool);
        }
      shared->start_revision = start;
      shared->is_packed = packed;
      insert_slot(set, shared);
      if (probe_full)
        probe_keep(shared);
    }
  shared->refcount++;
  shared->last_use = ++set->clock;
  *result = shared;
  return APR_SUCCESS;
}

static svn_boolean_t
is_packed(svn_fs_t *fs, svn_revnum_t rev)
{
  svn_fs_fs__data_t *ffd = SVN_FS_FS__DATA(fs);

  return ffd->max_files_per_dir > 0 && rev < ffd->min_unpacked_rev;
}

/* Wrap SHARED into a new handle in RESULT_POOL. */
static svn_fs_fs__revfile_t *
make_handle(svn_fs_t *fs, slot_file_t *shared, apr_pool_t *result_pool)
{
  handle_t *h = apr_pcalloc(result_pool, sizeof(*h));
  file_set_t *set = shared->set;

  h->shared = shared;
  h->public.fs = fs;
  h->public.start_revision = shared->start_revision;
  h->public.is_packed = shared->is_packed;
  h->public.file = shared->file;
  h->public.file_size = shared->file_size;
  h->public.pool = result_pool;
  h->public.priv = h;
  if (shared->footer_read)
    {
      h->public.footer_read = TRUE;
      h->public.l2p_offset = shared->footer.l2p_offset;
      h->public.p2l_offset = shared->footer.p2l_offset;
      h->public.footer_offset = shared->footer.footer_offset;
      h->public.l2p_checksum = shared->l2p_checksum;
      h->public.p2l_checksum = shared->p2l_checksum;
    }
  h->next = set->handles;
  if (set->handles)
    set->handles->prev = h;
  set->handles = h;
  apr_pool_cleanup_register(result_pool, h, handle_cleanup,
                            apr_pool_cleanup_null);
  return &h->public;
}

svn_error_t *
svn_fs_fs__revfile_open(svn_fs_fs__revfile_t **file, svn_fs_t *fs,
                        svn_revnum_t rev, apr_pool_t *result_pool,
                        apr_pool_t *scratch_pool)
{
  slot_file_t *shared;
  apr_status_t status;

  if (!SVN_IS_VALID_REVNUM(rev))
    return svn_error_createf(SVN_ERR_FS_NO_SUCH_REVISION, NULL,
                             "No such revision %ld", rev);
  status = acquire(&shared, fs, rev, is_packed(fs, rev), scratch_pool);
  if (APR_STATUS_IS_ENOENT(status))
    {
      /* A concurrent pack may have moved the revision; look again. */
      svn_error_t *err = svn_fs_fs__update_min_unpacked_rev(fs, scratch_pool);
      if (err)
        return svn_error_createf(SVN_ERR_FS_NO_SUCH_REVISION, err,
                                 "No such revision %ld", rev);
      status = acquire(&shared, fs, rev, is_packed(fs, rev), scratch_pool);
    }
  if (APR_STATUS_IS_ENOENT(status))
    return svn_error_createf(SVN_ERR_FS_NO_SUCH_REVISION, NULL,
                             "No such revision %ld", rev);
  if (status)
    return svn_error_wrap_apr(status, "Can't open the file of revision "
                                        "%ld in '%s'", rev, fs->path);
  *file = make_handle(fs, shared, result_pool);
  return SVN_NO_ERROR;
}

svn_error_t *
svn_fs_fs__revfile_open_path(svn_fs_fs__revfile_t **file, svn_fs_t *fs,
                             const char *path, apr_pool_t *result_pool)
{
  slot_file_t *shared;
  svn_boolean_t probe_full;
  apr_status_t status = shared_open(&shared, &probe_full, get_file_set(fs),
                                    path, block_size_of(fs), NULL);

  if (status)
    return svn_error_wrap_apr(status, "Can't open '%s'", path);
  /* Not inserted into the set: destroyed when its only handle goes. */
  shared->start_revision = SVN_INVALID_REVNUM;
  shared->refcount = 1;
  shared->description = apr_pstrdup(shared->pool, path);
  *file = make_handle(fs, shared, result_pool);
  return SVN_NO_ERROR;
}

apr_uint64_t
svn_fs_fs__revfile_os_opens(svn_fs_t *fs)
{
  return get_file_set(fs)->os_opens;
}

apr_uint64_t
svn_fs_fs__revfile_unparks(svn_fs_t *fs)
{
  return get_file_set(fs)->unparks;
}

apr_uint64_t
svn_fs_fs__revfile_image_hits(svn_fs_t *fs)
{
  return get_file_set(fs)->image_hits;
}

apr_size_t
svn_fs_fs__revfile_set_block_bytes(svn_fs_t *fs)
{
  file_set_t *set = get_file_set(fs);

  return (apr_size_t)set->blocks_made * block_size_of(fs);
}

svn_error_t *
svn_fs_fs__revfile_close(svn_fs_fs__revfile_t *file)
{
  handle_t *h = file->priv;

  if (h->shared)
    {
      apr_pool_cleanup_kill(file->pool, h, handle_cleanup);
      handle_cleanup(h);
    }
  return SVN_NO_ERROR;
}


/* ------------------------------------------------------------------ */
/* Reading                                                             */

static slot_file_t *
shared_of(svn_fs_fs__revfile_t *file)
{
  return ((handle_t *)file->priv)->shared;
}

/* pread LEN bytes at OFFSET into BUF; *GOT receives the count (short
   only at EOF). */
static svn_error_t *
read_at(apr_size_t *got, slot_file_t *shared, void *buf, apr_size_t len,
        apr_off_t offset)
{
  apr_status_t status = pread_all(got, shared->fd, buf, len, offset,
                                  FALSE);

  if (status)
    return svn_error_wrap_apr(status, "Can't read revision data");
  return SVN_NO_ERROR;
}

/* The block of SHARED holding the aligned block that starts at START,
   or NULL. */
static read_block_t *
find_block(slot_file_t *shared, apr_off_t start)
{
  int k;

  for (k = 0; k < shared->block_count; k++)
    if (shared->blocks[k].start == start)
      return &shared->blocks[k];
  return NULL;
}

/* The block of SHARED to overwrite: an unused one, else the least
   recently used. */
static read_block_t *
victim_block(slot_file_t *shared)
{
  read_block_t *victim = &shared->blocks[0];
  int k;

  for (k = 0; k < shared->block_count; k++)
    {
      if (shared->blocks[k].start < 0)
        return &shared->blocks[k];
      if (shared->blocks[k].last_use < victim->last_use)
        victim = &shared->blocks[k];
    }
  return victim;
}

/* A read through a handle that follows block-read touched block B of
   SHARED: remember it for the block hook unless the hook had it since it
   came from disk (a block first read by other code is offered to the
   hook by the first such read that touches it).  Only files of
   committed revisions qualify (their items are in the indexes), and
   nothing while the hook itself runs. */
static void
note_fresh(slot_file_t *shared, read_block_t *b)
{
  file_set_t *set = shared->set;

  if (b->offered || set->hook == NULL || set->in_hook || !set->noting
      || !SVN_IS_VALID_REVNUM(shared->start_revision)
      || set->fresh_count == FRESH_MAX)
    return;
  b->offered = TRUE;
  set->fresh_slot[set->fresh_count] = shared;
  set->fresh[set->fresh_count++] = b->start;
}

/* Hand the noted blocks of FILE's open file to the block hook; READ_AT is
   the offset the caller just read.  The hook gets a private copy of each
   block (its own reads may recycle the buffer).  A hook error is dropped:
   filling caches ahead of use is optional, and damage in a neighbouring
   item is reported when that item is really read. */
static void
run_block_hook(svn_fs_fs__revfile_t *file, slot_file_t *shared,
               apr_off_t read_at)
{
  file_set_t *set = shared->set;
  apr_pool_t *pool;
  int k, count = set->fresh_count;
  apr_off_t starts[FRESH_MAX];
  slot_file_t *slots[FRESH_MAX];

  memcpy(starts, set->fresh, sizeof(starts));
  memcpy(slots, set->fresh_slot, sizeof(slots));
  set->fresh_count = 0;
  pool = svn_pool_create(set->pool);
  set->in_hook = TRUE;
  for (k = 0; k < count; k++)
    {
      read_block_t *b = slots[k] == shared ? find_block(shared, starts[k])
                                           : NULL;
      unsigned char *copy;

      if (b == NULL || b->len == 0)
        continue;
      copy = apr_pmemdup(pool, b->data, b->len);
      svn_error_clear(set->hook(file, starts[k], copy, b->len, read_at,
                                pool));
      svn_pool_clear(pool);
    }
  set->in_hook = FALSE;
  svn_pool_destroy(pool);
}

/* *BLOCK receives a block of SHARED holding the aligned block that
   contains OFFSET (< file size), read from disk if no block has it.  The
   read stops at the file size taken at open, so the tail block costs one
   pread, not a second one that finds EOF. */
static svn_error_t *
load_block(read_block_t **block, slot_file_t *shared, apr_off_t offset)
{
  apr_off_t start = offset - offset % (apr_off_t)shared->block_size;
  read_block_t *b = find_block(shared, start);
  apr_size_t want;

  if (b == NULL)
    {
      ghost_check(shared, start);
      b = victim_block(shared);
      ghost_add(shared, b->start);
      if (b->data == NULL)
        give_block_buffer(b, shared);
      want = shared->file_size - start < (apr_off_t)shared->block_size
           ? (apr_size_t)(shared->file_size - start) : shared->block_size;
      b->start = -1;
      SVN_ERR(read_at(&b->len, shared, b->data, want, start));
      b->start = start;
      b->offered = FALSE;
    }
  b->last_use = ++shared->set->clock;
  *block = b;
  return SVN_NO_ERROR;
}

svn_error_t *
svn_fs_fs__revfile_read(void *buf, apr_size_t len,
                        svn_fs_fs__revfile_t *file, apr_off_t offset)
{
  slot_file_t *shared = shared_of(file);
  char *out = buf;
  apr_off_t first = offset;

  SVN_ERR_ASSERT(shared != NULL);
  if (offset < 0 || offset > shared->file_size
      || (apr_off_t)len > shared->file_size - offset)
    return svn_fs_fs__corrupt(NULL, apr_psprintf(file->pool, "r%ld file",
                                                 file->start_revision),
             "Read of %lu bytes at offset %" APR_OFF_T_FMT " beyond the end "
             "of the file (%" APR_OFF_T_FMT " bytes)", (unsigned long)len,
             offset, shared->file_size);
  /* Reads of a whole block or more (the svndiff data of a large text,
     streamed in 64 kB steps) go straight to the file: kept as blocks they
     were never read again but evicted the blocks of small items, and a
     load of large files held the set's whole block budget (2 MB of a
     13.4 MB peak RSS against stock's 12.1 MB; test_large_reads_bypass_
     blocks).  (With 64 KiB blocks this was a quarter block: the same
     16 KiB.  A quarter of a 16 KiB block sent the larger changed-path
     lists of a packed `svn log -v` past the blocks whose neighbours they
     are: 1,306 -> 13,953 preads.) */
  if (len >= shared->block_size)
    {
      apr_size_t got;
      SVN_ERR(read_at(&got, shared, buf, len, offset));
      if (got != len)
        return svn_fs_fs__corrupt(NULL, NULL, "Revision file shrank");
      return SVN_NO_ERROR;
    }
  shared->set->noting = file->block_hook;
  while (len > 0)
    {
      read_block_t *block;
      apr_size_t at, n;
      svn_error_t *err = load_block(&block, shared, offset);

      if (err)
        {
          shared->set->noting = FALSE;
          return svn_error_trace(err);
        }
      note_fresh(shared, block);
      at = (apr_size_t)(offset - block->start);
      if (at >= block->len)
        {
          shared->set->noting = FALSE;
          return svn_fs_fs__corrupt(NULL, NULL, "Revision file shrank");
        }
      n = block->len - at < len ? block->len - at : len;
      memcpy(out, block->data + at, n);
      out += n;
      offset += n;
      len -= n;
    }
  shared->set->noting = FALSE;
  if (shared->set->fresh_count && !shared->set->in_hook)
    run_block_hook(file, shared, first);
  return SVN_NO_ERROR;
}

svn_error_t *
svn_fs_fs__revfile_available(apr_size_t *len, svn_fs_fs__revfile_t *file,
                             apr_off_t offset, apr_size_t max_len)
{
  apr_off_t left = file->file_size - offset;
  char probe;

  *len = 0;
  if (offset < 0 || left < 0)
    return svn_error_trace(svn_fs_fs__revfile_read(&probe, 1, file, offset));
  *len = left < (apr_off_t)max_len ? (apr_size_t)left : max_len;
  return SVN_NO_ERROR;
}

svn_error_t *
svn_fs_fs__revfile_read_some(const char **data, apr_size_t *len,
                             svn_fs_fs__revfile_t *file, apr_off_t offset,
                             apr_size_t max_len, apr_pool_t *result_pool)
{
  char *buf;

  SVN_ERR(svn_fs_fs__revfile_available(len, file, offset, max_len));
  buf = apr_palloc(result_pool, *len + 1);
  SVN_ERR(svn_fs_fs__revfile_read(buf, *len, file, offset));
  buf[*len] = '\0';
  *data = buf;
  return SVN_NO_ERROR;
}

/* Copy SHARED's footer into the public fields of FILE. */
static void
publish_footer(svn_fs_fs__revfile_t *file, slot_file_t *shared)
{
  file->footer_read = TRUE;
  file->l2p_offset = shared->footer.l2p_offset;
  file->p2l_offset = shared->footer.p2l_offset;
  file->footer_offset = shared->footer.footer_offset;
  file->l2p_checksum = shared->l2p_checksum;
  file->p2l_checksum = shared->p2l_checksum;
}

svn_error_t *
svn_fs_fs__revfile_read_footer(svn_fs_fs__revfile_t *file,
                               apr_pool_t *scratch_pool)
{
  slot_file_t *shared = shared_of(file);
  unsigned char tail[SVN_FS_FS__FOOTER_MAX_LEN];
  apr_size_t len;

  SVN_ERR_ASSERT(shared != NULL);
  if (!shared->footer_read)
    {
      svn_fs_fs__footer_t footer;

      len = shared->file_size < SVN_FS_FS__FOOTER_MAX_LEN
          ? (apr_size_t)shared->file_size : SVN_FS_FS__FOOTER_MAX_LEN;
      SVN_ERR(svn_fs_fs__revfile_read(tail, len, file,
                                      shared->file_size - (apr_off_t)len));
      SVN_ERR(svn_fs_fs__footer_parse(&footer, tail, len, shared->file_size,
                                      svn_fs_fs__revfile_describe(
                                        file, scratch_pool)));
      adopt_footer(shared, &footer);
    }
  publish_footer(file, shared);
  return SVN_NO_ERROR;
}

const char *
svn_fs_fs__revfile_describe(svn_fs_fs__revfile_t *file,
                            apr_pool_t *result_pool)
{
  slot_file_t *shared = shared_of(file);
  apr_pool_t *pool = shared ? shared->pool : result_pool;
  char digits[SVN_INT64_BUFFER_SIZE];
  const char *text;

  /* Lookups pass this to codecs on every call; format it once. */
  if (shared && shared->description)
    return shared->description;
  /* Not apr_psprintf(): a slot is made per open of a small file, and
     its formatter cost 1 % of an export through long delta chains. */
  svn__i64toa(digits, file->start_revision);
  text = apr_pstrcat(pool, file->is_packed ? "pack file of r" : "rev file r",
                     digits, SVN_VA_NULL);
  if (shared)
    shared->description = text;
  return text;
}

void **
svn_fs_fs__revfile_memo(apr_pool_t **pool, svn_fs_fs__revfile_t *file)
{
  slot_file_t *shared = shared_of(file);

  *pool = shared->pool;
  return shared->memo;
}

svn_error_t *
svn_fs_fs__revfile_block(const unsigned char **data, apr_size_t *len,
                         apr_off_t *block_start, svn_fs_fs__revfile_t *file,
                         apr_off_t offset)
{
  slot_file_t *shared = shared_of(file);
  read_block_t *block;

  SVN_ERR_ASSERT(shared != NULL);
  if (offset < 0 || offset >= shared->file_size)
    return svn_fs_fs__corrupt(NULL, svn_fs_fs__revfile_describe(file,
                                                                file->pool),
             "Block read at offset %" APR_OFF_T_FMT " outside the file",
             offset);
  SVN_ERR(load_block(&block, shared, offset));
  if ((apr_size_t)(offset - block->start) >= block->len)
    return svn_fs_fs__corrupt(NULL, NULL, "Revision file shrank");
  *block_start = block->start;
  *data = block->data + (offset - block->start);
  *len = block->len - (apr_size_t)(offset - block->start);
  return SVN_NO_ERROR;
}

void
svn_fs_fs__revfile_set_block_hook(svn_fs_t *fs,
                                  svn_fs_fs__revfile_block_hook_t hook)
{
  get_file_set(fs)->hook = hook;
}

apr_size_t
svn_fs_fs__revfile_block_size(svn_fs_fs__revfile_t *file)
{
  return shared_of(file)->block_size;
}


/* ------------------------------------------------------------------ */
/* Pack manifests (physical addressing; doc/format/addressing.md)      */

/* The flat manifest is pointer-free: serialising is a copy. */
static svn_error_t *
serialize_manifest(void **data, apr_size_t *len, void *in, apr_pool_t *pool)
{
  const apr_off_t *flat = in;

  *len = ((apr_size_t)flat[0] + 2) * sizeof(apr_off_t);
  *data = apr_pmemdup(pool, in, *len);
  return SVN_NO_ERROR;
}

static svn_error_t *
deserialize_manifest(void **out, void *data, apr_size_t len,
                     apr_pool_t *pool)
{
  *out = data;
  return SVN_NO_ERROR;
}

svn_error_t *
svn_fs_fs__revfile_init_caches(svn_fs_t *fs, svn_membuffer_t *membuffer,
                               const char *prefix, apr_pool_t *result_pool,
                               apr_pool_t *scratch_pool)
{
  SVN_ERR(svn_fs_fs__make_cache(
            &SVN_FS_FS__DATA(fs)->packed_offset_cache, membuffer,
            serialize_manifest, deserialize_manifest,
            sizeof(svn_fs_fs__pair_cache_key_t), prefix, "MANIFEST",
            SVN_CACHE__MEMBUFFER_HIGH_PRIORITY, result_pool, scratch_pool));
  /* Images at low priority: each is a copy of what the node-rev, text
     and index caches hold parsed, so under pressure it should go
     first.  svnserve's default 16 MB cache serving lp's 4,000-file trunk
     (17 MB of text) kept re-storing 4,230 images per export at the
     default priority, pushing out node-revs and texts that were then
     read from disk again: 0.18-0.21 s of CPU per hot export, 0.07-0.10
     with images low. */
  return svn_error_trace(svn_fs_fs__make_cache(
           &SVN_FS_FS__DATA(fs)->revfile_image_cache,
           svn_fs_fs__short_term_membuffer(membuffer, scratch_pool),
           serialize_image, deserialize_image,
           sizeof(svn_fs_fs__pair_cache_key_t), prefix, "REVIMAGE",
           SVN_CACHE__MEMBUFFER_LOW_PRIORITY, result_pool,
           scratch_pool));
}

/* Read and parse the manifest of the pack file SHARED into its slot
   (MANIFEST-1, MANIFEST-2). */
static svn_error_t *
read_manifest(slot_file_t *shared, svn_fs_t *fs, apr_pool_t *scratch_pool)
{
  int count = SVN_FS_FS__DATA(fs)->max_files_per_dir;
  const char *path = svn_fs_fs__path_rev_packed(fs, shared->start_revision,
                                                "manifest", scratch_pool);
  svn_stringbuf_t *text;
  apr_off_t *offsets, *flat;

  SVN_ERR(svn_stringbuf_from_file2(&text, path, scratch_pool));
  SVN_ERR(svn_fs_fs__manifest_parse(&offsets, text->data, text->len, count,
                                    shared->file_size, path, scratch_pool));
  flat = apr_palloc(shared->pool, (count + 2) * sizeof(*flat));
  flat[0] = count;
  memcpy(flat + 1, offsets, (count + 1) * sizeof(*flat));
  shared->manifest = flat;
  return SVN_NO_ERROR;
}

svn_error_t *
svn_fs_fs__revfile_manifest(const apr_off_t **offsets, int *count,
                            svn_fs_fs__revfile_t *file,
                            apr_pool_t *scratch_pool)
{
  slot_file_t *shared = shared_of(file);
  svn_cache__t *cache = SVN_FS_FS__DATA(file->fs)->packed_offset_cache;
  svn_fs_fs__pair_cache_key_t key;
  svn_boolean_t found = FALSE;

  SVN_ERR_ASSERT(shared != NULL && shared->is_packed);
  key = svn_fs_fs__pair_cache_key(shared->start_revision, 1);
  if (shared->manifest == NULL && cache)
    SVN_ERR(svn_cache__get((void **)&shared->manifest, &found, cache, &key,
                           shared->pool));
  if (shared->manifest == NULL)
    {
      SVN_ERR(read_manifest(shared, file->fs, scratch_pool));
      if (cache)
        SVN_ERR(svn_cache__set(cache, &key, shared->manifest, scratch_pool));
    }
  *count = (int)shared->manifest[0];
  *offsets = shared->manifest + 1;
  return SVN_NO_ERROR;
}
