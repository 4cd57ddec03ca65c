/* test_txn_store.c --- unit and component tests of txn_store.h
 * (txn_store.c, txn_changes.c, txn_protorev.c; doc/format/transactions.md).
 *
 * Pure parsers get table-driven good and bad inputs; the file functions
 * run on repositories of formats 6, 7 and 8 made by the stock svnadmin
 * (r1 adds /a and /b), and the stock svnlook / svnadmin then read the
 * transactions we wrote.  Exits 77 (skip) without svn/svnadmin.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/wait.h>

#include <apr_general.h>
#include "svn_dirent_uri.h"
#include "svn_hash.h"
#include "svn_io.h"
#include "svn_pools.h"
#include "private/svn_subr_private.h"
#include "private/svn_sorts_private.h"
#include "private/svn_string_private.h"

#include "changes_codec.h"
#include "id.h"
#include "node.h"
#include "paths.h"
#include "fsconf.h"
#include "rep_read.h"
#include "repo.h"
#include "txn_store.h"
#include "test_util.h"

static apr_pool_t *pool;
static const char *tmpdir;

typedef struct repo_t
{
  const char *name;
  const char *create_opts;
  int format;
  svn_fs_t *fs;
} repo_t;

static repo_t repos[3] = {
  { "f6", "--compatible-version 1.8", 6 },
  { "f7", "--compatible-version 1.9", 7 },
  { "f8", "", 8 },
};

static void
check(svn_error_t *err)
{
  if (err)
    {
      svn_handle_error2(err, stderr, FALSE, "test_txn_store: ");
      fail();
    }
}

/* ERR must be an error with CODE; cleared. */
static void
expect_code(svn_error_t *err, apr_status_t code)
{
  assert_non_null(err);
  if (err->apr_err != code)
    svn_handle_error2(err, stderr, FALSE, "test_txn_store: unexpected: ");
  assert_int_equal(err->apr_err, code);
  svn_error_clear(err);
}

/* ERR must be SVN_ERR_FS_CORRUPT citing RULE; cleared. */
static void
expect_corrupt(svn_error_t *err, const char *rule)
{
  svn_error_t *e;
  svn_boolean_t cited = FALSE;

  assert_non_null(err);
  assert_int_equal(err->apr_err, SVN_ERR_FS_CORRUPT);
  for (e = err; e; e = e->child)
    if (e->message && strstr(e->message, apr_psprintf(pool, "rule %s)",
                                                      rule)))
      cited = TRUE;
  if (!cited)
    svn_handle_error2(err, stderr, FALSE, "test_txn_store: wrong rule: ");
  assert_true(cited);
  svn_error_clear(err);
}

/* Run CMD through the shell with the stock module; its stdout. */
static svn_stringbuf_t *
stock(const char *cmd, apr_pool_t *p)
{
  svn_stringbuf_t *out = svn_stringbuf_create_empty(p);
  FILE *f = popen(apr_psprintf(p, "cd %s && env -u LD_LIBRARY_PATH %s",
                               tmpdir, cmd), "r");
  char buf[4096];
  size_t n;

  assert_non_null(f);
  while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
    svn_stringbuf_appendbytes(out, buf, n);
  pclose(f);
  return out;
}

/* Contents of file NAME of transaction TXN_ID of FS (NULL if missing). */
static svn_stringbuf_t *
txn_file(svn_fs_t *fs, const svn_fs_fs__txn_id_t *txn_id, const char *name)
{
  svn_stringbuf_t *s;

  check(svn_fs_fs__txn_file_read(&s, svn_fs_fs__txn_path(fs, txn_id, name,
                                                         pool), pool));
  return s;
}

static void
assert_bytes(const svn_stringbuf_t *s, const char *data, apr_size_t len)
{
  assert_non_null(s);
  assert_int_equal(s->len, len);
  assert_memory_equal(s->data, data, len);
}

/* ------------------------------------------------------------------ */
/* Pure parsers                                                         */

static void
test_names(void **state)
{
  static const char *good[] = { "0-0", "1-1", "12-1a", "2147483647-zz" };
  static const char *bad[] = { "", "1", "-1-1", "1-", "1-A", "a-1",
                               "1-1 ", "1-1.txn" };
  svn_fs_fs__txn_id_t id;
  size_t i;

  for (i = 0; i < sizeof(good) / sizeof(good[0]); i++)
    {
      check(svn_fs_fs__txn_name_parse(&id, good[i]));
      assert_string_equal(svn_fs_fs__txn_name(&id, pool), good[i]);
    }
  for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
    expect_code(svn_fs_fs__txn_name_parse(&id, bad[i]),
                SVN_ERR_FS_MALFORMED_TXN_ID);
}

static void
test_small_parsers(void **state)
{
  apr_uint64_t a, b;
  static const char *bad_current[] = { "", "\n", "1", "1\n\n", "A\n", "-1\n",
                                       " 1\n", "zzzzzzzzzzzzzz\n" };
  static const char *bad_ids[] = { "", "0\n", "0 0", "0  0\n", "0 0\n\n",
                                   "0 X0\n", "0 0\n\0\0", "0 0 \n" };
  static const char *bad_idx[] = { "", "0", "2", "3\n", "-3", "99999999999999999999" };
  size_t i;

  check(svn_fs_fs__txn_current_parse(&a, "1z\n", 3, NULL));
  assert_int_equal(a, 71);
  for (i = 0; i < sizeof(bad_current) / sizeof(bad_current[0]); i++)
    expect_corrupt(svn_fs_fs__txn_current_parse(&a, bad_current[i],
                                                strlen(bad_current[i]),
                                                NULL), "TXN-2");

  check(svn_fs_fs__txn_next_ids_parse(&a, &b, "0 0\n", 4, NULL));
  assert_true(a == 0 && b == 0);
  check(svn_fs_fs__txn_next_ids_parse(&a, &b, "8 1\n\0", 5, NULL));
  assert_true(a == 8 && b == 1);
  for (i = 0; i < sizeof(bad_ids) / sizeof(bad_ids[0]); i++)
    expect_corrupt(svn_fs_fs__txn_next_ids_parse(
                     &a, &b, bad_ids[i],
                     i == 6 ? 6 : strlen(bad_ids[i]), NULL), "TXN-3");

  check(svn_fs_fs__txn_itemidx_parse(&a, "4", 1, NULL));
  assert_int_equal(a, 4);
  for (i = 0; i < sizeof(bad_idx) / sizeof(bad_idx[0]); i++)
    expect_corrupt(svn_fs_fs__txn_itemidx_parse(&a, bad_idx[i],
                                                strlen(bad_idx[i]), NULL),
                   "TXN-4");
}

/* Parse vector NAME (IN) with the parser its suffix names: .next-ids,
   .itemidx, .txn-current, .changes (folded), .sha1 (NAME is
   "f<N>-<hex sha1>.sha1", read as a file of transaction 1-1). */
