/* fuzz_l2p.c --- libFuzzer target for the L2P codec (index_codec.c): the
 * input is an L2P section (header, page table, pages); every page is
 * decoded and a few item locations are looked up.  The same bytes are
 * also parsed as a proto-L2P file.
 * Corpus: tests/fuzz/corpus/l2p/ (sections cut from stock-made files).
 */
#include <stdint.h>
#include <stddef.h>
#include <apr_general.h>
#include "svn_pools.h"

#include "index_codec.h"

/* Sections are placed here so that item offsets below it are valid. */
#define SECTION_OFFSET 1000000

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
  {
    apr_array_header_t *revisions;
    svn_error_clear(svn_fs_fs__proto_l2p_parse(&revisions, data, size,
                                               "fuzz", pool));
  }
  svn_pool_clear(pool);
  return 0;
}
