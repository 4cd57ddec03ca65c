/* fuzz_txn_current.c --- libFuzzer target for db/txn-current (txn_store.c,
 * TXN-2): any input fails or parses to a number whose printed form parses
 * back to it.  Corpus: tests/fuzz/corpus/txn_current/.
 */
#include <stdint.h>
#include <stddef.h>
#include <stdlib.h>
#include <apr_general.h>
#include "svn_pools.h"
#include "private/svn_string_private.h"

#include "txn_store.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  static apr_pool_t *pool;
  apr_uint64_t seq, again;
  char buf[32];
  apr_size_t len;
  svn_error_t *err;

  if (pool == NULL)
    {
      apr_initialize();
      pool = svn_pool_create(NULL);
    }
  err = svn_fs_fs__txn_current_parse(&seq, (const char *)data, size, "fuzz");
  if (!err)
    {
      len = svn__ui64tobase36(buf, seq);
      buf[len++] = '\n';
      err = svn_fs_fs__txn_current_parse(&again, buf, len, "again");
      if (err || again != seq)
        abort();
    }
  else if (err->apr_err != SVN_ERR_FS_CORRUPT)
    abort();
  svn_error_clear(err);
  svn_pool_clear(pool);
  return 0;
}
