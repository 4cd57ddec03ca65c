/* index_codec.c --- parsing L2P and P2L index sections (index_codec.h).
 *
 * Implements doc/format/addressing.md, sections "Varints", "L2P index" and
 * "P2L index".  Layout reminder (all numbers are varints, u = unsigned,
 * s = zig-zag signed):
 *
 *   L2P:  "L2P-INDEX\n" u(first rev) u(page size) u(rev count)
 *         u(page count) rev_count * u(pages of rev)
 *         page_count * (u(page bytes) u(entries))  pages...
 *         page := s(v0) s(v1-v0) ...   with v = offset+1, 0 = unused
 *   P2L:  "P2L-INDEX\n" u(first rev) u(covered size) u(page size)
 *         u(page count) page_count * u(page bytes)  pages...
 *         page := u(first offset) { u(size) s(d compound) s(d rev) u(fnv) }*
 *
 * Everything here is bounds-checked against the caller's buffer: no input
 * can make us read outside it, loop without end or allocate more than a
 * small multiple of the input size.
 */
#include <string.h>
#include <apr_strings.h>

#include "private/svn_subr_private.h"

#include "corrupt.h"
#include "footer.h"
#include "index_codec.h"

#define L2P_MAGIC "L2P-INDEX\n"
#define P2L_MAGIC "P2L-INDEX\n"
#define MAGIC_LEN 10

/* Offsets, sizes and revision numbers beyond this are rejected: it keeps
   every sum we form far away from overflowing apr_off_t. */
#define MAX_POSITION ((apr_uint64_t)1 << 56)

/* ------------------------------------------------------------------ */
/* Varints                                                             */

svn_boolean_t
svn_fs_fs__varint_decode(apr_uint64_t *value, const unsigned char **p,
                         const unsigned char *end)
{
  const unsigned char *s = *p;
  apr_uint64_t result = 0;
  int shift;

  /* VARINT-1: at most ten bytes; the tenth may only carry bit 63. */
  for (shift = 0; s < end && shift < 70; shift += 7, s++)
    {
      apr_uint64_t bits = *s & 0x7f;
      if (shift == 63 && (*s & 0xfe))
        return FALSE;
      result |= bits << shift;
      if ((*s & 0x80) == 0)
        {
          *value = result;
          *p = s + 1;
          return TRUE;
        }
    }
  return FALSE;
}

svn_boolean_t
svn_fs_fs__varint_decode_signed(apr_int64_t *value, const unsigned char **p,
                                const unsigned char *end)
{
  apr_uint64_t raw;

  if (!svn_fs_fs__varint_decode(&raw, p, end))
    return FALSE;
  /* VARINT-2: even numbers are non-negative, odd ones negative. */
  *value = (raw & 1) ? -(apr_int64_t)(raw >> 1) - 1 : (apr_int64_t)(raw >> 1);
  return TRUE;
}

apr_size_t
svn_fs_fs__varint_encode(unsigned char *buf, apr_uint64_t value)
{
  apr_size_t n = 0;

  while (value >= 0x80)
    {
      buf[n++] = (unsigned char)(value | 0x80);
      value >>= 7;
    }
  buf[n++] = (unsigned char)value;
  return n;
}

apr_size_t
svn_fs_fs__varint_encode_signed(unsigned char *buf, apr_int64_t value)
{
  apr_uint64_t raw = value < 0 ? ((apr_uint64_t)(-(value + 1)) << 1) | 1
                               : (apr_uint64_t)value << 1;
  return svn_fs_fs__varint_encode(buf, raw);
}


/* ------------------------------------------------------------------ */
/* A cursor over a byte range that distinguishes "the buffer ran out" from
   "the section ran out".                                              */

typedef struct cursor_t
{
  const unsigned char *p;
  const unsigned char *end;      /* end of the bytes we have            */
  svn_boolean_t section_ends;    /* END is also the end of the section  */
  svn_boolean_t starved;         /* set when more bytes would help      */
  apr_off_t base;                /* absolute offset of the first byte   */
  apr_off_t section_end;         /* absolute end of the section         */
  const unsigned char *start;
  const char *where;
  const char *rule;              /* rule cited for truncation           */
} cursor_t;

static apr_off_t
cursor_pos(const cursor_t *c)
{
  return c->base + (c->p - c->start);
}

/* Read an unsigned varint; on failure set C->starved (if the buffer ended
   early but the section did not) or return a corruption error. */
static svn_error_t *
read_u(apr_uint64_t *value, cursor_t *c)
{
  const unsigned char *before = c->p;

  if (svn_fs_fs__varint_decode(value, &c->p, c->end))
    return SVN_NO_ERROR;
  if (!c->section_ends
      && (c->end - before) < SVN_FS_FS__VARINT_MAX_LEN)
    {
      c->starved = TRUE;
      *value = 0;
      return SVN_NO_ERROR;
    }
  return svn_fs_fs__index_corrupt(
           c->end - before >= SVN_FS_FS__VARINT_MAX_LEN ? "VARINT-1" : c->rule,
           c->where, "Malformed or truncated number at offset %"
           APR_OFF_T_FMT, c->base + (before - c->start));
}

static svn_error_t *
read_s(apr_int64_t *value, cursor_t *c)
{
  apr_uint64_t raw = 0;      /* gcc 14 cannot see that read_u sets it */

  SVN_ERR(read_u(&raw, c));
  *value = (raw & 1) ? -(apr_int64_t)(raw >> 1) - 1 : (apr_int64_t)(raw >> 1);
  return SVN_NO_ERROR;
}

/* Bytes of the section after the cursor, whether we hold them or not. */
static apr_uint64_t
section_left(const cursor_t *c)
{
  apr_off_t left = c->section_end - cursor_pos(c);
  return left > 0 ? (apr_uint64_t)left : 0;
}

static void
cursor_init(cursor_t *c, const unsigned char *data, apr_size_t len,
            apr_off_t data_offset, apr_off_t section_end, const char *where,
            const char *rule)
{
  c->p = c->start = data;
  c->base = data_offset;
  c->where = where;
  c->rule = rule;
  c->starved = FALSE;
  c->section_end = section_end;
  /* Never look beyond the section even if the caller gave us more. */
  if (section_end - data_offset < (apr_off_t)len)
    len = section_end > data_offset ? (apr_size_t)(section_end - data_offset)
                                    : 0;
  c->end = data + len;
  c->section_ends = (data_offset + (apr_off_t)len >= section_end);
}

