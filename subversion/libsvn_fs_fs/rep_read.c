/* rep_read.c --- reconstructing representation fulltexts (rep_read.h).
 *
 * Implements the reading side of doc/format/representations.md (REP-1 ..
 * REP-8); windows are decoded by svndiff.c (doc/format/svndiff.md).
 *
 * Design: a representation and its delta bases form a chain of "sources"
 * (rep_src_t), one per representation, top first.  Each source can hand
 * out a range [offset, offset+len) of its own fulltext:
 *
 *   - a PLAIN source reads the range from its file (or from the bytes
 *     already fetched with its header);
 *   - a MEMORY source serves a fulltext found in the fulltext cache;
 *   - a DELTA source decodes its svndiff windows one at a time into a
 *     sliding output buffer, asking its base source for each window's
 *     source view.
 *
 * A chain of N links decoded that way holds N window buffers (~116 kB
 * each for texts over 100 kB).  So when a window's source view lies
 * inside one window of its base, the reader composes the two instead
 * (delta_compose.h) and continues down the chain; only the composite
 * is run, against the first source that does not line up (window_for()
 * decides: PLAIN and MEMORY sources, small windows, windows without a
 * source view, views that span windows).  Those are decoded as above:
 *
 *   decode_window(top)
 *     -> window_for(base)         the base window holding the view
 *     -> decode_composed()        compose, then compose_down() further
 *          -> src_get(deepest)    bytes of the source that did not line
 *                                 up (may decode_window() in turn)
 *     or decode_direct()          nothing lines up: run the window on
 *                                 src_get(base)
 *
 * A DELTA source thus has one cursor (READ_POS, NEXT_TPOS) shared by its
 * two uses; when its consumer composed with windows it never decoded,
 * the output buffer restarts at the cursor.
 *
 * Writers emit windows whose source views never move backwards (REP-8), so
 * a decoded source only keeps the bytes from the lowest offset its
 * consumer may still ask for; older bytes are dropped when room is needed.
 * Memory per decoded level is thus about one or two windows, whatever the
 * size of the file.  Should a view ever move backwards, the source simply
 * rewinds and decodes again from its start: slow but correct.
 *
 * Only the source that decodes holds its window's stored bytes: the
 * others are waiting for a base, and a window's body is loaded after
 * its base has produced the view (peek_window(), then load_body()), so
 * that a deep chain's input buffers are not all held at once.
 *
 * All buffers of a read live in one pool (the stream's) and are reused
 * from window to window; nothing is allocated per window once they have
 * reached the largest window size.  Small representations are fetched
 * with their header in a single read.
 */
#include <stdlib.h>
#include <string.h>
#include <apr_atomic.h>
#include <apr_md5.h>
#include <apr_sha1.h>

#include "svn_pools.h"
#include "svn_cache_config.h"
#include "svn_checksum.h"
#include "private/svn_cache.h"
#include "private/svn_subr_private.h"

#include "cache_admit.h"
#include "caching.h"
#include "corrupt.h"
#include "id.h"
#include "index.h"
#include "revfile.h"
#include "rep_header.h"
#include "rep_read.h"
#include "svndiff.h"
#include "txn_store.h"

/* Bytes fetched together with a representation header, and the size of
   later refills of the svndiff input buffer. */
#define PREFETCH_SIZE (64 * 1024)

/* A link of a delta chain waits while its base decodes the bytes its
   window reads, and every link above waits too: each held its input
   buffer meanwhile, a window's stored bytes or a 64 kB prefetch.  For a
   binary file deltified 15 links deep (maven's site image, 230 kB) that
   was 1.4 MB at once, the largest part of a whole-history dump's peak
   RSS above stock's.  So a waiting link keeps at most IDLE_INPUT_MAX
   bytes of buffer (more goes back to the read's spares, for the links
   below to reuse), and a link with a base refills its input with its
   window plus at most BASED_PREFETCH bytes of the windows after it. */
#define IDLE_INPUT_MAX (32 * 1024)
#define BASED_PREFETCH (16 * 1024)

/* Most memory svn_fs_fs__rep_contents allocates ahead of the data. */
#define CONTENTS_CHUNK (4 * 1024 * 1024)

/* Largest fulltext we put into the fulltext cache. */
#define FULLTEXT_CACHE_LIMIT (2 * 1024 * 1024)

/* Fulltexts longer than this are not put into the membuffer but kept,
   one at a time, beside the svn_fs_t (recent_text_t).  A read of a long
   history (dump, verify, log -v --diff) asks for each large text twice:
   as the text of its revision and as the delta base of the next one.
   The membuffer served that too, but every text written into it lands
   on memory the process has not touched yet until the cache is full:
   with 'svnadmin dump -M 1024' of an 800 kB file changed in most of
   3,000 revisions that was 238,000 page faults (~1 GB), and fsfs7 got
   slower with the larger cache than with the default one.  A single
   reused buffer answers the second request without them. */
#define LARGE_FULLTEXT (256 * 1024)

/* Shortest fulltext whose MD5 a read tries to replace by the item
   checksums of its chain (REP-9, prove_text()).  Below it hashing the
   text costs less than the index lookups the proof takes: APR's MD5
   runs at ~0.8 GB/s here, 64 kB in ~80 us. */
#define PROOF_MIN_LEN (64 * 1024)

/* ... and the text must be longer than this many bytes per item the
   proof looks up in a pack file (PROOF_PACKED_ITEM) or in a revision
   file (PROOF_REV_ITEM): the bytes MD5 hashes in the time a lookup
   takes.  A pack file's P2L page lists thousands of items; a lookup
   that finds it in neither the file's memo nor the cache expands it
   (~120 kB, ~100 us).  With a flat 64 kB threshold, proofs of maven's
   texts of 64-300 kB made 'svnadmin dump' of packed maven 10 % slower
   than hashing them (57,000 more page faults). */
#define PROOF_PACKED_ITEM (96 * 1024)
#define PROOF_REV_ITEM (8 * 1024)

/* Texts of this length up to PROOF_MIN_LEN whose node-rev and every
   link lie in revision files of at most SMALL_REV_FILE bytes get a
   proof too: such a file's P2L index lists one small revision's items
   and sits in the file's last block, which opening the file read for
   the footer, so a lookup parses a few dozen entries from memory, a
   fraction of the MD5 of the text (PROOF_SMALL_REV_ITEM).  'svnadmin
   dump -r0:3000' of lc (doc/benchmarks.md) took 6 % less CPU.  A larger
   revision file qualifies as well when its P2L index lies in that last
   block (an import of a thousand files: the index is 18 kB of a 2.6 MB
   file), since its pages are then parsed from memory too: each covers
   a page of the file, a few dozen items.  A link anywhere else (a pack,
   a revision file whose index is not in its last block) abandons the
   attempt before anything is checksummed: there a lookup may cost more
   than the MD5 it saves. */
#define SMALL_REV_PROOF_MIN_LEN (4 * 1024)
#define SMALL_REV_FILE (64 * 1024)
#define PROOF_SMALL_REV_ITEM 512

/* Whether FILE is a revision file whose P2L lookups that rule allows:
   small, or with its P2L index in its last block. */
static svn_boolean_t
small_rev_file(svn_fs_fs__revfile_t *file)
{
  apr_int64_t block = SVN_FS_FS__DATA(file->fs)->block_size;

  if (file->is_packed)
    return FALSE;
  if (file->file_size <= SMALL_REV_FILE)
    return TRUE;
  return file->footer_read && block > 0
         && file->p2l_offset >= (file->file_size - 1) / block * block;
}

/* Texts from this length up that fail that rule (or are shorter than
   PROOF_MIN_LEN) get a thrifty proof when their node-rev is in a pack
   file: each index page it needs must be at hand, in a file's memo or
   in the cache (svn_fs_fs__p2l_entry_peek), where a lookup is a binary
   search, or else be a page of a pack file whose index fits the cache;
   otherwise the text keeps its MD5.  'svnadmin dump -M 1024' of packed
   maven: 16,000 more proofs, 10-13 % less CPU. */
#define THRIFTY_PROOF_MIN_LEN (8 * 1024)

/* Thrifty proofs expand a missing index page only when the expanded
   P2L index of all the repository's pack files, estimated at an eighth
   of their bytes (packed maven: 17 MB for 143 MB), fits in
   1/THRIFTY_INDEX_SHARE of the cache: then the pages stay, and one
   expansion (~100 us, the MD5 of ~80 kB) answers the lookups of the
   proofs of ~90 revisions.  In a cache too small for them proofs
   expanded pages that pushed out the fulltexts a dump reuses as delta
   bases: packed maven with the default 16 MB cache, 3,167 expansions
   for 16,600 proofs, 16 % more CPU than the MD5s. */
#define THRIFTY_INDEX_SHARE 4

/* Longest delta chain we follow before calling the data corrupt (REP-6).
   Reading recurses once per link, so this also bounds the stack (a few
   hundred bytes per link); real chains are a few dozen links at most. */
#define MAX_CHAIN_LENGTH 4096

#ifndef MIN
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#endif

typedef enum src_kind_t { SRC_PLAIN, SRC_DELTA, SRC_MEMORY } src_kind_t;

typedef struct reader_t reader_t;
typedef struct rep_src_t rep_src_t;

/* One representation of a delta chain. */
struct rep_src_t
{
  src_kind_t kind;
  reader_t *reader;

  /* Where the representation lives; TXN_ID is set for the top of a
     chain whose rep lives in a transaction's proto-revision file (its
     REVISION is then SVN_INVALID_REVNUM). */
  svn_revnum_t revision;
  apr_uint64_t item_index;
  const svn_fs_fs__txn_id_t *txn_id;
  svn_fs_fs__revfile_t *file;
  apr_off_t data_start;         /* absolute offset of the first data byte */
  svn_filesize_t data_len;      /* REP-3: stored length without header */
  svn_fs_fs__rep_header_t header;

  /* REP-9: the modified FNV-1a (P2L-7) of the whole item -- header, data
     and trailer, ITEM_LEN bytes at ITEM_OFFSET -- when the reader tries
     a proof and the prefetch held all of it (FNV_VALID).  A longer item
     has ITEM_LEN and ITEM_OFFSET set but no FNV yet: prove_text() reads
     it once more for one when that costs less than the MD5. */
  svn_boolean_t fnv_valid;
  apr_uint32_t fnv;
  apr_off_t item_offset;
  apr_off_t item_len;

  /* SRC_MEMORY: the whole fulltext. */
  const char *text;
  apr_size_t text_len;

  /* Input window: bytes [IN_POS, IN_POS + IN_LEN) of the data (relative
     to DATA_START; may extend into the trailer).  IN points either into
     the prefetch buffer or into OWN_IN (capacity OWN_IN_CAP). */
  const char *in;
  svn_filesize_t in_pos;
  apr_size_t in_len;
  char *own_in;
  apr_size_t own_in_cap;

  /* SRC_DELTA: svndiff version and next unparsed data byte. */
  int version;
  svn_filesize_t read_pos;
  svn_boolean_t at_end;
  rep_src_t *base;              /* NULL: the empty text */

  /* Decoded fulltext bytes [OUT_POS, OUT_POS + OUT_LEN) (SRC_DELTA), or
     the last range read from disk (SRC_PLAIN).  KEEP_POS is the lowest
     offset the consumer may still request. */
  char *out;
  apr_size_t out_cap, out_len;
  svn_filesize_t out_pos;
  svn_filesize_t keep_pos;

  /* Set when the buffers were handed back to the reader (release_src):
     a later request must decode from the start again. */
  svn_boolean_t released;

  /* SRC_DELTA: first target byte of the window at READ_POS. */
  svn_filesize_t next_tpos;

  /* SRC_DELTA, top of a chain only: the caller's buffer for the window
     decoded next (LEND_CAP bytes; NULL: none), set by src_read() when
     everything decoded so far has been consumed.  A window that fits is
     decoded there instead of into OUT, and LENT is set to its length. */
  char *lend;
  apr_size_t lend_cap;
  apr_size_t lent;

  /* SRC_DELTA: the last window parsed for the consumer to compose with
     (WIN_VALID), which produces target bytes from WIN_TPOS; and the two
     windows decode_window() composes into in turn. */
  svn_fs_fs__dwin_t win;
  svn_boolean_t win_valid;
  svn_filesize_t win_tpos;
  svn_fs_fs__dwin_t comp[2];
};

/* A buffer handed back by a source that no longer needs it. */
typedef struct spare_t
{
  char *data;
  apr_size_t cap;
} spare_t;

/* Header of a heap buffer of a read (take_buffer): the read's buffers
   are linked so that the end of the read frees whatever is left. */
typedef struct heap_block_t
{
  struct heap_block_t *prev, *next;
  apr_size_t cap;
  svn_boolean_t measured;       /* counted in memory_live */
} heap_block_t;

/* svn_fs_fs__rep_read_memory_peak(): whether reads are measured, the
   bytes of measured heap blocks live now and the peak. */
static svn_boolean_t measuring;
static apr_size_t memory_live, memory_peak;

/* svn_fs_fs__rep_md5_proofs(): reads whose MD5 REP-9 made unnecessary. */
static volatile apr_uint32_t md5_proofs;

/* State of one fulltext read. */
struct reader_t
{
  svn_fs_t *fs;
  apr_pool_t *pool;             /* everything of this read lives here */
  apr_pool_t *scratch;          /* cleared after each use */

  /* Section buffers shared by every link: a link decodes a window only
     after its base has finished decoding the source view, so no two
     windows are ever in flight at once. */
  svn_fs_fs__svndiff_buffers_t *bufs;

  /* Output and input buffers of links that are done (spare_t), reused by
     the next link.  Without them every link of a chain kept a buffer of
     its whole text: a 50 kB file 20 links deep held 1 MB until the read
     ended, the largest part of a load's peak RSS. */
  apr_array_header_t *spares;