static svn_error_t *
parse_txn_vector(const svn_stringbuf_t *in, const char *name,
                 apr_pool_t *p)
{
  const char *ext = strrchr(name, '.');
  apr_uint64_t a, b;
  apr_hash_t *changes;
  svn_fs_fs__rep_t *rep;
  svn_fs_fs__txn_id_t txn = { 1, 1 };
  svn_checksum_t *sha1;

  if (strcmp(ext, ".next-ids") == 0)
    return svn_fs_fs__txn_next_ids_parse(&a, &b, in->data, in->len, name);
  if (strcmp(ext, ".itemidx") == 0)
    return svn_fs_fs__txn_itemidx_parse(&a, in->data, in->len, name);
  if (strcmp(ext, ".txn-current") == 0)
    return svn_fs_fs__txn_current_parse(&a, in->data, in->len, name);
  if (strcmp(ext, ".changes") == 0)
    return svn_fs_fs__txn_changes_parse_fold(&changes, in->data, in->len,
                                             name, p, p);
  assert_string_equal(ext, ".sha1");
  check(svn_checksum_parse_hex(&sha1, svn_checksum_sha1,
                               apr_pstrndup(p, name + 3, 40), p));
  return svn_fs_fs__txn_sha1_parse(&rep, in->data, in->len, &txn,
                                   sha1->digest, name, p);
}

static void
check_good_txn_vector(const svn_stringbuf_t *in, const char *name,
                      apr_pool_t *p)
{
  check(parse_txn_vector(in, name, p));
}

/* Stock-made transaction files parse; damaged ones fail citing their
   rule (tests/vectors/{good,bad}/txn). */
static void
test_vectors(void **state)
{
  vector_check_good("txn", NULL, 10, check_good_txn_vector, pool);
  vector_check_bad("txn", NULL, 16, parse_txn_vector, pool);
}

/* ------------------------------------------------------------------ */
/* Folding (TXN-9)                                                      */

/* One line of a changes file in format 8 notation, NUL-free. */
typedef struct fold_case_t
{
  const char *input;      /* changes file */
  const char *expect;     /* "path kind text prop;..." sorted, or NULL */
  const char *rule;       /* expected corrupt rule, or NULL */
} fold_case_t;

static const fold_case_t fold_cases[] = {
  /* add + modify is an add with the flags or-ed */
  { "_0.0.t1-1 add-file true false false /f\n\n"
    "_0.0.t1-1 modify-file false true false /f\n\n",
    "/f add 1 1", NULL },
  /* add + delete cancels */
  { "_0.0.t1-1 add-file true false false /f\n\n"
    "_0.0.t1-1 delete-file false false false /f\n\n", "", NULL },
  /* delete + add is a replace */
  { "1-1.0.r1/4 delete-file false false false /f\n\n"
    "_1.0.t1-1 add-file true false false /f\n\n", "/f replace 1 0", NULL },
  /* modify + delete is a delete */
  { "1-1.0.t1-1 modify-file true true false /f\n\n"
    "1-1.0.t1-1 delete-file false false false /f\n\n",
    "/f delete 0 0", NULL },
  /* delete drops everything below */
  { "_0.0.t1-1 add-file true false false /d/f\n\n"
    "_1.0.t1-1 modify-dir false true false /d/e\n\n"
    "_2.0.t1-1 modify-file false true false /dx\n\n"
    "0-1.0.t1-1 delete-dir false false false /d\n\n",
    "/d delete 0 0;/dx modify 0 1", NULL },
  /* reset drops the path */
  { "_0.0.t1-1 add-file true false false /f\n\n"
    "reset reset-file false false false /f\n\n", "", NULL },
  /* replace drops everything below too */
  { "_0.0.t1-1 add-file true false false /d/f\n\n"
    "0-1.0.r1/3 delete-dir false false false /d\n\n"
    "0-1.1.t1-1 add-dir false false false /d\n1 /a\n",
    "/d replace 0 0", NULL },
  { "reset reset-file false false false /f\n\n", "", NULL },
  /* bad orders */
  { "_0.0.t1-1 add-file true false false /f\n\n"
    "_1.0.t1-1 modify-file true false false /f\n\n", NULL, "TXN-9b" },
  { "_0.0.t1-1 delete-file false false false /f\n\n"
    "_0.0.t1-1 modify-file true false false /f\n\n", NULL, "TXN-9c" },
  { "_0.0.t1-1 modify-file true false false /f\n\n"
    "_0.0.t1-1 add-file true false false /f\n\n", NULL, "TXN-9d" },
  { "_0.0.t1-1 modify-file true false false /f\n\n\n", NULL, "TXN-9" },
  { "_0.0.t1-1 modify-file true false false /f\n", NULL, "TXN-9" },
  { "_0.0.t1-1 modify-file true false false /f\n\n"
    "_0.0.t1-1 frob-file true false false /f\n\n", NULL, "CHANGES-3" },
};

/* "path kind text prop" of CHANGES sorted by path, ';'-separated. */
static const char *
describe_changes(apr_hash_t *changes, apr_pool_t *p)
{
  apr_array_header_t *sorted = svn_sort__hash(changes,
                                              svn_sort_compare_items_as_paths,
                                              p);
  static const char *kinds[] = { "modify", "add", "delete", "replace",
                                 "reset" };
  svn_stringbuf_t *out = svn_stringbuf_create_empty(p);
  int i;

  for (i = 0; i < sorted->nelts; i++)
    {
      svn_sort__item_t *item = &APR_ARRAY_IDX(sorted, i, svn_sort__item_t);
      const svn_fs_fs__change_t *c = item->value;

      svn_stringbuf_appendcstr(out, apr_psprintf(p, "%s%s %s %d %d",
                                                 i ? ";" : "",
                                                 (const char *)item->key,
                                                 kinds[c->change_kind],
                                                 c->text_mod, c->prop_mod));
    }
  return out->data;
}

/* Deleting a replacement undoes the add: what is left is the original
   delete, with the deleted node's id and kind (fs-test 46 asks this of
   a transaction's and a revision's changed paths). */
static void
test_fold_delete_replacement(void **state)
{
  static const char input[] =
    "0-1.0.r1/40 delete-file false false false /f\n\n"
    "_1.0.t1-1 add-dir false false false /f\n\n"
    "_1.0.t1-1 delete-dir false false false /f\n\n";
  apr_hash_t *changes;
  const svn_fs_fs__change_t *c;

  check(svn_fs_fs__txn_changes_parse_fold(&changes, input, strlen(input),
                                          "case", pool, pool));
  assert_int_equal(apr_hash_count(changes), 1);
  c = svn_hash_gets(changes, "/f");
  assert_non_null(c);
  assert_int_equal(c->change_kind, svn_fs_path_change_delete);
  assert_int_equal(c->node_kind, svn_node_file);
  assert_string_equal(svn_fs_fs__id_unparse(c->noderev_id, pool)->data,
                      "0-1.0.r1/40");
}