/* How many bytes to ask for when a header parse starved on LEN. */
static apr_size_t
grow(apr_size_t len)
{
  return len < 4096 ? 8192 : 2 * len;
}

static svn_error_t *
check_magic(cursor_t *c, const char *magic, const char *rule)
{
  if (c->end - c->p < MAGIC_LEN || memcmp(c->p, magic, MAGIC_LEN) != 0)
    return svn_fs_fs__index_corrupt(rule, c->where,
                                    "Index section at offset %" APR_OFF_T_FMT
                                    " does not start with '%.9s'",
                                    c->base, magic);
  c->p += MAGIC_LEN;
  return SVN_NO_ERROR;
}


/* ------------------------------------------------------------------ */
/* L2P                                                                 */

/* Read the four numbers of the L2P header proper (L2P-2). */
static svn_error_t *
l2p_read_fixed(svn_fs_fs__l2p_header_t *h, cursor_t *c)
{
  apr_uint64_t first, size, revs, pages;

  SVN_ERR(read_u(&first, c));
  SVN_ERR(read_u(&size, c));
  SVN_ERR(read_u(&revs, c));
  SVN_ERR(read_u(&pages, c));
  if (c->starved)
    return SVN_NO_ERROR;
  if (first >= MAX_POSITION || revs == 0 || revs >= MAX_POSITION
      || size == 0 || size > APR_UINT32_MAX)
    return svn_fs_fs__index_corrupt("L2P-2", c->where,
             "Invalid L2P header: first revision %" APR_UINT64_T_FMT
             ", page size %" APR_UINT64_T_FMT ", %" APR_UINT64_T_FMT
             " revisions", first, size, revs);
  /* Every count below costs at least one byte of the section; larger
     counts are lies and would only make us allocate. */
  if (pages >= MAX_POSITION || revs + 2 * pages > section_left(c))
    return svn_fs_fs__index_corrupt("L2P-3", c->where,
             "L2P header lists %" APR_UINT64_T_FMT " revisions and %"
             APR_UINT64_T_FMT " pages but the index is shorter than that",
             revs, pages);
  h->first_revision = (svn_revnum_t)first;
  h->page_size = size;
  h->revision_count = revs;
  h->page_count = pages;
  return SVN_NO_ERROR;
}

/* Read the per-revision page counts into H->page_table_index (L2P-3). */
static svn_error_t *
l2p_read_revisions(svn_fs_fs__l2p_header_t *h, cursor_t *c,
                   apr_pool_t *result_pool)
{
  apr_uint64_t k, total = 0;

  h->page_table_index = apr_palloc(result_pool, (h->revision_count + 1)
                                               * sizeof(apr_uint64_t));
  h->page_table_index[0] = 0;
  for (k = 0; k < h->revision_count && !c->starved; k++)
    {
      apr_uint64_t pages;

      SVN_ERR(read_u(&pages, c));
      if (pages > h->page_count - total)
        return svn_fs_fs__index_corrupt("L2P-3", c->where,
                 "L2P revision r%ld claims more pages than the header's %"
                 APR_UINT64_T_FMT, h->first_revision + (long)k,
                 h->page_count);
      total += pages;
      h->page_table_index[k + 1] = total;
    }
  if (!c->starved && total != h->page_count)
    return svn_fs_fs__index_corrupt("L2P-3", c->where,
             "L2P revisions use %" APR_UINT64_T_FMT " pages, header says %"
             APR_UINT64_T_FMT, total, h->page_count);
  return SVN_NO_ERROR;
}

/* Read the page table and place the pages after it (L2P-4). */
static svn_error_t *
l2p_read_page_table(svn_fs_fs__l2p_header_t *h, cursor_t *c,
                    apr_off_t index_end, apr_pool_t *result_pool)
{
  apr_uint64_t k, rev = 0;
  apr_off_t next;

  h->page_table = apr_palloc(result_pool, (h->page_count + 1)
                                          * sizeof(*h->page_table));
  for (k = 0; k < h->page_count && !c->starved; k++)
    {
      apr_uint64_t size, count;

      SVN_ERR(read_u(&size, c));
      SVN_ERR(read_u(&count, c));
      while (rev + 1 < h->revision_count && h->page_table_index[rev + 1] <= k)
        rev++;
      /* Only the last page of a revision may be partly filled. */
      if (count > h->page_size || size > MAX_POSITION
          || (count < h->page_size && k + 1 < h->page_table_index[rev + 1]))
        return svn_fs_fs__index_corrupt("L2P-4", c->where,
                 "L2P page %" APR_UINT64_T_FMT " has %" APR_UINT64_T_FMT
                 " entries (page size %" APR_UINT64_T_FMT ")", k, count,
                 h->page_size);
      h->page_table[k].size = (apr_uint32_t)size;
      h->page_table[k].entry_count = (apr_uint32_t)count;
      if (size > APR_UINT32_MAX)
        return svn_fs_fs__index_corrupt("L2P-4", c->where,
                 "L2P page %" APR_UINT64_T_FMT " is too large", k);
    }
  if (c->starved)
    return SVN_NO_ERROR;
  next = cursor_pos(c);
  for (k = 0; k < h->page_count; k++)
    {
      h->page_table[k].offset = next;
      next += h->page_table[k].size;
      if (next > index_end)
        return svn_fs_fs__index_corrupt("L2P-4", c->where,
                 "L2P page %" APR_UINT64_T_FMT " extends beyond the index "
                 "end at offset %" APR_OFF_T_FMT, k, index_end);
    }
  return SVN_NO_ERROR;
}

