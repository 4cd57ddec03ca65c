/* fuzz_txn_itemidx.c --- libFuzzer target for a transaction's "itemidx"
 * file (txn_protorev.c, TXN-4): any input fails or parses to a number of
 * at least 3 whose decimal form parses back to it.
 * Corpus: tests/fuzz/corpus/txn_itemidx/.
 */
#include <stdint.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <apr_general.h>
#include <apr_strings.h>
#include "svn_pools.h"

#include "txn_store.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  static apr_pool_t *pool;
  apr_uint64_t item, again;
  const char *text;
  svn_error_t *err;

  if (pool == NULL)
    {
      apr_initialize();
      pool = svn_pool_create(NULL);
    }
  err = svn_fs_fs__txn_itemidx_parse(&item, (const char *)data, size,
                                     "fuzz");
  if (!err)
    {
      if (item < SVN_FS_FS__ITEM_INDEX_FIRST_USER)
        abort();
      text = apr_psprintf(pool, "%" APR_UINT64_T_FMT, item);
      err = svn_fs_fs__txn_itemidx_parse(&again, text, strlen(text),
                                         "again");
      if (err || again != item)
        abort();
    }
  else if (err->apr_err != SVN_ERR_FS_CORRUPT)
    abort();
  svn_error_clear(err);
  svn_pool_clear(pool);
  return 0;
}
