/* test_shard_dir.c --- unit tests of shard_dir.c: files opened relative
 * to a kept directory descriptor are the files their paths name, also
 * after the directory was removed and made anew (as a pack removes a
 * shard), and the descriptors kept stay bounded, per svn_fs_t and per
 * process.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <unistd.h>
#include <sys/resource.h>
#include <cmocka.h>

#include "svn_pools.h"
#include "svn_io.h"
#include "svn_dirent_uri.h"

#include "shard_dir.h"
#include "test_util.h"

static apr_pool_t *pool;

/* A hand-made svn_fs_t with a pool of its own (destroy it to let go). */
static svn_fs_t *
make_fs(void)
{
  apr_pool_t *fs_pool = svn_pool_create(pool);
  svn_fs_t *fs = apr_pcalloc(fs_pool, sizeof(*fs));

  fs->pool = fs_pool;
  fs->fsap_data = apr_pcalloc(fs_pool, sizeof(svn_fs_fs__data_t));
  return fs;
}

/* A fresh scratch directory. */
static const char *
scratch_dir(void)
{
  char tmpl[] = "/tmp/fsfs7-shard-dir.XXXXXX";

  assert_non_null(mkdtemp(tmpl));
  return apr_pstrdup(pool, tmpl);
}

/* Write TEXT into the file PATH. */
static void
put(const char *path, const char *text)
{
  assert_null(svn_io_file_create(path, text, pool));
}

/* What the file PATH read through FS's KIND directories holds. */
static const char *
get(svn_fs_t *fs, svn_fs_fs__dir_kind_t kind, const char *path)
{
  char buf[256];
  int fd;
  ssize_t n;

  assert_int_equal(svn_fs_fs__shard_dir_open(&fd, fs, kind, path), 0);
  n = read(fd, buf, sizeof(buf) - 1);
  close(fd);
  assert_true(n >= 0);
  buf[n] = '\0';
  return apr_pstrdup(pool, buf);
}

/* Descriptors open in this process. */
static int
open_fds(void)
{
  DIR *d = opendir("/proc/self/fd");
  int n = 0;

  assert_non_null(d);
  while (readdir(d))
    n++;
  closedir(d);
  return n;
}

/* Files of several directories, alternating, and of both kinds: each
   open gives its own file; a missing file is ENOENT. */
static void
test_opens_by_name(void **state)
{
  const char *top = scratch_dir();
  svn_fs_t *fs = make_fs();
  int d, f, fd;

  for (d = 0; d < 3; d++)
    {
      const char *dir = apr_psprintf(pool, "%s/%d", top, d);
      assert_null(svn_io_dir_make(dir, APR_OS_DEFAULT, pool));
      for (f = 0; f < 3; f++)
        put(apr_psprintf(pool, "%s/%d", dir, d * 10 + f),
            apr_psprintf(pool, "file %d in %d", d * 10 + f, d));
    }
  for (f = 0; f < 3; f++)
    for (d = 0; d < 3; d++)
      assert_string_equal(get(fs, d % 2 ? svn_fs_fs__dir_revprops
                                        : svn_fs_fs__dir_revs,
                              apr_psprintf(pool, "%s/%d/%d", top, d,
                                           d * 10 + f)),
                          apr_psprintf(pool, "file %d in %d", d * 10 + f,
                                       d));
  assert_int_equal(svn_fs_fs__shard_dir_open(&fd, fs, svn_fs_fs__dir_revs,
                                             apr_psprintf(pool, "%s/0/9",
                                                          top)),
                   ENOENT);
  assert_int_equal(svn_fs_fs__shard_dir_open(&fd, fs, svn_fs_fs__dir_revs,
                                             apr_psprintf(pool, "%s/7/1",
                                                          top)),
                   ENOENT);
  svn_pool_destroy(fs->pool);
  assert_null(svn_io_remove_dir2(top, FALSE, NULL, NULL, pool));
}

/* A directory removed and made anew under its name (with a file of the
   same name): the path decides, not the descriptor kept of the old
   one; without the fallback the open would fail with ENOENT. */
static void
test_directory_made_anew(void **state)
{
  const char *top = scratch_dir();
  const char *dir = apr_psprintf(pool, "%s/8", top);
  const char *file = apr_psprintf(pool, "%s/8000", dir);
  svn_fs_t *fs = make_fs();

  assert_null(svn_io_dir_make(dir, APR_OS_DEFAULT, pool));
  put(file, "old");
  assert_string_equal(get(fs, svn_fs_fs__dir_revs, file), "old");
  assert_null(svn_io_remove_dir2(dir, FALSE, NULL, NULL, pool));
  assert_null(svn_io_dir_make(dir, APR_OS_DEFAULT, pool));
  put(file, "new");
  assert_string_equal(get(fs, svn_fs_fs__dir_revs, file), "new");
  assert_string_equal(get(fs, svn_fs_fs__dir_revs, file), "new");
  svn_pool_destroy(fs->pool);
  assert_null(svn_io_remove_dir2(top, FALSE, NULL, NULL, pool));
}

