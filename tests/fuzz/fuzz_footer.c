/* fuzz_footer.c --- libFuzzer target for footer.c: the input is parsed as
 * the tail of a logically addressed file (footer), as the end of a
 * physically addressed revision (trailer) and as a pack manifest.
 * Corpus: tests/fuzz/corpus/footer/ (stock-made tails and manifests).
 */
#include <stdint.h>
#include <stddef.h>
#include <apr_general.h>
#include "svn_pools.h"

#include "footer.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  static apr_pool_t *pool;
  svn_fs_fs__footer_t footer;
  apr_off_t root, changes, *offsets;
  apr_size_t tail = size < SVN_FS_FS__FOOTER_MAX_LEN
                  ? size : SVN_FS_FS__FOOTER_MAX_LEN;

  if (pool == NULL)
    {
      apr_initialize();
      pool = svn_pool_create(NULL);
    }
  svn_error_clear(svn_fs_fs__footer_parse(&footer, data + size - tail, tail,
                                          (apr_off_t)size, "fuzz"));
  svn_error_clear(svn_fs_fs__trailer_parse(&root, &changes, NULL,
                                           (const char *)data, size,
                                           (apr_off_t)size, "fuzz"));
  if (!svn_fs_fs__manifest_parse(&offsets, (const char *)data, size, 4,
                                 1 << 20, "fuzz", pool))
    {
      apr_off_t start, end;
      int k;

      /* Every revision's bounds, in a pack file that may be shorter. */
      for (k = 0; k < 4; k++)
        svn_error_clear(svn_fs_fs__manifest_bounds(&start, &end, offsets, 4,
                                                   k, 0, (apr_off_t)size,
                                                   "fuzz"));
    }
  svn_pool_clear(pool);
  return 0;
}
