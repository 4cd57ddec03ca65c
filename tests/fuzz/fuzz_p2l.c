/* fuzz_p2l.c --- libFuzzer target for the P2L codec (index_codec.c): the
 * input is a P2L section; the header and every page are decoded.  Inputs
 * starting with the footer of a whole file are also run through the image
 * check (without digests, so that mutations get past them).  All inputs
 * are also parsed as proto-P2L files.  The pages of a section whose
 * header decodes are also searched (svn_fs_fs__p2l_page_find) for an
 * offset taken from the input's last bytes.
 * Corpus: tests/fuzz/corpus/p2l/ (sections and small stock-made files).
 */
#include <stdint.h>
#include <stddef.h>
#include <string.h>
#include <apr_general.h>
#include "svn_pools.h"

#include "index_codec.h"

/* Where the section is taken to lie in its file. */
#define SECTION_AT 1000000

/* Search every page of the P2L section DATA whose bytes lie inside it,
   if its header decodes, for an offset made of the input's last bytes. */
static void
find_in_pages(const uint8_t *data, size_t size, apr_pool_t *pool)
{
  svn_fs_fs__p2l_header_t *header;
  apr_size_t needed;
  apr_off_t target = 0, end = SECTION_AT + (apr_off_t)size;
  apr_uint64_t page;
  size_t i;
  svn_error_t *err = svn_fs_fs__p2l_header_parse(&header, &needed, data,
                                                 size, SECTION_AT, end,
                                                 "fuzz", pool);

  if (err)
    {
      svn_error_clear(err);     /* nothing to search */
      return;
    }
  for (i = size > 3 ? size - 3 : 0; i < size; i++)
    target = target * 256 + data[i];
  for (page = 0; page < header->page_count; page++)
    {
      svn_fs_fs__p2l_entry_t entry;
      svn_boolean_t found;

      if (header->offsets[page] < SECTION_AT
          || header->offsets[page + 1] > end
          || header->offsets[page] > header->offsets[page + 1])
        break;
      svn_error_clear(svn_fs_fs__p2l_page_find(
                        &entry, &found, header, page,
                        data + (header->offsets[page] - SECTION_AT), target,
                        "fuzz"));
    }
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  static apr_pool_t *pool;
  svn_fs_fs__p2l_header_t *header;
  apr_array_header_t *entries;

  if (pool == NULL)
    {
      apr_initialize();
      pool = svn_pool_create(NULL);
    }
  if (size >= 3 && memcmp(data, "P2L", 3) == 0)
    {
      svn_error_clear(svn_fs_fs__p2l_check_section(&header, &entries, data,
                                                   size, SECTION_AT, "fuzz",
                                                   pool));
      find_in_pages(data, size, pool);
    }
  else if (size > 0)
    svn_error_clear(svn_fs_fs__index_check_image(data, size, FALSE, pool));
  svn_error_clear(svn_fs_fs__proto_p2l_parse(&entries, data, size, "fuzz",
                                             pool));
  svn_pool_clear(pool);
  return 0;
}
