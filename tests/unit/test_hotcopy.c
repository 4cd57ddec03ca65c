/* test_hotcopy.c --- component test for repo_hotcopy.c: a hot copy of a
 * small stock repository (tests/vectors/good/recover-repo, format 6,
 * shard size 4, r0..r10, unpacked) has the same
 * files and bytes, except db/uuid's instance line, and opens
 * (doc/format/layout.md HOTCOPY-1). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <unistd.h>
#include <cmocka.h>

#include <apr_general.h>
#include "svn_dirent_uri.h"
#include "repo.h"
#include "admin_test_util.h"

/* Open FS on DB; other layers' cache setup may still be missing. */
static svn_fs_t *
open_fs(const char *db, apr_pool_t *pool)
{
  svn_fs_t *fs = apr_pcalloc(pool, sizeof(*fs));
  svn_error_t *err;

  fs->pool = pool;
  err = svn_fs_fs__open_repo(fs, db, pool);
  if (err && err->apr_err == SVN_ERR_UNSUPPORTED_FEATURE)
    svn_error_clear(err);
  else
    assert_null(err);
  return fs;
}

/* Every file below SRC exists below DST with the same bytes (db/uuid
   excepted), and DST has nothing more. */
static int
compare_trees(const char *src, const char *dst, apr_pool_t *pool)
{
  apr_hash_t *a, *b;
  apr_hash_index_t *hi;
  int files = 0;

  assert_null(svn_io_get_dirents3(&a, src, FALSE, pool, pool));
  assert_null(svn_io_get_dirents3(&b, dst, FALSE, pool, pool));
  assert_int_equal(apr_hash_count(a), apr_hash_count(b));
  for (hi = apr_hash_first(pool, a); hi; hi = apr_hash_next(hi))
    {
      const char *name = apr_hash_this_key(hi);
      const svn_io_dirent2_t *d = apr_hash_this_val(hi);
      const char *s = svn_dirent_join(src, name, pool);
      const char *t = svn_dirent_join(dst, name, pool);

      if (d->kind == svn_node_dir)
        files += compare_trees(s, t, pool);
      else if (strcmp(name, "uuid") != 0)
        {
          svn_boolean_t same;
          assert_null(svn_io_files_contents_same_p(&same, s, t, pool));
          if (!same)
            fail_msg("%s differs in the copy", s);
          files++;
        }
    }
  return files;
}

/* svn_fs_hotcopy_notify_t appending "start-end " to the stringbuf
   BATON. */
static void
record_notify(void *baton, svn_revnum_t start, svn_revnum_t end,
              apr_pool_t *pool)
{
  svn_stringbuf_t *log = baton;

  svn_stringbuf_appendcstr(log, apr_psprintf(pool, "%ld-%ld ", start, end));
}

static void
test_hotcopy(void **state)
{
  apr_pool_t *pool = svn_pool_create(NULL);
  const char *tmp, *base = apr_psprintf(pool, "fsfs7-hc-%ld",
                                        (long)getpid());
  const char *src, *dst;
  svn_fs_t *dst_fs = apr_pcalloc(pool, sizeof(*dst_fs));
  svn_error_t *err;

  assert_null(svn_io_temp_dir(&tmp, pool));
  src = svn_dirent_join(tmp, base, pool);
  dst = apr_pstrcat(pool, src, "-copy", SVN_VA_NULL);
  assert_null(svn_io_remove_dir2(src, TRUE, NULL, NULL, pool));
  assert_null(svn_io_remove_dir2(dst, TRUE, NULL, NULL, pool));
  assert_null(svn_io_copy_dir_recursively(
                admin_vector_dir("good", "recover-repo/db", pool), tmp, base,
                FALSE, NULL, NULL, pool));
  /* git keeps no empty directories, but every repository has these two
     (hotcopy creates them in the copy). */
  assert_null(svn_io_make_dir_recursively(
                svn_dirent_join(src, "transactions", pool), pool));
  assert_null(svn_io_make_dir_recursively(
                svn_dirent_join(src, "txn-protorevs", pool), pool));
  dst_fs->pool = pool;
  err = svn_fs_fs__hotcopy(open_fs(src, pool), dst_fs, src, dst, FALSE,
                           NULL, NULL, NULL, NULL, pool);
  if (err && err->apr_err == SVN_ERR_UNSUPPORTED_FEATURE)
    svn_error_clear(err);
  else
    assert_null(err);
  assert_true(compare_trees(src, dst, pool) >= 25);
  assert_int_equal(SVN_FS_FS__DATA(dst_fs)->format, 6);

  /* A changed revprop reaches the copy through an incremental hotcopy,
     which names that revision, as stock does (HOTCOPY-3); the copy keeps
     its own instance line (format 6: none). */
  {
    svn_fs_t *src_fs = open_fs(src, pool);
    svn_fs_t *again = apr_pcalloc(pool, sizeof(*again));
    svn_stringbuf_t *log = svn_stringbuf_create_empty(pool);

    again->pool = pool;
    sleep(1);   /* the copy decides by size and modification time */
    assert_null(svn_fs_fs__fs_vtable.change_rev_prop(
                  src_fs, 3, "svn:log", NULL,
                  svn_string_create("changed for the copy", pool), pool));
    err = svn_fs_fs__hotcopy(open_fs(src, pool), again, src, dst, TRUE,
                             record_notify, log, NULL, NULL, pool);
    if (err && err->apr_err == SVN_ERR_UNSUPPORTED_FEATURE)
      svn_error_clear(err);
    else
      assert_null(err);
    compare_trees(src, dst, pool);
    assert_string_equal(log->data, "3-3 ");
  }

  /* An earlier copy of another repository: stock's UUID mismatch code. */
  {
    const char *uuid_path = svn_dirent_join(dst, "uuid", pool);
    svn_fs_t *other = apr_pcalloc(pool, sizeof(*other));

    other->pool = pool;
    assert_null(svn_io_remove_file2(uuid_path, FALSE, pool));
    assert_null(svn_io_file_create(
                  uuid_path, "00000000-1111-2222-3333-444444444444\n", pool));
    err = svn_fs_fs__hotcopy(open_fs(src, pool), other, src, dst, TRUE,
                             NULL, NULL, NULL, NULL, pool);
    assert_non_null(err);
    assert_int_equal(err->apr_err, SVN_ERR_RA_UUID_MISMATCH);
    svn_error_clear(err);
  }

  /* A second full copy onto the first is refused. */
  err = svn_fs_fs__hotcopy(open_fs(src, pool), apr_pcalloc(pool,
                                                           sizeof(svn_fs_t)),
                           src, dst, FALSE, NULL, NULL, NULL, NULL, pool);
  assert_non_null(err);
  svn_error_clear(err);
  assert_null(svn_io_remove_dir2(src, FALSE, NULL, NULL, pool));
  assert_null(svn_io_remove_dir2(dst, FALSE, NULL, NULL, pool));
  svn_pool_destroy(pool);
}

int
main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_hotcopy),
  };

  apr_initialize();
  return cmocka_run_group_tests(tests, NULL, NULL);
}
