/* test_revprops.c --- component test for revprops.c: reading and
 * changing revprops of a small packed repository (format 6, shard size
 * 4, r0..r10, shards 0 and 1 packed) and comparing every resulting file
 * with what stock Subversion wrote for the same changes
 * (tests/vectors/good/revprops-repo/{base,expected};
 * doc/format/revprops.md REVPROP-*, RPPACK-*). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <unistd.h>
#include <sys/stat.h>
#include <cmocka.h>

#include <apr_general.h>
#include "svn_hash.h"
#include "svn_dirent_uri.h"
#include "repo.h"
#include "revprops.h"
#include "admin_test_util.h"

/* A new svn_fs_t on DB; a second one stands for another process.  Other
   layers' cache setup may still be a placeholder; everything revprops
   need is set up before it runs. */
static svn_fs_t *
open_fs_at(const char *db, apr_pool_t *pool)
{
  svn_fs_t *other = apr_pcalloc(pool, sizeof(*other));
  svn_error_t *err;

  other->pool = pool;
  err = svn_fs_fs__open_repo(other, db, pool);
  if (err && err->apr_err == SVN_ERR_UNSUPPORTED_FEATURE)
    svn_error_clear(err);
  else
    assert_null(err);
  return other;
}

/* The base repository holds revprops only.  A revprop file written
   takes the mode of its revision's file (REVPROP-3), so put read-only
   stand-ins where the revision files of r0..r10 would be. */
static void
add_rev_files(const char *db, apr_pool_t *pool)
{
  static const char *const files[] = {
    "revs/0.pack/pack", "revs/1.pack/pack", "revs/2/8", "revs/2/9",
    "revs/2/10", NULL
  };
  int i;

  for (i = 0; files[i]; i++)
    {
      const char *path = svn_dirent_join(db, files[i], pool);

      assert_null(svn_io_make_dir_recursively(
                    svn_dirent_dirname(path, pool), pool));
      assert_null(svn_io_file_create_empty(path, pool));
      assert_null(svn_io_set_file_read_only(path, FALSE, pool));
    }
}

/* Open a fresh copy of the base repository. */
static svn_fs_t *
open_copy(const char **db, apr_pool_t *pool)
{
  const char *tmp, *name = apr_psprintf(pool, "fsfs7-rp-%ld", (long)getpid());

  assert_null(svn_io_temp_dir(&tmp, pool));
  *db = svn_dirent_join(tmp, name, pool);
  assert_null(svn_io_remove_dir2(*db, TRUE, NULL, NULL, pool));
  assert_null(svn_io_copy_dir_recursively(
                admin_vector_dir("good", "revprops-repo/base", pool), tmp,
                name, FALSE, NULL, NULL, pool));
  add_rev_files(*db, pool);
  return open_fs_at(*db, pool);
}

/* Value of NAME in REV's revprops ("" if absent), read from disk. */
static const char *
revprop(svn_fs_t *fs, svn_revnum_t rev, const char *name, apr_pool_t *pool)
{
  apr_hash_t *props;
  svn_string_t *value;

  assert_null(svn_fs_fs__get_revprops(&props, fs, rev, TRUE, pool, pool));
  value = svn_hash_gets(props, name);
  return value ? value->data : "";
}

/* Plain and packed revisions read, including r0 and both shard ends. */
static void
test_read(void **state)
{
  apr_pool_t *pool = svn_pool_create(NULL);
  const char *db;
  svn_fs_t *fs = open_copy(&db, pool);
  apr_hash_t *props;
  svn_revnum_t rev;
  svn_error_t *err;

  assert_string_equal(revprop(fs, 1, "svn:log", pool),
                      "first line\nsecond line\n\nEND\nK 3");
  assert_string_equal(revprop(fs, 2, "svn:log", pool), "");
  assert_int_equal(strlen(revprop(fs, 0, "svn:date", pool)), 27);
  for (rev = 0; rev <= 10; rev++)
    {
      assert_null(svn_fs_fs__get_revprops(&props, fs, rev, FALSE, pool,
                                          pool));
      assert_non_null(svn_hash_gets(props, "svn:date"));
    }
  assert_string_equal(revprop(fs, 7, "svn:log", pool), "m7");
  assert_string_equal(revprop(fs, 10, "svn:log", pool), "m10");
  err = svn_fs_fs__get_revprops(&props, fs, 11, FALSE, pool, pool);
  assert_non_null(err);
  assert_int_equal(err->apr_err, SVN_ERR_FS_NO_SUCH_REVISION);
  svn_error_clear(err);
  assert_null(svn_io_remove_dir2(db, FALSE, NULL, NULL, pool));
  svn_pool_destroy(pool);
}

