/* test_revprops_pack.c --- packing a revprop shard (revprops.c,
 * doc/format/revprops.md RPPACK-8) must give exactly the files stock
 * `svnadmin pack` wrote for the same shard, with and without compression
 * (tests/vectors/good/revprops-pack: shard size 100, r0..r99 plain, and
 * stock's 0.pack for the default 16 kB limit and for compressed packs), and
 * the new directory takes the mode of the shard directory it replaces. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <unistd.h>
#include <sys/stat.h>
#include <cmocka.h>

#include <apr_general.h>
#include "svn_hash.h"
#include "svn_dirent_uri.h"
#include "revprops.h"
#include "admin_test_util.h"

typedef struct fixture_t
{
  svn_fs_t fs;
  svn_fs_fs__data_t ffd;
} fixture_t;

/* A fake format 6 fs (shard size 100, r0..r105) over a copy of the plain
   shard. */
static fixture_t *
setup_fs(apr_pool_t *pool)
{
  fixture_t *f = apr_pcalloc(pool, sizeof(*f));
  const char *tmp, *name = apr_psprintf(pool, "fsfs7-rppack-%ld",
                                        (long)getpid());

  assert_null(svn_io_temp_dir(&tmp, pool));
  f->fs.path = (char *)svn_dirent_join(tmp, name, pool);
  assert_null(svn_io_remove_dir2(f->fs.path, TRUE, NULL, NULL, pool));
  assert_null(svn_io_copy_dir_recursively(
                admin_vector_dir("good", "revprops-pack/plain", pool), tmp,
                name, FALSE, NULL, NULL, pool));
  f->fs.pool = pool;
  f->fs.fsap_data = &f->ffd;
  f->ffd.format = 6;
  f->ffd.max_files_per_dir = 100;
  f->ffd.youngest_rev_cache = 105;
  f->ffd.revprop_pack_size = 16 * 1024;
  return f;
}

/* Our db/revprops/0.pack holds exactly the files of vector dir EXPECTED. */
static void
compare_pack_dir(fixture_t *f, const char *expected, apr_pool_t *pool)
{
  const char *dir = admin_vector_dir("good", expected, pool);
  const char *ours = svn_dirent_join(f->fs.path, "revprops/0.pack", pool);
  apr_array_header_t *names = admin_vector_names(dir, pool);
  apr_hash_t *dirents;
  int i;

  assert_null(svn_io_get_dirents3(&dirents, ours, TRUE, pool, pool));
  assert_int_equal(apr_hash_count(dirents), names->nelts);
  for (i = 0; i < names->nelts; i++)
    {
      const char *name = APR_ARRAY_IDX(names, i, const char *);
      svn_stringbuf_t *a = admin_vector_load(dir, name, pool);
      svn_stringbuf_t *b = admin_vector_load(ours, name, pool);

      if (a->len != b->len || memcmp(a->data, b->data, a->len) != 0)
        fail_msg("%s/%s differs from stock", expected, name);
    }
}

/* Every packed revision reads back like its plain file. */
static void
check_reads(fixture_t *f, apr_hash_t **plain, apr_pool_t *pool)
{
  svn_revnum_t rev;

  f->ffd.min_unpacked_rev = 100;
  for (rev = 0; rev < 100; rev++)
    {
      apr_hash_t *props;

      assert_null(svn_fs_fs__get_revprops(&props, &f->fs, rev, TRUE, pool,
                                          pool));
      assert_true(apr_hash_count(props) == apr_hash_count(plain[rev]));
      assert_string_equal(
        ((svn_string_t *)svn_hash_gets(props, "svn:date"))->data,
        ((svn_string_t *)svn_hash_gets(plain[rev], "svn:date"))->data);
    }
  f->ffd.min_unpacked_rev = 0;
}

static void
test_pack_like_stock(void **state)
{
  apr_pool_t *pool = svn_pool_create(NULL);
  fixture_t *f = setup_fs(pool);
  apr_hash_t *plain[100];
  apr_hash_t *dirents;
  svn_revnum_t rev;

  for (rev = 0; rev < 100; rev++)
    assert_null(svn_fs_fs__get_revprops(&plain[rev], &f->fs, rev, TRUE,
                                        pool, pool));

  assert_null(svn_fs_fs__pack_revprops_shard(&f->fs, 0, NULL, NULL, pool));
  compare_pack_dir(f, "revprops-pack/expected-16k", pool);

  f->ffd.compress_packed_revprops = TRUE;
  f->ffd.revprop_pack_size = 64 * 1024;
  assert_null(svn_fs_fs__pack_revprops_shard(&f->fs, 0, NULL, NULL, pool));
  compare_pack_dir(f, "revprops-pack/expected-compressed", pool);

  /* Plain files go only when asked; r0 stays (RPPACK-0). */
  assert_null(svn_fs_fs__remove_unpacked_revprops(&f->fs, 0, pool));
  assert_null(svn_io_get_dirents3(&dirents, svn_dirent_join(
                f->fs.path, "revprops/0", pool), TRUE, pool, pool));
  assert_int_equal(apr_hash_count(dirents), 1);
  assert_non_null(svn_hash_gets(dirents, "0"));
  check_reads(f, plain, pool);
  assert_null(svn_io_remove_dir2(f->fs.path, FALSE, NULL, NULL, pool));
  svn_pool_destroy(pool);
}

/* The permission bits of PATH. */
static mode_t
mode_of(const char *path)
{
  struct stat st;

  assert_int_equal(stat(path, &st), 0);
  return st.st_mode & 07777;
}

/* revprops/<S>.pack takes the mode of revprops/<S> (as stock), not the
   packer's umask: in a group-shared repository (set-gid, group-writable
   directories) a later setlog by another member writes its temp file
   there.  Its files keep the default mode, as stock's. */
static void
test_pack_dir_mode(void **state)
{
  apr_pool_t *pool = svn_pool_create(NULL);
  fixture_t *f = setup_fs(pool);
  const char *shard = svn_dirent_join(f->fs.path, "revprops/0", pool);
  const char *pack = svn_dirent_join(f->fs.path, "revprops/0.pack", pool);
  mode_t old = umask(022);

  assert_int_equal(chmod(shard, 02775), 0);
  assert_null(svn_fs_fs__pack_revprops_shard(&f->fs, 0, NULL, NULL, pool));
  assert_int_equal(mode_of(pack), 02775);
  assert_int_equal(mode_of(svn_dirent_join(pack, "manifest", pool)), 0644);
  assert_int_equal(mode_of(svn_dirent_join(pack, "1.0", pool)), 0644);
  umask(old);
  assert_null(svn_io_remove_dir2(f->fs.path, FALSE, NULL, NULL, pool));
  svn_pool_destroy(pool);
}

int
main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_pack_like_stock),
    cmocka_unit_test(test_pack_dir_mode),
  };

  apr_initialize();
  return cmocka_run_group_tests(tests, NULL, NULL);
}