  /* Every buffer of the read (live or spare), on the heap: a text that
     grows from link to link never fits an older link's buffer, and in
     the pool those stayed until the read ended -- a chain of N links of
     a small text kept about N copies of it (a load's deepest reads). */
  heap_block_t *blocks;
  svn_boolean_t blocks_cleanup;

  /* Files opened by this read, so that chain links in the same rev or
     pack file share one handle. */
  apr_array_header_t *files;

  /* The representation being read (a copy), its chain and our position
     in its fulltext. */
  svn_fs_fs__rep_t rep;
  rep_src_t *top;
  svn_filesize_t pos;

  /* Verification (REP-7); EXPECTED_LEN is -1 when unknown.  Not done for
     texts served from the cache, which were checked before going in. */
  svn_boolean_t verify;
  svn_filesize_t expected_len;

  /* REP-9: whether the sources checksum their items as they are opened
     (TRY_PROOF), and whether the MD5 is computed (CHECK_MD5; off when the
     item checksums proved the text, see prove_text()). */
  svn_boolean_t try_proof;
  svn_boolean_t small_proof;    /* ... under SMALL_REV_PROOF_MIN_LEN's rule */
  svn_boolean_t check_md5;
  apr_md5_ctx_t md5;
  apr_sha1_ctx_t sha1;
  svn_boolean_t check_sha1;
  svn_boolean_t finished;

  /* A read of the chain failed: its sources may be half-way through a
     window (a damaged window is found only after its place in the
     output was taken), so nothing more is read from them. */
  svn_boolean_t failed;

  /* Whether the fulltext may go into the fulltext cache (or, over
     LARGE_FULLTEXT, become the fs's recent text) once read. */
  svn_boolean_t cachable;
  /* Cache the text as soon as it is read; FALSE: only when it is read
     from disk the second time (svn_fs_fs__node_text_stream, HISTORIC). */
  svn_boolean_t cache_at_once;

  /* Copy of the fulltext for the fulltext cache (COLLECT_LEN of room for
     COLLECT_CAP bytes and a NUL, one of R's heap buffers), or NULL; a
     text over LARGE_FULLTEXT is collected into LARGE instead, which
     becomes the fs's recent text when the read is complete
     (start_collecting). */
  char *collect;
  apr_size_t collect_len, collect_cap;
  struct large_text_t *large;
};


/* ------------------------------------------------------------------ */
/* Locations and errors                                                */

/* "r<rev> item <n>" (or "txn <name> item <n>") for messages about SRC. */
static const char *
src_where(const rep_src_t *src)
{
  if (src->txn_id)
    return apr_psprintf(src->reader->scratch, "txn %s item %"
                        APR_UINT64_T_FMT,
                        svn_fs_fs__txn_name(src->txn_id,
                                            src->reader->scratch),
                        src->item_index);
  return apr_psprintf(src->reader->scratch, "r%ld item %" APR_UINT64_T_FMT,
                      src->revision, src->item_index);
}

/* Add the location of SRC to ERR (keeping its code). */
static svn_error_t *
wrap_src_error(svn_error_t *err, const rep_src_t *src)
{
  if (!err)
    return SVN_NO_ERROR;
  return svn_error_quick_wrapf(err, "Error reading representation in r%ld "
                               "(item %" APR_UINT64_T_FMT ")",
                               src->revision, src->item_index);
}

/* The pair cache key of (REV, ITEM). */
static svn_fs_fs__pair_cache_key_t
make_key(svn_revnum_t rev, apr_uint64_t item)
{
  return svn_fs_fs__pair_cache_key(rev, (apr_int64_t)item);
}

/* The file of R holding REV, opened once per read. */
static svn_error_t *
open_file(svn_fs_fs__revfile_t **file, reader_t *r, svn_revnum_t rev)
{
  int i;

  for (i = 0; i < r->files->nelts; i++)
    {
      svn_fs_fs__revfile_t *f = APR_ARRAY_IDX(r->files, i,
                                              svn_fs_fs__revfile_t *);
      if (f->start_revision == rev
          || (f->is_packed && svn_fs_fs__is_packed_rev(r->fs, rev)
              && rev > f->start_revision
              && (SVN_FS_FS__DATA(r->fs)->max_files_per_dir == 0
                  || rev - f->start_revision
                     < SVN_FS_FS__DATA(r->fs)->max_files_per_dir)))
        {
          *file = f;
          return SVN_NO_ERROR;
        }
    }

  SVN_ERR(svn_fs_fs__revfile_open(file, r->fs, rev, r->pool, r->scratch));
  APR_ARRAY_PUSH(r->files, svn_fs_fs__revfile_t *) = *file;
  svn_pool_clear(r->scratch);
  return SVN_NO_ERROR;
}

/* Close every file R opened. */
static svn_error_t *
close_files(reader_t *r)
{
  int i;

  for (i = 0; i < r->files->nelts; i++)
    SVN_ERR(svn_fs_fs__revfile_close(APR_ARRAY_IDX(r->files, i,
                                                   svn_fs_fs__revfile_t *)));
  apr_array_clear(r->files);
  return SVN_NO_ERROR;
}


/* ------------------------------------------------------------------ */
/* Opening the sources of a chain                                      */

/* A SRC_MEMORY source for TEXT. */
static rep_src_t *
memory_src(reader_t *r, svn_revnum_t rev, apr_uint64_t item,
           const char *text, apr_size_t len)
{
  rep_src_t *src = apr_pcalloc(r->pool, sizeof(*src));
  src->kind = SRC_MEMORY;
  src->reader = r;
  src->revision = rev;
  src->item_index = item;
  src->text = text;
  src->text_len = len;
  return src;
}

/* Capacity for a buffer of at least NEED bytes: 1/8 more, in whole pages,
   so that the next link of a chain (usually a slightly longer text) can
   take it over. */
static apr_size_t
spare_capacity(apr_size_t need)
{
  apr_size_t cap = need + need / 8 + 64;

  return (cap + 4095) & ~(apr_size_t)4095;
}

/* Pool cleanup of a reader (BATON): free its heap buffers. */
static apr_status_t
free_blocks(void *baton)
{
  reader_t *r = baton;

  while (r->blocks)
    {
      heap_block_t *b = r->blocks;

      r->blocks = b->next;
      if (b->measured)
        memory_live -= b->cap;
      free(b);
    }
  return APR_SUCCESS;
}

/* Free DATA, a heap buffer of R that nobody uses any more. */
static void
free_buffer(reader_t *r, char *data)
{
  heap_block_t *b = (heap_block_t *)data - 1;

  if (b->prev)
    b->prev->next = b->next;
  else
    r->blocks = b->next;
  if (b->next)
    b->next->prev = b->prev;
  if (b->measured)
    memory_live -= b->cap;
  free(b);
}

/* Fresh heap memory of CAP bytes for R, freed with R's pool. */
static char *
new_buffer(reader_t *r, apr_size_t cap)
{
  heap_block_t *b = svn_fs_fs__heap_alloc(sizeof(*b) + cap);

  if (!r->blocks_cleanup)
    {
      apr_pool_cleanup_register(r->pool, r, free_blocks,
                                apr_pool_cleanup_null);
      r->blocks_cleanup = TRUE;
    }
  b->cap = cap;
  b->measured = measuring;
  if (measuring)
    memory_live += cap;
  b->prev = NULL;
  b->next = r->blocks;
  if (r->blocks)
    r->blocks->prev = b;
  r->blocks = b;
  return (char *)(b + 1);
}

/* A buffer of at least NEED bytes for R: the smallest fitting spare, or
   fresh memory of spare_capacity(NEED).  *CAP is its size.  Spares too
   small for NEED are freed first: the links of a chain ask for growing
   sizes, so they would only wait for the end of the read. */
static char *
take_buffer(reader_t *r, apr_size_t need, apr_size_t *cap)
{
  int i, best = -1;
  spare_t *spares = r->spares ? (spare_t *)r->spares->elts : NULL;
  char *data;

  for (i = 0; spares && i < r->spares->nelts; i++)
    if (spares[i].cap >= need
        && (best < 0 || spares[i].cap < spares[best].cap))
      best = i;
  if (best < 0)
    {
      for (i = 0; spares && i < r->spares->nelts; i++)
        free_buffer(r, spares[i].data);
      if (r->spares)
        apr_array_clear(r->spares);
      *cap = spare_capacity(need);
      return new_buffer(r, *cap);
    }
  data = spares[best].data;
  *cap = spares[best].cap;
  spares[best] = spares[--r->spares->nelts];
  return data;
}

/* Hand DATA (CAP bytes, NULL: nothing) back to R for reuse. */
static void
give_buffer(reader_t *r, char *data, apr_size_t cap)
{
  spare_t *spare;

  if (!data || cap == 0)
    return;
  if (!r->spares)
    r->spares = apr_array_make(r->pool, 8, sizeof(spare_t));
  spare = apr_array_push(r->spares);
  spare->data = data;
  spare->cap = cap;
}

/* Free the decoded windows of SRC. */
static void
free_windows(rep_src_t *src)
{
  svn_fs_fs__dwin_free(&src->win);
  svn_fs_fs__dwin_free(&src->comp[0]);
  svn_fs_fs__dwin_free(&src->comp[1]);
  src->win_valid = FALSE;
}

/* Pool cleanup of a DELTA source (BATON). */
static apr_status_t
free_windows_cleanup(void *baton)
{
  free_windows(baton);
  return APR_SUCCESS;
}

/* SRC will not be asked for bytes again (its consumer has decoded its
   last window): hand its buffers back.  Should it be asked after all
   (a consumer that rewinds), it decodes again from its start. */
static void
release_src(rep_src_t *src)
{
  if (src->kind == SRC_MEMORY || src->released)
    return;
  free_windows(src);
  give_buffer(src->reader, src->out, src->out_cap);
  src->out = NULL;
  src->out_cap = 0;
  src->out_len = 0;
  /* IN always points into OWN_IN (the prefetch or a refill). */
  src->in = NULL;
  src->in_len = 0;
  give_buffer(src->reader, src->own_in, src->own_in_cap);
  src->own_in = NULL;
  src->own_in_cap = 0;
  if (src->kind == SRC_DELTA)
    src->released = TRUE;
}

/* Release every source of the chain from SRC down: their consumer is
   done with them. */
static void
release_chain(rep_src_t *src)
{
  for (; src; src = src->base)
    release_src(src);
}

/* R will not be read again (its text has ended or its stream was
   closed): free its heap memory now rather than with its pool.  A rep
   writer holds its base's reader until the new text ends, and the
   rep-sharing check reads a whole text while the writer's buffers are
   still held; each reader kept 150-200 kB of windows and sections that
   way, the top of a load's heap. */
static void
reader_release(reader_t *r)
{
  /* Every buffer goes to the spares, and all of them to the heap. */
  release_chain(r->top);
  if (r->spares)
    apr_array_clear(r->spares);
  free_blocks(r);
  r->collect = NULL;
  if (r->bufs)
    svn_fs_fs__svndiff_buffers_free(r->bufs);
}

/* REP-3: whether LEN bytes at OFFSET of SRC's data lie inside its file.
   Checked before allocating or reading: a damaged size must not cost
   memory. */
static svn_error_t *
check_in_file(rep_src_t *src, svn_filesize_t offset, apr_size_t len)
{
  if (src->data_start + offset + (apr_off_t)len > src->file->file_size)
    return svn_fs_fs__corrupt("REP-3", src_where(src),
                              "Representation extends beyond the end of "
                              "its file");
  return SVN_NO_ERROR;
}

/* Make sure bytes [SRC->read_pos, SRC->read_pos + NEED) of SRC's data are
   in its input window, reading up to PREFETCH bytes (at least NEED) when
   they are not.  NEED may reach into the trailer (REP-5). */
static svn_error_t *
ensure_input_upto(rep_src_t *src, apr_size_t need, apr_size_t prefetch)
{
  svn_filesize_t limit = src->data_len + SVN_FS_FS__REP_TRAILER_LEN;
  apr_size_t keep, want;

  if (src->read_pos >= src->in_pos
      && src->read_pos + (svn_filesize_t)need
         <= src->in_pos + (svn_filesize_t)src->in_len)
    return SVN_NO_ERROR;

  /* Bytes from READ_POS already in the window can be kept. */
  keep = (src->read_pos >= src->in_pos
          && src->read_pos < src->in_pos + (svn_filesize_t)src->in_len)
       ? (apr_size_t)(src->in_pos + src->in_len - src->read_pos) : 0;
  want = need > prefetch ? need : prefetch;
  if ((svn_filesize_t)want > limit - src->read_pos)
    want = (apr_size_t)(limit - src->read_pos);
  if (want < need)
    return svn_fs_fs__corrupt("REP-3", src_where(src),
                              "Read beyond the end of the representation");
  SVN_ERR(check_in_file(src, src->read_pos, want));

  if (src->own_in_cap < want)
    {
      apr_size_t cap;
      char *fresh = take_buffer(src->reader,
                                src->own_in_cap * 2 > want
                                ? src->own_in_cap * 2 : want, &cap);
      if (keep)
        memcpy(fresh, src->in + (src->read_pos - src->in_pos), keep);
      give_buffer(src->reader, src->own_in, src->own_in_cap);
      src->own_in = fresh;
      src->own_in_cap = cap;
    }
  else if (keep)
    memmove(src->own_in, src->in + (src->read_pos - src->in_pos), keep);

  SVN_ERR(svn_fs_fs__revfile_read(src->own_in + keep, want - keep, src->file,
                                  src->data_start + src->read_pos + keep));
  src->in = src->own_in;
  src->in_pos = src->read_pos;
  src->in_len = want;
  return SVN_NO_ERROR;
}

