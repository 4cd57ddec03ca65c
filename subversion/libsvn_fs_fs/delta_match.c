/* delta_match.c --- greedy copy finder for one delta window (delta_match.h).
 *
 * How it works (doc/format/svndiff.md §7 gives the reasons):
 *
 *   1. Every position of the source view is entered in two hash tables,
 *      one keyed on the KEY_LEN bytes starting there, one on the
 *      LONG_KEY_LEN bytes (one slot per key, later positions overwrite
 *      earlier ones).  Short keys find short matches; long keys tell
 *      apart the many places where repetitive text (source code, XML)
 *      shares its short keys, and so find the *right* copy.
 *   2. The target is scanned left to right.  At each position up to four
 *      candidates are tried: the position that continues the alignment of
 *      the last source copy (after a small edit, the text resumes where
 *      it left off), the two source-table hits, and the last earlier
 *      target position with the same short key.  Each candidate is
 *      verified and extended forwards as far as the bytes agree and
 *      backwards into the pending literal run.
 *   3. The longest candidate wins if it is at least as long as the minimum
 *      the caller set for its kind (source or target copy): the pending
 *      literals become a "new" instruction, the match a copy, and the
 *      scan continues after it.  Otherwise the scan moves one byte on.
 *
 * Work per target byte is bounded by a constant (four lookups, a failed
 * candidate compares at most the minimum match length plus what it shares
 * with the accepted one) plus the length of accepted matches, so a window
 * costs linear time whatever its content.  Correctness does not depend on
 * the hashes: every copy is verified byte by byte before it is emitted.
 */
#include <stdlib.h>
#include <string.h>

#include "delta_match.h"

/* Bytes hashed per position: one 64-bit word for the short key, four
   for the long one. */
#define KEY_LEN 8
#define LONG_KEY_LEN 32

/* Smallest hash table, in bits; keeps tiny windows from thrashing. */
#define MIN_TABLE_BITS 8

/* Odd 64-bit multiplier (2^64 / golden ratio) spreading keys over the
   top bits, which pick the slot. */
#define HASH_MUL APR_UINT64_C(0x9E3779B97F4A7C15)

/* One hash table of positions: slot value 0 is empty, else position + 1.
   A slot is split in two arrays: its low 16 bits in LO, the rest (HI_WIDTH
   bits, just enough for the window's largest value: 1 bit for a full 100
   kB window, none up to 64 kB) packed back to back in HI.  32-bit slots
   made the three tables of a full window 1 MB, most of what a load's peak
   RSS had above stock's; this is 2.1 bytes a slot.  Unlike packing whole
   slots, storing a position needs no read of the cold LO array (the
   small HI array stays in cache): a packed 17-bit table made the matcher
   2.2 times slower.  The same values sit in the same slots as before. */
typedef struct table_t
{
  apr_uint16_t *lo;
  unsigned char *hi;    /* NULL while HI_WIDTH is 0 */
  int bits;             /* log2(slot count) for the current window */
  int hi_width;         /* bits per slot in HI for the current window */
} table_t;

/* Bytes behind the last HI field that an access may touch: it reads and
   writes 8 bytes from the field's first byte. */
#define TABLE_PAD 8

struct svn_fs_fs__delta_matcher_t
{
  /* Where the three tables live during a call: the caller's workspace
     (svn_fs_fs__delta_matcher_create) or OWN_TABLES.  Nothing in it is
     needed between calls, which is what lets a caller use the same memory
     for something else meanwhile. */
  svn_fs_fs__heapbuf_t *tables;
  svn_fs_fs__heapbuf_t own_tables;

  table_t source;              /* short keys of the source view */
  table_t source_long;         /* long keys of the source view */
  table_t target;              /* short keys of target positions passed */

  /* Source offset minus target offset of the last source copy: where the
     source would continue.  Kept across windows, since consecutive
     windows see consecutive source views (a hint only; verified). */
  apr_int64_t drift;
  svn_boolean_t have_drift;