/* Change one revprop through the fs vtable (as svn_fs_change_rev_prop2). */
static void
change(svn_fs_t *fs, svn_revnum_t rev, const char *name, const char *value,
       apr_pool_t *pool)
{
  assert_null(svn_fs_fs__fs_vtable.change_rev_prop(
                fs, rev, name, NULL,
                value ? svn_string_create(value, pool) : NULL, pool));
}

/* Every file the stock module left, with its mode: same bytes here. */
static void
compare_with_stock(const char *db, apr_pool_t *pool)
{
  /* Mode -1: a file nobody rewrote (its mode is the checkout's). */
  static const struct { const char *file; int mode; } files[] = {
    { "0.pack/1.0", 0444 }, { "0.pack/manifest", -1 }, { "0/0", 0444 },
    { "1.pack/4.1", 0644 }, { "1.pack/5.1", 0644 }, { "1.pack/6.1", 0444 },
    { "1.pack/manifest", 0444 }, { "2/10", -1 }, { "2/8", -1 },
    { "2/9", 0444 },
  };
  const char *expected = admin_vector_dir("good", "revprops-repo/expected",
                                          pool);
  apr_hash_t *dirents;
  size_t i;

  for (i = 0; i < sizeof(files) / sizeof(files[0]); i++)
    {
      const char *ours = svn_dirent_join_many(pool, db, "revprops",
                                              files[i].file, SVN_VA_NULL);
      svn_stringbuf_t *a = admin_vector_load(expected, files[i].file, pool);
      svn_stringbuf_t *b;
      struct stat st;

      assert_null(svn_stringbuf_from_file2(&b, ours, pool));
      if (a->len != b->len || memcmp(a->data, b->data, a->len) != 0)
        fail_msg("%s differs from stock", files[i].file);
      assert_int_equal(stat(ours, &st), 0);
      if (files[i].mode != -1
          && (st.st_mode & 0222 & ~0022) != (files[i].mode & 0222))
        fail_msg("%s: mode %o, stock %o", files[i].file,
                 st.st_mode & 0777, files[i].mode);
    }
  /* No leftovers: the old pack 4.0 is gone, no temp files remain. */
  assert_null(svn_io_get_dirents3(&dirents, svn_dirent_join(db,
                                  "revprops/1.pack", pool), TRUE, pool,
                                  pool));
  assert_int_equal(apr_hash_count(dirents), 4);
  assert_null(svn_io_get_dirents3(&dirents, svn_dirent_join(db,
                                  "revprops/0.pack", pool), TRUE, pool,
                                  pool));
  assert_int_equal(apr_hash_count(dirents), 2);
}

/* r0, an in-place pack rewrite, a deletion, a split (RPPACK-7), a
   rewrite of a split-off pack and a plain file: byte-identical to stock. */
static void
test_change_like_stock(void **state)
{
  apr_pool_t *pool = svn_pool_create(NULL);
  const char *db;
  svn_fs_t *fs = open_copy(&db, pool);
  char *big = apr_palloc(pool, 20001);

  memset(big, 'x', 20000);
  big[20000] = '\0';
  change(fs, 0, "custom", "on r0", pool);
  change(fs, 2, "svn:log", "changed", pool);
  change(fs, 3, "svn:author", NULL, pool);
  change(fs, 5, "big", big, pool);
  change(fs, 6, "small", "y", pool);
  change(fs, 9, "last", "z", pool);
  compare_with_stock(db, pool);

  assert_string_equal(revprop(fs, 5, "big", pool), big);
  assert_string_equal(revprop(fs, 4, "svn:log", pool), "m4");
  assert_string_equal(revprop(fs, 7, "svn:log", pool), "m7");
  assert_string_equal(revprop(fs, 3, "svn:author", pool), "");
  assert_null(svn_io_remove_dir2(db, FALSE, NULL, NULL, pool));
  svn_pool_destroy(pool);
}