static svn_error_t *
ensure_input(rep_src_t *src, apr_size_t need)
{
  return svn_error_trace(ensure_input_upto(src, need, PREFETCH_SIZE));
}

/* SRC is about to wait for its base: hand an input buffer larger than
   IDLE_INPUT_MAX back to the read's spares (its bytes are read again
   when SRC's window needs them). */
static void
idle_input(rep_src_t *src)
{
  if (src->own_in_cap <= IDLE_INPUT_MAX)
    return;
  give_buffer(src->reader, src->own_in, src->own_in_cap);
  src->own_in = NULL;
  src->own_in_cap = 0;
  src->in = NULL;
  src->in_len = 0;
}

/* Open the proto-revision file of TXN_ID for R (a private handle: the
   file grows, so it is never shared or cached) and locate ITEM in it. */
static svn_error_t *
open_txn_item(svn_fs_fs__revfile_t **file, apr_off_t *offset, reader_t *r,
              const svn_fs_fs__txn_id_t *txn_id, apr_uint64_t item)
{
  SVN_ERR(svn_fs_fs__txn_item_offset(offset, r->fs, txn_id, item,
                                     r->scratch));
  SVN_ERR(svn_fs_fs__revfile_open_path(
            file, r->fs, svn_fs_fs__txn_protorev_path(r->fs, txn_id,
                                                      r->scratch),
            r->pool));
  APR_ARRAY_PUSH(r->files, svn_fs_fs__revfile_t *) = *file;
  return SVN_NO_ERROR;
}

/* Read up to MAX_LEN bytes at OFFSET of SRC's file (fewer at its end)
   into SRC's input buffer, NUL-terminated, for the header and the first
   data; *LEN gets the count.  The buffer is one of the read's heap
   buffers, so that a link that is done hands it to the next one. */
static svn_error_t *
prefetch(apr_size_t *len, rep_src_t *src, apr_off_t offset,
         apr_size_t max_len)
{
  SVN_ERR(svn_fs_fs__revfile_available(len, src->file, offset, max_len));
  src->own_in = take_buffer(src->reader, *len + 1, &src->own_in_cap);
  SVN_ERR(svn_fs_fs__revfile_read(src->own_in, *len, src->file, offset));
  src->own_in[*len] = '\0';
  return SVN_NO_ERROR;
}

/* REP-9: note where SRC's whole item (header, data, trailer) lies, at
   OFFSET, and if the LEN bytes prefetched there into SRC's input buffer
   hold all of it, its modified FNV-1a for prove_text().  An item that
   did not fit is left for prove_text() to weigh (item_fnv_later()). */
static void
note_item_fnv(rep_src_t *src, apr_off_t offset, apr_size_t len)
{
  svn_filesize_t item_len = (svn_filesize_t)src->header.header_size
                            + src->data_len + SVN_FS_FS__REP_TRAILER_LEN;

  src->item_offset = offset;
  src->item_len = (apr_off_t)item_len;
  if (item_len > (svn_filesize_t)len)
    return;
  src->fnv = svn__fnv1a_32x4(src->own_in, (apr_size_t)item_len);
  src->fnv_valid = TRUE;
}

/* Open the representation (REV, ITEM) -- or item ITEM of transaction
   TXN_ID when that is not NULL -- whose data is SIZE bytes long: read
   its header (REP-1 .. REP-4) together with up to PREFETCH_SIZE bytes of
   data, and for deltas the svndiff header (SVNDIFF-1). */
static svn_error_t *
src_open(rep_src_t **result, reader_t *r, svn_revnum_t rev,
         apr_uint64_t item, const svn_fs_fs__txn_id_t *txn_id,
         svn_filesize_t size)
{
  rep_src_t *src = apr_pcalloc(r->pool, sizeof(*src));
  apr_off_t offset;
  const char *data;
  apr_size_t len, max_len = SVN_FS_FS__REP_HEADER_MAX + PREFETCH_SIZE;
  svn_error_t *err;

  src->reader = r;
  src->revision = rev;
  src->item_index = item;
  src->txn_id = txn_id;
  src->data_len = size;
  /* REP-3: sizes come from disk; reject before doing arithmetic on them
     (DATA_LEN + trailer must not overflow; the file bound is checked on
     every read). */
  if (size < 0)
    return svn_fs_fs__corrupt("REP-3", src_where(src),
                              "Negative representation length");
  if (size > APR_INT64_MAX / 2)
    return svn_fs_fs__corrupt("REP-3", src_where(src),
                              "Representation length %" SVN_FILESIZE_T_FMT
                              " is impossible", size);
  if (size + SVN_FS_FS__REP_TRAILER_LEN < PREFETCH_SIZE)
    max_len = SVN_FS_FS__REP_HEADER_MAX + (apr_size_t)size
            + SVN_FS_FS__REP_TRAILER_LEN;

  if (txn_id)
    SVN_ERR(open_txn_item(&src->file, &offset, r, txn_id, item));
  else
    {
      SVN_ERR(open_file(&src->file, r, rev));
      SVN_ERR(svn_fs_fs__item_offset(&offset, r->fs, src->file, rev, item,
                                     r->scratch));
    }
  SVN_ERR(prefetch(&len, src, offset, max_len));
  data = src->own_in;
  svn_pool_clear(r->scratch);
  /* The location is formatted only for the error: this runs per link. */
  err = svn_fs_fs__rep_header_parse(&src->header, data, len, NULL);
  if (err)
    {
      svn_error_clear(err);
      err = svn_fs_fs__rep_header_parse(&src->header, data, len,
                                        src_where(src));
    }
  /* Like stock, name the representation in an error of its own above
     the detail (svnadmin verify prints both; upstream's tests count). */
  if (err)
    return svn_error_createf(SVN_ERR_FS_CORRUPT, err,
                             "Corrupt representation '%ld %" APR_UINT64_T_FMT
                             " %" SVN_FILESIZE_T_FMT "'", rev, item, size);

  src->data_start = offset + src->header.header_size;
  if (r->try_proof && !txn_id && r->small_proof
      && !small_rev_file(src->file))
    r->try_proof = FALSE;
  if (r->try_proof && !txn_id)
    note_item_fnv(src, offset, len);
  src->in = data + src->header.header_size;
  src->in_len = len - src->header.header_size;
  src->kind = src->header.kind == svn_fs_fs__rep_plain ? SRC_PLAIN
                                                       : SRC_DELTA;
  if (src->kind == SRC_DELTA)
    {
      apr_size_t head = size < SVN_FS_FS__SVNDIFF_HEADER_LEN
                      ? (apr_size_t)size : SVN_FS_FS__SVNDIFF_HEADER_LEN;
      SVN_ERR(ensure_input(src, head));
      SVN_ERR(wrap_src_error(svn_fs_fs__svndiff_parse_header(
                               &src->version, src->in, head), src));
      src->read_pos = SVN_FS_FS__SVNDIFF_HEADER_LEN;
      if (!r->bufs)
        r->bufs = svn_fs_fs__svndiff_buffers_create(r->pool);
      apr_pool_cleanup_register(r->pool, src, free_windows_cleanup,
                                apr_pool_cleanup_null);
    }
  *result = src;
  return SVN_NO_ERROR;
}

/* Capacity for a buffer of LEN bytes that lives for one read.  Texts
   grow a little from revision to revision; buffers of exactly their size
   never fit the memory the allocator got back from the previous read, so
   each read mapped fresh pages from the kernel and faulted them in
   (profile of 'svnadmin dump -M 1024' of a long history).  Whole steps
   of BUFFER_STEP let one read reuse the last one's memory. */
#define BUFFER_STEP (64 * 1024)

static apr_size_t
buffer_capacity(apr_size_t len)
{
  return len < BUFFER_STEP ? len
                           : (len / BUFFER_STEP + 1) * BUFFER_STEP;
}

/* svn_cache__partial_getter_func_t copying a cached fulltext (DATA holds
   the text and its NUL) into a stringbuf of buffer_capacity(). */
static svn_error_t *
copy_cached_fulltext(void **out, const void *data, apr_size_t data_len,
                     void *baton, apr_pool_t *result_pool)
{
  apr_size_t len = data_len ? data_len - 1 : 0;
  svn_stringbuf_t *text = svn_stringbuf_create_ensure(buffer_capacity(len),
                                                      result_pool);

  memcpy(text->data, data, len);
  text->data[len] = '\0';
  text->len = len;
  *out = text;
  return SVN_NO_ERROR;
}

/* A verified large fulltext (LARGE_FULLTEXT) of representation
   (REVISION, ITEM), on the heap and shared by reference: the fs's recent
   text holds one reference, and every read that uses it as its text or
   as a delta base holds another until the read's pool goes.  A dump
   of a long history reads each large text as the base of the next one
   while collecting that one: with copies (the reader's, the collected
   one, the recent one, and the old recent buffers left in the pools)
   that was ~4 texts at once, 2.5 MB above stock's peak on an 800 kB
   file; shared, it is the recent text and the one being collected. */
typedef struct large_text_t
{
  int refs;
  svn_revnum_t revision;
  apr_uint64_t item;
  apr_size_t len, cap;
} large_text_t;

/* svn_fs_fs__rep_large_texts_live() */
static volatile apr_uint32_t large_texts_live;

/* The bytes of T (CAP of them, plus room for a NUL). */
#define LARGE_DATA(t) ((char *)((t) + 1))

/* The last large text nobody referenced any more, kept for the next
   one (large_text_create), if its room is at most SPARE_LARGE_MAX.
   Left to malloc, each large text of a long history's dump came from
   wherever glibc put it: with its mmap threshold raised by an earlier
   free, from the heap the previous one had left; otherwise from fresh
   mmap()ed pages, faulted in as the text was copied.  Which one it was
   hung on unrelated allocations: loading libdeflate earlier made
   'svnadmin dump -r0:3000' of lc take 190,510 page faults instead of
   18,023, and 1.35 s of CPU instead of 0.84.  One buffer per process,
   whatever the threads: it is only the memory the last text used, and
   only while large texts keep coming: after SPARE_LARGE_READS reads of
   other texts the spare is freed (drop_stale_spare).  Kept for good, a
   dump of packed maven (10 large texts among 73,000) carried the last
   one to the end: 3 MB more peak RSS. */
static large_text_t *spare_large;
#define SPARE_LARGE_MAX (16 * 1024 * 1024)
#define SPARE_LARGE_READS 256

/* Reads begun since the spare was parked (a hint: threads add to it
   without ordering). */
static volatile apr_uint32_t reads_since_park;

/* svn_fs_fs__rep_large_reuses() */
static volatile apr_uint32_t large_reuses;

/* Bytes mapped for a large text of capacity CAP: its header, its bytes
   and a NUL (svn_fs_fs__pages_alloc: not from malloc, see there). */
#define LARGE_BYTES(cap) (sizeof(large_text_t) + (cap) + 1)

/* Unmap T (NULL: nothing). */
static void
large_text_free(large_text_t *t)
{
  if (t)
    svn_fs_fs__pages_free(t, LARGE_BYTES(t->cap));
}

/* A large text with room for at least CAP bytes and one reference. */
static large_text_t *
large_text_create(apr_size_t cap)
{
  large_text_t *t = __atomic_exchange_n(&spare_large, NULL,
                                        __ATOMIC_ACQ_REL);

  /* Only a spare of about the size asked for: a larger one would keep
     the memory of an earlier, larger text alive in a smaller one. */
  if (t && (t->cap < cap || t->cap > buffer_capacity(cap + cap / 4)))
    {
      large_text_free(t);
      t = NULL;
    }
  if (t)
    apr_atomic_inc32(&large_reuses);
  else
    {
      /* Room in whole BUFFER_STEPs: the next, slightly longer, text of
         the same file fits the spare this one becomes. */
      cap = buffer_capacity(cap);
      t = svn_fs_fs__pages_alloc(LARGE_BYTES(cap));
      t->cap = cap;
    }
  apr_atomic_inc32(&large_texts_live);
  t->refs = 1;
  t->revision = SVN_INVALID_REVNUM;
  t->item = 0;
  t->len = 0;
  return t;
}

/* Drop a reference to T (NULL: none); the last one makes T the spare
   (or frees it). */
static void
large_text_release(large_text_t *t)
{
  if (t && --t->refs == 0)
    {
      apr_atomic_dec32(&large_texts_live);
      if (t->cap <= SPARE_LARGE_MAX)
        {
          apr_atomic_set32(&reads_since_park, 0);
          t = __atomic_exchange_n(&spare_large, t, __ATOMIC_ACQ_REL);
        }
      large_text_free(t);
    }
}

/* A read begins: free the spare if SPARE_LARGE_READS reads began since
   it was parked and none took it.  Reads only count while a spare is
   parked (the counter starts anew then), so that threads reading no
   large texts do not all write one counter. */
static void
drop_stale_spare(void)
{
  if (__atomic_load_n(&spare_large, __ATOMIC_RELAXED) != NULL
      && apr_atomic_inc32(&reads_since_park) + 1 == SPARE_LARGE_READS)
    large_text_free(__atomic_exchange_n(&spare_large, NULL,
                                        __ATOMIC_ACQ_REL));
}

apr_uint32_t
svn_fs_fs__rep_large_texts_live(void)
{
  return apr_atomic_read32(&large_texts_live);
}

apr_uint32_t
svn_fs_fs__rep_large_reuses(void)
{
  return apr_atomic_read32(&large_reuses);
}

/* Pool cleanup dropping the reference BATON (a large_text_t). */
static apr_status_t
release_large_text(void *baton)
{
  large_text_release(baton);
  return APR_SUCCESS;
}

/* The fs's most recent large text, or NULL; in fs->pool. */
typedef struct recent_text_t
{
  large_text_t *text;

  /* Reads begun since TEXT was installed or last matched. */
  apr_uint32_t reads_since_use;
} recent_text_t;

