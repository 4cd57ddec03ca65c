/* fuzz_dirent.c --- libFuzzer target for dirent_codec.c: listings (plain
 * and incremental) that parse come out sorted and print to a listing that
 * parses to the same entries.  Corpus: tests/fuzz/corpus/dirent/
 * (stock-made directory listings and transaction "children" files).
 */
#include <stdint.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <apr_general.h>
#include "svn_pools.h"

#include "id.h"
#include "dirent_codec.h"

static void
check(const apr_array_header_t *entries, apr_pool_t *pool)
{
  svn_stringbuf_t *out = svn_stringbuf_create_empty(pool);
  apr_array_header_t *again;
  int i;

  for (i = 1; i < entries->nelts; i++)
    if (svn_fs_fs__dirent_compare(&APR_ARRAY_IDX(entries, i - 1, void *),
                                  &APR_ARRAY_IDX(entries, i, void *)) >= 0)
      abort();
  svn_fs_fs__dirents_unparse(out, entries);
  if (svn_fs_fs__dirents_parse(&again, out->data, out->len, FALSE, "fuzz",
                               pool, pool))
    abort();
  if (again->nelts != entries->nelts)
    abort();
  for (i = 0; i < entries->nelts; i++)
    {
      const svn_fs_dirent_t *a = APR_ARRAY_IDX(entries, i, svn_fs_dirent_t *);
      const svn_fs_dirent_t *b = APR_ARRAY_IDX(again, i, svn_fs_dirent_t *);
      if (strcmp(a->name, b->name) != 0 || a->kind != b->kind
          || !svn_fs_fs__id_eq(SVN_FS_FS__ID(a->id), SVN_FS_FS__ID(b->id)))
        abort();
    }
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  static apr_pool_t *pool;
  apr_array_header_t *entries;
  svn_error_t *err;
  int incremental;

  if (pool == NULL)
    {
      apr_initialize();
      pool = svn_pool_create(NULL);
    }
  for (incremental = 0; incremental <= 1; incremental++)
    {
      err = svn_fs_fs__dirents_parse(&entries, (const char *)data, size,
                                     incremental, "fuzz", pool, pool);
      if (err)
        svn_error_clear(err);
      else
        check(entries, pool);
    }
  svn_pool_clear(pool);
  return 0;
}
