/* fuzz_id.c --- libFuzzer target for id.c: any input either fails to parse
 * or parses to an ID whose printed form parses back to the same ID.
 * Corpus: tests/fuzz/corpus/id/ (IDs from stock-made repositories).
 */
#include <stdint.h>
#include <stddef.h>
#include <stdlib.h>
#include <apr_general.h>
#include "svn_pools.h"

#include "id.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  static apr_pool_t *pool;
  svn_fs_fs__id_t *id, *again;
  svn_string_t *text;

  if (pool == NULL)
    {
      apr_initialize();
      pool = svn_pool_create(NULL);
    }
  svn_error_clear(svn_fs_fs__id_parse_checked(&id, (const char *)data, size,
                                              pool));
  if (id)
    {
      text = svn_fs_fs__id_unparse(id, pool);
      again = svn_fs_fs__id_parse(text->data, text->len, pool);
      if (again == NULL || !svn_fs_fs__id_eq(id, again)
          || svn_fs_fs__id_compare(id, again) != svn_fs_node_unchanged)
        abort();
    }
  svn_pool_clear(pool);
  return 0;
}