static void
test_fold(void **state)
{
  size_t i;
  apr_hash_t *changes = apr_hash_make(pool);
  svn_fs_fs__change_t no_id = { { "/f", 2 } };

  /* TXN-9a: the codec already refuses "reset" with another action, so
     only a caller can hand the folder an id-less add */
  no_id.change_kind = svn_fs_path_change_add;
  expect_corrupt(svn_fs_fs__txn_changes_fold(changes, &no_id, "direct",
                                             pool, pool), "TXN-9a");

  for (i = 0; i < sizeof(fold_cases) / sizeof(fold_cases[0]); i++)
    {
      const fold_case_t *t = &fold_cases[i];
      apr_hash_t *changes;
      svn_error_t *err = svn_fs_fs__txn_changes_parse_fold(
                           &changes, t->input, strlen(t->input), "case",
                           pool, pool);
      if (t->rule)
        expect_corrupt(err, t->rule);
      else
        {
          check(err);
          assert_string_equal(describe_changes(changes, pool), t->expect);
        }
    }
}

/* TRUE if some process holds the lock svn_io_lock_open_file() takes on
   PATH (APR's file lock, flock() on Linux), as another process -- the
   stock module, say -- sees it: a forked child tries to take it.
   Reading /proc/locks instead was flaky under `make check -j2`: the
   kernel builds that file a read() at a time, and an entry can be skipped
   when other processes take or drop locks between two reads. */
static svn_boolean_t
file_locked(const char *path)
{
  pid_t child = fork();
  int status;

  assert_true(child >= 0);
  if (child == 0)
    {
      int fd = open(path, O_RDONLY);

      if (fd < 0)
        _exit(2);
      if (flock(fd, LOCK_EX | LOCK_NB) == 0)
        _exit(0);
      _exit(errno == EWOULDBLOCK ? 1 : 2);
    }
  assert_int_equal(waitpid(child, &status, 0), child);
  assert_true(WIFEXITED(status) && WEXITSTATUS(status) < 2);
  return WEXITSTATUS(status) == 1;
}

/* ------------------------------------------------------------------ */
/* Transactions on disk                                                 */

/* A new transaction on r1 of REPO. */
static svn_fs_fs__txn_id_t
new_txn(repo_t *repo)
{
  svn_fs_fs__txn_id_t id;

  apr_hash_t *props = apr_hash_make(pool);

  check(svn_fs_fs__txn_create(&id, repo->fs, 1, pool));
  /* The stock module needs a props file (txn.c writes it). */
  svn_hash_sets(props, "svn:log", svn_string_create("test", pool));
  check(svn_fs_fs__txn_set_props(repo->fs, &id, props, FALSE, pool));
  return id;
}

static void
test_create_purge(void **state)
{
  int r;

  for (r = 0; r < 3; r++)
    {
      svn_fs_t *fs = repos[r].fs;
      svn_fs_fs__txn_id_t id = new_txn(&repos[r]), id2 = new_txn(&repos[r]);
      const char *name = svn_fs_fs__txn_name(&id, pool);
      svn_stringbuf_t *s, *root;
      apr_array_header_t *names;
      svn_node_kind_t kind;

      assert_int_equal(id.revision, 1);
      assert_int_equal(id2.number, id.number + 1);
      check(svn_stringbuf_from_file2(&s, svn_fs_fs__path_db(fs, "txn-current",
                                                            pool), pool));
      {
        char want[SVN_INT64_BUFFER_SIZE];
        apr_size_t n = svn__ui64tobase36(want, id2.number + 1);
        want[n++] = '\n';
        assert_bytes(s, want, n);
      }
      assert_bytes(txn_file(fs, &id, "next-ids"), "0 0\n", 4);
      assert_bytes(txn_file(fs, &id, "changes"), "", 0);
      assert_null(txn_file(fs, &id, "itemidx"));
      root = txn_file(fs, &id, "node.0.0");
      assert_non_null(root);
      assert_non_null(strstr(root->data, apr_psprintf(pool,
                                                      "id: 0.0.t%s\n", name)));
      assert_non_null(strstr(root->data, "count: 2\n"));
      assert_non_null(strstr(root->data, "is-fresh-txn-root: y\n"));
      check(svn_io_check_path(svn_fs_fs__txn_protorev_path(fs, &id, pool),
                              &kind, pool));
      assert_int_equal(kind, svn_node_file);

      /* stock sees it */
      s = stock(apr_psprintf(pool, "svnadmin lstxns %s", repos[r].name),
                pool);
      assert_non_null(strstr(s->data, apr_psprintf(pool, "%s\n", name)));
      /* listed like stock lists them, a malformed name included */
      check(svn_io_dir_make(svn_fs_fs__path_db(fs, "transactions/junk.txn",
                                               pool), APR_OS_DEFAULT, pool));
      check(svn_fs_fs__txn_list(&names, fs, pool, pool));
      {
        svn_stringbuf_t *ours = svn_stringbuf_create_empty(pool);
        int i;

        svn_sort__array(names, svn_sort_compare_paths);
        for (i = 0; i < names->nelts; i++)
          svn_stringbuf_appendcstr(ours, apr_pstrcat(
            pool, APR_ARRAY_IDX(names, i, const char *), "\n", SVN_VA_NULL));
        assert_string_equal(ours->data, stock(apr_psprintf(pool,
                              "svnadmin lstxns %s | LC_ALL=C sort",
                              repos[r].name), pool)->data);
      }
      check(svn_io_dir_remove_nonrecursive(
              svn_fs_fs__path_db(fs, "transactions/junk.txn", pool), pool));

      check(svn_fs_fs__txn_check_exists(fs, &id, pool));
      check(svn_fs_fs__txn_purge(fs, &id, pool));
      expect_code(svn_fs_fs__txn_check_exists(fs, &id, pool),
                  SVN_ERR_FS_NO_SUCH_TRANSACTION);
      expect_code(svn_fs_fs__txn_purge(fs, &id, pool),
                  SVN_ERR_FS_NO_SUCH_TRANSACTION);
      check(svn_io_check_path(svn_fs_fs__txn_protorev_path(fs, &id, pool),
                              &kind, pool));
      assert_int_equal(kind, svn_node_none);
      /* stock removes ours */
      stock(apr_psprintf(pool, "svnadmin rmtxns %s %s", repos[r].name,
                         svn_fs_fs__txn_name(&id2, pool)), pool);
      expect_code(svn_fs_fs__txn_check_exists(fs, &id2, pool),
                  SVN_ERR_FS_NO_SUCH_TRANSACTION);
    }
}

static void
test_props_ids(void **state)
{
  svn_fs_t *fs = repos[2].fs;
  svn_fs_fs__txn_id_t id = new_txn(&repos[2]);
  apr_hash_t *props = apr_hash_make(pool), *back;
  svn_fs_fs__id_part_t part;

  check(svn_fs_fs__txn_get_props(&back, fs, &id, TRUE, pool, pool));
  assert_int_equal(apr_hash_count(back), 0);
  svn_hash_sets(props, "svn:log", svn_string_create("msg", pool));
  check(svn_fs_fs__txn_set_props(fs, &id, props, FALSE, pool));
  assert_bytes(txn_file(fs, &id, "props"),
               "K 7\nsvn:log\nV 3\nmsg\nEND\n", 24);
  check(svn_fs_fs__txn_get_props(&back, fs, &id, FALSE, pool, pool));
  assert_string_equal(((svn_string_t *)svn_hash_gets(back, "svn:log"))->data,
                      "msg");
  check(svn_fs_fs__txn_set_props(fs, &id, props, TRUE, pool));
  assert_non_null(txn_file(fs, &id, "props-final"));

  check(svn_fs_fs__txn_new_node_id(&part, fs, &id, pool));
  assert_true(part.number == 0 && part.revision == SVN_INVALID_REVNUM);
  check(svn_fs_fs__txn_new_node_id(&part, fs, &id, pool));
  assert_int_equal(part.number, 1);
  check(svn_fs_fs__txn_new_copy_id(&part, fs, &id, pool));
  assert_int_equal(part.number, 0);
  assert_bytes(txn_file(fs, &id, "next-ids"), "2 1\n\0", 5);

  check(svn_fs_fs__txn_purge(fs, &id, pool));
  expect_code(svn_fs_fs__txn_get_props(&back, fs, &id, FALSE, pool, pool),
              SVN_ERR_FS_NO_SUCH_TRANSACTION);
}

