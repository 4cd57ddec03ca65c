/* fuzz_l2p.c --- libFuzzer target for the L2P codec (index_codec.c): the
 * input is an L2P section (header, page table, pages); every page is
 * decoded and a few item locations are looked up.  If only the header
 * decodes, the first entries of each page inside the input are looked up
 * in place (svn_fs_fs__l2p_page_value).  The same bytes are also parsed
 * as a proto-L2P file.
 * Corpus: tests/fuzz/corpus/l2p/ (sections cut from stock-made files).
 */
#include <stdint.h>
#include <stddef.h>
#include <apr_general.h>
#include "svn_pools.h"

#include "index_codec.h"

/* Sections are placed here so that item offsets below it are valid. */
#define SECTION_OFFSET 1000000

/* Look the first entries of every page of the L2P section DATA up in
   place, if its header decodes. */
static void
values_in_place(const uint8_t *data, size_t size, apr_pool_t *pool)
{
  svn_fs_fs__l2p_header_t *header;
  apr_size_t needed;
  apr_off_t end = SECTION_OFFSET + (apr_off_t)size;
  apr_uint64_t page, slot, value;
  svn_error_t *err = svn_fs_fs__l2p_header_parse(&header, &needed, data,
                                                 size, SECTION_OFFSET, end,
                                                 "fuzz", pool);

  if (err || header == NULL)
    {
      svn_error_clear(err);     /* nothing to look up */
      return;
    }
  for (page = 0; page < header->page_count; page++)
    {
      const svn_fs_fs__l2p_page_info_t *info = &header->page_table[page];

      if (info->offset < SECTION_OFFSET
          || info->offset + (apr_off_t)info->size > end)
        continue;
      for (slot = 0; slot < info->entry_count && slot < 20; slot++)
        svn_error_clear(svn_fs_fs__l2p_page_value(
                          &value, info, data + (info->offset - SECTION_OFFSET),
                          SECTION_OFFSET, slot, "fuzz"));
    }
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  static apr_pool_t *pool;
  svn_fs_fs__l2p_header_t *header;
  apr_uint64_t page, slot, item;
  svn_error_t *err;

  if (pool == NULL)
    {
      apr_initialize();
      pool = svn_pool_create(NULL);
    }
  err = svn_fs_fs__l2p_check_section(&header, data, size, SECTION_OFFSET,
                                     "fuzz", pool);
  if (!err)
    for (item = 0; item < 20; item++)
      svn_error_clear(svn_fs_fs__l2p_locate(&page, &slot, header,
                                            header->first_revision
                                            + (svn_revnum_t)(item % 3),
                                            item * 3, "fuzz"));
  svn_error_clear(err);
  values_in_place(data, size, pool);
  {
    apr_array_header_t *revisions;
    svn_error_clear(svn_fs_fs__proto_l2p_parse(&revisions, data, size,
                                               "fuzz", pool));
  }
  svn_pool_clear(pool);
  return 0;
}