/* old_value_p: a mismatch is refused and changes nothing. */
static void
test_atomic_change(void **state)
{
  apr_pool_t *pool = svn_pool_create(NULL);
  const char *db;
  svn_fs_t *fs = open_copy(&db, pool);
  const svn_string_t *wrong = svn_string_create("not m4", pool);
  const svn_string_t *absent = NULL;
  svn_error_t *err;

  err = svn_fs_fs__fs_vtable.change_rev_prop(
          fs, 4, "svn:log", &wrong, svn_string_create("new", pool), pool);
  assert_non_null(err);
  assert_int_equal(err->apr_err, SVN_ERR_FS_PROP_BASEVALUE_MISMATCH);
  svn_error_clear(err);
  assert_string_equal(revprop(fs, 4, "svn:log", pool), "m4");

  assert_null(svn_fs_fs__fs_vtable.change_rev_prop(
                fs, 4, "fresh", &absent, svn_string_create("1", pool),
                pool));
  assert_string_equal(revprop(fs, 4, "fresh", pool), "1");
  err = svn_fs_fs__fs_vtable.change_rev_prop(
          fs, 4, "fresh", &absent, svn_string_create("2", pool), pool);
  assert_non_null(err);
  assert_int_equal(err->apr_err, SVN_ERR_FS_PROP_BASEVALUE_MISMATCH);
  svn_error_clear(err);
  assert_null(svn_io_remove_dir2(db, FALSE, NULL, NULL, pool));
  svn_pool_destroy(pool);
}

/* Another svn_fs_t changes r4; ours keeps serving its cached copy until
   refresh_revprops (or a REFRESH read) -- the stock contract. */
static void
test_cache_and_refresh(void **state)
{
  apr_pool_t *pool = svn_pool_create(NULL);
  const char *db;
  svn_fs_t *fs = open_copy(&db, pool);
  svn_fs_t *other;
  apr_hash_t *props;

  assert_null(svn_fs_fs__get_revprops(&props, fs, 4, FALSE, pool, pool));
  other = open_fs_at(db, pool);
  change(other, 4, "svn:log", "from elsewhere", pool);

  if (SVN_FS_FS__DATA(fs)->revprop_cache)
    {
      assert_null(svn_fs_fs__get_revprops(&props, fs, 4, FALSE, pool,
                                          pool));
      assert_string_equal(((svn_string_t *)svn_hash_gets(props, "svn:log"))
                          ->data, "m4");
    }
  assert_string_equal(revprop(fs, 4, "svn:log", pool), "from elsewhere");
  assert_null(svn_fs_fs__reset_revprop_cache(fs));
  assert_null(svn_fs_fs__get_revprops(&props, fs, 5, FALSE, pool, pool));
  assert_null(svn_fs_fs__get_revprops(&props, fs, 4, FALSE, pool, pool));
  assert_string_equal(((svn_string_t *)svn_hash_gets(props, "svn:log"))
                      ->data, "from elsewhere");
  assert_null(svn_io_remove_dir2(db, FALSE, NULL, NULL, pool));
  svn_pool_destroy(pool);
}

/* A REFRESH read is a read barrier (svn_fs.h): afterwards even other
   revisions come back as current as at that point, not from the cache
   filled before it. */
static void
test_refresh_is_barrier(void **state)
{
  apr_pool_t *pool = svn_pool_create(NULL);
  const char *db;
  svn_fs_t *fs = open_copy(&db, pool);
  svn_fs_t *other;
  apr_hash_t *props;

  /* r5 is packed with r4..r7: reading it caches r6 as well. */
  assert_null(svn_fs_fs__get_revprops(&props, fs, 5, FALSE, pool, pool));
  other = open_fs_at(db, pool);
  change(other, 6, "svn:log", "changed", pool);
  assert_string_equal(revprop(fs, 5, "svn:log", pool), "m5");
  assert_null(svn_fs_fs__get_revprops(&props, fs, 6, FALSE, pool, pool));
  assert_string_equal(((svn_string_t *)svn_hash_gets(props, "svn:log"))
                      ->data, "changed");
  assert_null(svn_io_remove_dir2(db, FALSE, NULL, NULL, pool));
  svn_pool_destroy(pool);
}

/* REFRESH reads keep the parsed manifest and pack and check with a
   stat() that the files are still the ones parsed.  Writers only ever
   replace files (RPPACK-7), so a pack rewritten in place behind our back
   -- same inode -- is not noticed: proof that the parse is reused. */
