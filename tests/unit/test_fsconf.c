/* test_fsconf.c --- unit tests for fsconf.c (doc/format/fsfs-conf.md). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <unistd.h>
#include <cmocka.h>

#include <apr_general.h>
#include "svn_dirent_uri.h"
#include "svn_delta.h"
#include "fsconf.h"
#include "admin_test_util.h"

/* Write TEXT (NULL: no file) to a temp file and read it as fsfs.conf of a
   format FORMAT repository into *FFD. */
static svn_error_t *
read_conf(svn_fs_fs__data_t *ffd, int format, const char *text,
          apr_pool_t *pool)
{
  const char *dir, *path;

  SVN_ERR(svn_io_temp_dir(&dir, pool));
  path = svn_dirent_join(dir, apr_psprintf(pool, "fsfs7-conf-%ld.conf",
                                           (long)getpid()), pool);
  SVN_ERR(svn_io_remove_file2(path, TRUE, pool));
  if (text)
    SVN_ERR(svn_io_file_create(path, text, pool));
  memset(ffd, 0, sizeof(*ffd));
  ffd->format = format;
  SVN_ERR(svn_fs_fs__fsconf_read(ffd, path, pool));
  return svn_error_trace(svn_io_remove_file2(path, TRUE, pool));
}

/* FSCONF-1/2: a missing file, an empty file and our own template all
   give the stock defaults. */
static void
test_defaults(void **state)
{
  apr_pool_t *pool = svn_pool_create(NULL);
  const char *texts[3];
  svn_fs_fs__data_t ffd;
  int i;

  texts[0] = NULL;
  texts[1] = "";
  texts[2] = svn_fs_fs__fsconf_template();
  for (i = 0; i < 3; i++)
    {
      assert_null(read_conf(&ffd, 8, texts[i], pool));
      assert_true(ffd.rep_sharing_allowed);
      assert_true(ffd.deltify_directories);
      assert_true(ffd.deltify_properties);
      assert_int_equal(ffd.max_deltification_walk, 1023);
      assert_int_equal(ffd.max_linear_deltification, 16);
      assert_false(ffd.compress_packed_revprops);
      assert_int_equal(ffd.revprop_pack_size, 16 * 1024);
      assert_int_equal(ffd.block_size, 64 * 1024);
      assert_true(ffd.block_read);
      assert_int_equal(ffd.l2p_page_size, 8192);
      assert_int_equal(ffd.p2l_page_size, 1024 * 1024);
      assert_int_equal(ffd.delta_compression_level,
                       SVN_FS_FS__COMPRESSION_LZ4);
      assert_false(ffd.pack_after_commit);
      assert_false(ffd.verify_before_commit);
      assert_false(ffd.fail_stop);
    }
  assert_null(read_conf(&ffd, 7, NULL, pool));
  assert_int_equal(ffd.delta_compression_level,
                   SVN_DELTA_COMPRESSION_LEVEL_DEFAULT);
  svn_pool_destroy(pool);
}

/* Explicit values, including the format- and option-dependent ones. */
static void
test_values(void **state)
{
  apr_pool_t *pool = svn_pool_create(NULL);
  svn_fs_fs__data_t ffd;

  assert_null(read_conf(&ffd, 8,
                        "[rep-sharing]\nenable-rep-sharing = false\n"
                        "[deltification]\nmax-deltification-walk = 7\n"
                        "compression = zlib-9\n"
                        "[packed-revprops]\ncompress-packed-revprops = true\n"
                        "[io]\nblock-size = 32\np2l-page-size = 64\n"
                        "l2p-page-size = 100\n"
                        "[debug]\nverify-before-commit = true\n", pool));
  assert_false(ffd.rep_sharing_allowed);
  assert_int_equal(ffd.max_deltification_walk, 7);
  assert_int_equal(ffd.delta_compression_level, 9);
  assert_true(ffd.compress_packed_revprops);
  assert_int_equal(ffd.revprop_pack_size, 64 * 1024);  /* compressed */
  assert_int_equal(ffd.block_size, 32 * 1024);
  assert_int_equal(ffd.p2l_page_size, 64 * 1024);
  assert_int_equal(ffd.l2p_page_size, 100);
  assert_true(ffd.verify_before_commit);

  /* The older numeric option applies only without "compression". */
  assert_null(read_conf(&ffd, 7, "[deltification]\ncompression-level = 0\n",
                        pool));
  assert_int_equal(ffd.delta_compression_level, 0);
  assert_null(read_conf(&ffd, 8, "[deltification]\ncompression = none\n"
                                 "compression-level = 3\n", pool));
  assert_int_equal(ffd.delta_compression_level, 0);
  svn_pool_destroy(pool);
}

/* FSCONF-4/5: nonsense is refused. */
static void
test_bad_values(void **state)
{
  static const char *const bad[] = {
    "[deltification]\ncompression = gzip\n",
    /* Stock refuses level 0 spelled as zlib (E125009): "none" says it. */
    "[deltification]\ncompression = zlib-0\n",
    "[deltification]\ncompression = zlib-10\n",
    "[packed-revprops]\nrevprop-pack-size = 0\n",
    "[io]\nblock-size = -4\n",
    "[io]\nl2p-page-size = lots\n",
    "[rep-sharing]\nenable-rep-sharing = perhaps\n",
  };
  apr_pool_t *pool = svn_pool_create(NULL);
  svn_fs_fs__data_t ffd;
  size_t i;
  svn_error_t *err;

  for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
    {
      err = read_conf(&ffd, 8, bad[i], pool);
      if (err == NULL)
        fail_msg("accepted: %s", bad[i]);
      /* Unparsable numbers fail inside svn_config with its own code. */
      if (err->apr_err != SVN_ERR_BAD_CONFIG_VALUE
          && strstr(bad[i], "lots") == NULL)
        fail_msg("%s: error %d", bad[i], err->apr_err);
      svn_error_clear(err);
    }
  /* LZ4 needs format 8. */
  err = read_conf(&ffd, 7, "[deltification]\ncompression = lz4\n", pool);
  assert_non_null(err);
  svn_error_clear(err);
  svn_pool_destroy(pool);
}

int
main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_defaults),
    cmocka_unit_test(test_values),
    cmocka_unit_test(test_bad_values),
  };

  apr_initialize();
  return cmocka_run_group_tests(tests, NULL, NULL);
}
