/* cache_admit.c --- second-miss admission to the membuffer
 * (cache_admit.h).
 *
 * The table: ADMIT_SLOTS 32-bit slots, each a tag (the high 30 bits of
 * a 64-bit fingerprint) and a miss count (the low 2 bits, 0 for an
 * empty slot); a key's two candidate slots are SLOT_A and SLOT_B.  Loads and stores are relaxed atomics: threads
 * may overwrite each other's tags, which only makes a value wait for
 * one more miss.
 */
#include <stdlib.h>
#include <string.h>

#include "cache_admit.h"
#include "caching.h"

/* Slots of the table: 16,384 x 4 bytes, 64 kB of the process once
   touched.  A key is stored on its second miss if no other key took its
   slot in between: after D other misses in a full table it is still
   there with a probability of about exp(-D / 32,768) (a miss of a new
   key evicts one of its two slots, on every other toss).  For scale: an export of full
   maven's trunk reads ~18,500 node-revs, a dump of its whole history
   ~285,000. */
#define ADMIT_SLOTS 16384

/* The low bits of a slot that count a key's misses. */
#define MISS_MASK 3u

static apr_uint32_t admit_table[ADMIT_SLOTS];

/* Bits of the filter of stored values (svn_fs_fs__admit_maybe_stored)
   per kind: 262,144, 32 kB once all touched.  One filter per kind, since
   kinds fill theirs at very different rates: a dump of packed maven's
   whole history stores 249,000 texts and ~300 node-revs, and in one
   shared filter the texts set 61 % of the bits, which let 144,685 of its
   404,785 node-rev lookups through instead of ~250.  Its verify stores
   every node-rev, ~285,000, which sets most of theirs, and then asks the
   membuffer as before. */
#define STORED_BITS (1u << 18)
#define KINDS svn_fs_fs__admit_revprops

static apr_uint32_t stored_filter[KINDS][STORED_BITS / 32];

/* 0 not known yet, 1 admit every value (FSFS7_CACHE_ADMIT=always),
   -1 use the table. */
static int admit_all;

/* 64-bit FNV-1a of LEN bytes at DATA, continuing from HASH. */
static apr_uint64_t
fnv64(apr_uint64_t hash, const void *data, apr_size_t len)
{
  const unsigned char *p = data;
  apr_size_t i;

  for (i = 0; i < len; i++)
    hash = (hash ^ p[i]) * APR_UINT64_C(0x100000001b3);
  return hash;
}

apr_uint64_t
svn_fs_fs__admit_salt(const char *prefix)
{
  apr_uint64_t salt = fnv64(APR_UINT64_C(0xcbf29ce484222325), prefix,
                            strlen(prefix));

  return salt ? salt : 1;
}

static svn_boolean_t
admit_everything(void)
{
  int all = __atomic_load_n(&admit_all, __ATOMIC_RELAXED);

  if (all == 0)
    {
      const char *env = getenv("FSFS7_CACHE_ADMIT");

      all = env && strcmp(env, "always") == 0 ? 1 : -1;
      __atomic_store_n(&admit_all, all, __ATOMIC_RELAXED);
    }
  return all > 0;
}

/* The misses of one key that KIND needs before its value is stored.
   Node-revisions need three: a whole-history dump reads most node-revs
   exactly twice (the revision that made them, then as the base of the
   next change), so storing at the second miss stores values never
   asked for again -- for packed maven's dump 122,804 node-revs stored,
   587 of them ever found.  A server's hot node-revs are read far more
   often than three times. */
static unsigned
misses_needed(svn_fs_fs__admit_kind_t kind)
{
  return kind == svn_fs_fs__admit_noderev ? 3 : 2;
}

/* The fingerprint of KEY (KLEN bytes) of KIND in the repository with
   SALT.  Every cache lookup of an admitted kind asks for one
   (svn_fs_fs__admit_maybe_stored), so the key is taken eight bytes at a
   time rather than FNV's one: byte-wise it was 2 % of Apache's CPU
   serving a hot null-export, a GET per file. */
static apr_uint64_t
fingerprint(apr_uint64_t salt, svn_fs_fs__admit_kind_t kind,
            const void *key, apr_size_t klen)
{
  const unsigned char *p = key;
  apr_uint64_t fp = salt ^ ((apr_uint64_t)kind << 56);
  apr_uint64_t word, len = klen;

  for (; klen >= 8; p += 8, klen -= 8)
    {
      memcpy(&word, p, 8);
      fp = (fp ^ word) * APR_UINT64_C(0x9e3779b97f4a7c15);
      fp ^= fp >> 29;
    }
  if (klen)
    {
      word = 0;
      memcpy(&word, p, klen);
      fp = (fp ^ word) * APR_UINT64_C(0x9e3779b97f4a7c15);
      fp ^= fp >> 29;
    }
  /* The length last: a short key is zero-padded above. */
  fp = (fp ^ len) * APR_UINT64_C(0x9e3779b97f4a7c15);
  /* murmur3's finaliser, so that the slots (low bits), the filter
     (middle bits) and the tag (high bits) all depend on every byte. */
  fp ^= fp >> 33;
  fp *= APR_UINT64_C(0xff51afd7ed558ccd);
  fp ^= fp >> 33;
  fp *= APR_UINT64_C(0xc4ceb9fe1a85ec53);
  fp ^= fp >> 33;
  return fp;
}