  /* The instructions of the last call: OPS describes OPS_MEM, heap
     memory grown by realloc.  In the pool, every doubling of the array
     stayed behind: 112 kB of pool blocks for the ~2,000 instructions of
     maven-small's busiest window, held by the rep writers' working space
     for the whole load. */
  apr_array_header_t ops;
  svn_fs_fs__heapbuf_t ops_mem;
  apr_size_t min_source;       /* shortest source copy taken */
  apr_size_t min_target;       /* shortest target copy taken */
};

/* A verified candidate: LENGTH bytes of the target starting at TARGET_POS
   equal the bytes at OFFSET of the source view or of the target. */
typedef struct match_t
{
  svn_fs_fs__delta_action_t action;
  apr_size_t offset;
  apr_size_t target_pos;
  apr_size_t length;
} match_t;

/* Pool cleanup: free the tables the matcher BATON allocated itself. */
static apr_status_t
free_tables(void *baton)
{
  svn_fs_fs__delta_matcher_t *m = baton;

  svn_fs_fs__heapbuf_free(&m->own_tables);
  svn_fs_fs__heapbuf_free(&m->ops_mem);
  return APR_SUCCESS;
}

svn_fs_fs__delta_matcher_t *
svn_fs_fs__delta_matcher_create(apr_size_t min_source_match,
                                apr_size_t min_target_match,
                                svn_fs_fs__heapbuf_t *workspace,
                                apr_pool_t *result_pool)
{
  svn_fs_fs__delta_matcher_t *m = apr_pcalloc(result_pool, sizeof(*m));

  m->tables = workspace ? workspace : &m->own_tables;
  svn_fs_fs__delta_matcher_reset(m, min_source_match, min_target_match);
  m->ops.elt_size = sizeof(svn_fs_fs__delta_op_t);
  apr_pool_cleanup_register(result_pool, m, free_tables,
                            apr_pool_cleanup_null);
  return m;
}

void
svn_fs_fs__delta_matcher_reset(svn_fs_fs__delta_matcher_t *matcher,
                               apr_size_t min_source_match,
                               apr_size_t min_target_match)
{
  matcher->min_source = min_source_match > KEY_LEN ? min_source_match
                                                   : KEY_LEN;
  matcher->min_target = min_target_match > KEY_LEN ? min_target_match
                                                   : KEY_LEN;
  matcher->drift = 0;
  matcher->have_drift = FALSE;
}

/* Size TABLE for LEN positions (load factor at most LOAD): set its BITS
   and HI_WIDTH and return the bytes its LO (*LO_BYTES) and HI (*HI_BYTES)
   arrays take.  The short-key and target tables use load factor 2: the
   three tables of a full window took 1.5 MB at load factor 1, which made
   a load's peak RSS exceed stock's; the long-key table, which picks the
   right copy in repetitive text, keeps 1 (at 2 an edited repetitive text
   grew from 747 to 830 bytes of svndiff 1). */
static void
table_size(table_t *table, apr_size_t *lo_bytes, apr_size_t *hi_bytes,
           apr_size_t len, int load)
{
  int bits = MIN_TABLE_BITS, width = 16;
  apr_size_t slots;

  while (bits < 31 && ((apr_size_t)load << bits) < len)
    bits++;
  while (width < 32 && (len >> width) != 0)   /* values go up to LEN */
    width++;
  slots = (apr_size_t)1 << bits;
  table->bits = bits;
  table->hi_width = width - 16;
  *lo_bytes = slots * sizeof(apr_uint16_t);
  *hi_bytes = table->hi_width
            ? ((slots * table->hi_width + 7) >> 3) + TABLE_PAD : 0;
}

/* BYTES rounded up so that the next array carved out after them stays
   aligned as malloc aligns. */
#define CARVE_ALIGN(bytes) (((bytes) + 15) & ~(apr_size_t)15)

/* Size M's tables for a SOURCE_LEN byte source view and a TARGET_LEN byte
   target, carve them out of M's table memory (grown if need be: its old
   contents are not needed) and empty them. */