/* Read the mutable node-rev ID back. */
static svn_fs_fs__noderev_t *
get_node(svn_fs_t *fs, const svn_fs_fs__id_t *id)
{
  svn_fs_fs__noderev_t *n;

  check(svn_fs_fs__get_noderev(&n, fs, id, pool, pool));
  return n;
}

/* The mutable root of ID. */
static svn_fs_fs__noderev_t *
txn_root(svn_fs_t *fs, const svn_fs_fs__txn_id_t *id)
{
  svn_fs_fs__id_part_t zero = { 0, 0 };

  return get_node(fs, svn_fs_fs__id_create_txn(&zero, &zero, id, pool));
}

/* Write TEXT as a new file /NAME of the transaction ID in REPO: rep,
   node-rev, entry, change.  Returns the rep. */
static svn_fs_fs__rep_t *
add_file(repo_t *repo, const svn_fs_fs__txn_id_t *id, const char *name,
         const char *text)
{
  svn_fs_t *fs = repo->fs;
  svn_fs_fs__protorev_t *protorev;
  svn_fs_fs__rep_write_options_t options;
  svn_fs_fs__noderev_t *file = apr_pcalloc(pool, sizeof(*file));
  svn_fs_fs__noderev_t *root = txn_root(fs, id);
  svn_fs_fs__id_part_t node, copy = { 0, 0 };
  svn_fs_fs__change_t change = { { 0 } };
  svn_fs_fs__rep_t *rep;

  check(svn_fs_fs__txn_new_node_id(&node, fs, id, pool));
  file->id = svn_fs_fs__id_create_txn(&node, &copy, id, pool);
  file->kind = svn_node_file;
  file->copyfrom_rev = SVN_INVALID_REVNUM;
  file->copyroot_rev = 0;
  file->copyroot_path = "/";
  file->created_path = apr_pstrcat(pool, "/", name, SVN_VA_NULL);
  check(svn_fs_fs__protorev_open(&protorev, fs, id, pool, pool));
  svn_fs_fs__rep_write_options_init(&options, SVN_FS_FS__DATA(fs));
  check(svn_fs_fs__protorev_write_rep(&rep, protorev,
                                      svn_stream_from_string(
                                        svn_string_create(text, pool), pool),
                                      NULL, &options,
                                      SVN_FS_FS__ITEM_TYPE_FILE_REP,
                                      pool, pool));
  check(svn_fs_fs__protorev_close(protorev));
  file->data_rep = rep;
  check(svn_fs_fs__txn_put_noderev(fs, file, pool));
  check(svn_fs_fs__txn_sha1_rep_put(fs, id, rep, pool));
  check(svn_fs_fs__txn_set_entry(fs, root, name, file->id, svn_node_file,
                                 pool));
  change.path.data = file->created_path;
  change.path.len = strlen(file->created_path);
  change.noderev_id = file->id;
  change.change_kind = svn_fs_path_change_add;
  change.text_mod = TRUE;
  change.node_kind = svn_node_file;
  change.mergeinfo_mod = svn_tristate_false;
  change.copyfrom_rev = SVN_INVALID_REVNUM;
  check(svn_fs_fs__txn_add_change(fs, id, &change, pool));
  return rep;
}

static void
test_nodes_and_stock_reads(void **state)
{
  int r;

  for (r = 0; r < 3; r++)
    {
      svn_fs_t *fs = repos[r].fs;
      svn_fs_fs__txn_id_t id = new_txn(&repos[r]);
      const char *name = svn_fs_fs__txn_name(&id, pool);
      svn_fs_fs__noderev_t *root;
      svn_fs_fs__rep_t *rep, *back;
      apr_array_header_t *entries;
      apr_hash_t *props = apr_hash_make(pool), *changes;
      svn_stringbuf_t *s;

      rep = add_file(&repos[r], &id, "new", "hello world\n");
      root = txn_root(fs, &id);
      assert_true(root->data_rep && root->data_rep->in_txn);
      check(svn_fs_fs__dir_entries(&entries, fs, root, pool, pool));
      assert_int_equal(entries->nelts, 3);      /* a b new */
      s = txn_file(fs, &id, "node.0.0.children");
      assert_non_null(strstr(s->data, "END\nK 3\nnew\nV "));

      /* node props on the root */
      svn_hash_sets(props, "p", svn_string_create("v", pool));
      check(svn_fs_fs__txn_set_node_props(fs, root, props, pool));
      assert_bytes(txn_file(fs, &id, "node.0.0.props"),
                   "K 1\np\nV 1\nv\nEND\n", 16);
      assert_non_null(strstr(txn_file(fs, &id, "node.0.0")->data,
                             "props: -1\n"));
      /* uniquifiers took node ids: file _0, rep _1, dir _2, props _3 */
      assert_bytes(txn_file(fs, &id, "next-ids"), "4 0\n\0", 5);

      /* remove entry b */
      check(svn_fs_fs__txn_set_entry(fs, root, "b", NULL, svn_node_none,
                                     pool));
      check(svn_fs_fs__dir_entries(&entries, fs, root, pool, pool));
      assert_int_equal(entries->nelts, 2);

      check(svn_fs_fs__txn_sha1_rep_get(&back, fs, &id, rep->sha1_digest,
                                        pool, pool));
      assert_non_null(back);
      assert_int_equal(back->item_index, rep->item_index);
      assert_string_equal(back->uniquifier, rep->uniquifier);
      check(svn_fs_fs__txn_changes(&changes, fs, &id, pool, pool));
      assert_int_equal(apr_hash_count(changes), 1);

      /* the stock module reads what we wrote */
      s = stock(apr_psprintf(pool, "svnlook cat -t %s %s /new", name,
                             repos[r].name), pool);
      assert_string_equal(s->data, "hello world\n");
      s = stock(apr_psprintf(pool, "svnlook changed -t %s %s", name,
                             repos[r].name), pool);
      assert_string_equal(s->data, "A   new\n");
      s = stock(apr_psprintf(pool, "svnlook tree -t %s %s", name,
                             repos[r].name), pool);
      assert_string_equal(s->data, "/\n a/\n new\n");
      s = stock(apr_psprintf(pool, "svnlook pg -t %s %s p /", name,
                             repos[r].name), pool);
      assert_string_equal(s->data, "v");
      check(svn_fs_fs__txn_purge(fs, &id, pool));
    }
}