svn_error_t *
svn_fs_fs__l2p_header_parse(svn_fs_fs__l2p_header_t **header,
                            apr_size_t *needed, const unsigned char *data,
                            apr_size_t len, apr_off_t data_offset,
                            apr_off_t index_end, const char *where,
                            apr_pool_t *result_pool)
{
  svn_fs_fs__l2p_header_t *h = apr_pcalloc(result_pool, sizeof(*h));
  cursor_t c;

  *header = NULL;
  *needed = 0;
  cursor_init(&c, data, len, data_offset, index_end, where, "L2P-2");
  if (!c.section_ends && len < MAGIC_LEN + 4 * SVN_FS_FS__VARINT_MAX_LEN)
    {
      *needed = grow(len);
      return SVN_NO_ERROR;
    }
  SVN_ERR(check_magic(&c, L2P_MAGIC, "L2P-1"));
  SVN_ERR(l2p_read_fixed(h, &c));
  if (!c.starved)
    SVN_ERR(l2p_read_revisions(h, &c, result_pool));
  if (!c.starved)
    SVN_ERR(l2p_read_page_table(h, &c, index_end, result_pool));
  if (c.starved)
    *needed = grow(len);
  else
    *header = h;
  return SVN_NO_ERROR;
}

/* Start decoding the L2P page described by INFO from DATA into C (rule
   L2P-5's size check). */
static svn_error_t *
l2p_page_start(cursor_t *c, const svn_fs_fs__l2p_page_info_t *info,
               const unsigned char *data, const char *where)
{
  cursor_init(c, data, info->size, info->offset, info->offset + info->size,
              where, "L2P-5");
  /* Each entry takes at least one byte (L2P-5). */
  if (info->entry_count > info->size)
    return svn_fs_fs__index_corrupt("L2P-5", where,
             "L2P page at offset %" APR_OFF_T_FMT " is too short for %u "
             "entries", info->offset, (unsigned)info->entry_count);
  return SVN_NO_ERROR;
}

/* Decode entry K of the page described by INFO from C, adding it to
   *VALUE, the stored value of entry K-1 (0 before entry 0); DATA_LIMIT as
   for svn_fs_fs__l2p_page_parse (rule L2P-6). */
static svn_error_t *
l2p_page_next(apr_int64_t *value, cursor_t *c,
              const svn_fs_fs__l2p_page_info_t *info, apr_uint32_t k,
              apr_off_t data_limit)
{
  apr_int64_t delta;

  SVN_ERR(read_s(&delta, c));
  if ((delta > 0 && *value > (apr_int64_t)MAX_POSITION - delta)
      || *value + delta < 0 || *value + delta > data_limit)
    return svn_fs_fs__index_corrupt("L2P-6", c->where,
             "L2P entry %u of the page at offset %" APR_OFF_T_FMT
             " points outside the item data", (unsigned)k, info->offset);
  *value += delta;
  return SVN_NO_ERROR;
}

svn_error_t *
svn_fs_fs__l2p_page_parse(apr_uint64_t **values,
                          const svn_fs_fs__l2p_page_info_t *info,
                          const unsigned char *data, apr_off_t data_limit,
                          const char *where, apr_pool_t *result_pool)
{
  apr_uint64_t *result;
  apr_int64_t value = 0;
  apr_uint32_t k;
  cursor_t c;

  SVN_ERR(l2p_page_start(&c, info, data, where));
  result = apr_palloc(result_pool, (info->entry_count + 1) * sizeof(*result));
  for (k = 0; k < info->entry_count; k++)
    {
      SVN_ERR(l2p_page_next(&value, &c, info, k, data_limit));
      result[k] = (apr_uint64_t)value;
    }
  if (c.p != c.end)
    return svn_fs_fs__index_corrupt("L2P-5", where,
             "L2P page at offset %" APR_OFF_T_FMT " has %ld bytes after its "
             "last entry", info->offset, (long)(c.end - c.p));
  *values = result;
  return SVN_NO_ERROR;
}

svn_error_t *
svn_fs_fs__l2p_page_value(apr_uint64_t *value,
                          const svn_fs_fs__l2p_page_info_t *info,
                          const unsigned char *data, apr_off_t data_limit,
                          apr_uint64_t slot, const char *where)
{
  apr_int64_t sum = 0;
  apr_uint32_t k;
  cursor_t c;

  SVN_ERR_ASSERT(slot < info->entry_count);
  SVN_ERR(l2p_page_start(&c, info, data, where));
  for (k = 0; k <= slot; k++)
    SVN_ERR(l2p_page_next(&sum, &c, info, k, data_limit));
  *value = (apr_uint64_t)sum;
  return SVN_NO_ERROR;
}

svn_error_t *
svn_fs_fs__l2p_locate(apr_uint64_t *page, apr_uint64_t *slot,
                      const svn_fs_fs__l2p_header_t *header,
                      svn_revnum_t revision, apr_uint64_t item_index,
                      const char *where)
{
  apr_uint64_t rel, first_page, page_in_rev;

  if (revision < header->first_revision
      || (apr_uint64_t)(revision - header->first_revision)
         >= header->revision_count)
    return svn_error_createf(SVN_ERR_FS_INDEX_REVISION, NULL,
             "Revision %ld not covered by the L2P index of %s "
             "(r%ld..r%ld, rule L2P-7)", revision, where,
             header->first_revision,
             header->first_revision + (long)header->revision_count - 1);
  rel = (apr_uint64_t)(revision - header->first_revision);
  first_page = header->page_table_index[rel];
  page_in_rev = item_index / header->page_size;
  if (page_in_rev >= header->page_table_index[rel + 1] - first_page
      || item_index % header->page_size
         >= header->page_table[first_page + page_in_rev].entry_count)
    return svn_error_createf(SVN_ERR_FS_INDEX_OVERFLOW, NULL,
             "Item index %" APR_UINT64_T_FMT " too large in revision %ld "
             "(%s, rule L2P-7)", item_index, revision, where);
  *page = first_page + page_in_rev;
  *slot = item_index % header->page_size;
  return SVN_NO_ERROR;
}


/* ------------------------------------------------------------------ */
/* P2L                                                                 */