/* A recent text not asked for by this many reads in a row is let go
   (drop_stale_recent).  Kept until the next large text replaced it, the
   last large text of a dump of packed full maven (10 large texts among
   73,000) stayed resident to the end, 0.4 MB of its peak RSS; a long
   history's large file, edited every few revisions, comes back well
   within this many reads. */
#define STALE_RECENT_READS 256

/* Pool cleanup of a place that may hold a reference (BATON, a
   large_text_t **: the fs's recent text, a reader's collected one):
   drop it and empty the place. */
static apr_status_t
release_slot(void *baton)
{
  large_text_t **slot = baton;

  large_text_release(*slot);
  *slot = NULL;
  return APR_SUCCESS;
}

/* FS's recent_text_t, created on first use. */
static recent_text_t *
recent_text_of(svn_fs_t *fs)
{
  svn_fs_fs__data_t *ffd = SVN_FS_FS__DATA(fs);

  if (ffd->recent_text == NULL)
    {
      recent_text_t *recent = apr_pcalloc(fs->pool, sizeof(*recent));

      apr_pool_cleanup_register(fs->pool, &recent->text, release_slot,
                                apr_pool_cleanup_null);
      ffd->recent_text = recent;
    }
  return ffd->recent_text;
}

/* Make T (whose reference the caller hands over), the verified text of
   (REV, ITEM), FS's recent text. */
static void
install_large_text(svn_fs_t *fs, svn_revnum_t rev, apr_uint64_t item,
                   large_text_t *t)
{
  recent_text_t *recent = recent_text_of(fs);

  t->revision = rev;
  t->item = item;
  large_text_release(recent->text);
  recent->text = t;
  recent->reads_since_use = 0;
}

/* A read of FS begins: let its recent text go if STALE_RECENT_READS
   reads began since it was last asked for. */
static void
drop_stale_recent(svn_fs_t *fs)
{
  recent_text_t *recent = SVN_FS_FS__DATA(fs)->recent_text;

  if (recent && recent->text
      && ++recent->reads_since_use >= STALE_RECENT_READS)
    {
      large_text_release(recent->text);
      recent->text = NULL;
    }
}

/* Make a copy of TEXT, the verified fulltext of (REV, ITEM), FS's recent
   text, in the recent buffer itself when nobody else reads from it and
   it is large enough. */
static void
remember_large_text(svn_fs_t *fs, svn_revnum_t rev, apr_uint64_t item,
                    const svn_stringbuf_t *text)
{
  recent_text_t *recent = recent_text_of(fs);
  large_text_t *t = recent->text;

  if (t && t->refs == 1 && t->cap >= text->len)
    t->refs++;        /* install_large_text drops the slot's reference */
  else
    t = large_text_create(text->len);
  memcpy(LARGE_DATA(t), text->data, text->len);
  t->len = text->len;
  install_large_text(fs, rev, item, t);
}

/* The recent text of FS if it is (REV, ITEM), else NULL. */
static large_text_t *
recent_match(svn_fs_t *fs, svn_revnum_t rev, apr_uint64_t item)
{
  recent_text_t *recent = SVN_FS_FS__DATA(fs)->recent_text;

  if (recent && recent->text && recent->text->revision == rev
      && recent->text->item == item)
    {
      recent->reads_since_use = 0;
      return recent->text;
    }
  return NULL;
}

/* Look (REV, ITEM) up in the fulltext cache; *TEXT is NULL on a miss.
   The text is a copy in RESULT_POOL. */
static svn_error_t *
cached_fulltext(svn_stringbuf_t **text, svn_fs_t *fs, svn_revnum_t rev,
                apr_uint64_t item, apr_pool_t *result_pool)
{
  svn_fs_fs__data_t *ffd = SVN_FS_FS__DATA(fs);
  svn_cache__t *cache = ffd->fulltext_cache;
  svn_fs_fs__pair_cache_key_t key = make_key(rev, item);
  svn_boolean_t found = FALSE;
  large_text_t *recent = recent_match(fs, rev, item);

  *text = NULL;
  if (recent)
    return svn_error_trace(copy_cached_fulltext((void **)text,
                                                LARGE_DATA(recent),
                                                recent->len + 1, NULL,
                                                result_pool));
  /* A text this process never stored is not asked for (cache_admit.h):
     an export of HEAD looks up every link's base and stores none. */
  if (cache)
    SVN_ERR(svn_fs_fs__admit_get_partial((void **)text, &found, cache,
                                         ffd->admit_salt,
                                         svn_fs_fs__admit_text, &key,
                                         sizeof(key), copy_cached_fulltext,
                                         NULL, result_pool));
  if (!found && ffd->fulltext_long_cache)
    SVN_ERR(svn_fs_fs__admit_get_partial((void **)text, &found,
                                         ffd->fulltext_long_cache,
                                         ffd->admit_salt,
                                         svn_fs_fs__admit_text, &key,
                                         sizeof(key), copy_cached_fulltext,
                                         NULL, result_pool));
  if (!found)
    *text = NULL;
  return SVN_NO_ERROR;
}

/* A SRC_MEMORY source for R of the cached fulltext of (REV, ITEM), or
   NULL on a miss.  The fs's recent text is used in place, with a
   reference held until R's pool goes (a later read may replace the
   recent text meanwhile: two streams of one fs open at once); a
   membuffer text is copied into R's pool. */
static svn_error_t *
cached_src(rep_src_t **src, reader_t *r, svn_revnum_t rev,
           apr_uint64_t item)
{
  large_text_t *recent = recent_match(r->fs, rev, item);
  svn_stringbuf_t *copy;

  *src = NULL;
  if (recent)
    {
      recent->refs++;
      apr_pool_cleanup_register(r->pool, recent, release_large_text,
                                apr_pool_cleanup_null);
      *src = memory_src(r, rev, item, LARGE_DATA(recent), recent->len);
      return SVN_NO_ERROR;
    }
  SVN_ERR(cached_fulltext(&copy, r->fs, rev, item, r->pool));
  if (copy)
    *src = memory_src(r, rev, item, copy->data, copy->len);
  return SVN_NO_ERROR;
}

/* REP-6: may SRC, the rep (REV, ITEM), have its header's delta base?
   Bases are older: an earlier revision, or an earlier item (lower index
   or offset: it was written first) of the same one, so a chain can never
   come back to a link it has passed.  A rep in a transaction may only
   use committed bases. */
static svn_error_t *
check_base(const rep_src_t *src, svn_revnum_t rev, apr_uint64_t item,
           int depth)
{
  svn_revnum_t base_rev = src->header.base_revision;
  apr_uint64_t base_item = src->header.base_item_index;
  svn_boolean_t bad;

  if (src->txn_id)
    bad = !SVN_IS_VALID_REVNUM(base_rev);
  else
    bad = base_rev > rev || (base_rev == rev && base_item >= item);
  if (bad || depth >= MAX_CHAIN_LENGTH)
    return svn_fs_fs__corrupt("REP-6", src_where(src),
                              "Delta base r%ld item %" APR_UINT64_T_FMT
                              " cannot be the base of this representation",
                              base_rev, base_item);
  return SVN_NO_ERROR;
}

/* Open the chain of R's representation (REV, ITEM, SIZE; in transaction
   TXN_ID if not NULL) into *TOP, following delta bases until a PLAIN,
   self-delta or cached one. */
static svn_error_t *
open_chain(rep_src_t **top, reader_t *r, svn_revnum_t rev,
           apr_uint64_t item, const svn_fs_fs__txn_id_t *txn_id,
           svn_filesize_t size)
{
  rep_src_t **slot = top;
  int depth;

  for (depth = 0; ; depth++)
    {
      rep_src_t *src;

      if (depth > 0)
        {
          SVN_ERR(cached_src(slot, r, rev, item));
          if (*slot)
            return SVN_NO_ERROR;
        }

      SVN_ERR(src_open(&src, r, rev, item, depth ? NULL : txn_id, size));
      *slot = src;
      if (src->header.kind != svn_fs_fs__rep_delta)
        return SVN_NO_ERROR;
      SVN_ERR(check_base(src, rev, item, depth));
      /* SRC will wait for the base opened next: its prefetch buffer can
         serve that one's. */
      idle_input(src);
      rev = src->header.base_revision;
      item = src->header.base_item_index;
      size = src->header.base_length;
      slot = &src->base;
    }
}


/* ------------------------------------------------------------------ */
/* Decoding                                                            */

/* Make room for N more bytes at the end of SRC's output buffer, dropping
   bytes below SRC->keep_pos first. */
static void
make_room(rep_src_t *src, apr_size_t n)
{
  if (src->keep_pos > src->out_pos)
    {
      apr_size_t drop = src->keep_pos - src->out_pos
                        < (svn_filesize_t)src->out_len
                      ? (apr_size_t)(src->keep_pos - src->out_pos)
                      : src->out_len;
      if (drop < src->out_len)
        memmove(src->out, src->out + drop, src->out_len - drop);
      src->out_len -= drop;
      src->out_pos += drop;
    }
  if (src->out_len + n > src->out_cap || src->out == NULL)
    {
      apr_size_t cap;
      char *fresh = take_buffer(src->reader,
                                src->out_cap * 2 > src->out_len + n
                                ? src->out_cap * 2 : src->out_len + n,
                                &cap);
      if (src->out_len)
        memcpy(fresh, src->out, src->out_len);
      give_buffer(src->reader, src->out, src->out_cap);
      src->out = fresh;
      src->out_cap = cap;
    }
}

static svn_error_t *
src_get(const char **data, rep_src_t *src, svn_filesize_t offset,
        apr_size_t len);

/* Check the trailer that must follow SRC's data (REP-5). */
static svn_error_t *
check_trailer(rep_src_t *src)
{
  svn_filesize_t saved = src->read_pos;

  src->read_pos = src->data_len;
  SVN_ERR(ensure_input(src, SVN_FS_FS__REP_TRAILER_LEN));
  src->read_pos = saved;
  if (memcmp(src->in + (src->data_len - src->in_pos), SVN_FS_FS__REP_TRAILER,
             SVN_FS_FS__REP_TRAILER_LEN) != 0)
    return svn_fs_fs__corrupt("REP-5", src_where(src),
                              "Representation data is not followed by "
                              "'ENDREP'");
  return SVN_NO_ERROR;
}

/* Parse the next window header of DELTA source SRC into *W; *TOTAL is
   the window's stored size.  The header is read from the input buffer
   if it is there, else on its own: the body is loaded later
   (load_body()), after SRC's base has decoded what the window needs. */
static svn_error_t *
peek_window(svn_fs_fs__svndiff_window_t *w, apr_size_t *total,
            rep_src_t *src)
{
  svn_boolean_t complete;
  apr_size_t avail = (apr_size_t)(src->data_len - src->read_pos);
  apr_size_t head = MIN(avail, SVN_FS_FS__SVNDIFF_WINDOW_HEADER_MAX);
  char local[SVN_FS_FS__SVNDIFF_WINDOW_HEADER_MAX];
  const char *at;

  if (src->in && src->read_pos >= src->in_pos
      && src->read_pos + (svn_filesize_t)head
         <= src->in_pos + (svn_filesize_t)src->in_len)
    at = src->in + (src->read_pos - src->in_pos);
  else
    {
      SVN_ERR(check_in_file(src, src->read_pos, head));
      SVN_ERR(svn_fs_fs__revfile_read(local, head, src->file,
                                      src->data_start + src->read_pos));
      at = local;
    }
  SVN_ERR(wrap_src_error(svn_fs_fs__svndiff_parse_window(w, &complete, at,
                                                         head),
                         src));
  *total = w->header_len + w->ins_len + w->new_len;
  if (!complete || *total > avail)
    return svn_fs_fs__corrupt_code(SVN_ERR_SVNDIFF_UNEXPECTED_END,
                                   "SVNDIFF-13", src_where(src),
                                   "Delta window runs past the end of the "
                                   "representation");
  return SVN_NO_ERROR;
}

/* Load the whole window of SRC that peek_window() just parsed (W, TOTAL
   bytes stored) into the input buffer and point *BODY at its sections. */
static svn_error_t *
load_body(const char **body, rep_src_t *src,
          const svn_fs_fs__svndiff_window_t *w, apr_size_t total)
{
  SVN_ERR(ensure_input_upto(src, total, src->base ? BASED_PREFETCH
                                                  : PREFETCH_SIZE));
  *body = src->in + (src->read_pos - src->in_pos) + w->header_len;
  return SVN_NO_ERROR;
}

/* peek_window() and load_body() at once. */
static svn_error_t *
load_window(svn_fs_fs__svndiff_window_t *w, const char **body,
            apr_size_t *total, rep_src_t *src)
{
  SVN_ERR(peek_window(w, total, src));
  return svn_error_trace(load_body(body, src, w, *total));
}

/* Decode the window of DELTA source SRC that load_body() just loaded
   (W, sections at BODY, TOTAL bytes stored) into DW and move SRC past
   it.  SVNDIFF-5: a delta against the empty text has no source view. */
static svn_error_t *
parse_loaded_window(svn_fs_fs__dwin_t *dw, rep_src_t *src,
                    const svn_fs_fs__svndiff_window_t *w, const char *body,
                    apr_size_t total)
{
  svn_fs_fs__svndiff_sections_t sections;

  if (w->sview_len && !src->base)
    return svn_fs_fs__corrupt_code(SVN_ERR_SVNDIFF_CORRUPT_WINDOW,
                                   "SVNDIFF-5", src_where(src),
                                   "Delta against the empty text "
                                   "has a source view");
  SVN_ERR(wrap_src_error(svn_fs_fs__svndiff_decode_sections(
                           &sections, w, src->version,
                           (const unsigned char *)body, src->reader->bufs),
                         src));
  SVN_ERR(wrap_src_error(svn_fs_fs__svndiff_to_dwin(dw, w, &sections), src));
  src->read_pos += total;
  src->next_tpos += w->tview_len;
  return SVN_NO_ERROR;
}

