/* test_node.c --- component test of node.c on repositories written by the
 * stock module (made by tests/unit/node_repos.sh): the whole tree of every
 * revision, walked through svn_fs_fs__rev_root_id / get_noderev /
 * dir_entries, must print exactly like stock `svnlook tree --show-ids`;
 * changed-path lists must come out the same whole and in blocks; with and
 * without caches.  Exits 77 (skip) when svn/svnadmin are missing. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <apr_general.h>
#include "svn_dirent_uri.h"
#include "svn_hash.h"
#include "svn_io.h"
#include "svn_pools.h"

#include "id.h"
#include "node.h"
#include "repo.h"
#include "test_util.h"

#define YOUNGEST 8

typedef struct repo_t
{
  const char *name;
  svn_fs_t *fs;
  svn_cache__t *saved[5];   /* the nodes caches, to switch them off/on */
} repo_t;

static apr_pool_t *pool;
static const char *tmpdir;
static repo_t repos[2] = { { "f6" }, { "f8" } };

static void
check(svn_error_t *err)
{
  if (err)
    {
      svn_handle_error2(err, stderr, FALSE, "test_node: ");
      fail();
    }
}

static svn_cache__t **
cache_slot(svn_fs_t *fs, int i)
{
  svn_fs_fs__data_t *ffd = SVN_FS_FS__DATA(fs);
  svn_cache__t **slots[] = { &ffd->rev_root_id_cache,
                             &ffd->node_revision_cache, &ffd->dir_cache,
                             &ffd->properties_cache, &ffd->changes_cache };
  return slots[i];
}

static void
set_caching(svn_boolean_t on)
{
  int r, i;

  for (r = 0; r < 2; r++)
    for (i = 0; i < 5; i++)
      *cache_slot(repos[r].fs, i) = on ? repos[r].saved[i] : NULL;
}

/* Output of stock `svnlook ARGS` on REPO. */
static svn_stringbuf_t *
stock_svnlook(const repo_t *repo, const char *args, apr_pool_t *p)
{
  svn_stringbuf_t *out = svn_stringbuf_create_empty(p);
  const char *cmd = apr_psprintf(p, "env -u LD_LIBRARY_PATH svnlook %s "
                                 "%s/%s", args, tmpdir, repo->name);
  FILE *f = popen(cmd, "r");
  char buf[4096];
  size_t n;

  assert_non_null(f);
  while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
    svn_stringbuf_appendbytes(out, buf, n);
  assert_int_equal(pclose(f), 0);
  return out;
}

/* Print the subtree at NODEREV like `svnlook tree --show-ids`. */
static void
print_tree(svn_stringbuf_t *out, svn_fs_t *fs, const svn_fs_fs__id_t *id,
           const char *name, int depth, apr_pool_t *p)
{
  svn_fs_fs__noderev_t *nr;
  apr_array_header_t *entries;
  int i;

  check(svn_fs_fs__get_noderev(&nr, fs, id, p, p));
  assert_true(svn_fs_fs__id_eq(nr->id, id));
  for (i = 0; i < depth; i++)
    svn_stringbuf_appendbyte(out, ' ');
  svn_stringbuf_appendcstr(out, name);
  if (nr->kind == svn_node_dir && depth > 0)
    svn_stringbuf_appendbyte(out, '/');
  svn_stringbuf_appendcstr(out, apr_psprintf(p, " <%s>\n",
                                             svn_fs_fs__id_unparse(id,
                                                                   p)->data));
  if (nr->kind != svn_node_dir)
    return;
  check(svn_fs_fs__dir_entries(&entries, fs, nr, p, p));
  for (i = 0; i < entries->nelts; i++)
    {
      const svn_fs_dirent_t *d = APR_ARRAY_IDX(entries, i, svn_fs_dirent_t *);
      svn_fs_dirent_t *again;

      /* The single-entry lookup must agree with the listing. */
      check(svn_fs_fs__dir_entry(&again, fs, nr, d->name, p, p));
      assert_non_null(again);
      assert_true(svn_fs_fs__id_eq(SVN_FS_FS__ID(again->id),
                                   SVN_FS_FS__ID(d->id)));
      assert_int_equal(again->kind, d->kind);
      print_tree(out, fs, SVN_FS_FS__ID(d->id), d->name, depth + 1, p);
    }
  {
    svn_fs_dirent_t *none;
    check(svn_fs_fs__dir_entry(&none, fs, nr, "no such entry", p, p));
    assert_null(none);
  }
}