/* Read the four header numbers (P2L-2). */
static svn_error_t *
p2l_read_fixed(svn_fs_fs__p2l_header_t *h, cursor_t *c)
{
  apr_uint64_t first, file_size, page_size, pages;

  SVN_ERR(read_u(&first, c));
  SVN_ERR(read_u(&file_size, c));
  SVN_ERR(read_u(&page_size, c));
  SVN_ERR(read_u(&pages, c));
  if (c->starved)
    return SVN_NO_ERROR;
  if (first >= MAX_POSITION || file_size >= MAX_POSITION || page_size == 0
      || page_size >= MAX_POSITION || pages == 0
      || (pages - 1) >= (file_size + page_size - 1) / page_size + 1
      || pages < (file_size + page_size - 1) / page_size)
    return svn_fs_fs__index_corrupt("P2L-2", c->where,
             "Invalid P2L header: first revision %" APR_UINT64_T_FMT
             ", covered size %" APR_UINT64_T_FMT ", page size %"
             APR_UINT64_T_FMT ", %" APR_UINT64_T_FMT " pages",
             first, file_size, page_size, pages);
  h->first_revision = (svn_revnum_t)first;
  h->file_size = (apr_off_t)file_size;
  h->page_size = page_size;
  h->page_count = pages;
  return SVN_NO_ERROR;
}

/* Read the page sizes and turn them into absolute positions (P2L-3). */
static svn_error_t *
p2l_read_pages(svn_fs_fs__p2l_header_t *h, cursor_t *c, apr_off_t index_end,
               apr_pool_t *result_pool)
{
  apr_uint64_t k;
  apr_uint64_t *sizes = apr_palloc(result_pool,
                                   h->page_count * sizeof(*sizes));
  apr_off_t next;

  if (h->page_count > section_left(c))
    return svn_fs_fs__index_corrupt("P2L-3", c->where,
             "P2L header lists %" APR_UINT64_T_FMT " pages but the index is "
             "shorter than that", h->page_count);
  for (k = 0; k < h->page_count && !c->starved; k++)
    SVN_ERR(read_u(&sizes[k], c));
  if (c->starved)
    return SVN_NO_ERROR;
  h->offsets = apr_palloc(result_pool,
                          (h->page_count + 1) * sizeof(*h->offsets));
  next = cursor_pos(c);
  for (k = 0; k < h->page_count; k++)
    {
      h->offsets[k] = next;
      if (sizes[k] > (apr_uint64_t)(index_end - next))
        return svn_fs_fs__index_corrupt("P2L-3", c->where,
                 "P2L page %" APR_UINT64_T_FMT " extends beyond the index end"
                 " at offset %" APR_OFF_T_FMT, k, index_end);
      next += (apr_off_t)sizes[k];
    }
  h->offsets[h->page_count] = next;
  return SVN_NO_ERROR;
}

svn_error_t *
svn_fs_fs__p2l_header_parse(svn_fs_fs__p2l_header_t **header,
                            apr_size_t *needed, const unsigned char *data,
                            apr_size_t len, apr_off_t data_offset,
                            apr_off_t index_end, const char *where,
                            apr_pool_t *result_pool)
{
  svn_fs_fs__p2l_header_t *h = apr_pcalloc(result_pool, sizeof(*h));
  cursor_t c;

  *header = NULL;
  *needed = 0;
  cursor_init(&c, data, len, data_offset, index_end, where, "P2L-2");
  if (!c.section_ends && len < MAGIC_LEN + 4 * SVN_FS_FS__VARINT_MAX_LEN)
    {
      *needed = grow(len);
      return SVN_NO_ERROR;
    }
  SVN_ERR(check_magic(&c, P2L_MAGIC, "P2L-1"));
  SVN_ERR(p2l_read_fixed(h, &c));
  if (!c.starved)
    SVN_ERR(p2l_read_pages(h, &c, index_end, result_pool));
  if (c.starved)
    *needed = grow(len);
  else
    *header = h;
  return SVN_NO_ERROR;
}

/* Check and store one decoded P2L entry (P2L-4, P2L-5). */
static svn_error_t *
p2l_check_entry(svn_fs_fs__p2l_entry_t *entry, apr_uint64_t offset,
                apr_uint64_t size, apr_int64_t compound, apr_int64_t rev,
                apr_uint64_t fnv, apr_off_t page_end, const char *where)
{
  if (compound < 0 || compound >= (apr_int64_t)MAX_POSITION
      || rev < 0 || rev >= (apr_int64_t)MAX_POSITION
      || (compound & 7) > SVN_FS_FS__ITEM_TYPE_CHANGES
      || fnv > APR_UINT32_MAX)
    return svn_fs_fs__index_corrupt("P2L-4", where,
             "Invalid P2L entry at offset %" APR_UINT64_T_FMT, offset);
  /* An empty item at the very end of a page may be listed there. */
  if (offset > (apr_uint64_t)page_end
      || (offset == (apr_uint64_t)page_end && size > 0)
      || size >= MAX_POSITION
      || offset + size >= MAX_POSITION)
    return svn_fs_fs__index_corrupt("P2L-5", where,
             "P2L entry at offset %" APR_UINT64_T_FMT " (size %"
             APR_UINT64_T_FMT ") does not belong to its page", offset, size);
  entry->offset = (apr_off_t)offset;
  entry->size = (apr_off_t)size;
  entry->type = (svn_fs_fs__item_type_t)(compound & 7);
  entry->item_index = (apr_uint64_t)compound >> 3;
  entry->fnv1_checksum = (apr_uint32_t)fnv;
  entry->revision = entry->type == SVN_FS_FS__ITEM_TYPE_UNUSED
                  ? SVN_INVALID_REVNUM : (svn_revnum_t)rev;
  return SVN_NO_ERROR;
}

/* Decoding one P2L page entry by entry: the state carried from one entry
   to the next (offsets and the compound and revision deltas are
   cumulative within a page). */
typedef struct p2l_page_cursor_t
{
  cursor_t c;
  apr_off_t page_end;
  apr_int64_t compound;
  apr_int64_t rev;
  apr_uint64_t offset;           /* where the next entry starts */
} p2l_page_cursor_t;

/* Start decoding page PAGE of HEADER from DATA.  A page inside a large
   item lists no entries (P2L-5): then PC's cursor is at its end at once. */
static svn_error_t *
p2l_page_start(p2l_page_cursor_t *pc, const svn_fs_fs__p2l_header_t *header,
               apr_uint64_t page, const unsigned char *data,
               const char *where)
{
  apr_off_t start = header->offsets[page];
  apr_off_t stop = header->offsets[page + 1];

  pc->page_end = (apr_off_t)((page + 1) * header->page_size);
  pc->compound = 0;
  pc->rev = header->first_revision;
  cursor_init(&pc->c, data, (apr_size_t)(stop - start), start, stop, where,
              "P2L-4");
  if (pc->c.p == pc->c.end)
    return SVN_NO_ERROR;
  return svn_error_trace(read_u(&pc->offset, &pc->c));
}

