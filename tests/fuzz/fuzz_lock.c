/* fuzz_lock.c --- libFuzzer target for the lock digest files of db/locks/
 * (locks_read.c, LOCK-1/LOCK-2), which `svn lock` and `svn unlock` read
 * back and rewrite: the hash dump is parsed, the lock it records (if any)
 * is built, and its "children" list is split as the walk over the locks
 * does.  Any input either fails with an svn error or gives a lock whose
 * path, token and owner are set and whose dates print to strings that
 * parse back to the same times.
 * Corpus: tests/fuzz/corpus/lock/ (stock-made lock and children files).
 */
#include <stdint.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <apr_general.h>
#include "svn_pools.h"
#include "svn_hash.h"
#include "svn_string.h"
#include "svn_time.h"

#include "hashdump.h"
#include "locks_read.h"

/* TIME printed and parsed back must be TIME (for years of four digits:
   the text form has no room for others). */
static void
check_time(apr_time_t time, apr_pool_t *pool)
{
  const char *text = svn_time_to_cstring(time, pool);
  apr_time_t again;
  svn_error_t *err;

  if (strlen(text) != 27)
    return;
  err = svn_time_from_cstring(&again, text, pool);
  if (err || again != time)
    abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  static apr_pool_t *pool;
  apr_hash_t *props;
  svn_lock_t *lock;
  svn_string_t *children;
  svn_error_t *err;

  if (pool == NULL)
    {
      apr_initialize();
      pool = svn_pool_create(NULL);
    }
  err = svn_fs_fs__hashdump_parse(&props, NULL, (const char *)data, size,
                                  "fuzz", pool);
  if (!err)
    err = svn_fs_fs__lock_parse(&lock, props, pool);
  if (!err && lock)
    {
      if (!lock->path || !lock->token || !lock->owner)
        abort();
      check_time(lock->creation_date, pool);
      if (lock->expiration_date)
        check_time(lock->expiration_date, pool);
      (void)svn_fs_fs__lock_expired(lock);
    }
  if (!err && (children = svn_hash_gets(props, "children")) != NULL)
    (void)svn_cstring_split(children->data, "\n", TRUE, pool);
  svn_error_clear(err);
  svn_pool_clear(pool);
  return 0;
}
