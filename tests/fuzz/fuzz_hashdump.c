/* fuzz_hashdump.c --- libFuzzer target for the hash dump parser.
 * Accepted input must re-serialise to a dump that parses to the same
 * number of properties. */
#include <stdint.h>
#include <stdlib.h>
#include <apr_general.h>
#include "svn_pools.h"
#include "hashdump.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  static apr_pool_t *pool;
  apr_hash_t *props, *again;
  apr_size_t consumed;
  svn_error_t *err;

  if (pool == NULL)
    {
      apr_initialize();
      pool = svn_pool_create(NULL);
    }
  err = svn_fs_fs__hashdump_parse(&props, &consumed, (const char *)data,
                                  size, "fuzz", pool);
  if (err == NULL)
    {
      svn_stringbuf_t *out = svn_stringbuf_create_empty(pool);

      if (consumed > size)
        abort();
      svn_fs_fs__hashdump_unparse(out, props, pool);
      if (svn_fs_fs__hashdump_parse(&again, NULL, out->data, out->len,
                                    "fuzz", pool)
          || apr_hash_count(again) != apr_hash_count(props))
        abort();
    }
  svn_error_clear(err);
  svn_pool_clear(pool);
  return 0;
}