/* Decode PC's next entry into *ENTRY (rules P2L-4, P2L-5); only while
   PC->c.p < PC->c.end. */
static svn_error_t *
p2l_page_next(svn_fs_fs__p2l_entry_t *entry, p2l_page_cursor_t *pc)
{
  apr_uint64_t size, fnv;
  apr_int64_t d_compound, d_rev;

  SVN_ERR(read_u(&size, &pc->c));
  SVN_ERR(read_s(&d_compound, &pc->c));
  SVN_ERR(read_s(&d_rev, &pc->c));
  SVN_ERR(read_u(&fnv, &pc->c));
  /* Deltas are bounded by MAX_POSITION checks below; keep the sums
     from wrapping first. */
  if (d_compound > (apr_int64_t)MAX_POSITION
      || d_compound < -(apr_int64_t)MAX_POSITION
      || d_rev > (apr_int64_t)MAX_POSITION
      || d_rev < -(apr_int64_t)MAX_POSITION)
    return svn_fs_fs__index_corrupt("P2L-4", pc->c.where,
             "Invalid P2L entry at offset %" APR_UINT64_T_FMT, pc->offset);
  pc->compound += d_compound;
  pc->rev += d_rev;
  SVN_ERR(p2l_check_entry(entry, pc->offset, size, pc->compound, pc->rev,
                          fnv, pc->page_end, pc->c.where));
  pc->offset += size;
  return SVN_NO_ERROR;
}

svn_error_t *
svn_fs_fs__p2l_page_parse(apr_array_header_t *entries,
                          const svn_fs_fs__p2l_header_t *header,
                          apr_uint64_t page, const unsigned char *data,
                          const char *where)
{
  p2l_page_cursor_t pc;

  SVN_ERR(p2l_page_start(&pc, header, page, data, where));
  while (pc.c.p < pc.c.end)
    SVN_ERR(p2l_page_next(apr_array_push(entries), &pc));
  return SVN_NO_ERROR;
}

svn_error_t *
svn_fs_fs__p2l_page_find(svn_fs_fs__p2l_entry_t *entry,
                         svn_boolean_t *found,
                         const svn_fs_fs__p2l_header_t *header,
                         apr_uint64_t page, const unsigned char *data,
                         apr_off_t offset, const char *where)
{
  p2l_page_cursor_t pc;

  *found = FALSE;
  SVN_ERR(p2l_page_start(&pc, header, page, data, where));
  while (pc.c.p < pc.c.end)
    {
      SVN_ERR(p2l_page_next(entry, &pc));
      if (entry->offset >= offset)
        {
          *found = entry->offset == offset;
          return SVN_NO_ERROR;
        }
    }
  return SVN_NO_ERROR;
}


/* ------------------------------------------------------------------ */
/* Whole sections and whole files                                      */

svn_error_t *
svn_fs_fs__l2p_check_section(svn_fs_fs__l2p_header_t **header,
                             const unsigned char *data, apr_size_t len,
                             apr_off_t data_offset, const char *where,
                             apr_pool_t *result_pool)
{
  apr_off_t end = data_offset + (apr_off_t)len;
  apr_size_t needed;
  apr_uint64_t k;

  SVN_ERR(svn_fs_fs__l2p_header_parse(header, &needed, data, len,
                                      data_offset, end, where, result_pool));
  for (k = 0; k < (*header)->page_count; k++)
    {
      const svn_fs_fs__l2p_page_info_t *info = &(*header)->page_table[k];
      apr_uint64_t *values;

      SVN_ERR(svn_fs_fs__l2p_page_parse(&values, info,
                                        data + (info->offset - data_offset),
                                        data_offset, where, result_pool));
    }
  return SVN_NO_ERROR;
}

svn_error_t *
svn_fs_fs__p2l_check_section(svn_fs_fs__p2l_header_t **header,
                             apr_array_header_t **entries,
                             const unsigned char *data, apr_size_t len,
                             apr_off_t data_offset, const char *where,
                             apr_pool_t *result_pool)
{
  apr_off_t end = data_offset + (apr_off_t)len;
  apr_size_t needed;
  apr_uint64_t k;

  *entries = apr_array_make(result_pool, 16, sizeof(svn_fs_fs__p2l_entry_t));
  SVN_ERR(svn_fs_fs__p2l_header_parse(header, &needed, data, len,
                                      data_offset, end, where, result_pool));
  for (k = 0; k < (*header)->page_count; k++)
    SVN_ERR(svn_fs_fs__p2l_page_parse(*entries, *header, k,
                                      data + ((*header)->offsets[k]
                                              - data_offset), where));
  return SVN_NO_ERROR;
}

/* P2L-6/7 over the entries of an image: they tile [0, covered) and, with
   CHECK_DIGESTS, their checksums match DATA. */
static svn_error_t *
check_image_entries(const apr_array_header_t *entries,
                    const svn_fs_fs__p2l_header_t *p2l,
                    const unsigned char *data, svn_boolean_t check_digests)
{
  apr_off_t expected = 0;
  int i;

  for (i = 0; i < entries->nelts; i++)
    {
      const svn_fs_fs__p2l_entry_t *e
        = &APR_ARRAY_IDX(entries, i, svn_fs_fs__p2l_entry_t);

      if (e->offset != expected
          || (e->type != SVN_FS_FS__ITEM_TYPE_UNUSED
              && e->offset + e->size > p2l->file_size))
        return svn_fs_fs__index_corrupt("P2L-6", "image",
                 "P2L entries do not tile the file at offset %"
                 APR_OFF_T_FMT, expected);
      expected = e->offset + e->size;
      if (check_digests && e->type != SVN_FS_FS__ITEM_TYPE_UNUSED
          && svn__fnv1a_32x4(data + e->offset, (apr_size_t)e->size)
             != e->fnv1_checksum)
        return svn_fs_fs__corrupt("P2L-7", "image",
                 "Checksum mismatch of the item at offset %" APR_OFF_T_FMT,
                 e->offset);
    }
  if (expected < p2l->file_size)
    return svn_fs_fs__index_corrupt("P2L-6", "image",
             "P2L entries end at offset %" APR_OFF_T_FMT, expected);
  return SVN_NO_ERROR;
}

