/* fuzz_rep_header.c --- libFuzzer target for rep_header.c.
 *
 * Parses the input as the start of a representation; a successful parse
 * must round-trip through the writer to the same fields.
 */
#include <stdint.h>
#include <stdlib.h>
#include <apr_general.h>

#include "svn_pools.h"
#include "rep_header.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  static apr_pool_t *root;
  apr_pool_t *pool;
  svn_fs_fs__rep_header_t h, again;
  svn_error_t *err;

  if (!root)
    {
      apr_initialize();
      root = svn_pool_create(NULL);
    }
  pool = svn_pool_create(root);
  err = svn_fs_fs__rep_header_parse(&h, (const char *)data, size, NULL);
  if (err)
    svn_error_clear(err);
  else
    {
      svn_stringbuf_t *text = svn_fs_fs__rep_header_unparse(&h, pool);
      err = svn_fs_fs__rep_header_parse(&again, text->data, text->len, NULL);
      if (err || again.kind != h.kind || again.base_revision != h.base_revision
          || again.base_item_index != h.base_item_index
          || again.base_length != h.base_length)
        abort();
    }
  svn_pool_destroy(pool);
  return 0;
}