/* Tell caching.c that a value of KIND is about to be stored when it is
   one of the long-term kinds (caching.h). */
static void
count_store(svn_fs_fs__admit_kind_t kind)
{
  if (kind == svn_fs_fs__admit_noderev || kind == svn_fs_fs__admit_changes
      || kind == svn_fs_fs__admit_path
      || kind == svn_fs_fs__admit_l2p_page
      || kind == svn_fs_fs__admit_p2l_page)
    svn_fs_fs__note_long_term_store();
}

/* The two slots of the key whose fingerprint is FP: its low bits, and
   bits of a second mix of it (the tag and the stored filter use the
   high and middle bits). */
#define SLOT_A(fp) ((fp) & (ADMIT_SLOTS - 1))
#define SLOT_B(fp) ((((fp) * APR_UINT64_C(0x9e3779b97f4a7c15)) >> 40) \
                    & (ADMIT_SLOTS - 1))

/* Whether the slot value SLOT holds the key with TAG. */
static svn_boolean_t
holds(apr_uint32_t slot, apr_uint32_t tag)
{
  return (slot & MISS_MASK) && (slot & ~MISS_MASK) == tag;
}

/* A fair coin per call, from a generator of the calling thread
   (xorshift32; each thread starts from the address of its state, so
   threads do not toss in step).

   Why a coin: two keys that share a slot and are both read once per
   request would otherwise take the slot from each other on every miss
   and never reach a second one.  A server's working set is read in
   that rhythm: svnserve -M 1024 serving the same export of a
   6,000-revision history again and again re-read ~2,300 node-revs,
   ~2,300 texts and ~2,000 revision file images from disk on every
   export, forever (a third of its keys, the share of 6,700 keys in
   16,384 slots that collide).  When a miss finds another key's tag,
   the tag stays with probability one half: the key already there then
   reaches its next miss with probability one half per round, is
   stored, stops missing and leaves the slot to the other.  (Only where
   both of a key's slots are taken: admit_fingerprint.) */
static svn_boolean_t
coin_says_keep(void)
{
  static __thread apr_uint32_t state;
  apr_uint32_t x = state;

  if (x == 0)
    x = (apr_uint32_t)(apr_uintptr_t)&state | 1;
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  state = x;
  return (x >> 16) & 1;
}

/* svn_fs_fs__admit() for the key whose fingerprint is FP; an admitted
   key is counted (count_store). */
static svn_boolean_t
admit_fingerprint(apr_uint64_t fp, svn_fs_fs__admit_kind_t kind)
{
  apr_uint32_t tag, first, second, *slot;
  unsigned misses = 0;

  if (admit_everything())
    {
      count_store(kind);
      return TRUE;
    }
  /* A slot is a key's tag (the top 30 bits of its fingerprint) and, in
     the low two bits, the misses seen so far (1 to 3; 0 is an empty
     slot).  A key may live in either of two slots (SLOT_A, SLOT_B):
     where the first is taken by a key read as often, the second is
     usually free.  Two threads missing the same key at once may count
     one miss: harmless. */
  tag = (apr_uint32_t)(fp >> 32) & ~MISS_MASK;
  first = __atomic_load_n(&admit_table[SLOT_A(fp)], __ATOMIC_RELAXED);
  second = __atomic_load_n(&admit_table[SLOT_B(fp)], __ATOMIC_RELAXED);
  if (holds(first, tag))
    slot = &admit_table[SLOT_A(fp)], misses = first & MISS_MASK;
  else if (holds(second, tag))
    slot = &admit_table[SLOT_B(fp)], misses = second & MISS_MASK;
  else if (!(first & MISS_MASK))
    slot = &admit_table[SLOT_A(fp)];
  else if (!(second & MISS_MASK))
    slot = &admit_table[SLOT_B(fp)];
  else if (coin_says_keep())
    return FALSE;
  else
    slot = &admit_table[(first & MISS_MASK) <= (second & MISS_MASK)
                        ? SLOT_A(fp) : SLOT_B(fp)];
  if (misses < MISS_MASK)
    misses++;
  __atomic_store_n(slot, tag | misses, __ATOMIC_RELAXED);
  if (misses < misses_needed(kind))
    return FALSE;
  count_store(kind);
  return TRUE;
}