static void
test_caches_created(void **state)
{
  int r, i;

  /* Otherwise the cached passes below would test nothing. */
  for (r = 0; r < 2; r++)
    for (i = 0; i < 5; i++)
      assert_non_null(repos[r].saved[i]);
}

static void
test_trees_match_svnlook(void **state)
{
  int r, pass;
  svn_revnum_t rev;

  /* Pass 0 fills the caches, pass 1 reads from them, pass 2 goes to disk. */
  for (pass = 0; pass < 3; pass++)
    {
      set_caching(pass < 2);
      for (r = 0; r < 2; r++)
        for (rev = 0; rev <= YOUNGEST; rev++)
          {
            apr_pool_t *p = svn_pool_create(pool);
            svn_stringbuf_t *ours = svn_stringbuf_create_empty(p);
            const svn_fs_fs__id_t *root;
            svn_stringbuf_t *stock;

            check(svn_fs_fs__rev_root_id(&root, repos[r].fs, rev, p, p));
            print_tree(ours, repos[r].fs, root, "/", 0, p);
            stock = stock_svnlook(&repos[r],
                                  apr_psprintf(p, "tree --show-ids -r %ld",
                                               rev), p);
            if (strcmp(ours->data, stock->data) != 0)
              fail_msg("%s r%ld (pass %d): tree differs:\n%s\n---\n%s",
                       repos[r].name, rev, pass, ours->data, stock->data);
            svn_pool_destroy(p);
          }
    }
  set_caching(TRUE);
}

/* "<path> <kind> <id> <copyfrom>" of CHANGE. */
static const char *
change_text(const svn_fs_fs__change_t *c, apr_pool_t *p)
{
  return apr_psprintf(p, "%s %d %d %s %ld %s", c->path.data, c->change_kind,
                      c->node_kind,
                      svn_fs_fs__id_unparse(c->noderev_id, p)->data,
                      c->copyfrom_rev,
                      c->copyfrom_path ? c->copyfrom_path : "-");
}

/* Walk REV's list in blocks of STEP; must equal ALL. */
static void
check_blocks(svn_fs_t *fs, svn_revnum_t rev, apr_size_t step,
             const apr_array_header_t *all, apr_pool_t *p)
{
  apr_size_t first = 0;
  svn_boolean_t done = FALSE;

  while (!done)
    {
      apr_array_header_t *block;
      int i;

      check(svn_fs_fs__rev_changes_block(&block, &done, fs, rev, first, step,
                                         p, p));
      assert_true((apr_size_t)block->nelts <= step);
      for (i = 0; i < block->nelts; i++)
        assert_string_equal(
          change_text(APR_ARRAY_IDX(block, i, svn_fs_fs__change_t *), p),
          change_text(APR_ARRAY_IDX(all, first + i, svn_fs_fs__change_t *),
                      p));
      first += block->nelts;
      /* DONE exactly when the list is exhausted. */
      assert_int_equal(done, first == (apr_size_t)all->nelts);
      if (!done)
        assert_int_equal(block->nelts, step);
    }
}

