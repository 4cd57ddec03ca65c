/* index_codec.h --- pure codecs of the L2P and P2L index sections (codec layer).
 *
 * Bytes in, structs out: no file I/O, no caches.  The index sections are
 * specified in doc/format/addressing.md (rules VARINT-*, L2P-*, P2L-*);
 * every rejection cites one of them through corrupt.h.
 *
 * All parsers take the section bytes as a buffer plus the absolute file
 * offset of the buffer's first byte, so that the structs they return hold
 * absolute positions and error messages can name them.
 */
#ifndef FSFS7_INDEX_CODEC_H
#define FSFS7_INDEX_CODEC_H

#include "fsfs7.h"
#include "index.h"

/* Longest 7b/8b encoding of a 64-bit number (VARINT-1). */
#define SVN_FS_FS__VARINT_MAX_LEN 10

/* ------------------------------------------------------------------ */
/* Varints (VARINT-1, VARINT-2)                                        */

/* Decode one unsigned varint from [*P, END) into *VALUE and advance *P.
   FALSE (and *P unchanged) if the bytes end before the number does or the
   number does not fit 64 bits. */
svn_boolean_t
svn_fs_fs__varint_decode(apr_uint64_t *value, const unsigned char **p,
                         const unsigned char *end);

/* Same for the signed (zig-zag) encoding. */
svn_boolean_t
svn_fs_fs__varint_decode_signed(apr_int64_t *value, const unsigned char **p,
                                const unsigned char *end);

/* Encode VALUE at BUF (at least SVN_FS_FS__VARINT_MAX_LEN bytes); returns
   the number of bytes written.  Used by tests and future writers. */
apr_size_t
svn_fs_fs__varint_encode(unsigned char *buf, apr_uint64_t value);
apr_size_t
svn_fs_fs__varint_encode_signed(unsigned char *buf, apr_int64_t value);


/* ------------------------------------------------------------------ */
/* L2P index                                                           */

/* One page of an L2P index as listed in its page table. */
typedef struct svn_fs_fs__l2p_page_info_t
{
  apr_off_t offset;            /* absolute file position of the page   */
  apr_uint32_t size;           /* bytes                                */
  apr_uint32_t entry_count;
} svn_fs_fs__l2p_page_info_t;

/* The L2P header and page table.  PAGE_TABLE_INDEX has REVISION_COUNT+1
   elements: the pages of revision FIRST_REVISION+k are
   PAGE_TABLE[PAGE_TABLE_INDEX[k] .. PAGE_TABLE_INDEX[k+1]-1]. */
typedef struct svn_fs_fs__l2p_header_t
{
  svn_revnum_t first_revision;
  apr_uint64_t page_size;      /* entries per full page                */
  apr_uint64_t revision_count;
  apr_uint64_t page_count;
  apr_uint64_t *page_table_index;
  svn_fs_fs__l2p_page_info_t *page_table;
} svn_fs_fs__l2p_header_t;

/* Parse the L2P header at the start of DATA (LEN bytes, DATA_OFFSET the
   absolute file position of DATA[0]).  INDEX_END is the absolute end of
   the L2P section (the P2L start).  If DATA ends before the header does
   but the section continues beyond it, set *HEADER to NULL and *NEEDED to
   a larger byte count worth retrying with; otherwise parse, check rules
   L2P-1..L2P-4 and allocate *HEADER in RESULT_POOL (*NEEDED = 0).
   WHERE names the file for error messages. */
svn_error_t *
svn_fs_fs__l2p_header_parse(svn_fs_fs__l2p_header_t **header,
                            apr_size_t *needed, const unsigned char *data,
                            apr_size_t len, apr_off_t data_offset,
                            apr_off_t index_end, const char *where,
                            apr_pool_t *result_pool);

/* Parse the page described by INFO (DATA holds its INFO->size bytes) into
   *VALUES, INFO->entry_count stored values: 0 for an unused item, else
   the item's offset plus one (L2P-5, L2P-6).  DATA_LIMIT is the first
   absolute offset an item may not start at (the L2P start). */
svn_error_t *
svn_fs_fs__l2p_page_parse(apr_uint64_t **values,
                          const svn_fs_fs__l2p_page_info_t *info,
                          const unsigned char *data, apr_off_t data_limit,
                          const char *where, apr_pool_t *result_pool);

/* The stored value of entry SLOT (< INFO->entry_count) of the page
   described by INFO, decoding DATA only that far, with the checks of
   svn_fs_fs__l2p_page_parse for the entries decoded (not the one for
   bytes after the last entry): for a lookup that would not use the rest
   of the page. */