svn_boolean_t
svn_fs_fs__admit(apr_uint64_t salt, svn_fs_fs__admit_kind_t kind,
                 const void *key, apr_size_t klen)
{
  return admit_fingerprint(fingerprint(salt, kind, key, klen), kind);
}

/* The word and bit of KIND's stored filter for fingerprint FP (its
   middle bits: the low ones pick the admission slot). */
static apr_uint32_t *
stored_word(svn_fs_fs__admit_kind_t kind, apr_uint64_t fp,
            apr_uint32_t *bit)
{
  apr_uint64_t index = (fp >> 20) & (STORED_BITS - 1);

  *bit = (apr_uint32_t)1 << (index & 31);
  return &stored_filter[kind - 1][index / 32];
}

/* Note the key whose fingerprint is FP in KIND's stored filter. */
static void
note_fingerprint(apr_uint64_t fp, svn_fs_fs__admit_kind_t kind)
{
  apr_uint32_t bit;
  apr_uint32_t *word = stored_word(kind, fp, &bit);

  if (!(__atomic_load_n(word, __ATOMIC_RELAXED) & bit))
    __atomic_fetch_or(word, bit, __ATOMIC_RELAXED);
}

void
svn_fs_fs__admit_note_stored(apr_uint64_t salt, svn_fs_fs__admit_kind_t kind,
                             const void *key, apr_size_t klen)
{
  note_fingerprint(fingerprint(salt, kind, key, klen), kind);
}

svn_boolean_t
svn_fs_fs__admit_maybe_stored(apr_uint64_t salt,
                              svn_fs_fs__admit_kind_t kind,
                              const void *key, apr_size_t klen)
{
  apr_uint32_t bit;
  apr_uint32_t *word = stored_word(kind, fingerprint(salt, kind, key, klen),
                                   &bit);

  return (__atomic_load_n(word, __ATOMIC_RELAXED) & bit) != 0;
}

svn_error_t *
svn_fs_fs__admit_get(void **value, svn_boolean_t *found, svn_cache__t *cache,
                     apr_uint64_t salt, svn_fs_fs__admit_kind_t kind,
                     const void *key, apr_size_t klen,
                     apr_pool_t *result_pool)
{
  *found = FALSE;
  if (!svn_fs_fs__admit_maybe_stored(salt, kind, key, klen))
    return SVN_NO_ERROR;
  return svn_error_trace(svn_cache__get(value, found, cache, key,
                                        result_pool));
}

svn_error_t *
svn_fs_fs__admit_get_partial(void **value, svn_boolean_t *found,
                             svn_cache__t *cache, apr_uint64_t salt,
                             svn_fs_fs__admit_kind_t kind, const void *key,
                             apr_size_t klen,
                             svn_cache__partial_getter_func_t func,
                             void *baton, apr_pool_t *result_pool)
{
  *found = FALSE;
  if (!svn_fs_fs__admit_maybe_stored(salt, kind, key, klen))
    return SVN_NO_ERROR;
  return svn_error_trace(svn_cache__get_partial(value, found, cache, key,
                                                func, baton, result_pool));
}

svn_error_t *
svn_fs_fs__admit_has_key(svn_boolean_t *found, svn_cache__t *cache,
                         apr_uint64_t salt, svn_fs_fs__admit_kind_t kind,
                         const void *key, apr_size_t klen,
                         apr_pool_t *scratch_pool)
{
  *found = FALSE;
  if (!svn_fs_fs__admit_maybe_stored(salt, kind, key, klen))
    return SVN_NO_ERROR;
  return svn_error_trace(svn_cache__has_key(found, cache, key,
                                            scratch_pool));
}

svn_error_t *
svn_fs_fs__admit_store(svn_cache__t *cache, apr_uint64_t salt,
                       svn_fs_fs__admit_kind_t kind, const void *key,
                       apr_size_t klen, svn_boolean_t at_once, void *value,
                       apr_pool_t *scratch_pool)
{
  apr_uint64_t fp = fingerprint(salt, kind, key, klen);

  if (!at_once && !admit_fingerprint(fp, kind))
    return SVN_NO_ERROR;
  if (at_once)
    count_store(kind);
  note_fingerprint(fp, kind);
  return svn_error_trace(svn_cache__set(cache, key, value, scratch_pool));
}

void
svn_fs_fs__admit_reset(void)
{
  apr_size_t i;

  for (i = 0; i < ADMIT_SLOTS; i++)
    __atomic_store_n(&admit_table[i], 0, __ATOMIC_RELAXED);
  for (i = 0; i < KINDS * (STORED_BITS / 32); i++)
    __atomic_store_n(&stored_filter[i / (STORED_BITS / 32)]
                                   [i % (STORED_BITS / 32)],
                     0, __ATOMIC_RELAXED);
  __atomic_store_n(&admit_all, 0, __ATOMIC_RELAXED);
}