/* Many directories: the descriptors kept stay a few per kind, and all
   of them go with the fs's pool. */
static void
test_descriptors_bounded(void **state)
{
  const char *top = scratch_dir();
  svn_fs_t *fs = make_fs();
  int before = open_fds(), d;

  for (d = 0; d < 40; d++)
    {
      const char *dir = apr_psprintf(pool, "%s/%d", top, d);
      const char *file = apr_psprintf(pool, "%s/%d", dir, d);

      assert_null(svn_io_dir_make(dir, APR_OS_DEFAULT, pool));
      put(file, "x");
      /* twice: a directory gets a slot on its second miss */
      assert_string_equal(get(fs, svn_fs_fs__dir_revs, file), "x");
      assert_string_equal(get(fs, svn_fs_fs__dir_revs, file), "x");
      assert_string_equal(get(fs, svn_fs_fs__dir_revprops, file), "x");
      assert_string_equal(get(fs, svn_fs_fs__dir_revprops, file), "x");
    }
  assert_true(open_fds() - before <= 2 * 8);
  assert_true(open_fds() - before >= 2);
  svn_pool_destroy(fs->pool);
  assert_int_equal(open_fds(), before);
  assert_null(svn_io_remove_dir2(top, FALSE, NULL, NULL, pool));
}

/* A directory whose file is opened once keeps no descriptor (taking
   one would cost two system calls for nothing); opened again, it does,
   and the next open of a file there keeps no more. */
static void
test_slot_on_second_miss(void **state)
{
  const char *top = scratch_dir();
  const char *dir = apr_psprintf(pool, "%s/3", top);
  svn_fs_t *fs = make_fs();
  int before = open_fds();

  assert_null(svn_io_dir_make(dir, APR_OS_DEFAULT, pool));
  put(apr_psprintf(pool, "%s/3000", dir), "a");
  put(apr_psprintf(pool, "%s/3001", dir), "b");
  assert_string_equal(get(fs, svn_fs_fs__dir_revs,
                          apr_psprintf(pool, "%s/3000", dir)), "a");
  assert_int_equal(open_fds(), before);
  assert_string_equal(get(fs, svn_fs_fs__dir_revs,
                          apr_psprintf(pool, "%s/3001", dir)), "b");
  assert_int_equal(open_fds(), before + 1);
  assert_string_equal(get(fs, svn_fs_fs__dir_revs,
                          apr_psprintf(pool, "%s/3000", dir)), "a");
  assert_int_equal(open_fds(), before + 1);
  svn_pool_destroy(fs->pool);
  assert_int_equal(open_fds(), before);
  assert_null(svn_io_remove_dir2(top, FALSE, NULL, NULL, pool));
}

/* With RLIMIT_NOFILE at 64 the process keeps at most 4 directories, for
   all its svn_fs_t together; every open still gives the right file. */
static void
test_process_cap(void **state)
{
  const char *top = scratch_dir();
  svn_fs_t *a = make_fs(), *b = make_fs();
  struct rlimit saved, low;
  int before = open_fds(), d;

  assert_int_equal(getrlimit(RLIMIT_NOFILE, &saved), 0);
  low = saved;
  low.rlim_cur = 64;
  assert_int_equal(setrlimit(RLIMIT_NOFILE, &low), 0);
  for (d = 0; d < 10; d++)
    {
      const char *dir = apr_psprintf(pool, "%s/%d", top, d);
      const char *file = apr_psprintf(pool, "%s/%d", dir, d);
      const char *text = apr_psprintf(pool, "file %d", d);

      assert_null(svn_io_dir_make(dir, APR_OS_DEFAULT, pool));
      put(file, text);
      assert_string_equal(get(d % 2 ? a : b, svn_fs_fs__dir_revs, file),
                          text);
      assert_string_equal(get(d % 2 ? a : b, svn_fs_fs__dir_revs, file),
                          text);
      assert_string_equal(get(a, svn_fs_fs__dir_revprops, file), text);
      assert_string_equal(get(a, svn_fs_fs__dir_revprops, file), text);
    }
  assert_true(open_fds() - before <= 4);
  assert_true(open_fds() - before >= 1);
  assert_int_equal(setrlimit(RLIMIT_NOFILE, &saved), 0);
  svn_pool_destroy(a->pool);
  svn_pool_destroy(b->pool);
  assert_int_equal(open_fds(), before);
  assert_null(svn_io_remove_dir2(top, FALSE, NULL, NULL, pool));
}

int
main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_opens_by_name),
    cmocka_unit_test(test_directory_made_anew),
    cmocka_unit_test(test_descriptors_bounded),
    cmocka_unit_test(test_process_cap),
    cmocka_unit_test(test_slot_on_second_miss),
  };
  return RUN_TESTS_WITH_POOL(tests, pool);
}