svn_error_t *
svn_fs_fs__l2p_page_value(apr_uint64_t *value,
                          const svn_fs_fs__l2p_page_info_t *info,
                          const unsigned char *data, apr_off_t data_limit,
                          apr_uint64_t slot, const char *where);

/* Locate (REVISION, ITEM_INDEX) in HEADER: page number *PAGE and slot
   *SLOT in it.  SVN_ERR_FS_INDEX_REVISION / SVN_ERR_FS_INDEX_OVERFLOW
   (rule L2P-7) when not covered. */
svn_error_t *
svn_fs_fs__l2p_locate(apr_uint64_t *page, apr_uint64_t *slot,
                      const svn_fs_fs__l2p_header_t *header,
                      svn_revnum_t revision, apr_uint64_t item_index,
                      const char *where);


/* ------------------------------------------------------------------ */
/* P2L index                                                           */

typedef struct svn_fs_fs__p2l_header_t
{
  svn_revnum_t first_revision;
  apr_off_t file_size;         /* bytes of item data covered           */
  apr_uint64_t page_size;      /* bytes of item data per page          */
  apr_uint64_t page_count;
  apr_off_t *offsets;          /* PAGE_COUNT+1 absolute page positions */
} svn_fs_fs__p2l_header_t;

/* Parse the P2L header at the start of DATA like
   svn_fs_fs__l2p_header_parse (rules P2L-1..P2L-3); INDEX_END is the
   absolute end of the P2L section (the footer start). */
svn_error_t *
svn_fs_fs__p2l_header_parse(svn_fs_fs__p2l_header_t **header,
                            apr_size_t *needed, const unsigned char *data,
                            apr_size_t len, apr_off_t data_offset,
                            apr_off_t index_end, const char *where,
                            apr_pool_t *result_pool);

/* Decode page PAGE of HEADER, whose bytes are DATA (HEADER->offsets[PAGE]
   .. [PAGE+1]), appending svn_fs_fs__p2l_entry_t values to ENTRIES
   (rules P2L-4, P2L-5).  Unused entries get revision
   SVN_INVALID_REVNUM. */
svn_error_t *
svn_fs_fs__p2l_page_parse(apr_array_header_t *entries,
                          const svn_fs_fs__p2l_header_t *header,
                          apr_uint64_t page, const unsigned char *data,
                          const char *where);

/* The entry of page PAGE of HEADER (bytes DATA, as for
   svn_fs_fs__p2l_page_parse) that starts at OFFSET, the first if several
   do: *FOUND says whether there is one, and *ENTRY holds it.  Decodes
   only as far as OFFSET, with the same checks: for a lookup in a page
   too small to be worth keeping parsed. */
svn_error_t *
svn_fs_fs__p2l_page_find(svn_fs_fs__p2l_entry_t *entry,
                         svn_boolean_t *found,
                         const svn_fs_fs__p2l_header_t *header,
                         apr_uint64_t page, const unsigned char *data,
                         apr_off_t offset, const char *where);

#endif


/* ------------------------------------------------------------------ */
/* Whole-file check                                                    */

/* Parse the footer, both index sections and every page of the rev or
   pack file image DATA (LEN bytes) held in memory, and check that the two
   indexes agree (P2L-6, P2L-8).  With CHECK_DIGESTS also the footer MD5
   digests (FOOTER-4) and every item's FNV-1a checksum (P2L-7).  For
   tests and fuzzing; the first violation is returned. */
svn_error_t *
svn_fs_fs__index_check_image(const unsigned char *data, apr_size_t len,
                             svn_boolean_t check_digests,
                             apr_pool_t *scratch_pool);

/* Parse DATA (LEN bytes) as a complete L2P section located at absolute
   offset DATA_OFFSET, i.e. header and all pages (fuzzing entry point).
   *HEADER may be NULL'ed out. */
svn_error_t *
svn_fs_fs__l2p_check_section(svn_fs_fs__l2p_header_t **header,
                             const unsigned char *data, apr_size_t len,
                             apr_off_t data_offset, const char *where,
                             apr_pool_t *result_pool);

/* Same for a P2L section; *ENTRIES gets all entries of all pages. */
svn_error_t *
svn_fs_fs__p2l_check_section(svn_fs_fs__p2l_header_t **header,
                             apr_array_header_t **entries,
                             const unsigned char *data, apr_size_t len,
                             apr_off_t data_offset, const char *where,
                             apr_pool_t *result_pool);


