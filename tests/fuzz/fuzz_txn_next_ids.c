/* fuzz_txn_next_ids.c --- libFuzzer target for a transaction's "next-ids"
 * file (txn_store.c, TXN-3): any input fails or parses to two numbers
 * whose printed form (as we write the file) parses back to them.
 * Corpus: tests/fuzz/corpus/txn_next_ids/ (stock-made files).
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
  apr_uint64_t node, copy, node2, copy2;
  char buf[64];
  apr_size_t len;
  svn_error_t *err;

  if (pool == NULL)
    {
      apr_initialize();
      pool = svn_pool_create(NULL);
    }
  err = svn_fs_fs__txn_next_ids_parse(&node, &copy, (const char *)data, size,
                                      "fuzz");
  if (!err)
    {
      len = svn__ui64tobase36(buf, node);
      buf[len++] = ' ';
      len += svn__ui64tobase36(buf + len, copy);
      buf[len++] = '\n';
      buf[len++] = '\0';
      err = svn_fs_fs__txn_next_ids_parse(&node2, &copy2, buf, len, "again");
      if (err || node2 != node || copy2 != copy)
        abort();
    }
  else if (err->apr_err != SVN_ERR_FS_CORRUPT)
    abort();
  svn_error_clear(err);
  svn_pool_clear(pool);
  return 0;
}