static void
test_changes(void **state)
{
  int r, pass;
  svn_revnum_t rev;
  static const apr_size_t steps[] = { 1, 100, 255, 256, 257, 1000 };
  /* Entries per revision as node_repos.sh commits them (a replacement is
     one entry; r7 adds a directory and its 600 files; r8 modifies, copies,
     adds and deletes one path each). */
  static const int expected_counts[YOUNGEST + 1] = { 0, 6, 1, 1, 2, 1, 1,
                                                     601, 4 };

  for (pass = 0; pass < 3; pass++)
    {
      set_caching(pass < 2);
      for (r = 0; r < 2; r++)
        for (rev = 0; rev <= YOUNGEST; rev++)
          {
            apr_pool_t *p = svn_pool_create(pool);
            apr_array_header_t *all;
            size_t i;

            check(svn_fs_fs__rev_changes(&all, repos[r].fs, rev, p, p));
            assert_int_equal(all->nelts, expected_counts[rev]);
            for (i = 0; i < sizeof(steps) / sizeof(steps[0]); i++)
              check_blocks(repos[r].fs, rev, steps[i], all, p);
            svn_pool_destroy(p);
          }
    }
  set_caching(TRUE);
}

/* Node-rev at PATH in REV, walking with dir_entry. */
static svn_fs_fs__noderev_t *
lookup(svn_fs_t *fs, svn_revnum_t rev, const char *path, apr_pool_t *p)
{
  const svn_fs_fs__id_t *id;
  svn_fs_fs__noderev_t *nr;
  char *rest = apr_pstrdup(p, path), *name, *last;

  check(svn_fs_fs__rev_root_id(&id, fs, rev, p, p));
  check(svn_fs_fs__get_noderev(&nr, fs, id, p, p));
  for (name = apr_strtok(rest, "/", &last); name;
       name = apr_strtok(NULL, "/", &last))
    {
      svn_fs_dirent_t *d;
      check(svn_fs_fs__dir_entry(&d, fs, nr, name, p, p));
      assert_non_null(d);
      check(svn_fs_fs__get_noderev(&nr, fs, SVN_FS_FS__ID(d->id), p, p));
    }
  return nr;
}

static void
test_props(void **state)
{
  int r, pass;

  for (pass = 0; pass < 3; pass++)
    {
      set_caching(pass < 2);
      for (r = 0; r < 2; r++)
        {
          svn_fs_t *fs = repos[r].fs;
          apr_hash_t *props;
          svn_string_t *v;

          check(svn_fs_fs__node_proplist(&props, fs,
                                         lookup(fs, 1, "trunk/a.txt", pool),
                                         pool, pool));
          assert_int_equal(apr_hash_count(props), 1);
          v = svn_hash_gets(props, "myprop");
          assert_non_null(v);
          assert_string_equal(v->data, "val");
          check(svn_fs_fs__node_proplist(&props, fs,
                                         lookup(fs, 4, "trunk", pool),
                                         pool, pool));
          v = svn_hash_gets(props, "svn:mergeinfo");
          assert_non_null(v);
          assert_string_equal(v->data, "/branches/br1:2-3");
          check(svn_fs_fs__node_proplist(&props, fs, lookup(fs, 7, "", pool),
                                         pool, pool));
          assert_int_equal(apr_hash_count(props), 0);
        }
    }
  set_caching(TRUE);
}

static void
test_noderev_fields(void **state)
{
  int r;

  for (r = 0; r < 2; r++)
    {
      svn_fs_t *fs = repos[r].fs;
      svn_fs_fs__noderev_t *nr = lookup(fs, 6, "trunk/a.txt", pool);

      assert_int_equal(nr->copyfrom_rev, 3);
      assert_string_equal(nr->copyfrom_path, "/branches/br1/a.txt");
      assert_int_equal(nr->copyroot_rev, 6);
      assert_string_equal(nr->copyroot_path, "/trunk/a.txt");
      nr = lookup(fs, 3, "branches/br1/a.txt", pool);
      assert_int_equal(nr->copyroot_rev, 2);
      assert_string_equal(nr->copyroot_path, "/branches/br1");
      nr = lookup(fs, 4, "trunk", pool);
      assert_true(nr->has_mergeinfo);
      assert_int_equal(nr->mergeinfo_count, 1);
      nr = lookup(fs, 7, "", pool);
      assert_int_equal(nr->predecessor_count, 7);
      assert_int_equal(nr->mergeinfo_count, 1);
    }
}

