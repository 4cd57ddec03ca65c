/* test_txn_spare.c --- spare transaction files (txn_spare.c, TXN-14)
 * under a second thread.
 *
 * Found by the concurrency campaign (tools/torture/concurrency.py): in a
 * threaded server, bumping db/txn-current writes its new value into a
 * spare of a spare directory it only peeked at; another thread beginning
 * a transaction meanwhile takes that directory (renames it to its own
 * "<txn>.txn"), and the final rename of the spare onto txn-current found
 * nothing: "Can't move '.../db/transactions/92-2w.spare/spare.9' to
 * '.../db/txn-current': No such file or directory" -- a client's commit
 * refused for no reason (2 of ~200 commits in 12 s through Apache).
 *
 * The interleaving is made deterministic here: this executable defines
 * rename(), which every rename of the module and of APR reaches first,
 * and takes the spare directory exactly between the write and the rename.
 *
 * The same review found a second window: purging a transaction
 * registered its "<txn>.spare" directory and only then listed the spares
 * in it, so a thread beginning a transaction in between took the
 * directory and the listing failed (ENOENT): the purge, and so the
 * commit or abort that ran it, reported an error.  opendir() is hooked
 * the same way to begin a transaction at the listing.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <unistd.h>
#include <sys/stat.h>
#include <dirent.h>
#include <fcntl.h>

#include "test_util.h"
#include "svn_dirent_uri.h"
#include "txn_store.h"

static apr_pool_t *pool;

/* Armed: the transaction directory that takes the spare directory when
   a spare is renamed onto txn-current (then disarmed). */
static const char *steal_into = NULL;
static int stolen = 0;