static void
test_refresh_reuses_parse(void **state)
{
  apr_pool_t *pool = svn_pool_create(NULL);
  const char *db;
  svn_fs_t *fs = open_copy(&db, pool);
  const char *pack;
  svn_stringbuf_t *bytes;
  apr_file_t *file;
  char *at;

  pack = svn_dirent_join(db, "revprops/1.pack/4.0", pool);
  assert_string_equal(revprop(fs, 5, "svn:log", pool), "m5");
  assert_null(svn_stringbuf_from_file2(&bytes, pack, pool));
  at = strstr(bytes->data + 8, "m6\nEND\n");
  assert_non_null(at);
  at[1] = '9';
  assert_null(svn_io_set_file_read_write(pack, FALSE, pool));
  assert_null(svn_io_file_open(&file, pack, APR_WRITE, APR_OS_DEFAULT, pool));
  assert_null(svn_io_file_write_full(file, bytes->data, bytes->len, NULL,
                                     pool));
  assert_null(svn_io_file_close(file, pool));
  assert_string_equal(revprop(fs, 6, "svn:log", pool), "m6");
  /* A new svn_fs_t reads the file afresh. */
  assert_string_equal(revprop(open_fs_at(db, pool), 6, "svn:log", pool),
                      "m9");
  assert_null(svn_io_remove_dir2(db, FALSE, NULL, NULL, pool));
  svn_pool_destroy(pool);
}

/* Overwrite the log "<FROM>9" of r9's plain file with "<TO>9" in place
   (same size), then set its mtime to MTIME. */
static void
edit_r9_in_place(const char *db, char from, char to, apr_time_t mtime,
                 apr_pool_t *pool)
{
  const char *path = svn_dirent_join(db, "revprops/2/9", pool);
  svn_stringbuf_t *bytes;
  apr_file_t *file;
  char *at;

  assert_null(svn_stringbuf_from_file2(&bytes, path, pool));
  at = strstr(bytes->data, apr_psprintf(pool, "\n%c9\n", from));
  assert_non_null(at);
  at[1] = to;
  assert_null(svn_io_set_file_read_write(path, FALSE, pool));
  assert_null(svn_io_file_open(&file, path, APR_WRITE, APR_OS_DEFAULT, pool));
  assert_null(svn_io_file_write_full(file, bytes->data, bytes->len, NULL,
                                     pool));
  assert_null(svn_io_file_close(file, pool));
  assert_null(svn_io_set_file_affected_time(mtime, path, pool));
}

/* REFRESH reads of an unpacked revision keep its file open and its bytes
   from its second read on (mod_dav_svn reads HEAD's revprops three times
   per PROPFIND): a stat() decides whether the bytes are current.  An edit
   in place that keeps size and mtime -- which no writer does -- is not
   noticed: proof of the reuse.  One that changes the mtime is, and so is
   a change by another svn_fs_t (a new file renamed over the old one). */
static void
test_refresh_reuses_plain(void **state)
{
  apr_pool_t *pool = svn_pool_create(NULL);
  const char *db;
  svn_fs_t *fs = open_copy(&db, pool);
  const char *path = svn_dirent_join(db, "revprops/2/9", pool);
  apr_time_t old = apr_time_from_sec(946684800);   /* 2000-01-01 */

  assert_null(svn_io_set_file_affected_time(old, path, pool));
  assert_string_equal(revprop(fs, 9, "svn:log", pool), "m9");
  assert_string_equal(revprop(fs, 9, "svn:log", pool), "m9");
  edit_r9_in_place(db, 'm', 'x', old, pool);
  assert_string_equal(revprop(fs, 9, "svn:log", pool), "m9");
  assert_string_equal(revprop(open_fs_at(db, pool), 9, "svn:log", pool),
                      "x9");
  edit_r9_in_place(db, 'x', 'y', old + 1, pool);
  assert_string_equal(revprop(fs, 9, "svn:log", pool), "y9");
  change(open_fs_at(db, pool), 9, "svn:log", "nine", pool);
  assert_string_equal(revprop(fs, 9, "svn:log", pool), "nine");
  /* More revisions than slots: each still reads right. */
  assert_string_equal(revprop(fs, 8, "svn:log", pool), "m8");
  assert_string_equal(revprop(fs, 10, "svn:log", pool), "m10");
  assert_string_equal(revprop(fs, 1, "svn:log", pool),
                      "first line\nsecond line\n\nEND\nK 3");
  assert_string_equal(revprop(fs, 9, "svn:log", pool), "nine");
  assert_null(svn_io_remove_dir2(db, FALSE, NULL, NULL, pool));
  svn_pool_destroy(pool);
}