/* Windows of a base smaller than this are decoded rather than composed
   with.  Composing costs per instruction, decoding per byte, and only a
   decoded window holds memory (a buffer of its size at every link of the
   chain): 'svnadmin verify' of full maven, r9000-10000, spends 9 % more
   CPU than decoding when windows of 16 kB and more are composed, 2 % at
   64 kB; both save ~2 MB of peak RSS on that range (doc/benchmarks.md,
   "composing delta windows"). */
#define COMPOSE_MIN_WINDOW (64 * 1024)

/* Set *RESULT to the window of SRC that produces bytes [OFFSET, OFFSET +
   LEN) of its text, parsed into SRC->win (*TPOS: its first target byte),
   for its consumer to compose with.  *RESULT is NULL when SRC is no
   DELTA source, when no single window holds the range, or when the
   range is better served as bytes (already decoded, or behind SRC's
   position: REP-8 lets no writer need that); the consumer then asks
   src_get() for the bytes. */
static svn_error_t *
window_for(const svn_fs_fs__dwin_t **result, svn_filesize_t *tpos,
           rep_src_t *src, svn_filesize_t offset, apr_size_t len)
{
  svn_filesize_t end = offset + (svn_filesize_t)len;

  *result = NULL;
  if (src->kind != SRC_DELTA || src->released)
    return SVN_NO_ERROR;
  if (src->win_valid && offset >= src->win_tpos
      && end <= src->win_tpos + (svn_filesize_t)src->win.tview_len)
    {
      *result = &src->win;
      *tpos = src->win_tpos;
      return SVN_NO_ERROR;
    }
  if ((offset >= src->out_pos
       && end <= src->out_pos + (svn_filesize_t)src->out_len)
      || offset < src->next_tpos)
    return SVN_NO_ERROR;

  while (src->read_pos < src->data_len)
    {
      svn_fs_fs__svndiff_window_t w;
      const char *body;
      apr_size_t total;

      SVN_ERR(peek_window(&w, &total, src));
      if (src->next_tpos + (svn_filesize_t)w.tview_len <= offset)
        {
          /* A window nobody asked for: skip it undecoded. */
          src->read_pos += total;
          src->next_tpos += w.tview_len;
          continue;
        }
      /* Composing pays where decoding would keep a large buffer at
         this link.  A window without source view (the bottom of a
         chain: a compressed fulltext full of target copies) costs more
         to compose than to run; it is decoded once, here. */
      if (w.tview_len < COMPOSE_MIN_WINDOW || w.sview_len == 0)
        return SVN_NO_ERROR;
      src->win_valid = FALSE;
      src->win_tpos = src->next_tpos;
      SVN_ERR(load_body(&body, src, &w, total));
      SVN_ERR(parse_loaded_window(&src->win, src, &w, body, total));
      /* The consumer composes with the window and asks the links below:
         SRC waits now. */
      idle_input(src);
      src->win_valid = TRUE;
      if (end <= src->win_tpos + (svn_filesize_t)w.tview_len)
        {
          *result = &src->win;
          *tpos = src->win_tpos;
        }
      return SVN_NO_ERROR;
    }
  return SVN_NO_ERROR;
}

/* Compose CUR, a window of SRC's text or a composite whose source copies
   read from BELOW, with the windows of the chain from BELOW down as far
   as they line up (window_for()).  *RESULT is the composite (CUR or one
   of SRC->comp), *BASE the source its source copies read from (NULL: it
   has none). */
static svn_error_t *
compose_down(svn_fs_fs__dwin_t **result, rep_src_t **base, rep_src_t *src,
             svn_fs_fs__dwin_t *cur, rep_src_t *below)
{
  while (cur->src_ops && below)
    {
      const svn_fs_fs__dwin_t *bw;
      svn_fs_fs__dwin_t *next = cur == &src->comp[0] ? &src->comp[1]
                                                     : &src->comp[0];
      svn_filesize_t btpos;

      SVN_ERR(window_for(&bw, &btpos, below, cur->sview_offset,
                         cur->sview_len));
      if (!bw || !svn_fs_fs__dwin_compose(next, cur, bw, btpos))
        break;
      /* Writers pair the windows of a delta with those of its base one
         to one (100 kB of source per 100 kB of target), so the next
         window of SRC composes with the next one of BELOW: free this
         one rather than keep a window at every link (1.3 MB for a
         binary file 15 links deep).  Should it be asked for again, the
         link decodes from its start (slow, but right). */
      svn_fs_fs__dwin_free(&below->win);
      below->win_valid = FALSE;
      cur = next;
      below = below->base;
    }
  *result = cur;
  *base = cur->src_ops ? below : NULL;
  return SVN_NO_ERROR;
}

/* Where the next N decoded bytes of SRC go: the buffer its caller lent
   (src_read()) if they fit there, else the end of SRC's output buffer.
   Either way they count as decoded: for a lent buffer, everything before
   them had been consumed, so the output buffer becomes empty after
   them. */
static char *
output_for(rep_src_t *src, apr_size_t n)
{
  char *target;

  if (src->lend && n <= src->lend_cap)
    {
      src->out_pos += (svn_filesize_t)(src->out_len + n);
      src->out_len = 0;
      src->lent = n;
      return src->lend;
    }
  make_room(src, n);
  target = src->out + src->out_len;
  src->out_len += n;
  return target;
}

/* Append the window of SRC that peek_window() just parsed (W, TOTAL
   bytes stored) to SRC's output, reading its source view from SRC's base
   as bytes. */
static svn_error_t *
decode_direct(rep_src_t *src, const svn_fs_fs__svndiff_window_t *w,
              apr_size_t total)
{
  svn_fs_fs__svndiff_sections_t sections;
  const char *source = NULL;
  const char *body;
  char *target;

  /* Before the sections: the base may decode with the shared buffers. */
  if (w->sview_len)
    SVN_ERR(src_get(&source, src->base, w->sview_offset, w->sview_len));
  SVN_ERR(load_body(&body, src, w, total));
  target = output_for(src, w->tview_len);
  SVN_ERR(wrap_src_error(svn_fs_fs__svndiff_decode_sections(
                           &sections, w, src->version,
                           (const unsigned char *)body, src->reader->bufs),
                         src));
  SVN_ERR(wrap_src_error(svn_fs_fs__svndiff_apply(target, w, &sections,
                                                  source),
                         src));
  src->read_pos += total;
  src->next_tpos += w->tview_len;
  return SVN_NO_ERROR;
}

/* Like decode_direct(), but W's source view lies in one window of SRC's
   base (window_for() found it, and hands it out again at once): compose
   W with it and the windows below, and run the composite against the
   deepest source that does not line up. */
static svn_error_t *
decode_composed(rep_src_t *src, const svn_fs_fs__svndiff_window_t *w,
                apr_size_t total)
{
  svn_fs_fs__dwin_t *dw;
  rep_src_t *base;
  const char *source = NULL;
  const char *body;

  SVN_ERR(load_body(&body, src, w, total));
  SVN_ERR(parse_loaded_window(&src->comp[0], src, w, body, total));
  idle_input(src);
  SVN_ERR(compose_down(&dw, &base, src, &src->comp[0], src->base));
  if (base)
    SVN_ERR(src_get(&source, base, dw->sview_offset, dw->sview_len));
  else if (dw->src_ops)
    return svn_fs_fs__corrupt_code(SVN_ERR_SVNDIFF_CORRUPT_WINDOW,
                                   "SVNDIFF-5", src_where(src),
                                   "Delta against the empty text "
                                   "has a source view");

  if (!svn_fs_fs__dwin_apply(output_for(src, dw->tview_len), dw, source))
    return svn_fs_fs__corrupt_code(SVN_ERR_SVNDIFF_INVALID_OPS,
                                   "SVNDIFF-12", src_where(src),
                                   "Invalid delta instruction");
  return SVN_NO_ERROR;
}

/* Measurement: note the memory the read of SRC holds now (its heap
   blocks and the decoded windows of its whole chain). */
static void
measure_memory(rep_src_t *src)
{
  apr_size_t held = memory_live;
  rep_src_t *s;

  if (!measuring)
    return;
  for (s = src->reader->top; s; s = s->base)
    held += svn_fs_fs__dwin_memory(&s->win)
            + svn_fs_fs__dwin_memory(&s->comp[0])
            + svn_fs_fs__dwin_memory(&s->comp[1]);
  if (held > memory_peak)
    memory_peak = held;
}

apr_size_t
svn_fs_fs__rep_read_memory_peak(svn_boolean_t restart)
{
  apr_size_t peak = memory_peak;

  if (restart)
    {
      measuring = TRUE;
      memory_peak = memory_live;
    }
  return peak;
}

apr_size_t
svn_fs_fs__rep_read_memory_live(void)
{
  return memory_live;
}

/* Decode the next window of DELTA source SRC into its output buffer, or
   set SRC->at_end after the last one.  When its source view lies in one
   window of its base (window_for()), the window is composed with that
   one and those below, so that only the deepest source that cannot be
   composed has to hand out bytes. */
static svn_error_t *
decode_window(rep_src_t *src)
{
  svn_fs_fs__svndiff_window_t w;
  const svn_fs_fs__dwin_t *bw = NULL;
  svn_filesize_t btpos = 0;
  apr_size_t total;

  if (src->read_pos >= src->data_len)
    {
      src->at_end = TRUE;
      return svn_error_trace(check_trailer(src));
    }
  /* The consumer composed with windows of ours we never decoded: the
     buffer restarts at the window we decode now. */
  if (src->out_pos + (svn_filesize_t)src->out_len != src->next_tpos)
    {
      src->out_pos = src->next_tpos;
      src->out_len = 0;
    }

  SVN_ERR(peek_window(&w, &total, src));
  if (w.sview_len && !src->base)
    return svn_fs_fs__corrupt_code(SVN_ERR_SVNDIFF_CORRUPT_WINDOW,
                                   "SVNDIFF-5", src_where(src),
                                   "Delta against the empty text "
                                   "has a source view");
  if (w.sview_len)
    {
      idle_input(src);
      SVN_ERR(window_for(&bw, &btpos, src->base, w.sview_offset,
                         w.sview_len));
    }
  if (bw)
    SVN_ERR(decode_composed(src, &w, total));
  else
    SVN_ERR(decode_direct(src, &w, total));
  measure_memory(src);
  /* That was SRC's last window: the chain below will not be asked
     again. */
  if (src->read_pos >= src->data_len)
    release_chain(src->base);
  return SVN_NO_ERROR;
}

/* An error for a source view that SRC's text cannot satisfy. */
static svn_error_t *
view_beyond_end(rep_src_t *src, svn_filesize_t offset, apr_size_t len)
{
  return svn_fs_fs__corrupt_code(SVN_ERR_SVNDIFF_CORRUPT_WINDOW, "SVNDIFF-5",
                                 src_where(src),
                                 "Source view %" SVN_FILESIZE_T_FMT "+%"
                                 APR_SIZE_T_FMT " lies beyond the end of "
                                 "the delta base", offset, len);
}

/* Restart DELTA source SRC from its first window (REP-8 tolerance). */
static void
rewind_src(rep_src_t *src)
{
  src->read_pos = SVN_FS_FS__SVNDIFF_HEADER_LEN;
  src->at_end = FALSE;
  src->out_pos = 0;
  src->out_len = 0;
  src->keep_pos = 0;
  src->released = FALSE;
  src->next_tpos = 0;
}

/* Point *DATA to bytes [OFFSET, OFFSET+LEN) of SRC's fulltext.  Valid
   until the next call for SRC. */
static svn_error_t *
src_get(const char **data, rep_src_t *src, svn_filesize_t offset,
        apr_size_t len)
{
  svn_filesize_t end = offset + (svn_filesize_t)len;

  switch (src->kind)
    {
      case SRC_MEMORY:
        if (end > (svn_filesize_t)src->text_len)
          return view_beyond_end(src, offset, len);
        *data = src->text + offset;
        return SVN_NO_ERROR;

      case SRC_PLAIN:
        if (end > src->data_len)
          return view_beyond_end(src, offset, len);
        if (offset >= src->in_pos
            && end <= src->in_pos + (svn_filesize_t)src->in_len)
          {
            *data = src->in + (offset - src->in_pos);
            return SVN_NO_ERROR;
          }
        make_room(src, len);   /* PLAIN: OUT_LEN stays 0 */
        SVN_ERR(svn_fs_fs__revfile_read(src->out, len, src->file,
                                        src->data_start + offset));
        *data = src->out;
        return SVN_NO_ERROR;

      default:
        if (offset < src->out_pos || src->released)
          rewind_src(src);
        else if (end > src->out_pos + (svn_filesize_t)src->out_len
                 && src->out_pos + (svn_filesize_t)src->out_len
                    != src->next_tpos)
          {
            /* The consumer composed with windows we never decoded. */
            if (offset < src->next_tpos)
              rewind_src(src);
            else
              {
                src->out_pos = src->next_tpos;
                src->out_len = 0;
              }
          }
        src->keep_pos = offset;
        while (src->out_pos + (svn_filesize_t)src->out_len < end)
          {
            if (src->at_end)
              return view_beyond_end(src, offset, len);
            SVN_ERR(decode_window(src));
          }
        *data = src->out + (offset - src->out_pos);
        return SVN_NO_ERROR;
    }
}

/* Copy up to *LEN bytes of TOP's fulltext from POS into BUF; fewer only
   at the end of the text.  *LEN receives the count. */