/* P2L-8 over an image: every used L2P slot names an entry with the same
   revision and item index. */
static svn_error_t *
check_image_agreement(const svn_fs_fs__l2p_header_t *l2p,
                      const apr_array_header_t *entries,
                      const unsigned char *data, apr_off_t l2p_offset,
                      apr_pool_t *pool)
{
  apr_uint64_t rel, k;

  for (rel = 0; rel < l2p->revision_count; rel++)
    for (k = l2p->page_table_index[rel]; k < l2p->page_table_index[rel + 1];
         k++)
      {
        const svn_fs_fs__l2p_page_info_t *info = &l2p->page_table[k];
        apr_uint64_t first = (k - l2p->page_table_index[rel])
                             * l2p->page_size, *values, slot;
        int i;

        SVN_ERR(svn_fs_fs__l2p_page_parse(&values, info,
                                          data + info->offset, l2p_offset,
                                          "image", pool));
        for (slot = 0; slot < info->entry_count; slot++)
          {
            svn_revnum_t rev = l2p->first_revision + (svn_revnum_t)rel;
            if (values[slot] == 0)
              continue;
            for (i = 0; i < entries->nelts; i++)
              {
                const svn_fs_fs__p2l_entry_t *e
                  = &APR_ARRAY_IDX(entries, i, svn_fs_fs__p2l_entry_t);
                if (e->offset == (apr_off_t)values[slot] - 1
                    && e->revision == rev && e->item_index == first + slot)
                  break;
              }
            if (i == entries->nelts)
              return svn_fs_fs__corrupt_code(SVN_ERR_FS_INDEX_INCONSISTENT,
                       "P2L-8", "image", "L2P entry r%ld/%" APR_UINT64_T_FMT
                       " disagrees with P2L", rev, first + slot);
          }
      }
  return SVN_NO_ERROR;
}

/* FOOTER-4 over an image. */
static svn_error_t *
check_image_md5(const unsigned char *data, apr_off_t start, apr_off_t end,
                const unsigned char *expected, const char *what)
{
  unsigned char digest[APR_MD5_DIGESTSIZE];

  apr_md5(digest, data + start, (apr_size_t)(end - start));
  if (memcmp(digest, expected, APR_MD5_DIGESTSIZE) != 0)
    return svn_fs_fs__index_corrupt("FOOTER-4", "image",
                                    "%s index checksum mismatch", what);
  return SVN_NO_ERROR;
}

svn_error_t *
svn_fs_fs__index_check_image(const unsigned char *data, apr_size_t len,
                             svn_boolean_t check_digests,
                             apr_pool_t *scratch_pool)
{
  svn_fs_fs__footer_t footer;
  svn_fs_fs__l2p_header_t *l2p;
  svn_fs_fs__p2l_header_t *p2l;
  apr_array_header_t *entries;
  apr_size_t tail = len < SVN_FS_FS__FOOTER_MAX_LEN
                  ? len : SVN_FS_FS__FOOTER_MAX_LEN;

  SVN_ERR(svn_fs_fs__footer_parse(&footer, data + len - tail, tail,
                                  (apr_off_t)len, "image"));
  if (check_digests)
    {
      SVN_ERR(check_image_md5(data, footer.l2p_offset, footer.p2l_offset,
                              footer.l2p_md5, "L2P"));
      SVN_ERR(check_image_md5(data, footer.p2l_offset, footer.footer_offset,
                              footer.p2l_md5, "P2L"));
    }
  SVN_ERR(svn_fs_fs__l2p_check_section(&l2p, data + footer.l2p_offset,
                                       (apr_size_t)(footer.p2l_offset
                                                    - footer.l2p_offset),
                                       footer.l2p_offset, "image",
                                       scratch_pool));
  SVN_ERR(svn_fs_fs__p2l_check_section(&p2l, &entries,
                                       data + footer.p2l_offset,
                                       (apr_size_t)(footer.footer_offset
                                                    - footer.p2l_offset),
                                       footer.p2l_offset, "image",
                                       scratch_pool));
  if (p2l->file_size != footer.l2p_offset
      || p2l->first_revision != l2p->first_revision)
    return svn_fs_fs__index_corrupt("P2L-2", "image",
             "P2L header does not match the L2P index and footer");
  SVN_ERR(check_image_entries(entries, p2l, data, check_digests));
  return svn_error_trace(check_image_agreement(l2p, entries, data,
                                               footer.l2p_offset,
                                               scratch_pool));
}


/* ------------------------------------------------------------------ */
/* Encoders                                                            */

static void
put_u(svn_stringbuf_t *out, apr_uint64_t value)
{
  unsigned char buf[SVN_FS_FS__VARINT_MAX_LEN];
  svn_stringbuf_appendbytes(out, (const char *)buf,
                            svn_fs_fs__varint_encode(buf, value));
}

static void
put_s(svn_stringbuf_t *out, apr_int64_t value)
{
  unsigned char buf[SVN_FS_FS__VARINT_MAX_LEN];
  svn_stringbuf_appendbytes(out, (const char *)buf,
                            svn_fs_fs__varint_encode_signed(buf, value));
}

/* Encode one L2P page of COUNT offsets at OFFSETS into PAGES and record
   its size and count in TABLE. */
static void
l2p_build_page(svn_stringbuf_t *pages, svn_stringbuf_t *table,
               const apr_off_t *offsets, apr_uint64_t count)
{
  apr_size_t before = pages->len;
  apr_int64_t last = 0;
  apr_uint64_t k;

  for (k = 0; k < count; k++)
    {
      apr_int64_t stored = offsets[k] < 0 ? 0 : offsets[k] + 1;
      put_s(pages, stored - last);
      last = stored;
    }
  put_u(table, pages->len - before);
  put_u(table, count);
}