/* A changes file is folded a chunk (64 kB) at a time: entries that
   straddle a chunk, and one longer than a chunk, fold as they do read
   whole; a torn last entry is still corrupt (TXN-9); no file at all is
   an empty list. */
static void
test_changes_in_chunks(void **state)
{
  svn_fs_t *fs = repos[0].fs;
  svn_fs_fs__txn_id_t id = new_txn(&repos[0]);
  const char *path = svn_fs_fs__txn_path(fs, &id, "changes", pool);
  svn_stringbuf_t *text = svn_stringbuf_create_empty(pool);
  svn_stringbuf_t *longpath = svn_stringbuf_create("/long-", pool);
  apr_hash_t *changes, *whole;
  int i;

  for (i = 0; i < 3000; i++)
    svn_stringbuf_appendcstr(text, apr_psprintf(pool,
      "_%x.0.t1-1 add-file true false false /d/f%d\n\n", i, i));
  while (longpath->len < 150 * 1000)
    svn_stringbuf_appendcstr(longpath, "0123456789");
  svn_stringbuf_appendcstr(text, apr_psprintf(pool,
    "_z.0.t1-1 add-file true false false %s\n\n", longpath->data));
  svn_stringbuf_appendcstr(text,
    "_5.0.t1-1 modify-file false true false /d/f5\n\n"
    "_7.0.t1-1 delete-file false false false /d/f7\n\n");
  assert_true(text->len > 3 * 64 * 1024);
  check(svn_io_remove_file2(path, TRUE, pool));
  check(svn_io_file_create_bytes(path, text->data, text->len, pool));
  check(svn_fs_fs__txn_changes(&changes, fs, &id, pool, pool));
  check(svn_fs_fs__txn_changes_parse_fold(&whole, text->data, text->len,
                                          "whole", pool, pool));
  assert_int_equal(apr_hash_count(changes), 3000);
  assert_non_null(svn_hash_gets(changes, longpath->data));
  assert_null(svn_hash_gets(changes, "/d/f7"));
  assert_string_equal(describe_changes(changes, pool),
                      describe_changes(whole, pool));

  svn_stringbuf_appendcstr(text,
                           "_8.0.t1-1 modify-file true false false /d/f8\n");
  check(svn_io_remove_file2(path, FALSE, pool));
  check(svn_io_file_create_bytes(path, text->data, text->len, pool));
  expect_corrupt(svn_fs_fs__txn_changes(&changes, fs, &id, pool, pool),
                 "TXN-9");

  check(svn_io_remove_file2(path, FALSE, pool));
  check(svn_fs_fs__txn_changes(&changes, fs, &id, pool, pool));
  assert_int_equal(apr_hash_count(changes), 0);
  check(svn_fs_fs__txn_purge(fs, &id, pool));
}

static void
test_protorev(void **state)
{
  int r;

  for (r = 0; r < 3; r++)
    {
      svn_fs_t *fs = repos[r].fs;
      svn_fs_fs__txn_id_t id = new_txn(&repos[r]);
      svn_fs_fs__protorev_t *p, *p2;
      svn_fs_fs__protorev_rep_t *w;
      svn_fs_fs__rep_write_options_t options;
      svn_fs_fs__rep_t *rep, *dup;
      svn_stream_t *stream;
      apr_array_header_t *l2p, *p2l;
      apr_off_t offset, size;
      svn_stringbuf_t *bytes;
      apr_size_t len = 6;
      apr_pool_t *ppool = svn_pool_create(pool);
      svn_error_t *err;

      const char *lock_path = svn_fs_fs__txn_protorev_lock_path(fs, &id,
                                                                 pool);

      assert_false(file_locked(lock_path));
      check(svn_fs_fs__protorev_open(&p, fs, &id, ppool, pool));
      /* held across processes while the handle is open */
      assert_true(file_locked(lock_path));
      err = svn_fs_fs__protorev_open(&p2, fs, &id, pool, pool);
      expect_code(svn_error_dup(err), SVN_ERR_FS_REP_BEING_WRITTEN);
      assert_non_null(strstr(err->message, "by this process"));
      svn_error_clear(err);

      svn_fs_fs__rep_write_options_init(&options, SVN_FS_FS__DATA(fs));
      check(svn_fs_fs__protorev_rep_begin(&w, &stream, p, NULL, &options,
                                          pool, pool));
      check(svn_stream_write(stream, "hello\n", &len));
      check(svn_fs_fs__protorev_rep_finish(&rep, w,
                                           SVN_FS_FS__ITEM_TYPE_FILE_REP,
                                           pool, pool));
      check(svn_fs_fs__protorev_offset(&size, p, pool));
      assert_true(rep->in_txn && rep->has_sha1 && rep->expanded_size == 6);
      check(svn_fs_fs__txn_item_offset(&offset, fs, &id, rep->item_index,
                                       pool));
      assert_int_equal(offset, 0);
      if (repos[r].format >= 7)
        {
          assert_int_equal(rep->item_index, 3);
          assert_bytes(txn_file(fs, &id, "itemidx"), "4", 1);
          check(svn_fs_fs__txn_proto_indexes(&l2p, &p2l, fs, &id, size,
                                             pool, pool));
          assert_int_equal(APR_ARRAY_IDX(l2p, 3, apr_off_t), 0);
          assert_int_equal(p2l->nelts, 1);
          check(svn_stringbuf_from_file2(&bytes,
                  svn_fs_fs__txn_protorev_path(fs, &id, pool), pool));
          assert_int_equal(APR_ARRAY_IDX(p2l, 0, svn_fs_fs__p2l_entry_t)
                             .fnv1_checksum,
                           svn__fnv1a_32x4(bytes->data, bytes->len));
          assert_int_equal(APR_ARRAY_IDX(p2l, 0, svn_fs_fs__p2l_entry_t).size,
                           size);
          /* an item cut off by the file's end is in neither index */
          check(svn_fs_fs__txn_proto_indexes(&l2p, &p2l, fs, &id, size - 1,
                                             pool, pool));
          assert_int_equal(p2l->nelts, 0);
          assert_int_equal(APR_ARRAY_IDX(l2p, 3, apr_off_t), -1);
        }
      else
        {
          assert_int_equal(rep->item_index, 0);
          assert_null(txn_file(fs, &id, "index.l2p"));
        }

      /* a duplicate written and dropped leaves no trace */
      len = 6;
      check(svn_fs_fs__protorev_rep_begin(&w, &stream, p, NULL, &options,
                                          pool, pool));
      check(svn_stream_write(stream, "hello\n", &len));
      check(svn_fs_fs__protorev_rep_finish(&dup, w,
                                           SVN_FS_FS__ITEM_TYPE_FILE_REP,
                                           pool, pool));
      check(svn_fs_fs__protorev_rep_abort(w, pool));
      check(svn_fs_fs__protorev_offset(&offset, p, pool));
      assert_int_equal(offset, size);
      if (repos[r].format >= 7)
        {
          assert_bytes(txn_file(fs, &id, "itemidx"), "4", 1);
          assert_int_equal(txn_file(fs, &id, "index.l2p")->len, 16);
          assert_int_equal(txn_file(fs, &id, "index.p2l")->len, 48);
        }
      if (repos[r].format >= 7)
        {
          apr_uint64_t item;

          check(svn_fs_fs__protorev_reserve_item(&item, p, pool));
          assert_int_equal(item, 4);
          assert_bytes(txn_file(fs, &id, "itemidx"), "5", 1);
        }
      check(svn_fs_fs__protorev_close(p));
      assert_false(file_locked(lock_path));
      check(svn_fs_fs__protorev_close(p));
      /* reopen after close, and after pool clearing */
      check(svn_fs_fs__protorev_open(&p, fs, &id, ppool, pool));
      assert_true(file_locked(lock_path));
      svn_pool_clear(ppool);
      assert_false(file_locked(lock_path));
      check(svn_fs_fs__protorev_open(&p, fs, &id, ppool, pool));
      check(svn_fs_fs__protorev_offset(&offset, p, pool));
      assert_int_equal(offset, size);
      svn_pool_destroy(ppool);
      check(svn_fs_fs__txn_purge(fs, &id, pool));
    }
}

