/* fuzz_format.c --- libFuzzer target for the db/format parser.
 * Any input must be accepted or rejected with an error, never crash;
 * accepted input must survive unparse + parse unchanged. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <apr_general.h>
#include "svn_pools.h"
#include "format.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  static apr_pool_t *pool;
  svn_fs_fs__format_t format, again;
  svn_error_t *err;

  if (pool == NULL)
    {
      apr_initialize();
      pool = svn_pool_create(NULL);
    }
  err = svn_fs_fs__format_parse(&format, (const char *)data, size, "fuzz");
  if (err == NULL)
    {
      const char *text = svn_fs_fs__format_unparse(&format, pool);
      if (svn_fs_fs__format_parse(&again, text, strlen(text), "fuzz")
          || again.format != format.format
          || again.max_files_per_dir != format.max_files_per_dir
          || again.use_log_addressing != format.use_log_addressing)
        abort();
    }
  svn_error_clear(err);
  svn_pool_clear(pool);
  return 0;
}