static svn_error_t *
src_read(char *buf, apr_size_t *len, rep_src_t *top, svn_filesize_t pos)
{
  apr_size_t done = 0;

  if (top->kind == SRC_MEMORY)
    {
      done = pos < (svn_filesize_t)top->text_len
           ? MIN(*len, top->text_len - (apr_size_t)pos) : 0;
      if (done)
        memcpy(buf, top->text + pos, done);
    }
  else if (top->kind == SRC_PLAIN)
    {
      done = pos < top->data_len
           ? (apr_size_t)MIN((svn_filesize_t)*len, top->data_len - pos) : 0;
      if (done >= PREFETCH_SIZE)
        SVN_ERR(svn_fs_fs__revfile_read(buf, done, top->file,
                                        top->data_start + pos));
      else if (done)
        {
          top->read_pos = pos;
          SVN_ERR(ensure_input(top, done));
          memcpy(buf, top->in + (pos - top->in_pos), done);
        }
    }
  else
    while (done < *len)
      {
        svn_filesize_t at = pos + done;
        svn_filesize_t have_end = top->out_pos + top->out_len;
        if (at < have_end)
          {
            apr_size_t n = (apr_size_t)MIN((svn_filesize_t)(*len - done),
                                           have_end - at);
            memcpy(buf + done, top->out + (at - top->out_pos), n);
            done += n;
          }
        else if (top->at_end)
          break;
        else
          {
            /* All decoded bytes are consumed: a window that fits in the
               rest of BUF is decoded straight into it.  A rep writer
               reads its base a window at a time this way, without the
               reader's output buffer (60 kB at a load's peak). */
            svn_error_t *err;

            top->keep_pos = at;
            top->lend = buf + done;
            top->lend_cap = *len - done;
            top->lent = 0;
            err = decode_window(top);
            top->lend = NULL;
            SVN_ERR(err);
            done += top->lent;
          }
      }

  *len = done;
  return SVN_NO_ERROR;
}


/* ------------------------------------------------------------------ */
/* Reading a whole representation                                      */

/* Whether the expanded P2L index of all of FS's pack files would fit in
   its share of the cache (THRIFTY_INDEX_SHARE), judged by FILE, one of
   them; decided once per svn_fs_t (ffd->thrifty_index). */
static svn_boolean_t
index_fits_cache(svn_fs_t *fs, svn_fs_fs__revfile_t *file)
{
  svn_fs_fs__data_t *ffd = SVN_FS_FS__DATA(fs);

  if (ffd->thrifty_index == 0)
    {
      apr_uint64_t packs = ffd->max_files_per_dir > 0
                         ? (apr_uint64_t)(ffd->min_unpacked_rev
                                          / ffd->max_files_per_dir)
                         : 1;
      apr_uint64_t index_bytes = (apr_uint64_t)file->file_size / 8
                                 * (packs ? packs : 1);

      ffd->thrifty_index = index_bytes <= svn_fs_fs__cache_bytes(fs)
                                          / THRIFTY_INDEX_SHARE ? 1 : -1;
    }
  return ffd->thrifty_index > 0;
}

/* Whether a text of SIZE bytes of FS whose node-rev lies in a pack file
   (PACKED) or a revision file is long enough to try a proof:
   PROOF_MIN_LEN; below it, in a revision file, SMALL_REV_PROOF_MIN_LEN
   (the small-file rule; never a thrifty proof there: a P2L page of a
   revision file covers one revision, so it would expand one page per
   link for one text, and 'svnbench null-export' of lc2 took 86 % more
   CPU); in a pack file THRIFTY_PROOF_MIN_LEN unless the index is known
   not to fit the cache (then the thrifty proof would only ever fail,
   after checksumming the items for it). */
static svn_boolean_t
proof_worth_trying(svn_fs_t *fs, svn_boolean_t packed, svn_filesize_t size)
{
  if (size >= PROOF_MIN_LEN)
    return TRUE;
  if (!packed)
    return size >= SMALL_REV_PROOF_MIN_LEN;
  return size >= THRIFTY_PROOF_MIN_LEN
         && SVN_FS_FS__DATA(fs)->thrifty_index >= 0;
}

/* The P2L entry of the item at OFFSET of FILE (REV) for a thrifty
   proof: looked up where its page is at hand, or after expanding the
   page of a pack file whose index fits the cache (index_fits_cache());
   else NULL. */
static svn_error_t *
thrifty_entry(svn_fs_fs__p2l_entry_t **e, reader_t *r,
              svn_fs_fs__revfile_t *file, svn_revnum_t rev,
              apr_off_t offset, apr_pool_t *pool)
{
  svn_boolean_t at_hand;

  SVN_ERR(svn_fs_fs__p2l_entry_peek(e, &at_hand, r->fs, file, rev, offset,
                                    pool, pool));
  if (at_hand || !file->is_packed || !index_fits_cache(r->fs, file))
    return SVN_NO_ERROR;
  return svn_error_trace(svn_fs_fs__p2l_entry_lookup(e, r->fs, file, rev,
                                                     offset, pool, pool));
}

/* The P2L entry at OFFSET of FILE if it is item ITEM of REV, else NULL
   (in POOL); with THRIFTY as thrifty_entry() finds it.  An index that
   cannot be read gives NULL too: its damage is for the reads that need
   the index to tell. */
static svn_fs_fs__p2l_entry_t *
entry_of_item(reader_t *r, svn_fs_fs__revfile_t *file, svn_revnum_t rev,
              apr_uint64_t item, apr_off_t offset, svn_boolean_t thrifty,
              apr_pool_t *pool)
{
  svn_fs_fs__p2l_entry_t *e;
  svn_error_t *err = thrifty
                   ? thrifty_entry(&e, r, file, rev, offset, pool)
                   : svn_fs_fs__p2l_entry_lookup(&e, r->fs, file, rev,
                                                 offset, pool, pool);

  if (err)
    {
      svn_error_clear(err);
      return NULL;
    }
  return e && e->revision == rev && e->item_index == item ? e : NULL;
}

/* Largest node-rev item prove_text() checksums; real ones are a few
   hundred bytes. */
#define NODEREV_PROOF_MAX (64 * 1024)

/* Whether the on-disk item of node-rev OWNER (committed), in FILE, has
   the checksum its P2L entry records; FALSE also when that cannot be
   read. */
static svn_error_t *
owner_agrees(svn_boolean_t *agrees, reader_t *r,
             const svn_fs_fs__id_t *owner, svn_fs_fs__revfile_t *file,
             svn_boolean_t thrifty, apr_pool_t *pool)
{
  svn_revnum_t rev = owner->rev_item.revision;
  apr_uint64_t item = owner->rev_item.number;
  svn_fs_fs__p2l_entry_t *e = NULL;
  apr_off_t offset;
  apr_uint32_t fnv;
  svn_error_t *err;

  *agrees = FALSE;
  err = svn_fs_fs__item_offset(&offset, r->fs, file, rev, item, pool);
  if (!err)
    e = entry_of_item(r, file, rev, item, offset, thrifty, pool);
  if (e && e->type == SVN_FS_FS__ITEM_TYPE_NODEREV
      && e->size <= NODEREV_PROOF_MAX)
    {
      err = svn_fs_fs__item_fnv(&fnv, file, e->offset, e->size, pool);
      *agrees = !err && fnv == e->fnv1_checksum;
    }
  /* An error here is no proof, not a failed read: the MD5 decides. */
  svn_error_clear(err);
  return SVN_NO_ERROR;
}

/* What a P2L lookup in FILE costs, in bytes of MD5 (prove_text()). */
static svn_filesize_t
lookup_cost(svn_fs_fs__revfile_t *file)
{
  if (file->is_packed)
    return PROOF_PACKED_ITEM;
  return small_rev_file(file) ? PROOF_SMALL_REV_ITEM : PROOF_REV_ITEM;
}

/* Bytes of an item re-read for its FNV-1a (item_fnv_later()) that cost
   as much as one byte of the MD5 they replace: the re-read is a copy
   from the page cache and FNV-1a in four lanes, several times faster
   than APR's MD5.  Delta links longer than the prefetch (PREFETCH_SIZE)
   are the rule for a large file edited often; left to the MD5,
   'svnadmin dump -r0:3000' of lc hashed 132 of its 800 kB texts, a
   fifth of the run. */
#define REREAD_PER_MD5_BYTE 2

/* Give SRC its item's FNV-1a if the prefetch did not (note_item_fnv()),
   reading the item once more; FALSE if that read fails (no proof then:
   the MD5 decides, and the read of the text reports the damage). */
static svn_boolean_t
item_fnv_later(rep_src_t *src, apr_pool_t *pool)
{
  svn_error_t *err;

  if (src->fnv_valid)
    return TRUE;
  err = svn_fs_fs__item_fnv(&src->fnv, src->file, src->item_offset,
                            src->item_len, pool);
  if (err)
    {
      svn_error_clear(err);
      return FALSE;
    }
  src->fnv_valid = TRUE;
  return TRUE;
}

/* REP-9: may R, whose chain is open, leave out the MD5 of its text?
   Only when every byte the text is made of is covered by a checksum
   that holds: each link read from disk is an item whose modified
   FNV-1a (noted as it was opened) is the one its P2L entry records,
   each cached link was checked before it went into the cache, and the
   node-rev OWNER, which records the MD5, the length and the reference
   to the text, is such an item too.  Anything short of that -- an item
   larger than its prefetch, an index entry that is missing, damaged or
   different -- is no proof and leaves the verdict to the MD5, as
   before; a proof can thus never refuse a text the MD5 would pass. */
static svn_error_t *
prove_text(svn_boolean_t *proven, reader_t *r, const svn_fs_fs__id_t *owner)
{
  apr_pool_t *pool;
  rep_src_t *src;
  svn_fs_fs__revfile_t *owner_file;
  svn_filesize_t cost, reread = 0;
  svn_boolean_t thrifty;
  svn_error_t *err;

  /* Worth it, and possible at all? */
  *proven = FALSE;
  err = open_file(&owner_file, r, owner->rev_item.revision);
  if (err)
    {
      svn_error_clear(err);     /* no proof: the MD5 decides */
      return SVN_NO_ERROR;
    }
  if (r->small_proof && !small_rev_file(owner_file))
    return SVN_NO_ERROR;
  cost = lookup_cost(owner_file);
  for (src = r->top; src && src->kind != SRC_MEMORY; src = src->base)
    {
      /* A link whose item was never noted (note_item_fnv) has no proof. */
      if (!src->fnv_valid && src->item_len == 0)
        return SVN_NO_ERROR;
      cost += lookup_cost(src->file);
      if (!src->fnv_valid)
        reread += src->item_len / REREAD_PER_MD5_BYTE;
    }
  if (reread > 0 && cost + reread > r->rep.expanded_size)
    return SVN_NO_ERROR;
  thrifty = cost > r->rep.expanded_size
            || (r->rep.expanded_size < PROOF_MIN_LEN && !r->small_proof);

  pool = svn_pool_create(r->pool);
  for (src = r->top; src && src->kind != SRC_MEMORY; src = src->base)
    {
      svn_fs_fs__p2l_entry_t *e = entry_of_item(r, src->file, src->revision,
                                                src->item_index,
                                                src->item_offset, thrifty,
                                                pool);

      if (!e || e->size != src->item_len || !item_fnv_later(src, pool)
          || e->fnv1_checksum != src->fnv)
        break;
    }
  if (!src || src->kind == SRC_MEMORY)
    SVN_ERR(owner_agrees(proven, r, owner, owner_file, thrifty, pool));
  svn_pool_destroy(pool);
  return SVN_NO_ERROR;
}

/* Start reading REP of FS in POOL: use the cached fulltext when there is
   one and LOOKUP_CACHE is set, otherwise open the delta chain and prepare
   verification; FULL_CHECK adds the SHA1 (REP-7).  OWNER, if not NULL,
   is the committed node-rev whose text REP is: then a long text may be
   proved by item checksums instead of its MD5 (REP-9). */
static svn_error_t *
reader_create(reader_t **result, svn_fs_t *fs, const svn_fs_fs__rep_t *rep,
              const svn_fs_fs__id_t *owner, svn_boolean_t lookup_cache,
              svn_boolean_t full_check, apr_pool_t *pool)
{
  reader_t *r = apr_pcalloc(pool, sizeof(*r));
  svn_cache__t *cache = SVN_FS_FS__DATA(fs)->fulltext_cache;

  drop_stale_spare();
  drop_stale_recent(fs);

  r->fs = fs;
  r->pool = pool;
  r->scratch = svn_pool_create(pool);
  r->files = apr_array_make(pool, 4, sizeof(svn_fs_fs__revfile_t *));
  r->rep = *rep;
  r->expected_len = -1;
  r->cache_at_once = TRUE;
  *result = r;

  /* Reps of transactions are read from the proto-revision file, never
     cached: the transaction may be aborted or changed by anyone. */
  if (rep->in_txn)
    {
      lookup_cache = FALSE;
      cache = NULL;
    }
  else if (!SVN_IS_VALID_REVNUM(rep->revision))
    return svn_fs_fs__corrupt("REP-3", NULL, "Representation without "
                              "revision outside a transaction");

  if (lookup_cache)
    {
      SVN_ERR(cached_src(&r->top, r, rep->revision, rep->item_index));
      if (r->top)
        return SVN_NO_ERROR;
    }

  r->try_proof = owner && !full_check && !rep->in_txn
                 && SVN_IS_VALID_REVNUM(svn_fs_fs__id_rev(owner))
                 && svn_fs_fs__use_log_addressing(fs);
  if (r->try_proof)
    {
      svn_boolean_t packed = svn_fs_fs__is_packed_rev(fs,
                                                      svn_fs_fs__id_rev(owner));

      r->try_proof = proof_worth_trying(fs, packed, rep->expanded_size);
      r->small_proof = r->try_proof && !packed
                       && rep->expanded_size < PROOF_MIN_LEN;
    }
  SVN_ERR(open_chain(&r->top, r, rep->revision, rep->item_index,
                     rep->in_txn ? &r->rep.txn_id : NULL, rep->size));
  r->verify = TRUE;
  r->check_md5 = TRUE;
  if (r->try_proof)
    {
      svn_boolean_t proven;

      SVN_ERR(prove_text(&proven, r, owner));
      r->check_md5 = !proven;
    }
  if (r->check_md5)
    apr_md5_init(&r->md5);

  /* REP-7: a zero expanded size means "same as the stored size" for
     PLAIN data; for deltas it is only trustworthy via the checksum. */
  if (rep->expanded_size > 0)
    r->expected_len = rep->expanded_size;
  else if (r->top->kind == SRC_PLAIN)
    r->expected_len = rep->size;

  /* SHA1 costs as much as MD5 again and adds nothing to catching damaged
     data; like the stock module, plain reads leave it out. */
  r->check_sha1 = full_check && rep->has_sha1;
  if (r->check_sha1)
    apr_sha1_init(&r->sha1);

  r->cachable = cache && r->expected_len >= 0
                && r->expected_len <= FULLTEXT_CACHE_LIMIT
                && svn_cache__is_cachable(cache,
                                          (apr_size_t)r->expected_len + 1);
  return SVN_NO_ERROR;
}