/* Fulltext of REP. */
static const char *
rep_text(svn_fs_t *fs, const svn_fs_fs__rep_t *rep)
{
  svn_stringbuf_t *text;

  check(svn_fs_fs__rep_contents(&text, fs, rep, TRUE, pool, pool));
  return text->data;
}

static void
test_txn_rep_read(void **state)
{
  int r;

  for (r = 0; r < 3; r++)
    {
      svn_fs_t *fs = repos[r].fs;
      svn_fs_fs__txn_id_t id = new_txn(&repos[r]);
      svn_fs_fs__rep_t *plain = add_file(&repos[r], &id, "new", "plain\n");
      svn_fs_fs__noderev_t *base_root = txn_root(fs, &id);
      svn_fs_fs__protorev_t *p;
      svn_fs_fs__rep_write_options_t options;
      svn_fs_fs__rep_write_base_t base;
      svn_fs_fs__rep_t *delta, *committed;
      const svn_fs_fs__id_t *root_id;
      svn_fs_fs__noderev_t *r1_root;
      svn_stream_t *stream;
      svn_stringbuf_t *text;
      const char *want;

      assert_string_equal(rep_text(fs, plain), "plain\n");
      check(svn_fs_fs__rep_contents_stream(&stream, fs, plain, pool));
      check(svn_stringbuf_from_stream(&text, stream, 0, pool));
      assert_string_equal(text->data, "plain\n");

      /* a delta against r1's root listing, read back through the chain */
      check(svn_fs_fs__rev_root_id(&root_id, fs, 1, pool, pool));
      check(svn_fs_fs__get_noderev(&r1_root, fs, root_id, pool, pool));
      committed = r1_root->data_rep;
      want = apr_pstrcat(pool, rep_text(fs, committed), "more\n",
                         SVN_VA_NULL);
      base.revision = committed->revision;
      base.item_index = committed->item_index;
      base.size = committed->size;
      check(svn_fs_fs__rep_contents_stream(&base.fulltext, fs, committed,
                                           pool));
      svn_fs_fs__rep_write_options_init(&options, SVN_FS_FS__DATA(fs));
      check(svn_fs_fs__protorev_open(&p, fs, &id, pool, pool));
      check(svn_fs_fs__protorev_write_rep(&delta, p,
                                          svn_stream_from_string(
                                            svn_string_create(want, pool),
                                            pool),
                                          &base, &options,
                                          SVN_FS_FS__ITEM_TYPE_FILE_REP,
                                          pool, pool));
      check(svn_fs_fs__protorev_close(p));
      assert_string_equal(rep_text(fs, delta), want);
      /* twice: nothing of a txn rep may have been cached */
      assert_string_equal(rep_text(fs, delta), want);
      (void)base_root;
      check(svn_fs_fs__txn_purge(fs, &id, pool));
    }
}

/* rep_read.c guards on a hand-made format 6 repository whose r1 holds
   BYTES: REP (r1 at offset 0, SIZE) must fail as corrupt citing RULE. */
static void
expect_rep_corrupt(const char *bytes, apr_size_t len, svn_filesize_t size,
                   const char *rule, const char *message)
{
  const char *db = svn_dirent_join(tmpdir, "hand/db", pool);
  svn_fs_t *fs = apr_pcalloc(pool, sizeof(*fs));
  svn_fs_fs__data_t *ffd = apr_pcalloc(pool, sizeof(*ffd));
  svn_fs_fs__rep_t rep = { 0 };
  svn_stringbuf_t *text;
  svn_error_t *err;

  check(svn_io_remove_dir2(db, TRUE, NULL, NULL, pool));
  check(svn_io_make_dir_recursively(svn_dirent_join(db, "revs/0", pool),
                                    pool));
  check(svn_io_file_create(svn_dirent_join(db, "format", pool),
                           "6\nlayout sharded 1000\n", pool));
  check(svn_io_file_create(svn_dirent_join(db, "current", pool), "1\n",
                           pool));
  check(svn_io_file_create(svn_dirent_join(db, "min-unpacked-rev", pool),
                           "0\n", pool));
  check(svn_io_file_create_bytes(svn_dirent_join(db, "revs/0/1", pool),
                                 bytes, len, pool));
  fs->pool = pool;
  fs->path = (char *)db;
  fs->fsap_data = ffd;
  ffd->format = 6;
  ffd->max_files_per_dir = 1000;
  ffd->youngest_rev_cache = 1;
  svn_fs_fs__fsconf_defaults(ffd);
  rep.revision = 1;
  rep.size = size;
  err = svn_fs_fs__rep_contents(&text, fs, &rep, TRUE, pool, pool);
  assert_non_null(err);
  assert_non_null(strstr(svn_error_root_cause(err)->message, message));
  expect_corrupt(err, rule);
}

static void
test_rep_read_guards(void **state)
{
  /* items 0 -> 24 -> 48 -> 0 of r1: a cycle inside one revision, caught
     at its first link (a base must be an earlier item), not after 4096
     links (which would name the link from 24 to 48) */
  static const char cycle[] = "DELTA 1 24 4\nSVN\0ENDREP\n"
                              "DELTA 1 48 4\nSVN\0ENDREP\n"
                              "DELTA 1 0 4\nSVN\0ENDREP\n";
  static const char plain[] = "PLAIN\nabcENDREP\n";

  expect_rep_corrupt(cycle, sizeof(cycle) - 1, 4, "REP-6",
                     "Delta base r1 item 24 cannot");
  /* a size that would overflow when the trailer is added */
  expect_rep_corrupt(plain, sizeof(plain) - 1, APR_INT64_MAX - 3, "REP-3",
                     "impossible");
  expect_rep_corrupt(plain, sizeof(plain) - 1, APR_INT64_MAX, "REP-3",
                     "impossible");
}

/* Run the stock helper; its first output line. */
static const char *
helper(const char *args)
{
  const char *top = getenv("top_builddir");
  svn_stringbuf_t *out = stock(apr_psprintf(pool, "%s/tests/unit/"
                                            "txn_stock_helper %s",
                                            top ? top : ".", args),
                               pool);
  svn_stringbuf_strip_whitespace(out);
  return out->data;
}