static void
tables_reset(svn_fs_fs__delta_matcher_t *m, apr_size_t source_len,
             apr_size_t target_len)
{
  table_t *tables[3];
  apr_size_t lo[3], hi[3], total = 0;
  char *at;
  int i;

  tables[0] = &m->source;
  tables[1] = &m->source_long;
  tables[2] = &m->target;
  table_size(tables[0], &lo[0], &hi[0], source_len, 2);
  table_size(tables[1], &lo[1], &hi[1], source_len, 1);
  table_size(tables[2], &lo[2], &hi[2], target_len, 2);
  for (i = 0; i < 3; i++)
    total += CARVE_ALIGN(lo[i]) + CARVE_ALIGN(hi[i]);
  if (total > m->tables->capacity)
    svn_fs_fs__heapbuf_free(m->tables);   /* no copy of stale tables */
  svn_fs_fs__heapbuf_reserve(m->tables, total);
  memset(m->tables->data, 0, total);
  at = m->tables->data;
  for (i = 0; i < 3; i++)
    {
      tables[i]->lo = (apr_uint16_t *)(void *)at;
      at += CARVE_ALIGN(lo[i]);
      tables[i]->hi = hi[i] ? (unsigned char *)at : NULL;
      at += CARVE_ALIGN(hi[i]);
    }
}

/* The 64-bit word at P.  Its byte order does not matter: every table and
   every lookup uses the same one. */
static APR_INLINE apr_uint64_t
word_at(const char *p)
{
  apr_uint64_t v;

  memcpy(&v, p, sizeof(v));
  return v;
}

/* Hash of the KEY_LEN bytes at P. */
static APR_INLINE apr_uint64_t
key_at(const char *p)
{
  return word_at(p) * HASH_MUL;
}

/* Hash of the LONG_KEY_LEN bytes at P. */
static APR_INLINE apr_uint64_t
long_key_at(const char *p)
{
  apr_uint64_t h = word_at(p) * HASH_MUL;

  h = (h ^ word_at(p + 8)) * HASH_MUL;
  h = (h ^ word_at(p + 16)) * HASH_MUL;
  return (h ^ word_at(p + 24)) * HASH_MUL;
}

/* The 8 bytes at P as a little-endian number, whatever the host's byte
   order (fields straddle bytes, so the order must be fixed).  One load on
   little-endian hosts: a byte loop made the matcher five times slower. */
static APR_INLINE apr_uint64_t
load_le64(const unsigned char *p)
{
  apr_uint64_t v;

  memcpy(&v, p, sizeof(v));
#if APR_IS_BIGENDIAN
  v = (apr_uint64_t)p[0] | (apr_uint64_t)p[1] << 8
      | (apr_uint64_t)p[2] << 16 | (apr_uint64_t)p[3] << 24
      | (apr_uint64_t)p[4] << 32 | (apr_uint64_t)p[5] << 40
      | (apr_uint64_t)p[6] << 48 | (apr_uint64_t)p[7] << 56;
#endif
  return v;
}

static APR_INLINE void
store_le64(unsigned char *p, apr_uint64_t v)
{
#if APR_IS_BIGENDIAN
  int i;

  for (i = 0; i < 8; i++)
    p[i] = (unsigned char)(v >> (8 * i));
#else
  memcpy(p, &v, sizeof(v));
#endif
}

/* Index of KEY's slot in TABLE. */
static APR_INLINE apr_size_t
slot_of(const table_t *table, apr_uint64_t key)
{
  return (apr_size_t)(key >> (64 - table->bits));
}

/* The value of slot I of TABLE. */
static APR_INLINE apr_uint32_t
get_slot(const table_t *table, apr_size_t i)
{
  apr_size_t bit;
  apr_uint64_t hi;

  if (!table->hi_width)
    return table->lo[i];
  if (table->hi_width == 1)        /* windows of 64 kB to 128 kB */
    return (apr_uint32_t)((table->hi[i >> 3] >> (i & 7)) & 1) << 16
           | table->lo[i];
  bit = i * (apr_size_t)table->hi_width;
  hi = (load_le64(table->hi + (bit >> 3)) >> (bit & 7))
       & (((apr_uint64_t)1 << table->hi_width) - 1);
  return (apr_uint32_t)(hi << 16) | table->lo[i];
}

