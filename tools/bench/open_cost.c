/* open_cost.c -- time svn_fs_open2 + svn_fs_youngest_rev, N times in one
 * process: the cost mod_dav_svn pays per request (issue 11).  Benchmark
 * helper, not built by make:
 *
 *   cc -O2 -o open_cost tools/bench/open_cost.c \
 *      -I/usr/include/subversion-1 $(pkg-config --cflags --libs apr-1) \
 *      -lsvn_fs-1 -lsvn_subr-1
 *   LD_LIBRARY_PATH=<module dir> ./open_cost REPO/db 2000
 *
 * Prints the mean microseconds per open+youngest.  Run it once with the
 * stock module and once with fsfs7's (same LD_LIBRARY_PATH shape, so the
 * loader does the same work), alternating, and take the minimum.
 */
#include <stdio.h>
#include <stdlib.h>
#include <apr_time.h>
#include "svn_fs.h"
#include "svn_pools.h"
#include "svn_dirent_uri.h"

int
main(int argc, char **argv)
{
  apr_pool_t *pool, *iterpool;
  const char *path;
  int n, i;
  svn_revnum_t youngest = SVN_INVALID_REVNUM;
  apr_time_t start;
  svn_error_t *err;

  if (argc != 3)
    {
      fprintf(stderr, "usage: open_cost FSPATH COUNT\n");
      return 2;
    }
  apr_initialize();
  pool = svn_pool_create(NULL);
  err = svn_fs_initialize(pool);
  if (!err)
    {
      path = svn_dirent_canonicalize(argv[1], pool);
      n = atoi(argv[2]);
      iterpool = svn_pool_create(pool);
      start = apr_time_now();
      for (i = 0; i < n && !err; i++)
        {
          svn_fs_t *fs;

          svn_pool_clear(iterpool);
          err = svn_fs_open2(&fs, path, NULL, iterpool, iterpool);
          if (!err)
            err = svn_fs_youngest_rev(&youngest, fs, iterpool);
        }
      if (!err)
        printf("%.1f us per open+youngest (r%ld, %d opens)\n",
               (double)(apr_time_now() - start) / n, youngest, n);
    }
  if (err)
    {
      svn_handle_error2(err, stderr, FALSE, "open_cost: ");
      return 1;
    }
  return 0;
}