/* Transaction node-revs: the copy of r8's transaction that node_repos.sh
   left in db/transactions/ must print like `svnlook tree -t`. */
static void
test_txn_nodes(void **state)
{
  int r;

  for (r = 0; r < 2; r++)
    {
      svn_fs_t *fs = repos[r].fs;
      svn_stringbuf_t *name, *ours = svn_stringbuf_create_empty(pool);
      svn_stringbuf_t *stock;
      const char *root_text;
      svn_fs_fs__id_t *root;
      svn_fs_fs__noderev_t *nr;
      apr_array_header_t *entries;
      svn_fs_dirent_t *d;
      apr_hash_t *props;

      check(svn_stringbuf_from_file2(&name,
                                     apr_psprintf(pool, "%s/txn-%s.name",
                                                  tmpdir, repos[r].name),
                                     pool));
      svn_stringbuf_strip_whitespace(name);
      root_text = apr_pstrcat(pool, "0.0.t", name->data, SVN_VA_NULL);
      root = svn_fs_fs__id_parse(root_text, strlen(root_text), pool);
      assert_non_null(root);
      print_tree(ours, fs, root, "/", 0, pool);
      stock = stock_svnlook(&repos[r], apr_psprintf(pool, "tree -t %s "
                                                    "--show-ids", name->data),
                            pool);
      assert_string_equal(ours->data, stock->data);

      /* A directory added in the txn, with properties in a side file. */
      check(svn_fs_fs__get_noderev(&nr, fs, root, pool, pool));
      check(svn_fs_fs__dir_entry(&d, fs, nr, "trunk", pool, pool));
      check(svn_fs_fs__get_noderev(&nr, fs, SVN_FS_FS__ID(d->id), pool,
                                   pool));
      check(svn_fs_fs__dir_entry(&d, fs, nr, "d", pool, pool));
      check(svn_fs_fs__get_noderev(&nr, fs, SVN_FS_FS__ID(d->id), pool,
                                   pool));
      assert_non_null(nr->prop_rep);
      assert_true(nr->prop_rep->in_txn);
      check(svn_fs_fs__node_proplist(&props, fs, nr, pool, pool));
      assert_int_equal(apr_hash_count(props), 1);
      assert_string_equal(((svn_string_t *)svn_hash_gets(props, "p"))->data,
                          "v");
      check(svn_fs_fs__dir_entries(&entries, fs, nr, pool, pool));
      assert_int_equal(entries->nelts, 0);
    }
}

static void
test_errors(void **state)
{
  int r;

  for (r = 0; r < 2; r++)
    {
      svn_fs_t *fs = repos[r].fs;
      const svn_fs_fs__id_t *root;
      svn_fs_fs__noderev_t *nr;
      svn_fs_fs__id_t *bad;
      svn_error_t *err;

      err = svn_fs_fs__rev_root_id(&root, fs, YOUNGEST + 1, pool, pool);
      assert_non_null(err);
      assert_int_equal(err->apr_err, SVN_ERR_FS_NO_SUCH_REVISION);
      svn_error_clear(err);

      /* An ID whose location holds another record (or none). */
      check(svn_fs_fs__rev_root_id(&root, fs, 1, pool, pool));
      bad = svn_fs_fs__id_copy(root, pool);
      bad->rev_item.number = r == 0 ? 1 : 3;
      err = svn_fs_fs__get_noderev(&nr, fs, bad, pool, pool);
      assert_non_null(err);
      assert_true(err->apr_err == SVN_ERR_FS_CORRUPT
                  || err->apr_err == SVN_ERR_FS_INDEX_CORRUPTION);
      svn_error_clear(err);
    }
}