static int
has_suffix(const char *s, const char *suffix)
{
  size_t n = strlen(s), m = strlen(suffix);

  return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* Default visibility: the build hides symbols, and APR's calls must
   reach these too. */
__attribute__((visibility("default"))) int
rename(const char *from, const char *to)
{
  static int (*real)(const char *, const char *) = NULL;

  if (!real)
    real = (int (*)(const char *, const char *))dlsym(RTLD_NEXT, "rename");
  if (steal_into && strstr(from, ".spare/") && has_suffix(to, "/txn-current"))
    {
      const char *txn_dir = steal_into;
      svn_error_t *err;

      steal_into = NULL;
      /* What the other thread does: begin a transaction (renameat2, so
         this hook is not re-entered for it). */
      err = svn_fs_fs__txn_spare_make_dir(txn_dir, pool);
      if (!err)
        stolen = access(txn_dir, F_OK) == 0;
      svn_error_clear(err);
    }
  return real(from, to);
}

/* Armed: the transaction directory that begins when a "<txn>.spare"
   directory is listed (then disarmed). */
static const char *begin_at_listing = NULL;
static int begun = 0;

__attribute__((visibility("default"))) DIR *
opendir(const char *path)
{
  static DIR *(*real)(const char *) = NULL;

  if (!real)
    real = (DIR *(*)(const char *))dlsym(RTLD_NEXT, "opendir");
  if (begin_at_listing && has_suffix(path, ".spare"))
    {
      const char *txn_dir = begin_at_listing;
      svn_error_t *err;

      begin_at_listing = NULL;
      err = svn_fs_fs__txn_spare_make_dir(txn_dir, pool);
      begun = !err && access(txn_dir, F_OK) == 0;
      svn_error_clear(err);
    }
  return real(path);
}

static const char *
scratch_dir(void)
{
  char tmpl[] = "/tmp/fsfs7-test-spare-XXXXXX";

  assert_non_null(mkdtemp(tmpl));
  return apr_pstrdup(pool, tmpl);
}

static void
put(const char *path, const char *text)
{
  svn_error_t *err = svn_io_file_create(path, text, pool);

  assert_null(err);
}

static void
test_txn_current_spare_taken_meanwhile(void **state)
{
  const char *top = scratch_dir();
  const char *db = svn_dirent_join(top, "db", pool);
  const char *txns = svn_dirent_join(db, "transactions", pool);
  const char *old_txn = svn_dirent_join(txns, "1-1.txn", pool);
  const char *protorevs = svn_dirent_join(db, "txn-protorevs", pool);
  const char *rev_lock = svn_dirent_join(protorevs, "1-1.rev-lock", pool);
  const char *current = svn_dirent_join(db, "txn-current", pool);
  svn_stringbuf_t *text;
  svn_boolean_t kept;
  svn_error_t *err;

  assert_int_equal(mkdir(db, 0755), 0);
  assert_int_equal(mkdir(txns, 0755), 0);
  assert_int_equal(mkdir(old_txn, 0755), 0);
  assert_int_equal(mkdir(protorevs, 0755), 0);
  put(rev_lock, "");
  put(svn_dirent_join(old_txn, "props", pool), "END\n");
  put(svn_dirent_join(old_txn, "next-ids", pool), "0 0\n");
  put(current, "2\n");
  /* A finished transaction: its directory becomes 1-1.spare. */
  assert_null(svn_fs_fs__txn_spare_keep(&kept, old_txn, rev_lock, pool));
  assert_true(kept);
  assert_non_null(svn_fs_fs__txn_spare_any_dir(txns, pool));

  steal_into = svn_dirent_join(txns, "2-2.txn", pool);
  err = svn_fs_fs__txn_spare_write_atomic(
          current, "3\n", 2, NULL, TRUE,
          svn_fs_fs__txn_spare_any_dir(txns, pool), pool);
  assert_true(stolen);                  /* the interleaving happened */
  if (err)
    fail_msg("txn-current not written: %s",
             svn_error_purge_tracing(err)->message);
  assert_null(svn_stringbuf_from_file2(&text, current, pool));
  assert_string_equal(text->data, "3\n");
  assert_null(svn_io_remove_dir2(top, FALSE, NULL, NULL, pool));
}

static void
test_purge_while_a_transaction_begins(void **state)
{
  const char *top = scratch_dir();
  const char *db = svn_dirent_join(top, "db", pool);
  const char *txns = svn_dirent_join(db, "transactions", pool);
  const char *old_txn = svn_dirent_join(txns, "5-5.txn", pool);
  const char *protorevs = svn_dirent_join(db, "txn-protorevs", pool);
  const char *rev_lock = svn_dirent_join(protorevs, "5-5.rev-lock", pool);
  svn_boolean_t kept;
  svn_error_t *err;

  assert_int_equal(mkdir(db, 0755), 0);
  assert_int_equal(mkdir(txns, 0755), 0);
  assert_int_equal(mkdir(old_txn, 0755), 0);
  assert_int_equal(mkdir(protorevs, 0755), 0);
  put(rev_lock, "");
  put(svn_dirent_join(old_txn, "props", pool), "END\n");
  put(svn_dirent_join(old_txn, "changes", pool), "");

  begin_at_listing = svn_dirent_join(txns, "6-6.txn", pool);
  err = svn_fs_fs__txn_spare_keep(&kept, old_txn, rev_lock, pool);
  assert_true(begun);                   /* the interleaving happened */
  if (err)
    fail_msg("purge failed: %s", svn_error_purge_tracing(err)->message);
  assert_true(kept);
  assert_int_equal(access(old_txn, F_OK), -1);
  assert_null(svn_io_remove_dir2(top, FALSE, NULL, NULL, pool));
}

/* Issue 30, defect 6: a transaction is purged while a file of it is
   still open for writing (a second connection appending to the same
   transaction).  Its inode must not come back as a file of the next
   transaction, nor as db/current: the late write would land there.
   Before the write-lease check the spare was reused in both tests.
   Sets up db/transactions/7-7.txn whose only file, "changes", is open
   for writing (*FD, its *HELD stat), purges it into a spare directory
   and returns the new transaction directory 8-8.txn that took it. */
static const char *
purge_with_open_writer(int *fd, struct stat *held, const char **db)
{
  const char *top = scratch_dir();
  const char *txns, *old_txn, *new_txn, *changes;
  svn_boolean_t kept;

  *db = svn_dirent_join(top, "db", pool);
  txns = svn_dirent_join(*db, "transactions", pool);
  old_txn = svn_dirent_join(txns, "7-7.txn", pool);
  new_txn = svn_dirent_join(txns, "8-8.txn", pool);
  changes = svn_dirent_join(old_txn, "changes", pool);
  assert_int_equal(mkdir(*db, 0755), 0);
  assert_int_equal(mkdir(txns, 0755), 0);
  assert_int_equal(mkdir(old_txn, 0755), 0);
  put(changes, "");
  *fd = open(changes, O_WRONLY | O_APPEND);
  assert_true(*fd >= 0);
  assert_int_equal(fstat(*fd, held), 0);
  /* No rev-lock file: the held file is the only spare. */
  assert_null(svn_fs_fs__txn_spare_keep(
                &kept, old_txn, svn_dirent_join(*db, "no-such-lock", pool),
                pool));
  assert_true(kept);
  assert_null(svn_fs_fs__txn_spare_make_dir(new_txn, pool));
  return new_txn;
}

static svn_boolean_t
same_inode(const char *path, const struct stat *held)
{
  struct stat st;

  assert_int_equal(stat(path, &st), 0);
  return st.st_ino == held->st_ino && st.st_dev == held->st_dev;
}

static void
test_file_open_for_writing_is_not_reused(void **state)
{
  struct stat held;
  const char *db;
  int fd;
  const char *new_txn = purge_with_open_writer(&fd, &held, &db);
  const char *path = svn_dirent_join(new_txn, "node.0.0", pool);
  svn_boolean_t took;

  assert_null(svn_fs_fs__txn_spare_take(&took, new_txn, path, pool));
  assert_false(took);
  assert_int_equal(access(path, F_OK), -1);
  close(fd);
  assert_null(svn_io_remove_dir2(svn_dirent_dirname(db, pool), FALSE, NULL,
                                 NULL, pool));
}

static void
test_file_open_for_writing_never_becomes_current(void **state)
{
  struct stat held;
  const char *db;
  int fd;
  const char *new_txn = purge_with_open_writer(&fd, &held, &db);
  const char *current = svn_dirent_join(db, "current", pool);
  svn_stringbuf_t *text;

  put(current, "2\n");
  assert_null(svn_fs_fs__txn_spare_write_atomic(current, "3\n", 2, NULL,
                                                FALSE, new_txn, pool));
  assert_false(same_inode(current, &held));
  /* The late write goes nowhere that anyone reads. */
  assert_int_equal(write(fd, "LATE", 4), 4);
  close(fd);
  assert_null(svn_stringbuf_from_file2(&text, current, pool));
  assert_string_equal(text->data, "3\n");
  assert_null(svn_io_remove_dir2(svn_dirent_dirname(db, pool), FALSE, NULL,
                                 NULL, pool));
}

/* The control: a spare nobody holds is reused (else the tests above
   would pass by never reusing anything). */
static void
test_free_spare_is_reused(void **state)
{
  struct stat held;
  const char *db;
  int fd;
  const char *new_txn = purge_with_open_writer(&fd, &held, &db);
  const char *path = svn_dirent_join(new_txn, "node.0.0", pool);
  svn_boolean_t took;

  close(fd);
  assert_null(svn_fs_fs__txn_spare_take(&took, new_txn, path, pool));
  assert_true(took);
  assert_true(same_inode(path, &held));
  assert_null(svn_io_remove_dir2(svn_dirent_dirname(db, pool), FALSE, NULL,
                                 NULL, pool));
}

int
main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_txn_current_spare_taken_meanwhile),
    cmocka_unit_test(test_purge_while_a_transaction_begins),
    cmocka_unit_test(test_file_open_for_writing_is_not_reused),
    cmocka_unit_test(test_file_open_for_writing_never_becomes_current),
    cmocka_unit_test(test_free_spare_is_reused),
  };
  return RUN_TESTS_WITH_POOL(tests, pool);
}
