/* fuzz_noderev.c --- libFuzzer target for noderev_codec.c: a record that
 * parses must print (in every format) to a record that parses again to the
 * same essentials.  Corpus: tests/fuzz/corpus/noderev/ (stock-made
 * node-revs of revisions and transactions).
 */
#include <stdint.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <apr_general.h>
#include "svn_pools.h"

#include "id.h"
#include "noderev_codec.h"

static void
check_roundtrip(const svn_fs_fs__noderev_t *nr, int format, apr_pool_t *pool)
{
  svn_stringbuf_t *out = svn_stringbuf_create_empty(pool);
  svn_fs_fs__noderev_t *again;
  svn_error_t *err;

  svn_fs_fs__noderev_unparse(out, nr, format, pool);
  if (svn_fs_fs__noderev_record_len(out->data, out->len) != out->len)
    abort();
  err = svn_fs_fs__noderev_parse(&again, out->data, out->len, "fuzz", pool,
                                 pool);
  if (err)
    abort();
  if (!svn_fs_fs__id_eq(nr->id, again->id) || nr->kind != again->kind
      || strcmp(nr->created_path, again->created_path) != 0
      || nr->predecessor_count != again->predecessor_count
      || (nr->data_rep == NULL) != (again->data_rep == NULL)
      || (nr->prop_rep == NULL) != (again->prop_rep == NULL)
      || nr->copyroot_rev != again->copyroot_rev
      || strcmp(nr->copyroot_path, again->copyroot_path) != 0)
    abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  static apr_pool_t *pool;
  svn_fs_fs__noderev_t *nr;
  svn_error_t *err;
  int format;

  if (pool == NULL)
    {
      apr_initialize();
      pool = svn_pool_create(NULL);
    }
  (void)svn_fs_fs__noderev_record_len((const char *)data, size);
  err = svn_fs_fs__noderev_parse(&nr, (const char *)data, size, "fuzz", pool,
                                 pool);
  if (err)
    svn_error_clear(err);
  else
    for (format = 6; format <= 8; format++)
      check_roundtrip(nr, format, pool);
  svn_pool_clear(pool);
  return 0;
}