/* CHANGES-7: a format 6 revision whose trailer points its changes one
   byte early, at the empty line that ends the node-rev before the list,
   is corrupt -- not a revision without changes. */
static void
test_changes_end_at_trailer(void **state)
{
  const char *dir = svn_dirent_join(tmpdir, "f6-trailer", pool);
  const char *rev_path = svn_dirent_join(dir, "db/revs/0/8", pool);
  svn_fs_t *fs = apr_pcalloc(pool, sizeof(*fs));
  svn_stringbuf_t *data;
  apr_array_header_t *changes;
  const char *line;
  long root, list;
  apr_size_t line_start;
  svn_error_t *err;

  check(svn_io_copy_dir_recursively(svn_dirent_join(tmpdir, "f6", pool),
                                    tmpdir, "f6-trailer", TRUE, NULL, NULL,
                                    pool));
  check(svn_stringbuf_from_file2(&data, rev_path, pool));
  line_start = data->len - 1;
  while (line_start > 0 && data->data[line_start - 1] != '\n')
    line_start--;
  line = data->data + line_start;
  assert_int_equal(sscanf(line, "%ld %ld", &root, &list), 2);
  /* The list is preceded by an empty line, ending a node-rev. */
  assert_true(list >= 2 && data->data[list - 1] == '\n'
              && data->data[list - 2] == '\n');
  svn_stringbuf_chop(data, data->len - line_start);
  svn_stringbuf_appendcstr(data, apr_psprintf(pool, "%ld %ld\n", root,
                                              list - 1));
  check(svn_io_remove_file2(rev_path, FALSE, pool));
  check(svn_io_file_create_bytes(rev_path, data->data, data->len, pool));

  fs->pool = pool;
  fs->config = apr_hash_make(pool);
  fs->path = (char *)svn_dirent_join(dir, "db", pool);
  check(svn_fs_fs__open_repo(fs, fs->path, pool));
  err = svn_fs_fs__rev_changes(&changes, fs, 8, pool, pool);
  /* The message names the list (formatted only for the error). */
  assert_non_null(err);
  assert_non_null(strstr(err->message, "r8 changed-path list"));
  vector_check_error(err, SVN_ERR_FS_CORRUPT, "CHANGES-7",
                     "changes offset one byte early");
  /* The undamaged revisions before it still read. */
  check(svn_fs_fs__rev_changes(&changes, fs, 7, pool, pool));
  assert_true(changes->nelts > 0);
}

static int
setup(void **state)
{
  int r, i;

  tmpdir = make_node_repos("fsfs7-test-node-", pool);
  if (!tmpdir)
    return -1;
  for (r = 0; r < 2; r++)
    {
      svn_fs_t *fs = apr_pcalloc(pool, sizeof(*fs));
      fs->pool = pool;
      fs->config = apr_hash_make(pool);
      fs->path = (char *)svn_dirent_join_many(pool, tmpdir, repos[r].name,
                                              "db", SVN_VA_NULL);
      check(svn_fs_fs__open_repo(fs, fs->path, pool));
      repos[r].fs = fs;
      for (i = 0; i < 5; i++)
        repos[r].saved[i] = *cache_slot(fs, i);
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
    cmocka_unit_test(test_caches_created),
    cmocka_unit_test(test_trees_match_svnlook),
    cmocka_unit_test(test_changes),
    cmocka_unit_test(test_props),
    cmocka_unit_test(test_noderev_fields),
    cmocka_unit_test(test_txn_nodes),
    cmocka_unit_test(test_errors),
    cmocka_unit_test(test_changes_end_at_trailer),
  };
  int rc;

  apr_initialize();
  pool = svn_pool_create(NULL);
  rc = stock_tools_status("test_node");
  if (rc != 0)
    return rc;
  rc = cmocka_run_group_tests(tests, setup, teardown);
  svn_pool_destroy(pool);
  apr_terminate();
  return rc;
}