/* The first read of an unpacked revision lets its file go ('svn log'
   reads each revision once, and holding it would cost an fstat() per
   revision): an edit in place that keeps size and mtime is seen by the
   second read, which is the one that holds the file. */
static void
test_first_read_lets_go(void **state)
{
  apr_pool_t *pool = svn_pool_create(NULL);
  const char *db;
  svn_fs_t *fs = open_copy(&db, pool);
  const char *path = svn_dirent_join(db, "revprops/2/9", pool);
  apr_time_t old = apr_time_from_sec(946684800);   /* 2000-01-01 */

  assert_null(svn_io_set_file_affected_time(old, path, pool));
  assert_string_equal(revprop(fs, 9, "svn:log", pool), "m9");
  edit_r9_in_place(db, 'm', 'x', old, pool);
  assert_string_equal(revprop(fs, 9, "svn:log", pool), "x9");
  edit_r9_in_place(db, 'x', 'y', old, pool);
  assert_string_equal(revprop(fs, 9, "svn:log", pool), "x9");
  assert_null(svn_io_remove_dir2(db, FALSE, NULL, NULL, pool));
  svn_pool_destroy(pool);
}

/* Another svn_fs_t splits the pack we hold parsed (RPPACK-7) with a
   value too big to keep: REFRESH reads see the new manifest and packs,
   and the big pack is read again each time. */
static void
test_refresh_sees_split(void **state)
{
  apr_pool_t *pool = svn_pool_create(NULL);
  const char *db;
  svn_fs_t *fs = open_copy(&db, pool);
  svn_fs_t *other;
  apr_size_t len = 300 * 1024;
  char *big = apr_palloc(pool, len + 1);
  svn_revnum_t rev;

  memset(big, 'b', len);
  big[len] = '\0';
  for (rev = 4; rev <= 7; rev++)
    assert_string_equal(revprop(fs, rev, "svn:log", pool),
                        apr_psprintf(pool, "m%ld", rev));
  other = open_fs_at(db, pool);
  change(other, 5, "big", big, pool);
  assert_string_equal(revprop(fs, 5, "big", pool), big);
  assert_string_equal(revprop(fs, 5, "big", pool), big);
  assert_string_equal(revprop(fs, 4, "svn:log", pool), "m4");
  assert_string_equal(revprop(fs, 6, "svn:log", pool), "m6");
  change(other, 6, "svn:log", "six", pool);
  assert_string_equal(revprop(fs, 6, "svn:log", pool), "six");
  assert_string_equal(revprop(fs, 7, "svn:log", pool), "m7");
  assert_null(svn_io_remove_dir2(db, FALSE, NULL, NULL, pool));
  svn_pool_destroy(pool);
}

/* The neighbours of a pack read are cached unparsed; a damaged one is
   reported when it is asked for, as a read without cache would. */
static void
test_damaged_neighbour(void **state)
{
  apr_pool_t *pool = svn_pool_create(NULL);
  const char *db;
  svn_fs_t *fs = open_copy(&db, pool);
  const char *pack = svn_dirent_join(db, "revprops/1.pack/4.0", pool);
  svn_stringbuf_t *bytes;
  apr_hash_t *props;
  svn_error_t *err;
  char *at;

  assert_null(svn_stringbuf_from_file2(&bytes, pack, pool));
  at = strstr(bytes->data + 8, "m6\nEND\n");
  assert_non_null(at);
  at[5] = 'X';                               /* "ENX": not a terminator */
  assert_null(svn_io_remove_file2(pack, FALSE, pool));
  assert_null(svn_io_file_create_bytes(pack, bytes->data, bytes->len, pool));
  assert_null(svn_fs_fs__get_revprops(&props, fs, 5, FALSE, pool, pool));
  err = svn_fs_fs__get_revprops(&props, fs, 6, FALSE, pool, pool);
  assert_non_null(err);
  /* Stock's code on top, our located error below it. */
  assert_int_equal(err->apr_err, SVN_ERR_MALFORMED_FILE);
  assert_non_null(err->child);
  assert_int_equal(err->child->apr_err, SVN_ERR_FS_CORRUPT);
  svn_error_clear(err);
  assert_null(svn_fs_fs__get_revprops(&props, fs, 7, FALSE, pool, pool));
  assert_null(svn_io_remove_dir2(db, FALSE, NULL, NULL, pool));
  svn_pool_destroy(pool);
}