/* Set slot I of TABLE to VALUE (which fits its width).  While a table is
   filled after tables_reset() the values stored only grow (positions are
   entered in increasing order), which the 1-bit case relies on: a slot's
   top bit never has to go back to 0, so it is set with a plain OR, and
   only once the positions pass 64 kB.  That made the matcher 1.4 times
   faster than a read-modify-write of the packed field. */
static APR_INLINE void
set_slot(table_t *table, apr_size_t i, apr_uint32_t value)
{
  apr_size_t bit;
  apr_uint64_t mask;
  unsigned char *p;

  table->lo[i] = (apr_uint16_t)value;
  if (!table->hi_width)
    return;
  if (table->hi_width == 1)
    {
      if (value >> 16)
        table->hi[i >> 3] |= (unsigned char)(1 << (i & 7));
      return;
    }
  bit = i * (apr_size_t)table->hi_width;
  mask = (((apr_uint64_t)1 << table->hi_width) - 1) << (bit & 7);
  p = table->hi + (bit >> 3);
  store_le64(p, (load_le64(p) & ~mask)
                | ((apr_uint64_t)(value >> 16) << (bit & 7)));
}

/* Slot value of KEY in TABLE. */
static APR_INLINE apr_uint32_t
lookup(const table_t *table, apr_uint64_t key)
{
  return get_slot(table, slot_of(table, key));
}

/* Enter every position of the source view (LEN bytes) in both source
   tables. */
static void
index_source(svn_fs_fs__delta_matcher_t *m, const char *text,
             apr_size_t len)
{
  apr_size_t p;

  for (p = 0; p + KEY_LEN <= len; p++)
    set_slot(&m->source, slot_of(&m->source, key_at(text + p)),
             (apr_uint32_t)(p + 1));
  for (p = 0; p + LONG_KEY_LEN <= len; p++)
    set_slot(&m->source_long, slot_of(&m->source_long, long_key_at(text + p)),
             (apr_uint32_t)(p + 1));
}

/* Extend the candidate FROM[CAND] == TARGET[POS] both ways and store the
   result in *M if it is longer than what *M holds.  FROM has FROM_LEN
   bytes (for target copies FROM is TARGET and CAND < POS, and comparing
   forwards is exactly what the byte-by-byte copy will produce, overlap
   included).  Backwards, the match may only swallow pending literals,
   i.e. not go below LIT_START. */
static void
extend(match_t *m, svn_fs_fs__delta_action_t action, const char *from,
       apr_size_t from_len, apr_size_t cand, const char *target,
       apr_size_t target_len, apr_size_t pos, apr_size_t lit_start)
{
  apr_size_t fwd_max = from_len - cand < target_len - pos
                     ? from_len - cand : target_len - pos;
  apr_size_t fwd = 0, back = 0;

  while (fwd < fwd_max && from[cand + fwd] == target[pos + fwd])
    fwd++;
  if (fwd == 0)
    return;
  while (back < pos - lit_start && back < cand
         && from[cand - back - 1] == target[pos - back - 1])
    back++;
  if (fwd + back > m->length)
    {
      m->action = action;
      m->offset = cand - back;
      m->target_pos = pos - back;
      m->length = fwd + back;
    }
}

static void
push_op(svn_fs_fs__delta_matcher_t *m, svn_fs_fs__delta_action_t action,
        apr_size_t offset, apr_size_t length)
{
  svn_fs_fs__delta_op_t op;

  if (length == 0)
    return;
  op.action = action;
  op.offset = (apr_uint32_t)offset;
  op.length = (apr_uint32_t)length;
  svn_fs_fs__heapbuf_append(&m->ops_mem, &op, sizeof(op));
}

