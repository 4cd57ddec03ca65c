/* fuzz_revprops.c --- libFuzzer target for packed revprop data: the
 * first byte picks the manifest parser (even) or the pack file path
 * (odd: unwrap, container, each revision's hash dump). */
#include <stdint.h>
#include <stdlib.h>
#include <apr_general.h>
#include "svn_pools.h"
#include "hashdump.h"
#include "revprops_codec.h"

/* Unwrap, parse and read every dump of a pack file. */
static svn_error_t *
fuzz_pack(const char *data, apr_size_t size, apr_pool_t *pool)
{
  svn_stringbuf_t *plain;
  svn_fs_fs__revprop_pack_t pack;
  int i;

  SVN_ERR(svn_fs_fs__revprop_pack_unwrap(&plain, data, size, "fuzz", pool));
  SVN_ERR(svn_fs_fs__revprop_pack_parse(&pack, plain->data, plain->len,
                                        "fuzz", pool));
  for (i = 0; i < pack.count; i++)
    {
      apr_hash_t *props;
      if (pack.offsets[i] + pack.sizes[i] > plain->len)
        abort();
      SVN_ERR(svn_fs_fs__hashdump_parse(&props, NULL,
                                        pack.body + pack.offsets[i],
                                        pack.sizes[i], "fuzz", pool));
    }
  return SVN_NO_ERROR;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  static apr_pool_t *pool;
  apr_array_header_t *entries;

  if (pool == NULL)
    {
      apr_initialize();
      pool = svn_pool_create(NULL);
    }
  if (size == 0)
    return 0;
  if (data[0] % 2 == 0)
    {
      svn_fs_fs__revprop_manifest_t manifest;
      svn_fs_fs__revprop_manifest_entry_t entry;
      svn_revnum_t rev;

      svn_error_clear(svn_fs_fs__revprop_manifest_parse(
                        &entries, (const char *)data + 1, size - 1,
                        1 + data[0] / 2, "fuzz", pool));
      /* The readers' per-line access, one past the end included. */
      svn_fs_fs__revprop_manifest_index(&manifest, (const char *)data + 1,
                                        size - 1, 1 + data[0] / 2, pool);
      for (rev = manifest.first_rev;
           rev <= manifest.first_rev + manifest.count; rev++)
        {
          svn_error_clear(svn_fs_fs__revprop_manifest_get(&entry, &manifest,
                                                          rev, "fuzz"));
          svn_error_clear(svn_fs_fs__revprop_manifest_check_order(
                            &manifest, rev, "fuzz"));
        }
    }
  else
    svn_error_clear(fuzz_pack((const char *)data + 1, size - 1, pool));
  svn_pool_clear(pool);
  return 0;
}