/* ------------------------------------------------------------------ */
/* Encoders (for writers: commit and pack)                             */

/* Encode an L2P section covering REVISIONS->nelts revisions starting at
   FIRST_REVISION.  Element k of REVISIONS is an apr_array_header_t * of
   apr_off_t: the file offset of each item index of revision
   FIRST_REVISION+k, -1 for unused indexes (index 0 is always unused).
   PAGE_SIZE is the number of entries per page.  The section is returned
   in *SECTION, allocated in RESULT_POOL. */
svn_error_t *
svn_fs_fs__l2p_section_build(svn_stringbuf_t **section,
                             svn_revnum_t first_revision,
                             const apr_array_header_t *revisions,
                             apr_uint64_t page_size,
                             apr_pool_t *result_pool);

/* Encode a P2L section for the item data [0, COVERED) of a file whose
   first revision is FIRST_REVISION.  ENTRIES (svn_fs_fs__p2l_entry_t)
   must tile [0, COVERED) in offset order; the unused filler up to the end
   of the last page is added here.  PAGE_SIZE is in bytes. */
svn_error_t *
svn_fs_fs__p2l_section_build(svn_stringbuf_t **section,
                             svn_revnum_t first_revision, apr_off_t covered,
                             apr_uint64_t page_size,
                             const apr_array_header_t *entries,
                             apr_pool_t *result_pool);


/* ------------------------------------------------------------------ */
/* Proto-indexes (transactions, packing)                               */

/* Record sizes of the two proto-index files: little-endian 64-bit
   numbers, 2 per L2P record and 6 per P2L record (PROTO-1). */
#define SVN_FS_FS__PROTO_L2P_RECORD 16
#define SVN_FS_FS__PROTO_P2L_RECORD 48

/* Parse a proto-L2P file (LEN bytes at DATA) into *REVISIONS, the input
   format of svn_fs_fs__l2p_section_build: one apr_array_header_t * of
   apr_off_t per revision, indexed by item, -1 where unused.  A (0, 0)
   record starts the next revision (PROTO-2).  Allocated in RESULT_POOL. */
svn_error_t *
svn_fs_fs__proto_l2p_parse(apr_array_header_t **revisions,
                           const unsigned char *data, apr_size_t len,
                           const char *where, apr_pool_t *result_pool);

/* Like svn_fs_fs__proto_l2p_parse, for a file of FILE_LEN bytes read
   piece by piece: parse the next LEN bytes at DATA, which start DONE
   bytes into the file (a whole number of records), into REVISIONS,
   which holds what the earlier pieces gave (one empty item array before
   the first piece).  New revisions' arrays go to RESULT_POOL. */
svn_error_t *
svn_fs_fs__proto_l2p_parse_more(apr_array_header_t *revisions,
                                apr_size_t done, const unsigned char *data,
                                apr_size_t len, apr_size_t file_len,
                                const char *where, apr_pool_t *result_pool);

/* Write the proto-L2P record for an item at OFFSET (or, with
   ITEM_INDEX 0 and OFFSET -1, the revision separator) into BUF. */
void
svn_fs_fs__proto_l2p_unparse(unsigned char buf[SVN_FS_FS__PROTO_L2P_RECORD],
                             apr_off_t offset, apr_uint64_t item_index);

/* Parse a proto-P2L file into *ENTRIES (svn_fs_fs__p2l_entry_t; revision
   SVN_INVALID_REVNUM where the record says "not yet known") (PROTO-3). */
svn_error_t *
svn_fs_fs__proto_p2l_parse(apr_array_header_t **entries,
                           const unsigned char *data, apr_size_t len,
                           const char *where, apr_pool_t *result_pool);

/* Like svn_fs_fs__proto_p2l_parse, for a file read piece by piece: append
   the records of the next LEN bytes at DATA to ENTRIES, which holds those
   of everything before them (a whole number of records), so that the
   records need not all be in memory at once. */
svn_error_t *
svn_fs_fs__proto_p2l_parse_more(apr_array_header_t *entries,
                                const unsigned char *data, apr_size_t len,
                                const char *where);

/* Write ENTRY as a proto-P2L record into BUF. */
void
svn_fs_fs__proto_p2l_unparse(unsigned char buf[SVN_FS_FS__PROTO_P2L_RECORD],
                             const svn_fs_fs__p2l_entry_t *entry);