svn_error_t *
svn_fs_fs__l2p_section_build(svn_stringbuf_t **section,
                             svn_revnum_t first_revision,
                             const apr_array_header_t *revisions,
                             apr_uint64_t page_size,
                             apr_pool_t *result_pool)
{
  svn_stringbuf_t *out = svn_stringbuf_create(L2P_MAGIC, result_pool);
  svn_stringbuf_t *per_rev = svn_stringbuf_create_empty(result_pool);
  svn_stringbuf_t *table = svn_stringbuf_create_empty(result_pool);
  svn_stringbuf_t *pages = svn_stringbuf_create_empty(result_pool);
  apr_uint64_t page_count = 0;
  int k;

  SVN_ERR_ASSERT(page_size > 0 && revisions->nelts > 0);
  for (k = 0; k < revisions->nelts; k++)
    {
      const apr_array_header_t *offsets
        = APR_ARRAY_IDX(revisions, k, const apr_array_header_t *);
      apr_uint64_t n = (apr_uint64_t)offsets->nelts, start;

      put_u(per_rev, (n + page_size - 1) / page_size);
      for (start = 0; start < n; start += page_size, page_count++)
        l2p_build_page(pages, table,
                       &APR_ARRAY_IDX(offsets, start, apr_off_t),
                       n - start < page_size ? n - start : page_size);
    }
  put_u(out, (apr_uint64_t)first_revision);
  put_u(out, page_size);
  put_u(out, (apr_uint64_t)revisions->nelts);
  put_u(out, page_count);
  svn_stringbuf_appendstr(out, per_rev);
  svn_stringbuf_appendstr(out, table);
  svn_stringbuf_appendstr(out, pages);
  *section = out;
  return SVN_NO_ERROR;
}

/* Append entry E to the P2L page being built in PAGE, with the running
   COMPOUND and REV of that page.  Unused ranges carry UNUSED_REV, or the
   running revision if that is negative.  (The stock module writes
   padding inside the data with the file's first revision and the final
   filler with the revision of the entry before it; we do the same so
   that our indexes are byte-identical.) */
static void
p2l_build_entry(svn_stringbuf_t *page, const svn_fs_fs__p2l_entry_t *e,
                apr_int64_t unused_rev, apr_int64_t *compound,
                apr_int64_t *rev)
{
  apr_int64_t c = (apr_int64_t)(e->item_index * 8 + e->type);
  apr_int64_t r = e->type != SVN_FS_FS__ITEM_TYPE_UNUSED
                ? (apr_int64_t)e->revision
                : (unused_rev < 0 ? *rev : unused_rev);

  if (page->len == 0)
    put_u(page, (apr_uint64_t)e->offset);
  put_u(page, (apr_uint64_t)e->size);
  put_s(page, c - *compound);
  put_s(page, r - *rev);
  put_u(page, e->fnv1_checksum);
  *compound = c;
  *rev = r;
}

svn_error_t *
svn_fs_fs__p2l_section_build(svn_stringbuf_t **section,
                             svn_revnum_t first_revision, apr_off_t covered,
                             apr_uint64_t page_size,
                             const apr_array_header_t *entries,
                             apr_pool_t *result_pool)
{
  apr_uint64_t page_count = ((apr_uint64_t)covered + page_size - 1)
                            / page_size, k = 0;
  svn_stringbuf_t *out = svn_stringbuf_create(P2L_MAGIC, result_pool);
  svn_stringbuf_t *sizes = svn_stringbuf_create_empty(result_pool);
  svn_stringbuf_t *pages = svn_stringbuf_create_empty(result_pool);
  svn_stringbuf_t *page = svn_stringbuf_create_empty(result_pool);
  apr_int64_t compound = 0, rev = first_revision;
  svn_fs_fs__p2l_entry_t filler = { 0 };
  int i;

  SVN_ERR_ASSERT(page_size > 0);
  if (page_count == 0)
    page_count = 1;
  filler.offset = covered;
  filler.size = (apr_off_t)(page_count * page_size) - covered;
  filler.type = SVN_FS_FS__ITEM_TYPE_UNUSED;
  for (i = 0; i <= entries->nelts; i++)
    {
      const svn_fs_fs__p2l_entry_t *e = i < entries->nelts
        ? &APR_ARRAY_IDX(entries, i, svn_fs_fs__p2l_entry_t) : &filler;
      apr_uint64_t end = (apr_uint64_t)(e->offset + e->size);

      /* An entry goes to the page holding its last byte (P2L-5). */
      while (end > (k + 1) * page_size)
        {
          put_u(sizes, page->len);
          svn_stringbuf_appendstr(pages, page);
          svn_stringbuf_setempty(page);
          compound = 0;
          rev = first_revision;
          k++;
        }
      p2l_build_entry(page, e, e == &filler ? -1 : first_revision,
                      &compound, &rev);
    }
  put_u(sizes, page->len);
  svn_stringbuf_appendstr(pages, page);
  put_u(out, (apr_uint64_t)first_revision);
  put_u(out, (apr_uint64_t)covered);
  put_u(out, page_size);
  put_u(out, page_count);
  svn_stringbuf_appendstr(out, sizes);
  svn_stringbuf_appendstr(out, pages);
  *section = out;
  return SVN_NO_ERROR;
}


/* ------------------------------------------------------------------ */
/* Proto-indexes                                                       */

static apr_uint64_t
get_le64(const unsigned char *p)
{
  apr_uint64_t value = 0;
  int k;

  for (k = 7; k >= 0; k--)
    value = (value << 8) | p[k];
  return value;
}

static void
put_le64(unsigned char *p, apr_uint64_t value)
{
  int k;

  for (k = 0; k < 8; k++, value >>= 8)
    p[k] = (unsigned char)(value & 0xff);
}

/* Store OFFSET for ITEM in the item array OFFSETS, growing it with -1.
   RECORDS is the number of records in the whole file. */
static svn_error_t *
proto_l2p_store(apr_array_header_t *offsets, apr_uint64_t item,
                apr_off_t offset, apr_uint64_t records, const char *where)
{
  /* Item numbers are dense (PROTO-2): far more item numbers than records
     means damage, and we must not allocate for it. */
  if (item >= 16 * records + 4096)
    return svn_fs_fs__index_corrupt("PROTO-2", where,
             "Proto-L2P item index %" APR_UINT64_T_FMT " is too large",
             item);
  while ((apr_uint64_t)offsets->nelts <= item)
    APR_ARRAY_PUSH(offsets, apr_off_t) = -1;
  APR_ARRAY_IDX(offsets, item, apr_off_t) = offset;
  return SVN_NO_ERROR;
}