/* A transaction begun by the stock module is read and continued by us,
   then committed by the stock module and verified by it. */
static void
test_stock_txn(void **state)
{
  int r;

  for (r = 0; r < 3; r++)
    {
      svn_fs_t *fs = repos[r].fs;
      const char *name = helper(apr_psprintf(pool, "make %s/db",
                                             repos[r].name));
      svn_fs_fs__txn_id_t id;
      apr_hash_t *changes, *props;
      svn_fs_fs__change_t *c;
      svn_fs_fs__rep_t *rep;
      svn_fs_fs__id_part_t part;
      unsigned char sha1[APR_SHA1_DIGESTSIZE];
      svn_stringbuf_t *s;
      const char *rev;

      check(svn_fs_fs__txn_name_parse(&id, name));
      check(svn_fs_fs__txn_changes(&changes, fs, &id, pool, pool));
      assert_int_equal(apr_hash_count(changes), 5);
      c = svn_hash_gets(changes, "/d/f");
      assert_true(c->change_kind == svn_fs_path_change_add && c->text_mod
                  && c->prop_mod);
      c = svn_hash_gets(changes, "/b");
      assert_int_equal(c->change_kind, svn_fs_path_change_delete);
      c = svn_hash_gets(changes, "/acopy");
      assert_string_equal(c->copyfrom_path, "/a");
      check(svn_fs_fs__txn_get_props(&props, fs, &id, FALSE, pool, pool));
      assert_string_equal(((svn_string_t *)svn_hash_gets(props,
                                                         "svn:log"))->data,
                          "msg");
      {
        svn_checksum_t *sum;
        check(svn_checksum(&sum, svn_checksum_sha1, "hello world\n", 12,
                           pool));
        memcpy(sha1, sum->digest, sizeof(sha1));
      }
      check(svn_fs_fs__txn_sha1_rep_get(&rep, fs, &id, sha1, pool, pool));
      assert_non_null(rep);
      assert_true(rep->in_txn);
      assert_string_equal(rep_text(fs, rep), "hello world\n");
      check(svn_fs_fs__txn_new_node_id(&part, fs, &id, pool));
      assert_int_equal(part.number, 8);

      /* continue it: one more file, its rep appended after stock's */
      rep = add_file(&repos[r], &id, "new", "ours\n");
      if (repos[r].format >= 7)
        assert_int_equal(rep->item_index, 4);
      s = stock(apr_psprintf(pool, "svnlook cat -t %s %s /new", name,
                             repos[r].name), pool);
      assert_string_equal(s->data, "ours\n");

      rev = helper(apr_psprintf(pool, "commit %s/db %s", repos[r].name,
                                name));
      assert_string_equal(rev, "2");
      s = stock(apr_psprintf(pool, "svnadmin verify -q %s 2>&1 && echo ok",
                             repos[r].name), pool);
      assert_string_equal(s->data, "ok\n");
      s = stock(apr_psprintf(pool, "svnlook cat %s /new", repos[r].name),
                pool);
      assert_string_equal(s->data, "ours\n");
    }
}

/* Names in directory DIR: *SPARES gets the count of "spare.<n>" files,
   the return value the count of all other entries. */
static int
count_entries(int *spares, const char *dir)
{
  apr_hash_t *dirents;
  apr_hash_index_t *hi;
  int others = 0;

  *spares = 0;
  check(svn_io_get_dirents3(&dirents, dir, TRUE, pool, pool));
  for (hi = apr_hash_first(pool, dirents); hi; hi = apr_hash_next(hi))
    if (strncmp(apr_hash_this_key(hi), "spare.", 6) == 0)
      (*spares)++;
    else
      others++;
  return others;
}

/* A purged transaction's directory is kept as "<txn>.spare" holding only
   spare files (its own files and the rev-lock), invisible to lstxns; the
   next transaction takes it over, its files are correct (stale bytes
   cut), db/txn-current was replaced through a spare, and the stock
   module reads, continues, commits and verifies that transaction. */
static void
test_spare_recycling(void **state)
{
  int r;

  for (r = 0; r < 3; r++)
    {
      svn_fs_t *fs = repos[r].fs;
      svn_fs_fs__txn_id_t id = new_txn(&repos[r]), id2;
      const char *txns = svn_fs_fs__path_db(fs, "transactions", pool);
      const char *spare_dir, *name2, *rev;
      apr_array_header_t *names;
      svn_stringbuf_t *s;
      svn_node_kind_t kind;
      int spares, before_spares, before_others;

      add_file(&repos[r], &id, "old", "some old text that is long\n");
      before_others = count_entries(&before_spares,
                                    svn_fs_fs__txn_path(fs, &id, NULL,
                                                        pool));
      assert_true(before_others >= 7);
      check(svn_fs_fs__txn_purge(fs, &id, pool));
      expect_code(svn_fs_fs__txn_check_exists(fs, &id, pool),
                  SVN_ERR_FS_NO_SUCH_TRANSACTION);
      spare_dir = svn_dirent_join(txns, apr_pstrcat(
                    pool, svn_fs_fs__txn_name(&id, pool), ".spare",
                    SVN_VA_NULL), pool);
      assert_int_equal(count_entries(&spares, spare_dir), 0);
      assert_int_equal(spares, before_spares + before_others + 1);
      check(svn_io_check_path(svn_fs_fs__txn_protorev_lock_path(fs, &id,
                                                                pool),
                              &kind, pool));
      assert_int_equal(kind, svn_node_none);
      check(svn_fs_fs__txn_list(&names, fs, pool, pool));
      assert_int_equal(names->nelts, 0);
      s = stock(apr_psprintf(pool, "svnadmin lstxns %s", repos[r].name),
                pool);
      assert_string_equal(s->data, "");

      /* the next transaction takes the directory over */
      id2 = new_txn(&repos[r]);
      name2 = svn_fs_fs__txn_name(&id2, pool);
      check(svn_io_check_path(spare_dir, &kind, pool));
      assert_int_equal(kind, svn_node_none);
      check(svn_stringbuf_from_file2(&s, svn_fs_fs__path_db(fs, "txn-current",
                                                            pool), pool));
      {
        char want[SVN_INT64_BUFFER_SIZE];
        apr_size_t n = svn__ui64tobase36(want, id2.number + 1);
        want[n++] = '\n';
        assert_bytes(s, want, n);
      }
      assert_bytes(txn_file(fs, &id2, "next-ids"), "0 0\n", 4);
      assert_bytes(txn_file(fs, &id2, "changes"), "", 0);
      assert_null(txn_file(fs, &id2, "itemidx"));
      assert_null(txn_file(fs, &id2, "index.l2p"));
      check(svn_stringbuf_from_file2(&s, svn_fs_fs__txn_protorev_path(
                                           fs, &id2, pool), pool));
      assert_int_equal(s->len, 0);
      assert_non_null(strstr(txn_file(fs, &id2, "node.0.0")->data,
                             apr_psprintf(pool, "id: 0.0.t%s\n", name2)));
      /* spares are taken for new files (fewer spares afterwards) */
      count_entries(&spares, svn_fs_fs__txn_path(fs, &id2, NULL, pool));
      add_file(&repos[r], &id2, "recycled", "ours\n");
      assert_int_equal(count_entries(&before_spares,
                                     svn_fs_fs__txn_path(fs, &id2, NULL,
                                                         pool)),
                       before_others);
      assert_true(before_spares < spares);
      s = stock(apr_psprintf(pool, "svnlook cat -t %s %s /recycled", name2,
                             repos[r].name), pool);
      assert_string_equal(s->data, "ours\n");
      s = stock(apr_psprintf(pool, "svnlook changed -t %s %s", name2,
                             repos[r].name), pool);
      assert_string_equal(s->data, "A   recycled\n");
      rev = helper(apr_psprintf(pool, "commit %s/db %s", repos[r].name,
                                name2));
      assert_true(atoi(rev) > 1);
      s = stock(apr_psprintf(pool, "svnadmin verify -q %s 2>&1 && echo ok",
                             repos[r].name), pool);
      assert_string_equal(s->data, "ok\n");
      s = stock(apr_psprintf(pool, "svnlook cat %s /recycled", repos[r].name),
                pool);
      assert_string_equal(s->data, "ours\n");
    }
}