/* Let R, which reads in pieces, collect a copy of its fulltext as it
   goes, if that may be cached.  (svn_fs_fs__rep_contents has the whole
   text anyway and caches that.)  The copy is on the heap and goes when
   the read ends: in the caller's pool it stayed until that pool went,
   and a dump's per-node pools held ~1 MB of such copies at its peak. */
static void
start_collecting(reader_t *r)
{
  if (!r->cachable)
    return;
  if (r->expected_len > LARGE_FULLTEXT)
    {
      r->large = large_text_create((apr_size_t)r->expected_len);
      apr_pool_cleanup_register(r->pool, &r->large, release_slot,
                                apr_pool_cleanup_null);
    }
  else
    {
      r->collect_cap = (apr_size_t)r->expected_len;
      r->collect_len = 0;
      r->collect = new_buffer(r, r->collect_cap + 1);
    }
}

/* Compare DIGEST of KIND with the ACTUAL one computed for R. */
static svn_error_t *
check_digest(reader_t *r, svn_checksum_kind_t kind,
             const unsigned char *expected, const unsigned char *actual)
{
  svn_checksum_t *e = svn_checksum_create(kind, r->scratch);
  svn_checksum_t *a = svn_checksum_create(kind, r->scratch);
  apr_size_t size = svn_checksum_size(e);
  svn_error_t *err;

  if (memcmp(expected, actual, size) == 0)
    return SVN_NO_ERROR;
  memcpy((unsigned char *)e->digest, expected, size);
  memcpy((unsigned char *)a->digest, actual, size);
  /* Like the stock module: an SVN_ERR_FS_CORRUPT wrapping the mismatch. */
  err = svn_checksum_mismatch_err(e, a, r->pool,
                                  "Fulltext of representation r%ld item %"
                                  APR_UINT64_T_FMT " does not have the "
                                  "recorded %s checksum (rule REP-7)",
                                  r->rep.revision, r->rep.item_index,
                                  kind == svn_checksum_md5 ? "MD5" : "SHA1");
  return svn_error_create(SVN_ERR_FS_CORRUPT, err, NULL);
}

/* The cache of the large membuffer for R's fulltext, or NULL: only for
   a text read as of the youngest revision (an export, a checkout, a
   GET), which a server is asked for again and again, and only once the
   process has a large membuffer (caching.h).  Whatever its size: kept
   nowhere else, a text over LARGE_FULLTEXT was rebuilt from its delta
   chain by every request (each has its own svn_fs_t), 1.3 s of an
   Apache's CPU per export of a history whose 1 MB ChangeLog gets a few
   lines at its top in most revisions, against stock's 0.3 s with
   SVNInMemoryCacheSize 1048576. */
static svn_cache__t *
long_text_cache(reader_t *r, apr_size_t len)
{
  svn_cache__t *cache = SVN_FS_FS__DATA(r->fs)->fulltext_long_cache;

  if (!cache || r->cache_at_once || len > FULLTEXT_CACHE_LIMIT
      || !svn_cache__is_cachable(cache, len + 1))
    return NULL;
  return cache;
}

/* Offer TEXT, R's verified fulltext, to LONG_CACHE (long_text_cache). */
static svn_error_t *
offer_long(reader_t *r, svn_cache__t *long_cache, svn_stringbuf_t *text)
{
  svn_fs_fs__pair_cache_key_t key = make_key(r->rep.revision,
                                             r->rep.item_index);

  SVN_ERR(svn_fs_fs__admit_store(long_cache,
                                 SVN_FS_FS__DATA(r->fs)->admit_salt,
                                 svn_fs_fs__admit_text, &key, sizeof(key),
                                 FALSE, text, r->scratch));
  svn_pool_clear(r->scratch);
  return SVN_NO_ERROR;
}

/* Put TEXT, the verified fulltext of R's representation, into the
   fulltext cache. */
static svn_error_t *
cache_fulltext(reader_t *r, svn_stringbuf_t *text)
{
  svn_cache__t *cache = SVN_FS_FS__DATA(r->fs)->fulltext_cache;
  svn_cache__t *long_cache = long_text_cache(r, text->len);
  svn_fs_fs__pair_cache_key_t key = make_key(r->rep.revision,
                                             r->rep.item_index);

  if (long_cache)
    SVN_ERR(offer_long(r, long_cache, text));
  if (cache && text->len > LARGE_FULLTEXT)
    remember_large_text(r->fs, r->rep.revision, r->rep.item_index, text);
  else if (cache && !long_cache)
    {
      SVN_ERR(svn_fs_fs__admit_store(cache,
                                     SVN_FS_FS__DATA(r->fs)->admit_salt,
                                     svn_fs_fs__admit_text, &key, sizeof(key),
                                     r->cache_at_once, text, r->scratch));
      svn_pool_clear(r->scratch);
    }
  return SVN_NO_ERROR;
}

/* Offer R's collected large text to LONG_CACHE (long_text_cache). */
static svn_error_t *
long_cache_large(reader_t *r, svn_cache__t *long_cache)
{
  svn_stringbuf_t text;

  LARGE_DATA(r->large)[r->large->len] = '\0';
  text.pool = r->pool;
  text.data = LARGE_DATA(r->large);
  text.len = r->large->len;
  text.blocksize = r->large->cap + 1;
  return svn_error_trace(offer_long(r, long_cache, &text));
}

/* The end of R's text was reached: verify it (REP-5, REP-7), cache it,
   and release the files. */
static svn_error_t *
reader_finish(reader_t *r)
{
  r->finished = TRUE;
  if (r->verify)
    {
      unsigned char digest[APR_SHA1_DIGESTSIZE];

      if (r->top->kind == SRC_PLAIN)
        SVN_ERR(check_trailer(r->top));
      if (r->expected_len >= 0 && r->pos != r->expected_len)
        return svn_fs_fs__corrupt("REP-7", src_where(r->top),
                                  "Representation expands to %"
                                  SVN_FILESIZE_T_FMT " bytes instead of "
                                  "the recorded %" SVN_FILESIZE_T_FMT,
                                  r->pos, r->expected_len);
      if (r->check_md5)
        {
          apr_md5_final(digest, &r->md5);
          SVN_ERR(check_digest(r, svn_checksum_md5, r->rep.md5_digest,
                               digest));
        }
      else
        apr_atomic_inc32(&md5_proofs);
      if (r->check_sha1)
        {
          apr_sha1_final(digest, &r->sha1);
          SVN_ERR(check_digest(r, svn_checksum_sha1, r->rep.sha1_digest,
                               digest));
        }
      if (r->collect && r->collect_len == (apr_size_t)r->pos)
        {
          svn_stringbuf_t text;

          r->collect[r->collect_len] = '\0';
          text.pool = r->pool;
          text.data = r->collect;
          text.len = r->collect_len;
          text.blocksize = r->collect_cap + 1;
          SVN_ERR(cache_fulltext(r, &text));
        }
      if (r->large && r->large->len == (apr_size_t)r->pos)
        {
          svn_cache__t *long_cache = long_text_cache(r, r->large->len);

          if (long_cache)
            SVN_ERR(long_cache_large(r, long_cache));
          install_large_text(r->fs, r->rep.revision, r->rep.item_index,
                             r->large);
          r->large = NULL;
        }
    }
  reader_release(r);
  return svn_error_trace(close_files(r));
}

/* Read up to *LEN bytes of R's fulltext into BUF (fewer only at its end),
   verifying the text once the end is reached. */
static svn_error_t *
reader_read(reader_t *r, char *buf, apr_size_t *len,
            svn_boolean_t collect)
{
  apr_size_t requested = *len;
  svn_error_t *err;

  /* Callers may read on after an error: svn_stream_checksummed2() with
     READ_ALL reads the rest when the stream is closed, also after a
     failed read.  Going on from the broken state read from a buffer
     that was never filled (a crash on damaged data); after a failed
     check, the end of the text would have passed for a good one. */
  if (r->failed)
    return svn_fs_fs__corrupt("REP-7", src_where(r->top),
                              "Representation cannot be read further: "
                              "an earlier read of it failed");
  if (r->finished)
    {
      *len = 0;
      return SVN_NO_ERROR;
    }
  err = src_read(buf, len, r->top, r->pos);
  if (err)
    {
      r->failed = TRUE;
      return svn_error_trace(err);
    }
  if (r->verify)
    {
      if (r->check_md5)
        apr_md5_update(&r->md5, buf, *len);
      if (r->check_sha1)
        apr_sha1_update(&r->sha1, buf, (unsigned int)*len);
    }
  if (r->collect && collect)
    {
      /* Longer than recorded: the read fails its length check anyway. */
      if (r->collect_len + *len > r->collect_cap)
        {
          free_buffer(r, r->collect);
          r->collect = NULL;
        }
      else
        {
          memcpy(r->collect + r->collect_len, buf, *len);
          r->collect_len += *len;
        }
    }
  if (r->large && collect)
    {
      /* Longer than recorded: the read fails its length check anyway. */
      if (r->large->len + *len > r->large->cap)
        {
          large_text_release(r->large);
          r->large = NULL;
        }
      else
        {
          memcpy(LARGE_DATA(r->large) + r->large->len, buf, *len);
          r->large->len += *len;
        }
    }
  r->pos += *len;
  if (*len < requested)
    err = reader_finish(r);
  else if (r->verify && r->pos == r->expected_len)
    {
      /* Callers often stop after the recorded length; check now whether
         that is really the end, so that they still get verified data. */
      char extra;
      apr_size_t n = 1;
      err = src_read(&extra, &n, r->top, r->pos);
      if (!err && n == 0)
        err = reader_finish(r);
    }
  if (err)
    r->failed = TRUE;
  return svn_error_trace(err);
}

static svn_error_t *
stream_read(void *baton, char *buffer, apr_size_t *len)
{
  return svn_error_trace(reader_read(baton, buffer, len, TRUE));
}

static svn_error_t *
stream_close(void *baton)
{
  reader_release(baton);
  return svn_error_trace(close_files(baton));
}

svn_error_t *
svn_fs_fs__node_text_stream(svn_stream_t **contents, svn_fs_t *fs,
                            const svn_fs_fs__rep_t *rep,
                            const svn_fs_fs__id_t *owner,
                            svn_boolean_t historic,
                            apr_pool_t *result_pool)
{
  reader_t *r;

  if (rep == NULL)
    {
      *contents = svn_stream_empty(result_pool);
      return SVN_NO_ERROR;
    }
  SVN_ERR(reader_create(&r, fs, rep, owner, TRUE, FALSE, result_pool));
  r->cache_at_once = historic;
  start_collecting(r);
  *contents = svn_stream_create(r, result_pool);
  svn_stream_set_read2(*contents, stream_read, stream_read);
  svn_stream_set_close(*contents, stream_close);
  return SVN_NO_ERROR;
}

svn_error_t *
svn_fs_fs__rep_contents_stream(svn_stream_t **contents, svn_fs_t *fs,
                               const svn_fs_fs__rep_t *rep,
                               apr_pool_t *result_pool)
{
  return svn_error_trace(svn_fs_fs__node_text_stream(contents, fs, rep, NULL,
                                                     TRUE, result_pool));
}

apr_uint32_t
svn_fs_fs__rep_md5_proofs(void)
{
  return apr_atomic_read32(&md5_proofs);
}

svn_error_t *
svn_fs_fs__rep_contents(svn_stringbuf_t **contents, svn_fs_t *fs,
                        const svn_fs_fs__rep_t *rep, svn_boolean_t lookup,
                        apr_pool_t *result_pool, apr_pool_t *scratch_pool)
{
  apr_pool_t *pool;
  reader_t *r;
  svn_stringbuf_t *text;

  if (rep == NULL)
    {
      *contents = svn_stringbuf_create_empty(result_pool);
      return SVN_NO_ERROR;
    }
  if (lookup && !rep->in_txn && SVN_IS_VALID_REVNUM(rep->revision))
    {
      SVN_ERR(cached_fulltext(contents, fs, rep->revision, rep->item_index,
                              result_pool));
      if (*contents)
        return SVN_NO_ERROR;
    }

  pool = svn_pool_create(scratch_pool);
  /* The cache was consulted above (or need not be). */
  SVN_ERR(reader_create(&r, fs, rep, NULL, FALSE, FALSE, pool));
  /* The recorded length may be damaged: never trust it for more than
     CONTENTS_CHUNK bytes of memory ahead of the data really read. */
  text = svn_stringbuf_create_ensure(
           r->expected_len > 0 ? (apr_size_t)MIN(r->expected_len,
                                                 CONTENTS_CHUNK) : 64,
           result_pool);
  while (!r->finished)
    {
      /* Reading exactly the rest of the recorded length ends the read
         (reader_read checks for the end there). */
      apr_size_t len = r->expected_len > (svn_filesize_t)text->len
                     ? (apr_size_t)MIN(r->expected_len - text->len,
                                       CONTENTS_CHUNK)
                     : PREFETCH_SIZE;
      svn_stringbuf_ensure(text, text->len + len);
      SVN_ERR(reader_read(r, text->data + text->len, &len, FALSE));
      text->len += len;
    }
  text->data[text->len] = '\0';
  if (r->cachable)   /* TEXT itself is the copy to cache */
    SVN_ERR(cache_fulltext(r, text));
  svn_pool_destroy(pool);
  *contents = text;
  return SVN_NO_ERROR;
}