svn_error_t *
svn_fs_fs__proto_l2p_parse_more(apr_array_header_t *revisions,
                                apr_size_t done, const unsigned char *data,
                                apr_size_t len, apr_size_t file_len,
                                const char *where, apr_pool_t *result_pool)
{
  apr_array_header_t *current
    = APR_ARRAY_IDX(revisions, revisions->nelts - 1, apr_array_header_t *);
  apr_size_t at;

  if (len % SVN_FS_FS__PROTO_L2P_RECORD)
    return svn_fs_fs__index_corrupt("PROTO-1", where,
             "Proto-L2P size %lu is not a multiple of %d",
             (unsigned long)file_len, SVN_FS_FS__PROTO_L2P_RECORD);
  for (at = 0; at < len; at += SVN_FS_FS__PROTO_L2P_RECORD)
    {
      apr_uint64_t stored = get_le64(data + at);
      apr_uint64_t item = get_le64(data + at + 8);

      if (stored == 0 && item == 0)
        {
          /* Separator; the one before the first record is optional. */
          if (done + at > 0)
            {
              current = apr_array_make(result_pool, 8, sizeof(apr_off_t));
              APR_ARRAY_PUSH(revisions, apr_array_header_t *) = current;
            }
          continue;
        }
      if (stored == 0 || stored > MAX_POSITION || item == 0)
        return svn_fs_fs__index_corrupt("PROTO-2", where,
                 "Invalid proto-L2P record at offset %lu",
                 (unsigned long)(done + at));
      SVN_ERR(proto_l2p_store(current, item, (apr_off_t)stored - 1,
                              file_len / SVN_FS_FS__PROTO_L2P_RECORD,
                              where));
    }
  return SVN_NO_ERROR;
}

svn_error_t *
svn_fs_fs__proto_l2p_parse(apr_array_header_t **revisions,
                           const unsigned char *data, apr_size_t len,
                           const char *where, apr_pool_t *result_pool)
{
  apr_array_header_t *result
    = apr_array_make(result_pool, 1, sizeof(apr_array_header_t *));

  APR_ARRAY_PUSH(result, apr_array_header_t *)
    = apr_array_make(result_pool, 8, sizeof(apr_off_t));
  SVN_ERR(svn_fs_fs__proto_l2p_parse_more(result, 0, data, len, len, where,
                                          result_pool));
  *revisions = result;
  return SVN_NO_ERROR;
}

void
svn_fs_fs__proto_l2p_unparse(unsigned char buf[SVN_FS_FS__PROTO_L2P_RECORD],
                             apr_off_t offset, apr_uint64_t item_index)
{
  put_le64(buf, item_index == 0 ? 0 : (apr_uint64_t)offset + 1);
  put_le64(buf + 8, item_index);
}

svn_error_t *
svn_fs_fs__proto_p2l_parse_more(apr_array_header_t *entries,
                                const unsigned char *data, apr_size_t len,
                                const char *where)
{
  apr_size_t at;

  if (len % SVN_FS_FS__PROTO_P2L_RECORD)
    return svn_fs_fs__index_corrupt("PROTO-1", where,
             "Proto-P2L size %lu is not a multiple of %d",
             (unsigned long)(entries->nelts * SVN_FS_FS__PROTO_P2L_RECORD
                             + len),
             SVN_FS_FS__PROTO_P2L_RECORD);
  for (at = 0; at < len; at += SVN_FS_FS__PROTO_P2L_RECORD)
    {
      const unsigned char *p = data + at;
      apr_uint64_t offset = get_le64(p), size = get_le64(p + 8);
      apr_uint64_t type = get_le64(p + 16), fnv = get_le64(p + 24);
      apr_uint64_t rev = get_le64(p + 32), item = get_le64(p + 40);
      const svn_fs_fs__p2l_entry_t *last
        = entries->nelts ? &APR_ARRAY_IDX(entries, entries->nelts - 1,
                                          svn_fs_fs__p2l_entry_t)
                         : NULL;
      svn_fs_fs__p2l_entry_t *e;

      /* Every record so far took one entry: the file offset of this one
         follows from their count. */
      if (offset >= MAX_POSITION || size >= MAX_POSITION
          || type > SVN_FS_FS__ITEM_TYPE_CHANGES || fnv > APR_UINT32_MAX
          || rev >= MAX_POSITION || item >= MAX_POSITION
          || (last && (apr_off_t)offset != last->offset + last->size))
        return svn_fs_fs__index_corrupt("PROTO-3", where,
                 "Invalid proto-P2L record at offset %lu",
                 (unsigned long)(entries->nelts
                                 * SVN_FS_FS__PROTO_P2L_RECORD));
      e = apr_array_push(entries);
      e->offset = (apr_off_t)offset;
      e->size = (apr_off_t)size;
      e->type = (svn_fs_fs__item_type_t)type;
      e->fnv1_checksum = (apr_uint32_t)fnv;
      e->revision = rev == 0 ? SVN_INVALID_REVNUM : (svn_revnum_t)rev - 1;
      e->item_index = item;
    }
  return SVN_NO_ERROR;
}

svn_error_t *
svn_fs_fs__proto_p2l_parse(apr_array_header_t **entries,
                           const unsigned char *data, apr_size_t len,
                           const char *where, apr_pool_t *result_pool)
{
  apr_array_header_t *result
    = apr_array_make(result_pool, (int)(len / SVN_FS_FS__PROTO_P2L_RECORD)
                                  + 1, sizeof(svn_fs_fs__p2l_entry_t));

  SVN_ERR(svn_fs_fs__proto_p2l_parse_more(result, data, len, where));
  *entries = result;
  return SVN_NO_ERROR;
}

void
svn_fs_fs__proto_p2l_unparse(unsigned char buf[SVN_FS_FS__PROTO_P2L_RECORD],
                             const svn_fs_fs__p2l_entry_t *entry)
{
  put_le64(buf, (apr_uint64_t)entry->offset);
  put_le64(buf + 8, (apr_uint64_t)entry->size);
  put_le64(buf + 16, (apr_uint64_t)entry->type);
  put_le64(buf + 24, entry->fnv1_checksum);
  put_le64(buf + 32, SVN_IS_VALID_REVNUM(entry->revision)
                     ? (apr_uint64_t)entry->revision + 1 : 0);
  put_le64(buf + 40, entry->item_index);
}