/* "<txn>.spare" directories in transactions directory TXNS. */
static int
count_spare_dirs(const char *txns)
{
  apr_hash_t *dirents;
  apr_hash_index_t *hi;
  int n = 0;

  check(svn_io_get_dirents3(&dirents, txns, TRUE, pool, pool));
  for (hi = apr_hash_first(pool, dirents); hi; hi = apr_hash_next(hi))
    {
      const char *name = apr_hash_this_key(hi);
      size_t len = strlen(name);

      if (len > 6 && strcmp(name + len - 6, ".spare") == 0)
        n++;
    }
  return n;
}

/* TXN-14's policy: an svn_fs_t's first finished transaction leaves no
   spare (a server session with one commit leaves the repository as
   stock would); later ones do; closing the last svn_fs_t that made
   spares removes them, while the process goes on. */
static void
test_spare_policy(void **state)
{
  apr_pool_t *fs_pool = svn_pool_create(pool);
  svn_fs_t *fs = apr_pcalloc(fs_pool, sizeof(*fs));
  repo_t session = repos[1];
  const char *txns;
  svn_fs_fs__txn_id_t id;

  /* A repository of its own: no other svn_fs_t here made spares. */
  const char *cmd = apr_psprintf(pool, "cd %s && env -u LD_LIBRARY_PATH "
                                 "svnadmin create policy && env -u "
                                 "LD_LIBRARY_PATH svn mkdir -q -m m "
                                 "file://%s/policy/a", tmpdir, tmpdir);

  assert_int_equal(system(cmd), 0);
  fs->pool = fs_pool;
  fs->config = apr_hash_make(fs_pool);
  fs->path = (char *)svn_dirent_join_many(fs_pool, tmpdir, "policy", "db",
                                          SVN_VA_NULL);
  check(svn_fs_fs__open_repo(fs, fs->path, fs_pool));
  session.fs = fs;
  txns = svn_fs_fs__path_db(fs, "transactions", pool);
  assert_int_equal(count_spare_dirs(txns), 0);

  id = new_txn(&session);
  check(svn_fs_fs__txn_purge(fs, &id, pool));
  assert_int_equal(count_spare_dirs(txns), 0);
  id = new_txn(&session);
  check(svn_fs_fs__txn_purge(fs, &id, pool));
  assert_int_equal(count_spare_dirs(txns), 1);

  svn_pool_destroy(fs_pool);
  assert_int_equal(count_spare_dirs(txns), 0);
}

/* The same transaction begun through the stock module and through ours
   is byte-identical; each module commits the other's and the revisions
   are byte-identical and verify (tests/unit/txn_store_module.sh).  Needs
   the whole write path of the built module; skipped without it. */
static void
test_module_bytes(void **state)
{
  const char *top = getenv("top_builddir"), *src = getenv("top_srcdir");
  svn_node_kind_t kind;
  svn_stringbuf_t *out;

  top = top ? top : ".";
  check(svn_io_check_path(apr_pstrcat(pool, top, "/subversion/libsvn_fs_fs/"
                                      ".libs/libsvn_fs_fs-1.so.1",
                                      SVN_VA_NULL), &kind, pool));
  if (kind != svn_node_file)
    skip();
  out = stock(apr_psprintf(pool, "sh %s/tests/unit/txn_store_module.sh "
                           "%s %s 2>&1", src ? src : top, tmpdir, top),
              pool);
  if (strcmp(out->data, "ok\n") != 0)
    fprintf(stderr, "%s", out->data);
  assert_string_equal(out->data, "ok\n");
}

/* ------------------------------------------------------------------ */
/* Setup                                                                */

static int
setup(void **state)
{
  int r;
  char tmpl[] = "/tmp/fsfs7-test-txn-store-XXXXXX";

  if (!mkdtemp(tmpl))
    return -1;
  tmpdir = apr_pstrdup(pool, tmpl);
  for (r = 0; r < 3; r++)
    {
      svn_fs_t *fs = apr_pcalloc(pool, sizeof(*fs));
      const char *cmd = apr_psprintf(pool,
        "cd %s && env -u LD_LIBRARY_PATH svnadmin create %s %s && "
        "env -u LD_LIBRARY_PATH svn mkdir -q -m m file://%s/%s/a "
        "file://%s/%s/b", tmpdir, repos[r].create_opts, repos[r].name,
        tmpdir, repos[r].name, tmpdir, repos[r].name);

      if (system(cmd) != 0)
        return -1;
      fs->pool = pool;
      fs->config = apr_hash_make(pool);
      fs->path = (char *)svn_dirent_join_many(pool, tmpdir, repos[r].name,
                                              "db", SVN_VA_NULL);
      check(svn_fs_fs__open_repo(fs, fs->path, pool));
      repos[r].fs = fs;
    }
  return 0;
}

static int
teardown(void **state)
{
  if (tmpdir)
    svn_error_clear(svn_io_remove_dir2(tmpdir, TRUE, NULL, NULL, pool));
  return 0;
}

int
main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_names),
    cmocka_unit_test(test_small_parsers),
    cmocka_unit_test(test_fold),
    cmocka_unit_test(test_fold_delete_replacement),
    cmocka_unit_test(test_vectors),
    cmocka_unit_test_setup_teardown(test_create_purge, setup, NULL),
    cmocka_unit_test(test_props_ids),
    cmocka_unit_test(test_nodes_and_stock_reads),
    cmocka_unit_test(test_changes_in_chunks),
    cmocka_unit_test(test_protorev),
    cmocka_unit_test(test_txn_rep_read),
    cmocka_unit_test(test_rep_read_guards),
    cmocka_unit_test(test_stock_txn),
    cmocka_unit_test(test_spare_recycling),
    cmocka_unit_test(test_spare_policy),
    cmocka_unit_test_setup_teardown(test_module_bytes, NULL, teardown),
  };

  if (system("env -u LD_LIBRARY_PATH svnadmin --version >/dev/null 2>&1"))
    return 77;
  return RUN_TESTS_WITH_POOL(tests, pool);
}