/* Try the source candidates for target position POS (step 2 above). */
static void
source_candidates(match_t *best, const svn_fs_fs__delta_matcher_t *m,
                  const char *source, apr_size_t source_len,
                  const char *target, apr_size_t target_len,
                  apr_size_t pos, apr_size_t lit_start)
{
  apr_uint32_t s;

  if (m->have_drift)
    {
      apr_int64_t cand = (apr_int64_t)pos + m->drift;
      if (cand >= 0 && cand < (apr_int64_t)source_len)
        extend(best, svn_fs_fs__delta_source, source, source_len,
               (apr_size_t)cand, target, target_len, pos, lit_start);
    }
  if (source_len < KEY_LEN)
    return;
  if ((s = lookup(&m->source, key_at(target + pos))) != 0)
    extend(best, svn_fs_fs__delta_source, source, source_len, s - 1,
           target, target_len, pos, lit_start);
  if (source_len >= LONG_KEY_LEN && pos + LONG_KEY_LEN <= target_len
      && (s = lookup(&m->source_long, long_key_at(target + pos))) != 0)
    extend(best, svn_fs_fs__delta_source, source, source_len, s - 1,
           target, target_len, pos, lit_start);
}

/* The best verified copy for target position POS (length 0: none), and
   enter POS in the target table afterwards (so a position never matches
   itself). */
static void
best_match(match_t *best, svn_fs_fs__delta_matcher_t *m,
           const char *source, apr_size_t source_len,
           const char *target, apr_size_t target_len,
           apr_size_t pos, apr_size_t lit_start)
{
  apr_size_t tslot = slot_of(&m->target, key_at(target + pos));
  apr_uint32_t t = get_slot(&m->target, tslot);

  best->length = 0;
  source_candidates(best, m, source, source_len, target, target_len, pos,
                    lit_start);
  if (t)
    extend(best, svn_fs_fs__delta_target, target, target_len, t - 1,
           target, target_len, pos, lit_start);
  set_slot(&m->target, tslot, (apr_uint32_t)(pos + 1));
}

/* Record the accepted BEST: pending literals from LIT_START, the copy, and
   for source copies the alignment to try first from now on. */
static void
take_match(svn_fs_fs__delta_matcher_t *m, const match_t *best,
           apr_size_t lit_start)
{
  push_op(m, svn_fs_fs__delta_new, lit_start,
          best->target_pos - lit_start);
  push_op(m, best->action, best->offset, best->length);
  if (best->action == svn_fs_fs__delta_source)
    {
      m->drift = (apr_int64_t)best->offset - (apr_int64_t)best->target_pos;
      m->have_drift = TRUE;
    }
}

void
svn_fs_fs__delta_match(const apr_array_header_t **ops,
                       svn_fs_fs__delta_matcher_t *matcher,
                       const char *source, apr_size_t source_len,
                       const char *target, apr_size_t target_len)
{
  apr_size_t pos = 0, lit_start = 0;
  match_t best;

  matcher->ops_mem.len = 0;
  tables_reset(matcher, source_len, target_len);
  index_source(matcher, source, source_len);

  while (pos + KEY_LEN <= target_len)
    {
      best_match(&best, matcher, source, source_len, target, target_len,
                 pos, lit_start);
      if (best.length < (best.action == svn_fs_fs__delta_source
                         ? matcher->min_source : matcher->min_target))
        {
          pos++;
          continue;
        }
      take_match(matcher, &best, lit_start);
      lit_start = best.target_pos + best.length;
      /* Positions inside the copy may start later repeats. */
      for (pos++; pos < lit_start && pos + KEY_LEN <= target_len; pos++)
        set_slot(&matcher->target,
                 slot_of(&matcher->target, key_at(target + pos)),
                 (apr_uint32_t)(pos + 1));
      pos = lit_start;
    }
  push_op(matcher, svn_fs_fs__delta_new, lit_start,
          target_len - lit_start);
  matcher->ops.elts = matcher->ops_mem.data;
  matcher->ops.nelts = (int)(matcher->ops_mem.len
                             / sizeof(svn_fs_fs__delta_op_t));
  matcher->ops.nalloc = matcher->ops.nelts;
  *ops = &matcher->ops;
}