svn_error_t *
svn_fs_fs__rep_verify(svn_fs_t *fs, const svn_fs_fs__rep_t *rep,
                      svn_cancel_func_t cancel_func, void *cancel_baton,
                      apr_pool_t *scratch_pool)
{
  apr_pool_t *pool;
  reader_t *r;
  char *buf;

  if (rep == NULL)
    return SVN_NO_ERROR;
  pool = svn_pool_create(scratch_pool);
  buf = apr_palloc(pool, PREFETCH_SIZE);
  SVN_ERR(reader_create(&r, fs, rep, NULL, FALSE, TRUE, pool));
  start_collecting(r);
  while (!r->finished)
    {
      apr_size_t len = PREFETCH_SIZE;
      if (cancel_func)
        SVN_ERR(cancel_func(cancel_baton));
      SVN_ERR(reader_read(r, buf, &len, FALSE));
    }
  svn_pool_destroy(pool);
  return SVN_NO_ERROR;
}


/* ------------------------------------------------------------------ */
/* Delta streams                                                       */

/* Baton of a delta stream: either the stored windows of SRC, or INNER
   (a computed delta) with TARGET's MD5 reported on top. */
typedef struct delta_baton_t
{
  reader_t *reader;
  rep_src_t *src;
  svn_txdelta_stream_t *inner;
  unsigned char md5[APR_MD5_DIGESTSIZE];
} delta_baton_t;

/* svn_txdelta_next_window_fn_t handing out the stored windows. */
static svn_error_t *
stored_next_window(svn_txdelta_window_t **window, void *baton,
                   apr_pool_t *pool)
{
  delta_baton_t *b = baton;
  rep_src_t *src = b->src;
  svn_fs_fs__svndiff_window_t w;
  svn_fs_fs__svndiff_sections_t sections;
  const char *body;
  apr_size_t total;

  *window = NULL;
  if (src->at_end)
    return SVN_NO_ERROR;
  if (src->read_pos >= src->data_len)
    {
      src->at_end = TRUE;
      SVN_ERR(check_trailer(src));
      return svn_error_trace(close_files(b->reader));
    }

  SVN_ERR(load_window(&w, &body, &total, src));
  SVN_ERR(wrap_src_error(svn_fs_fs__svndiff_decode_sections(
                           &sections, &w, src->version,
                           (const unsigned char *)body, src->reader->bufs), src));
  SVN_ERR(wrap_src_error(svn_fs_fs__svndiff_to_txdelta(window, &w, &sections,
                                                       pool), src));
  src->read_pos += total;
  return SVN_NO_ERROR;
}

/* svn_txdelta_next_window_fn_t forwarding to the computed delta. */
static svn_error_t *
computed_next_window(svn_txdelta_window_t **window, void *baton,
                     apr_pool_t *pool)
{
  delta_baton_t *b = baton;
  return svn_error_trace(svn_txdelta_next_window(window, b->inner, pool));
}

static const unsigned char *
delta_md5(void *baton)
{
  delta_baton_t *b = baton;
  return b->md5;
}

/* If TARGET is stored as a delta against exactly SOURCE (NULL: the empty
   text), set *SRC to TARGET's opened source, else to NULL. */
static svn_error_t *
open_stored_delta(rep_src_t **src, reader_t *r,
                  const svn_fs_fs__rep_t *source,
                  const svn_fs_fs__rep_t *target)
{
  rep_src_t *t;

  *src = NULL;
  if (target->in_txn || !SVN_IS_VALID_REVNUM(target->revision)
      || (source && (source->in_txn
                     || !SVN_IS_VALID_REVNUM(source->revision))))
    return SVN_NO_ERROR;

  SVN_ERR(src_open(&t, r, target->revision, target->item_index, NULL,
                   target->size));
  if (source == NULL ? t->header.kind == svn_fs_fs__rep_self_delta
                     : (t->header.kind == svn_fs_fs__rep_delta
                        && t->header.base_revision == source->revision
                        && t->header.base_item_index == source->item_index))
    *src = t;
  return SVN_NO_ERROR;
}

/* Whether the delta of TARGET against the empty text is better made from
   its fulltext than from its stored self-delta: when HISTORIC is FALSE
   and the text was read before (as a server's hot export does for every
   file).  The stored windows cost a pread and an inflate each, every
   time; the fulltext path stores the text on that second read (as
   svn_fs_fs__node_text_stream does) and finds it in the membuffer from
   the third on.  Counts this read as a miss (cache_admit.h). */
static svn_boolean_t
delta_from_text(svn_fs_t *fs, const svn_fs_fs__rep_t *target,
                svn_boolean_t historic)
{
  svn_fs_fs__data_t *ffd = SVN_FS_FS__DATA(fs);
  svn_fs_fs__pair_cache_key_t key;

  if (historic || !ffd->fulltext_cache || target->in_txn
      || !SVN_IS_VALID_REVNUM(target->revision))
    return FALSE;
  key = make_key(target->revision, target->item_index);
  return svn_fs_fs__admit_maybe_stored(ffd->admit_salt,
                                       svn_fs_fs__admit_text, &key,
                                       sizeof(key))
         || svn_fs_fs__admit(ffd->admit_salt, svn_fs_fs__admit_text, &key,
                             sizeof(key));
}

svn_error_t *
svn_fs_fs__node_delta_stream(svn_txdelta_stream_t **stream, svn_fs_t *fs,
                             const svn_fs_fs__rep_t *source,
                             const svn_fs_fs__id_t *source_owner,
                             const svn_fs_fs__rep_t *target,
                             const svn_fs_fs__id_t *target_owner,
                             svn_boolean_t historic,
                             apr_pool_t *pool)
{
  delta_baton_t *b = apr_pcalloc(pool, sizeof(*b));
  svn_stream_t *source_stream, *target_stream;

  if (target)
    memcpy(b->md5, target->md5_digest, sizeof(b->md5));
  if (target && !(source == NULL && delta_from_text(fs, target, historic)))
    {
      b->reader = apr_pcalloc(pool, sizeof(*b->reader));
      b->reader->fs = fs;
      b->reader->pool = pool;
      b->reader->scratch = svn_pool_create(pool);
      b->reader->files = apr_array_make(pool, 2,
                                        sizeof(svn_fs_fs__revfile_t *));
      b->reader->rep = *target;
      memcpy(b->md5, target->md5_digest, sizeof(b->md5));
      SVN_ERR(open_stored_delta(&b->src, b->reader, source, target));
      if (b->src)
        {
          *stream = svn_txdelta_stream_create(b, stored_next_window,
                                              delta_md5, pool);
          return SVN_NO_ERROR;
        }
      SVN_ERR(close_files(b->reader));
    }

  /* General case: compute the delta between the two fulltexts. */
  SVN_ERR(svn_fs_fs__node_text_stream(&source_stream, fs, source,
                                      source_owner, historic, pool));
  SVN_ERR(svn_fs_fs__node_text_stream(&target_stream, fs, target,
                                      target_owner, historic, pool));
  svn_txdelta2(&b->inner, source_stream, target_stream, target == NULL,
               pool);
  if (target == NULL)
    {
      *stream = b->inner;
      return SVN_NO_ERROR;
    }
  *stream = svn_txdelta_stream_create(b, computed_next_window, delta_md5,
                                      pool);
  return SVN_NO_ERROR;
}

svn_error_t *
svn_fs_fs__rep_delta_stream(svn_txdelta_stream_t **stream, svn_fs_t *fs,
                            const svn_fs_fs__rep_t *source,
                            const svn_fs_fs__rep_t *target,
                            apr_pool_t *pool)
{
  return svn_error_trace(svn_fs_fs__node_delta_stream(stream, fs, source,
                                                      NULL, target, NULL,
                                                      TRUE, pool));
}


/* ------------------------------------------------------------------ */
/* Cache access and identity                                           */

typedef struct process_baton_t
{
  svn_fs_process_contents_func_t processor;
  void *baton;
} process_baton_t;

/* svn_cache__partial_getter_func_t running the caller's processor on the
   cached fulltext in place (the value ends with a NUL we skip). */
static svn_error_t *
process_cached(void **out, const void *data, apr_size_t data_len,
               void *baton, apr_pool_t *result_pool)
{
  process_baton_t *pb = baton;

  *out = NULL;
  return svn_error_trace(pb->processor(data, data_len ? data_len - 1 : 0,
                                       pb->baton, result_pool));
}

svn_error_t *
svn_fs_fs__rep_try_process(svn_boolean_t *success, svn_fs_t *fs,
                           const svn_fs_fs__rep_t *rep,
                           svn_fs_process_contents_func_t processor,
                           void *baton, apr_pool_t *pool)
{
  svn_cache__t *cache = SVN_FS_FS__DATA(fs)->fulltext_cache;
  svn_fs_fs__pair_cache_key_t key;
  process_baton_t pb;
  void *dummy;

  *success = FALSE;
  if (!rep || !cache || rep->in_txn || !SVN_IS_VALID_REVNUM(rep->revision))
    return SVN_NO_ERROR;
  key = make_key(rep->revision, rep->item_index);
  pb.processor = processor;
  pb.baton = baton;
  SVN_ERR(svn_fs_fs__admit_get_partial(&dummy, success, cache,
                                       SVN_FS_FS__DATA(fs)->admit_salt,
                                       svn_fs_fs__admit_text, &key,
                                       sizeof(key), process_cached, &pb,
                                       pool));
  cache = SVN_FS_FS__DATA(fs)->fulltext_long_cache;
  if (*success || !cache)
    return SVN_NO_ERROR;
  return svn_error_trace(svn_fs_fs__admit_get_partial(
                           &dummy, success, cache,
                           SVN_FS_FS__DATA(fs)->admit_salt,
                           svn_fs_fs__admit_text, &key, sizeof(key),
                           process_cached, &pb, pool));
}

svn_boolean_t
svn_fs_fs__rep_same(const svn_fs_fs__rep_t *a, const svn_fs_fs__rep_t *b)
{
  if (a == NULL || b == NULL)
    return a == b;
  if (a->revision != b->revision || a->item_index != b->item_index)
    return FALSE;
  if (!a->in_txn || !b->in_txn)
    return a->in_txn == b->in_txn;
  return a->txn_id.revision == b->txn_id.revision
         && a->txn_id.number == b->txn_id.number;
}

/* Fulltext cache values: the text plus its terminating NUL, so that the
   deserialiser can wrap the buffer it is given without copying. */
static svn_error_t *
serialize_fulltext(void **data, apr_size_t *data_len, void *in,
                   apr_pool_t *pool)
{
  svn_stringbuf_t *text = in;

  *data = text->data;
  *data_len = text->len + 1;
  return SVN_NO_ERROR;
}

static svn_error_t *
deserialize_fulltext(void **out, void *data, apr_size_t data_len,
                     apr_pool_t *pool)
{
  svn_stringbuf_t *text = apr_palloc(pool, sizeof(*text));

  if (data_len == 0)
    {
      *out = svn_stringbuf_create_empty(pool);
      return SVN_NO_ERROR;
    }
  text->pool = pool;
  text->data = data;
  text->len = data_len - 1;
  text->blocksize = data_len;
  text->data[text->len] = '\0';
  *out = text;
  return SVN_NO_ERROR;
}

svn_error_t *
svn_fs_fs__reps_init_caches(svn_fs_t *fs, svn_membuffer_t *membuffer,
                            const char *prefix, apr_pool_t *result_pool,
                            apr_pool_t *scratch_pool)
{
  svn_fs_fs__data_t *ffd = SVN_FS_FS__DATA(fs);

  svn_membuffer_t *short_term = svn_fs_fs__short_term_membuffer(
                                  membuffer, scratch_pool);

  ffd->fulltext_cache = NULL;
  ffd->fulltext_long_cache = NULL;
  if (!svn_fs_fs__cache_fulltexts_enabled(fs))
    return SVN_NO_ERROR;
  SVN_ERR(svn_fs_fs__make_cache(&ffd->fulltext_cache, short_term,
                                serialize_fulltext, deserialize_fulltext,
                                sizeof(svn_fs_fs__pair_cache_key_t),
                                prefix, "TEXT",
                                SVN_CACHE__MEMBUFFER_DEFAULT_PRIORITY,
                                result_pool, scratch_pool));
  /* A key space of its own: a text is in one of the two at most. */
  if (svn_fs_fs__short_term_bytes(svn_fs_fs__cache_bytes(fs)) != 0)
    SVN_ERR(svn_fs_fs__make_cache(&ffd->fulltext_long_cache, membuffer,
                                  serialize_fulltext, deserialize_fulltext,
                                  sizeof(svn_fs_fs__pair_cache_key_t),
                                  prefix, "TEXT-HEAD",
                                  SVN_CACHE__MEMBUFFER_DEFAULT_PRIORITY,
                                  result_pool, scratch_pool));
  return SVN_NO_ERROR;
}
