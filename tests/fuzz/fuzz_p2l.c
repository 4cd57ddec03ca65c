/* fuzz_p2l.c --- libFuzzer target for the P2L codec (index_codec.c): the
 * input is a P2L section; the header and every page are decoded.  Inputs
 * starting with the footer of a whole file are also run through the image
 * check (without digests, so that mutations get past them).  All inputs
 * are also parsed as proto-P2L files.
 * Corpus: tests/fuzz/corpus/p2l/ (sections and small stock-made files).
 */
#include <stdint.h>
#include <stddef.h>
#include <string.h>
#include <apr_general.h>
#include "svn_pools.h"

#include "index_codec.h"

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
    svn_error_clear(svn_fs_fs__p2l_check_section(&header, &entries, data,
                                                 size, 1000000, "fuzz",
                                                 pool));
  else if (size > 0)
    svn_error_clear(svn_fs_fs__index_check_image(data, size, FALSE, pool));
  svn_error_clear(svn_fs_fs__proto_p2l_parse(&entries, data, size, "fuzz",
                                             pool));
  svn_pool_clear(pool);
  return 0;
}