/* svn_fs_verify's revprop check: every revision of the vector passes;
   an svn:date that does not parse is SVN_ERR_BAD_DATE (stock's "Bogus
   date"), plain or packed, and a missing svn:date is fine. */
static void
test_verify_revprops(void **state)
{
  apr_pool_t *pool = svn_pool_create(NULL);
  const char *db;
  svn_fs_t *fs = open_copy(&db, pool);
  svn_revnum_t rev;
  svn_error_t *err;

  for (rev = 0; rev <= 10; rev++)
    assert_null(svn_fs_fs__verify_revprops(fs, rev, pool));
  change(fs, 3, "svn:date", "2026-13-45T99:00:00.000000Z", pool);
  change(fs, 5, "svn:date", "yesterday", pool);
  change(fs, 7, "svn:date", NULL, pool);
  for (rev = 3; rev <= 5; rev += 2)
    {
      err = svn_fs_fs__verify_revprops(fs, rev, pool);
      assert_non_null(err);
      assert_int_equal(err->apr_err, SVN_ERR_BAD_DATE);
      svn_error_clear(err);
    }
  assert_null(svn_fs_fs__verify_revprops(fs, 7, pool));
  assert_null(svn_io_remove_dir2(db, FALSE, NULL, NULL, pool));
  svn_pool_destroy(pool);
}

/* Verify reads every revision once in ascending order, so a pack is let
   go once its last revision was verified; a REFRESH read (what 'svn list
   -v' makes for each entry) keeps what it parsed for the next one.  The
   vector's packs: r1-r3 (shard 0, r0 never packed) and r4-r7. */
static void
test_verify_lets_packs_go(void **state)
{
  apr_pool_t *pool = svn_pool_create(NULL);
  const char *db;
  svn_fs_t *fs = open_copy(&db, pool);
  apr_hash_t *props;
  svn_revnum_t rev;

  assert_int_equal(svn_fs_fs__revprop_packs_held(fs), 0);
  for (rev = 1; rev <= 2; rev++)
    assert_null(svn_fs_fs__verify_revprops(fs, rev, pool));
  assert_int_equal(svn_fs_fs__revprop_packs_held(fs), 1);
  assert_null(svn_fs_fs__verify_revprops(fs, 3, pool));
  assert_int_equal(svn_fs_fs__revprop_packs_held(fs), 0);
  assert_null(svn_fs_fs__verify_revprops(fs, 4, pool));
  assert_int_equal(svn_fs_fs__revprop_packs_held(fs), 1);
  for (rev = 5; rev <= 7; rev++)
    assert_null(svn_fs_fs__verify_revprops(fs, rev, pool));
  assert_int_equal(svn_fs_fs__revprop_packs_held(fs), 0);

  assert_null(svn_fs_fs__get_revprops(&props, fs, 3, TRUE, pool, pool));
  assert_null(svn_fs_fs__get_revprops(&props, fs, 7, TRUE, pool, pool));
  assert_int_equal(svn_fs_fs__revprop_packs_held(fs), 2);
  assert_null(svn_io_remove_dir2(db, FALSE, NULL, NULL, pool));
  svn_pool_destroy(pool);
}

int
main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_read),
    cmocka_unit_test(test_change_like_stock),
    cmocka_unit_test(test_atomic_change),
    cmocka_unit_test(test_cache_and_refresh),
    cmocka_unit_test(test_refresh_is_barrier),
    cmocka_unit_test(test_refresh_reuses_parse),
    cmocka_unit_test(test_refresh_sees_split),
    cmocka_unit_test(test_refresh_reuses_plain),
    cmocka_unit_test(test_first_read_lets_go),
    cmocka_unit_test(test_damaged_neighbour),
    cmocka_unit_test(test_verify_revprops),
    cmocka_unit_test(test_verify_lets_packs_go),
  };

  apr_initialize();
  return cmocka_run_group_tests(tests, NULL, NULL);
}
