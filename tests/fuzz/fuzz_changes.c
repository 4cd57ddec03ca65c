/* fuzz_changes.c --- libFuzzer target for changes_codec.c: a list that
 * parses must print to a list that parses to as many entries.
 * Corpus: tests/fuzz/corpus/changes/ (stock-made revision and transaction
 * change lists).
 */
#include <stdint.h>
#include <stddef.h>
#include <stdlib.h>
#include <apr_general.h>
#include "svn_pools.h"

#include "changes_codec.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  static apr_pool_t *pool;
  apr_array_header_t *changes, *again;
  svn_error_t *err;
  int i;

  if (pool == NULL)
    {
      apr_initialize();
      pool = svn_pool_create(NULL);
    }
  err = svn_fs_fs__changes_parse(&changes, NULL, (const char *)data, size,
                                 TRUE, "fuzz", pool, pool);
  if (err)
    svn_error_clear(err);
  else
    {
      svn_stringbuf_t *out = svn_stringbuf_create_empty(pool);
      for (i = 0; i < changes->nelts; i++)
        svn_fs_fs__change_unparse(out, APR_ARRAY_IDX(changes, i,
                                                     svn_fs_fs__change_t *),
                                  7);
      svn_stringbuf_appendbyte(out, '\n');
      err = svn_fs_fs__changes_parse(&again, NULL, out->data, out->len, TRUE,
                                     "fuzz", pool, pool);
      if (err || again->nelts != changes->nelts)
        abort();
    }
  svn_pool_clear(pool);
  return 0;
}
