/* fuzz_svndiff.c --- libFuzzer target for the svndiff decoder (svndiff.c).
 *
 * The input is a whole svndiff stream, applied to the same fixed base text
 * as the vectors in tests/vectors/good/svndiff.  Any outcome but a crash,
 * a sanitizer report or an output longer than the views allow is fine.
 */
#include <stdint.h>
#include <stdlib.h>
#include <apr_general.h>

#include "svn_pools.h"
#include "svndiff.h"

static const char base_text[] = "0123456789abcdefghijklmnopqrstuvwxyz";

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  static apr_pool_t *root;
  apr_pool_t *pool;
  svn_stringbuf_t *out;
  svn_error_t *err;

  if (!root)
    {
      apr_initialize();
      root = svn_pool_create(NULL);
    }
  pool = svn_pool_create(root);
  err = svn_fs_fs__svndiff_decode_all(&out, (const char *)data, size,
                                      base_text, sizeof(base_text) - 1,
                                      pool, pool);
  if (err)
    svn_error_clear(err);
  svn_pool_destroy(pool);
  return 0;
}
