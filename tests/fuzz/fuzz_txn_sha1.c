/* fuzz_txn_sha1.c --- libFuzzer target for a transaction's <sha1> files
 * (txn_store.c, TXN-10).  The first 20 bytes of the input are the SHA1 the
 * file is named after, the rest its contents, read as a file of
 * transaction 1-1.  Any input fails with SVN_ERR_FS_CORRUPT or gives a rep
 * of that transaction with that SHA1 whose printed form (as we write the
 * file, format 8) parses back to the same rep.
 * Corpus: tests/fuzz/corpus/txn_sha1/ (stock-made files with their names).
 */
#include <stdint.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <apr_general.h>
#include "svn_pools.h"

#include "noderev_codec.h"
#include "txn_store.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  static apr_pool_t *pool;
  svn_fs_fs__txn_id_t txn = { 1, 1 };
  svn_fs_fs__rep_t *rep, *again;
  svn_stringbuf_t *out;
  svn_error_t *err;

  if (pool == NULL)
    {
      apr_initialize();
      pool = svn_pool_create(NULL);
    }
  if (size < APR_SHA1_DIGESTSIZE)
    return 0;
  err = svn_fs_fs__txn_sha1_parse(&rep, (const char *)data + 20, size - 20,
                                  &txn, data, "fuzz", pool);
  if (!err)
    {
      if (!rep->has_sha1 || memcmp(rep->sha1_digest, data, 20) != 0)
        abort();
      out = svn_stringbuf_create_empty(pool);
      svn_fs_fs__rep_unparse(out, rep, 8, FALSE);
      err = svn_fs_fs__txn_sha1_parse(&again, out->data, out->len, &txn,
                                      data, "again", pool);
      if (err || again->item_index != rep->item_index
          || again->size != rep->size
          || again->expanded_size != rep->expanded_size
          || again->in_txn != rep->in_txn
          || memcmp(again->md5_digest, rep->md5_digest, 16) != 0)
        abort();
    }
  else if (err->apr_err != SVN_ERR_FS_CORRUPT)
    abort();
  svn_error_clear(err);
  svn_pool_clear(pool);
  return 0;
}
