/* test_tree.c --- component test of the tree layer (tree.c, lookup.c,
 * history.c, mergeinfo.c, tree_verify.c) on a small repository that the
 * stock svnadmin builds at test time from a dump written here.
 * Without the stock svnadmin it fails (it is part of the build's
 * dependencies); outside CI (CI unset) it is skipped with exit 77.
 *
 * History of the test repository:
 *   r1  add /trunk, /trunk/a.txt ("hello\n", prop p=v), /trunk/d,
 *       /trunk/d/f ("x\n"), /branches
 *   r2  modify /trunk/a.txt ("hello\nmore\n")
 *   r3  copy /trunk@2 -> /branches/b
 *   r4  modify /branches/b/a.txt ("b\n"); svn:mergeinfo "/trunk:2-3" on
 *       /branches/b
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include <apr_general.h>
#include <apr_strings.h>
#include "svn_pools.h"
#include "svn_hash.h"
#include "svn_io.h"
#include "svn_dirent_uri.h"
#include "svn_mergeinfo.h"

#include "repo.h"
#include "tree.h"
#include "id.h"
#include "cache_admit.h"
#include "lookup.h"
#include "node.h"

/* node.c's counters of lookups answered from the recent listing and of
   kinds answered from the kind memo. */
extern apr_uint64_t svn_fs_fs__recent_dir_hits;
extern apr_uint64_t svn_fs_fs__kind_memo_hits;
/* lookup.c's counter of lookups answered by the process-wide cache of
   node-revs by revision and path. */
extern apr_uint64_t svn_fs_fs__shared_path_hits;

typedef struct fixture_t
{
  apr_pool_t *pool;
  const char *dir;
  svn_fs_t *fs;
  /* A second load of the same dump (own uuid, so no shared cache
     entries) whose r2 has a predecessor count changed on disk. */
  svn_fs_t *damaged_fs;
  /* A third, whose r4 has the first mergeinfo count of 1 raised to 2
     (/branches/b, or an ancestor, which sums it). */
  svn_fs_t *minfo_fs;
} fixture_t;

static fixture_t fixture;

/* ---- building the dump ------------------------------------------- */

static void
add_revision(svn_stringbuf_t *dump, int rev)
{
  svn_stringbuf_appendcstr(dump, apr_psprintf(dump->pool,
    "Revision-number: %d\nProp-content-length: 10\nContent-length: 10\n\n"
    "PROPS-END\n\n", rev));
}

/* A node record; PROPS is a serialised hash without PROPS-END or NULL,
   TEXT the file text or NULL, COPY_PATH/COPY_REV the copy source. */
static void
add_node(svn_stringbuf_t *dump, const char *path, const char *kind,
         const char *action, const char *props, const char *text,
         const char *copy_path, int copy_rev)
{
  apr_pool_t *p = dump->pool;
  const char *prop_block = props ? apr_pstrcat(p, props, "PROPS-END\n",
                                               SVN_VA_NULL) : NULL;
  apr_size_t plen = prop_block ? strlen(prop_block) : 0;
  apr_size_t tlen = text ? strlen(text) : 0;

  svn_stringbuf_appendcstr(dump, apr_psprintf(p, "Node-path: %s\n", path));
  if (kind)
    svn_stringbuf_appendcstr(dump, apr_psprintf(p, "Node-kind: %s\n", kind));
  svn_stringbuf_appendcstr(dump, apr_psprintf(p, "Node-action: %s\n",
                                              action));
  if (copy_path)
    svn_stringbuf_appendcstr(dump, apr_psprintf(p,
      "Node-copyfrom-rev: %d\nNode-copyfrom-path: %s\n", copy_rev,
      copy_path));
  if (prop_block)
    svn_stringbuf_appendcstr(dump, apr_psprintf(p,
      "Prop-content-length: %lu\n", (unsigned long)plen));
  if (text)
    svn_stringbuf_appendcstr(dump, apr_psprintf(p,
      "Text-content-length: %lu\n", (unsigned long)tlen));
  svn_stringbuf_appendcstr(dump, apr_psprintf(p, "Content-length: %lu\n\n",
                                              (unsigned long)(plen + tlen)));
  if (prop_block)
    svn_stringbuf_appendcstr(dump, prop_block);
  if (text)
    svn_stringbuf_appendcstr(dump, text);
  svn_stringbuf_appendcstr(dump, "\n\n");
}

static svn_stringbuf_t *
make_dump(apr_pool_t *pool)
{
  svn_stringbuf_t *d = svn_stringbuf_create("SVN-fs-dump-format-version: "
                                            "2\n\n", pool);
  add_revision(d, 1);
  add_node(d, "trunk", "dir", "add", "", NULL, NULL, 0);
  add_node(d, "trunk/a.txt", "file", "add", "K 1\np\nV 1\nv\n", "hello\n",
           NULL, 0);
  add_node(d, "trunk/d", "dir", "add", "", NULL, NULL, 0);
  add_node(d, "trunk/d/f", "file", "add", "", "x\n", NULL, 0);
  add_node(d, "branches", "dir", "add", "", NULL, NULL, 0);
  add_revision(d, 2);
  add_node(d, "trunk/a.txt", "file", "change", NULL, "hello\nmore\n",
           NULL, 0);
  add_revision(d, 3);
  add_node(d, "branches/b", "dir", "add", NULL, NULL, "trunk", 2);
  add_revision(d, 4);
  add_node(d, "branches/b/a.txt", "file", "change", NULL, "b\n", NULL, 0);
  add_node(d, "branches/b", "dir", "change",
           "K 13\nsvn:mergeinfo\nV 10\n/trunk:2-3\n", NULL, NULL, 0);
  /* Two copies in one revision, the second into the first's tree. */
  add_revision(d, 5);
  add_node(d, "nest", "dir", "add", NULL, NULL, "trunk", 4);
  add_node(d, "nest/d2", "dir", "add", NULL, NULL, "trunk/d", 4);
  add_node(d, "nest/d2/f", "file", "change", NULL, "y\n", NULL, 0);
  /* r1's text again: the load shares r1's rep (rep-cache). */
  add_node(d, "trunk/a.txt", "file", "change", NULL, "hello\n", NULL, 0);
  return d;
}

/* ---- fixture ------------------------------------------------------ */

static int
have_svnadmin(void)
{
  return system("svnadmin --version --quiet >/dev/null 2>&1") == 0;
}

/* The repository in directory NAME of F's scratch directory, opened
   through our internals with everything in POOL; NULL (the error
   printed) if it does not open. */
static svn_fs_t *
open_repo_in(fixture_t *f, const char *name, apr_pool_t *pool)
{
  svn_fs_t *fs = apr_pcalloc(pool, sizeof(*fs));
  svn_error_t *err;

  fs->pool = pool;
  fs->config = apr_hash_make(pool);
  fs->path = (char *)svn_dirent_join_many(pool, f->dir, name, "db",
                                          SVN_VA_NULL);
  err = svn_fs_fs__open_repo(fs, fs->path, pool);
  if (err)
    {
      svn_handle_error2(err, stderr, FALSE, "test_tree: ");
      svn_error_clear(err);
      return NULL;
    }
  return fs;
}

/* The repository NAME, opened in F's pool. */
static svn_fs_t *
open_fixture_repo(fixture_t *f, const char *name)
{
  return open_repo_in(f, name, f->pool);
}

/* Create the repository with the stock module (no LD_LIBRARY_PATH) and
   open it through our internals. */
static int
setup(void **state)
{
  fixture_t *f = &fixture;
  char tmpl[] = "/tmp/fsfs7-test-tree-XXXXXX";
  const char *dump_path, *cmd;
  svn_stringbuf_t *dump;

  f->pool = svn_pool_create(NULL);
  if (!mkdtemp(tmpl))
    return -1;
  f->dir = apr_pstrdup(f->pool, tmpl);
  dump_path = svn_dirent_join(f->dir, "dump", f->pool);
  dump = make_dump(f->pool);
  if (svn_io_file_create_bytes(dump_path, dump->data, dump->len, f->pool))
    return -1;
  cmd = apr_psprintf(f->pool, "env -u LD_LIBRARY_PATH sh -c 'svnadmin "
                     "create %s/repo && svnadmin load -q %s/repo < %s "
                     "&& svnadmin create %s/bad && svnadmin load -q %s/bad "
                     "< %s && chmod u+w %s/bad/db/revs/0/2 && sed -i "
                     "\"0,/^count: 1$/s//count: 7/\" %s/bad/db/revs/0/2 "
                     "&& svnadmin create %s/minfo && svnadmin load -q "
                     "%s/minfo < %s && chmod u+w %s/minfo/db/revs/0/4 "
                     "&& grep -q \"^minfo-cnt: 1$\" %s/minfo/db/revs/0/4 "
                     "&& sed -i \"0,/^minfo-cnt: 1$/s//minfo-cnt: 2/\" "
                     "%s/minfo/db/revs/0/4'",
                     f->dir, f->dir, dump_path, f->dir, f->dir, dump_path,
                     f->dir, f->dir, f->dir, f->dir, dump_path, f->dir,
                     f->dir, f->dir);
  if (system(cmd) != 0)
    return -1;

  /* A repository that does not open is a failure of every test, never
     a reason to skip them. */
  if (!(f->fs = open_fixture_repo(f, "repo"))
      || !(f->damaged_fs = open_fixture_repo(f, "bad"))
      || !(f->minfo_fs = open_fixture_repo(f, "minfo")))
    return -1;
  *state = f;
  return 0;
}

static int
teardown(void **state)
{
  fixture_t *f = &fixture;
  if (f->dir)
    svn_error_clear(svn_io_remove_dir2(f->dir, TRUE, NULL, NULL, f->pool));
  svn_pool_destroy(f->pool);
  return 0;
}

/* ---- helpers ------------------------------------------------------ */

static svn_fs_root_t *
root_at(svn_revnum_t rev)
{
  svn_fs_root_t *root;
  svn_error_t *err;

  err = svn_fs_fs__revision_root(&root, fixture.fs, rev, fixture.pool);
  if (err)
    svn_handle_error2(err, stderr, FALSE, "test_tree: ");
  assert_null(err);
  return root;
}

#define OK(expr) do { svn_error_t *err_ = (expr); \
    if (err_) svn_handle_error2(err_, stderr, FALSE, "test_tree: "); \
    assert_null(err_); } while (0)

#define FAILS_WITH(code, expr) do { svn_error_t *err_ = (expr); \
    assert_non_null(err_); assert_int_equal(err_->apr_err, (code)); \
    svn_error_clear(err_); } while (0)

/* ---- tests -------------------------------------------------------- */

static void
test_check_path(void **state)
{
  static const struct { const char *path; svn_node_kind_t kind; } cases[] = {
    { "/", svn_node_dir }, { "", svn_node_dir },
    { "/trunk/a.txt", svn_node_file }, { "trunk//d/", svn_node_dir },
    { "/nope", svn_node_none }, { "/trunk/a.txt/x", svn_node_none },
    { "/trunk/nope/x", svn_node_none }, { "/branches/b/d/f", svn_node_file },
    { "trunk/d/f", svn_node_file }, { "branches/b/", svn_node_dir },
    { "//trunk/a.txt", svn_node_file }, { "trunk/a.txt/", svn_node_file },
    { "trunk/./d", svn_node_none },
  };
  svn_fs_root_t *root = root_at(4);
  size_t i;

  for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
    {
      svn_node_kind_t kind;
      OK(root->vtable->check_path(&kind, root, cases[i].path, fixture.pool));
      assert_int_equal(kind, cases[i].kind);
    }
}

static void
test_errors(void **state)
{
  svn_fs_root_t *root = root_at(4), *r;
  const svn_fs_id_t *id;
  svn_filesize_t len;

  FAILS_WITH(SVN_ERR_FS_NOT_FOUND,
             root->vtable->node_id(&id, root, "/nope", fixture.pool));
  /* The canonical path in the message, however the path was given. */
  {
    svn_error_t *err = root->vtable->node_id(&id, root, "trunk//nope/",
                                             fixture.pool);
    assert_non_null(err);
    assert_non_null(strstr(err->message, "'/trunk/nope'"));
    svn_error_clear(err);
    err = root->vtable->node_id(&id, root, "trunk/nope", fixture.pool);
    assert_non_null(err);
    assert_non_null(strstr(err->message, "'/trunk/nope'"));
    svn_error_clear(err);
  }
  FAILS_WITH(SVN_ERR_FS_NOT_DIRECTORY,
             root->vtable->node_id(&id, root, "/trunk/a.txt/x",
                                   fixture.pool));
  FAILS_WITH(SVN_ERR_FS_NOT_FILE,
             root->vtable->file_length(&len, root, "/trunk", fixture.pool));
  FAILS_WITH(SVN_ERR_FS_NO_SUCH_REVISION,
             svn_fs_fs__revision_root(&r, fixture.fs, 99, fixture.pool));
  FAILS_WITH(SVN_ERR_FS_NOT_TXN_ROOT,
             root->vtable->make_dir(root, "/x", fixture.pool));
}

static void
test_node_queries(void **state)
{
  svn_fs_root_t *root = root_at(4);
  svn_revnum_t rev;
  const char *path;
  svn_fs_root_t *copy_root;
  svn_fs_node_relation_t rel;

  OK(root->vtable->node_created_rev(&rev, root, "/branches/b/d/f",
                                    fixture.pool));
  assert_int_equal(rev, 1);
  OK(root->vtable->node_created_rev(&rev, root, "/branches/b", fixture.pool));
  assert_int_equal(rev, 4);
  OK(root->vtable->node_origin_rev(&rev, root, "/branches/b/a.txt",
                                   fixture.pool));
  assert_int_equal(rev, 1);
  OK(root->vtable->node_created_path(&path, root, "/branches/b/d/f",
                                     fixture.pool));
  assert_string_equal(path, "/trunk/d/f");
  OK(root->vtable->closest_copy(&copy_root, &path, root, "/branches/b/d/f",
                                fixture.pool));
  assert_non_null(copy_root);
  assert_int_equal(copy_root->rev, 3);
  assert_string_equal(path, "/branches/b");
  OK(root->vtable->closest_copy(&copy_root, &path, root, "/trunk/d/f",
                                fixture.pool));
  assert_null(copy_root);
  OK(root->vtable->node_relation(&rel, root, "/branches/b/d/f", root,
                                 "/trunk/d/f", fixture.pool));
  assert_int_equal(rel, svn_fs_node_unchanged);
  OK(root->vtable->node_relation(&rel, root, "/branches/b/a.txt", root,
                                 "/trunk/a.txt", fixture.pool));
  assert_int_equal(rel, svn_fs_node_common_ancestor);
  OK(root->vtable->node_relation(&rel, root, "/trunk/a.txt", root,
                                 "/trunk/d/f", fixture.pool));
  assert_int_equal(rel, svn_fs_node_unrelated);

  /* Of two copies made in r5, the deeper placed /nest/d2 (fs-test 31). */
  root = root_at(5);
  OK(root->vtable->closest_copy(&copy_root, &path, root, "/nest/d2",
                                fixture.pool));
  assert_non_null(copy_root);
  assert_int_equal(copy_root->rev, 5);
  assert_string_equal(path, "/nest/d2");
  OK(root->vtable->closest_copy(&copy_root, &path, root, "/nest/d2/f",
                                fixture.pool));
  assert_non_null(copy_root);
  assert_string_equal(path, "/nest/d2");
  OK(root->vtable->closest_copy(&copy_root, &path, root, "/nest/d",
                                fixture.pool));
  assert_non_null(copy_root);
  assert_string_equal(path, "/nest");

  root = root_at(3);
  OK(root->vtable->copied_from(&rev, &path, root, "/branches/b",
                               fixture.pool));
  assert_int_equal(rev, 2);
  assert_string_equal(path, "/trunk");
}

static void
test_contents_and_props(void **state)
{
  svn_fs_root_t *root = root_at(4);
  svn_filesize_t len;
  svn_stream_t *stream;
  svn_stringbuf_t *text;
  svn_string_t *value;
  apr_hash_t *entries;
  svn_boolean_t has_props;
  int changed;

  OK(root->vtable->file_length(&len, root, "/trunk/a.txt", fixture.pool));
  assert_int_equal(len, 11);
  OK(root->vtable->file_contents(&stream, root, "/branches/b/a.txt",
                                 fixture.pool));
  OK(svn_stringbuf_from_stream(&text, stream, 0, fixture.pool));
  assert_string_equal(text->data, "b\n");
  OK(root->vtable->node_prop(&value, root, "/trunk/a.txt", "p",
                             fixture.pool));
  assert_non_null(value);
  assert_string_equal(value->data, "v");
  OK(root->vtable->node_has_props(&has_props, root, "/trunk/d/f",
                                  fixture.pool));
  assert_false(has_props);
  OK(root->vtable->dir_entries(&entries, root, "/trunk", fixture.pool));
  assert_int_equal(apr_hash_count(entries), 2);
  assert_non_null(svn_hash_gets(entries, "d"));
  OK(root->vtable->contents_changed(&changed, root, "/trunk/a.txt", root,
                                    "/branches/b/a.txt", TRUE,
                                    fixture.pool));
  assert_true(changed);
  OK(root->vtable->props_changed(&changed, root, "/trunk/a.txt", root,
                                 "/branches/b/a.txt", TRUE, fixture.pool));
  assert_false(changed);
  /* The same text under another rep instance (r5 got r1's rep by
     rep-sharing): changed for the loose test, as with stock (the update
     reporter then sends the last-changed revision), not for the strict
     one. */
  OK(root->vtable->contents_changed(&changed, root_at(1), "/trunk/a.txt",
                                    root_at(5), "/trunk/a.txt", FALSE,
                                    fixture.pool));
  assert_true(changed);
  OK(root->vtable->contents_changed(&changed, root_at(1), "/trunk/a.txt",
                                    root_at(5), "/trunk/a.txt", TRUE,
                                    fixture.pool));
  assert_false(changed);
  OK(root->vtable->contents_changed(&changed, root_at(1), "/trunk/a.txt",
                                    root_at(1), "/trunk/a.txt", FALSE,
                                    fixture.pool));
  assert_false(changed);
}

static void
test_history(void **state)
{
  static const struct { const char *path; svn_revnum_t rev; } expect[] = {
    { "/branches/b/a.txt", 4 }, { "/branches/b/a.txt", 3 },
    { "/trunk/a.txt", 2 }, { "/trunk/a.txt", 1 },
  };
  svn_fs_root_t *root = root_at(4);
  svn_fs_history_t *history;
  size_t i, n;
  int cross;

  for (cross = 0; cross < 2; cross++)
    {
      n = cross ? 4 : 2;
      OK(root->vtable->node_history(&history, root, "/branches/b/a.txt",
                                    fixture.pool, fixture.pool));
      for (i = 0; i < n; i++)
        {
          const char *path;
          svn_revnum_t rev;

          OK(history->vtable->prev(&history, history, cross, fixture.pool,
                                   fixture.pool));
          assert_non_null(history);
          OK(history->vtable->location(&path, &rev, history, fixture.pool));
          assert_string_equal(path, expect[i].path);
          assert_int_equal(rev, expect[i].rev);
        }
      OK(history->vtable->prev(&history, history, cross, fixture.pool,
                               fixture.pool));
      assert_null(history);
    }
}

static svn_error_t *
collect(const char *path, svn_mergeinfo_t mergeinfo, void *baton,
        apr_pool_t *pool)
{
  svn_stringbuf_t *out = baton;
  svn_string_t *text;

  SVN_ERR(svn_mergeinfo_to_string(&text, mergeinfo, pool));
  svn_stringbuf_appendcstr(out, apr_psprintf(pool, "%s=%s;", path,
                                             text->data));
  return SVN_NO_ERROR;
}

static void
test_mergeinfo(void **state)
{
  svn_fs_root_t *root = root_at(4);
  apr_array_header_t *paths = apr_array_make(fixture.pool, 1,
                                             sizeof(const char *));
  svn_stringbuf_t *out = svn_stringbuf_create_empty(fixture.pool);

  APR_ARRAY_PUSH(paths, const char *) = "/branches/b/d/f";
  OK(root->vtable->get_mergeinfo(root, paths, svn_mergeinfo_inherited, FALSE,
                                 TRUE, collect, out, fixture.pool));
  assert_string_equal(out->data, "/branches/b/d/f=/trunk/d/f:2-3;");
  svn_stringbuf_setempty(out);
  OK(root->vtable->get_mergeinfo(root, paths, svn_mergeinfo_explicit, FALSE,
                                 TRUE, collect, out, fixture.pool));
  assert_string_equal(out->data, "");
  APR_ARRAY_IDX(paths, 0, const char *) = "/";
  OK(root->vtable->get_mergeinfo(root, paths, svn_mergeinfo_explicit, TRUE,
                                 TRUE, collect, out, fixture.pool));
  assert_string_equal(out->data, "/branches/b=/trunk:2-3;");
}

static void
test_changes_and_verify(void **state)
{
  svn_fs_root_t *root = root_at(3);
  apr_hash_t *changes;
  svn_fs_path_change2_t *change;
  svn_revnum_t rev;

  OK(root->vtable->paths_changed(&changes, root, fixture.pool));
  assert_int_equal(apr_hash_count(changes), 1);
  change = svn_hash_gets(changes, "/branches/b");
  assert_non_null(change);
  assert_int_equal(change->change_kind, svn_fs_path_change_add);
  assert_int_equal(change->copyfrom_rev, 2);
  assert_string_equal(change->copyfrom_path, "/trunk");
  for (rev = 0; rev <= 4; rev++)
    OK(svn_fs_fs__verify_root(root_at(rev), fixture.pool));
}

static void
test_verify_damage(void **state)
{
  svn_fs_root_t *root;

  (void)root_at(0);
  OK(svn_fs_fs__revision_root(&root, fixture.damaged_fs, 1, fixture.pool));
  OK(svn_fs_fs__verify_root(root, fixture.pool));
  OK(svn_fs_fs__revision_root(&root, fixture.damaged_fs, 2, fixture.pool));
  FAILS_WITH(SVN_ERR_FS_CORRUPT,
             svn_fs_fs__verify_root(root, fixture.pool));
}

/* verify_dir sums the mergeinfo counts of a directory's changed entries
   onto its predecessor's count (unchanged entries are not read again):
   a count one too high in r4 is still caught, and r0..r3 still pass. */
static void
test_verify_mergeinfo_damage(void **state)
{
  svn_fs_root_t *root;
  svn_revnum_t rev;
  svn_error_t *err;

  for (rev = 0; rev <= 3; rev++)
    {
      OK(svn_fs_fs__revision_root(&root, fixture.minfo_fs, rev,
                                  fixture.pool));
      OK(svn_fs_fs__verify_root(root, fixture.pool));
    }
  OK(svn_fs_fs__revision_root(&root, fixture.minfo_fs, 4, fixture.pool));
  err = svn_fs_fs__verify_root(root, fixture.pool);
  assert_non_null(err);
  assert_int_equal(err->apr_err, SVN_ERR_FS_CORRUPT);
  assert_non_null(strstr(svn_error_purge_tracing(err)->message, "TREE-6"));
  svn_error_clear(err);
}

/* The lookup cache's word-at-a-time hash: every key comes back, given
   as a C string or with its length, across the lengths around a word
   (0, 7, 8, 9, ...), and keys that differ only in their last byte or in
   one byte of a middle word are told apart. */
static void
test_path_hash(void **state)
{
  apr_pool_t *pool = svn_pool_create(fixture.pool);
  apr_hash_t *h = svn_fs_fs__path_hash_make(pool);
  const char *keys[3000];
  int i;

  for (i = 0; i < 3000; i++)
    {
      svn_stringbuf_t *k = svn_stringbuf_create_empty(pool);
      int len = i % 40, j;

      for (j = 0; j < len; j++)
        svn_stringbuf_appendbyte(k, (char)('a' + (i / 40 + j) % 26));
      keys[i] = k->data;
      if (!apr_hash_get(h, keys[i], APR_HASH_KEY_STRING))
        apr_hash_set(h, keys[i], APR_HASH_KEY_STRING, keys[i]);
    }
  for (i = 0; i < 3000; i++)
    {
      const char *v = apr_hash_get(h, keys[i], APR_HASH_KEY_STRING);

      assert_non_null(v);
      assert_string_equal(v, keys[i]);
      assert_ptr_equal(apr_hash_get(h, keys[i], strlen(keys[i])), v);
    }
  apr_hash_set(h, "/trunk/src/main/java/A.java", APR_HASH_KEY_STRING, "A");
  apr_hash_set(h, "/trunk/src/main/java/B.java", APR_HASH_KEY_STRING, "B");
  apr_hash_set(h, "/trunk/src/mXin/java/A.java", APR_HASH_KEY_STRING, "X");
  assert_string_equal(apr_hash_get(h, "/trunk/src/main/java/A.java",
                                   APR_HASH_KEY_STRING), "A");
  assert_string_equal(apr_hash_get(h, "/trunk/src/main/java/B.java",
                                   APR_HASH_KEY_STRING), "B");
  assert_string_equal(apr_hash_get(h, "/trunk/src/mXin/java/A.java",
                                   APR_HASH_KEY_STRING), "X");
  assert_null(apr_hash_get(h, "/trunk/src/main/java/C.java",
                           APR_HASH_KEY_STRING));
  svn_pool_destroy(pool);
}

/* Revision roots of one revision share their path cache (a node-rev
   looked up through one is the very one another hands out), roots of
   more revisions than are shared at once still find the right nodes,
   and roots may go in any order, even after their svn_fs_t. */
static void
test_shared_path_cache(void **state)
{
  static const svn_revnum_t created[] = { 0, 1, 2, 2, 2, 5 };
  apr_pool_t *pool = svn_pool_create(fixture.pool);
  apr_pool_t *fs_pool = svn_pool_create(NULL);
  apr_pool_t *root_pool = svn_pool_create(NULL);
  svn_fs_root_t *roots[6], *again, *orphan;
  const svn_fs_fs__noderev_t *a, *b;
  svn_fs_t *fs;
  svn_revnum_t rev;
  int i;

  for (rev = 1; rev <= 5; rev++)
    OK(svn_fs_fs__revision_root(&roots[rev], fixture.fs, rev, pool));
  for (i = 0; i < 2; i++)
    for (rev = 1; rev <= 5; rev++)
      {
        svn_revnum_t got;

        OK(roots[rev]->vtable->node_created_rev(&got, roots[rev],
                                                "/trunk/a.txt", pool));
        assert_int_equal(got, created[rev]);
      }
  OK(svn_fs_fs__revision_root(&again, fixture.fs, 4, pool));
  OK(svn_fs_fs__root_lookup(&a, roots[4], "/trunk/d/f", pool));
  OK(svn_fs_fs__root_lookup(&b, again, "/trunk/d/f", pool));
  assert_ptr_equal(a, b);
  svn_pool_destroy(roots[4]->pool);
  OK(svn_fs_fs__root_lookup(&b, again, "/trunk/d/f", pool));
  assert_ptr_equal(a, b);
  svn_pool_destroy(again->pool);
  /* No root of r4 is left: its cache stays for the next one. */
  OK(svn_fs_fs__revision_root(&again, fixture.fs, 4, pool));
  OK(svn_fs_fs__root_lookup(&b, again, "/trunk/d/f", pool));
  assert_ptr_equal(a, b);
  svn_pool_destroy(pool);

  /* A root that outlives its svn_fs_t: destroying it must not touch the
     svn_fs_t's caches. */
  fs = open_repo_in(&fixture, "repo", fs_pool);
  assert_non_null(fs);
  OK(svn_fs_fs__revision_root(&orphan, fs, 2, root_pool));
  OK(svn_fs_fs__root_lookup(&a, orphan, "/trunk/a.txt", root_pool));
  assert_int_equal(a->kind, svn_node_file);
  svn_pool_destroy(fs_pool);
  svn_pool_destroy(root_pool);
}

/* A lookup through one svn_fs_t is answered from the process-wide cache
   once the same (revision, path) was walked through two others (the
   admission table stores at the second miss), with the node-rev of that
   revision: /trunk/a.txt has a node-rev of its own in r1 and in r2, and
   /branches/b/a.txt is reached through a copy in r3.  check_path is
   answered from it as well; the root directory and missing paths never
   are. */
static void
test_shared_across_fs(void **state)
{
  static const struct { svn_revnum_t rev; const char *path; } cases[] = {
    { 1, "/trunk/a.txt" }, { 2, "/trunk/a.txt" }, { 2, "/trunk/d" },
    { 3, "/branches/b/a.txt" }, { 4, "/branches/b/a.txt" } };
  const int n = (int)(sizeof(cases) / sizeof(cases[0]));
  apr_pool_t *pool = svn_pool_create(fixture.pool);
  const svn_fs_fs__noderev_t *first[5], *got;
  svn_fs_t *fs[3];
  apr_uint64_t hits;
  int i, k;

  for (k = 0; k < 3; k++)
    {
      fs[k] = open_repo_in(&fixture, "repo", pool);
      assert_non_null(fs[k]);
    }
  /* Two walks through two svn_fs_t: nothing is found shared yet (the
     earlier tests' walks of these paths forgotten). */
  svn_fs_fs__admit_reset();
  hits = svn_fs_fs__shared_path_hits;
  for (k = 0; k < 2; k++)
    for (i = 0; i < n; i++)
      {
        svn_fs_root_t *root;

        OK(svn_fs_fs__revision_root(&root, fs[k], cases[i].rev, pool));
        OK(svn_fs_fs__root_lookup(&got, root, cases[i].path, pool));
        if (k == 0)
          first[i] = got;
        else
          assert_true(svn_fs_fs__id_eq(got->id, first[i]->id));
      }
  assert_int_equal(svn_fs_fs__shared_path_hits, hits);

  /* The third finds every one, each the node-rev of its own revision. */
  for (i = 0; i < n; i++)
    {
      svn_fs_root_t *root;

      OK(svn_fs_fs__revision_root(&root, fs[2], cases[i].rev, pool));
      OK(svn_fs_fs__root_lookup(&got, root, cases[i].path, pool));
      assert_true(svn_fs_fs__id_eq(got->id, first[i]->id));
      assert_int_equal(got->kind, first[i]->kind);
      assert_int_equal(svn_fs_fs__shared_path_hits, hits + i + 1);
    }
  assert_false(svn_fs_fs__id_eq(first[0]->id, first[1]->id));
  assert_false(svn_fs_fs__id_eq(first[3]->id, first[4]->id));

  {
    /* check_path through a fourth svn_fs_t (its own, empty, per-revision
       caches): one shared hit per path. */
    svn_fs_t *fourth = open_repo_in(&fixture, "repo", pool);
    svn_fs_root_t *root;
    svn_node_kind_t kind;

    hits = svn_fs_fs__shared_path_hits;
    OK(svn_fs_fs__revision_root(&root, fourth, 2, pool));
    OK(svn_fs_fs__root_kind(&kind, root, "/trunk/a.txt", pool));
    assert_int_equal(kind, svn_node_file);
    OK(svn_fs_fs__root_kind(&kind, root, "trunk/d", pool));
    assert_int_equal(kind, svn_node_dir);
    assert_int_equal(svn_fs_fs__shared_path_hits, hits + 2);
    OK(svn_fs_fs__root_kind(&kind, root, "/", pool));
    assert_int_equal(kind, svn_node_dir);
    OK(svn_fs_fs__root_kind(&kind, root, "/trunk/none", pool));
    assert_int_equal(kind, svn_node_none);
    OK(svn_fs_fs__root_kind(&kind, root, "/trunk/none", pool));
    assert_int_equal(kind, svn_node_none);
    assert_int_equal(svn_fs_fs__shared_path_hits, hits + 2);
  }
  svn_pool_destroy(pool);
}

/* check_path answers as a lookup would, for every path of every
   revision, whether its parent is cached or not, and kinds of node-revs
   read before come from the kind memo; entries of the directory asked
   about last are found from it, and only they; a file in the middle of
   a path is reported with its own path, cached or not. */
static void
test_check_path_kinds(void **state)
{
  static const char *paths[] = {
    "/", "/trunk", "/trunk/a.txt", "/trunk/d", "/trunk/d/f", "/branches",
    "/branches/b", "/branches/b/a.txt", "/branches/b/d/f", "/nest/d2/f",
    "/nope", "/trunk/nope", "/trunk/a.txt/x", "/trunk/d/f/x/y",
  };
  apr_pool_t *pool = svn_pool_create(fixture.pool);
  apr_uint64_t kind_hits = svn_fs_fs__kind_memo_hits;
  svn_revnum_t rev;
  size_t i;
  int pass;

  for (pass = 0; pass < 2; pass++)
    for (rev = 0; rev <= 5; rev++)
      for (i = 0; i < sizeof(paths) / sizeof(paths[0]); i++)
        {
          svn_fs_root_t *fresh, *root;
          const svn_fs_fs__noderev_t *noderev;
          svn_node_kind_t kind;

          /* Pass 0 asks fresh roots (nothing cached: r0-r5 take turns
             in the shared caches), pass 1 roots whose parents are. */
          OK(svn_fs_fs__revision_root(&fresh, fixture.fs, rev, pool));
          OK(fresh->vtable->check_path(&kind, fresh, paths[i], pool));
          OK(svn_fs_fs__revision_root(&root, fixture.fs, rev, pool));
          OK(svn_fs_fs__root_lookup_maybe(&noderev, root, paths[i], pool));
          assert_int_equal(kind, noderev ? noderev->kind : svn_node_none);
          if (pass == 1)
            {
              OK(root->vtable->check_path(&kind, root, paths[i], pool));
              assert_int_equal(kind, noderev ? noderev->kind
                                             : svn_node_none);
            }
        }
  /* Pass 1 asked the kinds of node-revs read before: from the memo. */
  assert_true(svn_fs_fs__kind_memo_hits > kind_hits);
  /* Entries of one directory in turn (resolved from the directory asked
     about last), then paths that only look like its entries. */
  {
    static const struct { const char *path; svn_node_kind_t kind; } seq[] = {
      { "/nest/d2/f", svn_node_file }, { "/trunk/a.txt", svn_node_file },
      { "/trunk/d", svn_node_dir }, { "/trunk/nope", svn_node_none },
      { "/trunkXa.txt", svn_node_none }, { "/trunk/d/f", svn_node_file }, { "/trunk/a.txt/x", svn_node_none },
      { "/trunkx", svn_node_none }, { "/trunk", svn_node_dir },
      { "/trunk/d/f/", svn_node_file }, { "/trunk/d/nope", svn_node_none },
      { "/trunk/d", svn_node_dir }, { "/nest/d2", svn_node_dir },
      { "/nest/d2/f", svn_node_file }, { "/nest/d", svn_node_dir },
    };
    svn_fs_root_t *root;

    OK(svn_fs_fs__revision_root(&root, fixture.fs, 5, pool));
    for (i = 0; i < sizeof(seq) / sizeof(seq[0]); i++)
      {
        svn_node_kind_t kind;

        OK(root->vtable->check_path(&kind, root, seq[i].path, pool));
        assert_int_equal(kind, seq[i].kind);
      }
  }
  for (pass = 0; pass < 2; pass++)
    {
      svn_fs_root_t *root;
      const svn_fs_id_t *id;
      svn_error_t *err;

      OK(svn_fs_fs__revision_root(&root, fixture.fs, 4, pool));
      if (pass == 1)
        OK(root->vtable->node_id(&id, root, "/trunk/a.txt", pool));
      err = root->vtable->node_id(&id, root, "/trunk/a.txt/x/y", pool);
      assert_non_null(err);
      assert_int_equal(err->apr_err, SVN_ERR_FS_NOT_DIRECTORY);
      assert_string_equal(err->message,
                          "Failure opening '/trunk/a.txt' in revision 4");
      svn_error_clear(err);
    }
  svn_pool_destroy(pool);
}

/* Entries of a listing asked for one after another come from the copy of
   the recent listing, and they are those of the listing itself,
   missing names included. */
static void
test_recent_listing(void **state)
{
  static const char *names[] = { "a.txt", "d", "nope", "a.txt", "" };
  apr_pool_t *pool = svn_pool_create(fixture.pool);
  svn_fs_root_t *root = root_at(4);
  const svn_fs_fs__noderev_t *trunk;
  apr_array_header_t *entries;
  apr_uint64_t hits = svn_fs_fs__recent_dir_hits;
  size_t i;

  OK(svn_fs_fs__root_lookup(&trunk, root, "/trunk", pool));
  OK(svn_fs_fs__dir_entries(&entries, fixture.fs, trunk, pool, pool));
  assert_int_equal(entries->nelts, 2);
  for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
    {
      svn_fs_dirent_t *dirent;
      int j, found = -1;

      OK(svn_fs_fs__dir_entry(&dirent, fixture.fs, trunk, names[i], pool,
                              pool));
      for (j = 0; j < entries->nelts; j++)
        if (!strcmp(APR_ARRAY_IDX(entries, j, svn_fs_dirent_t *)->name,
                    names[i]))
          found = j;
      if (found < 0)
        assert_null(dirent);
      else
        {
          const svn_fs_dirent_t *want = APR_ARRAY_IDX(entries, found,
                                                      svn_fs_dirent_t *);
          assert_non_null(dirent);
          assert_string_equal(dirent->name, want->name);
          assert_int_equal(dirent->kind, want->kind);
          assert_true(svn_fs_fs__id_eq(SVN_FS_FS__ID(dirent->id),
                                       SVN_FS_FS__ID(want->id)));
        }
    }
  /* The listing itself (just cached) and every entry after it. */
  assert_true(svn_fs_fs__recent_dir_hits - hits
              >= sizeof(names) / sizeof(names[0]));
  svn_pool_destroy(pool);
}

/* Lookups alternating between two listings (a dump's replay asks the
   changed parent in r and in r-1 in turn) are served from the recent
   listings after each was asked for twice; a third listing pushes out
   the one used least recently. */
static void
test_recent_listings_alternate(void **state)
{
  apr_pool_t *pool = svn_pool_create(fixture.pool);
  svn_fs_root_t *root = root_at(4);
  const svn_fs_fs__noderev_t *dirs[2];
  const svn_fs_fs__noderev_t *third;
  static const char *names[2] = { "a.txt", "trunk" };
  apr_array_header_t *entries;
  apr_uint64_t hits;
  svn_fs_dirent_t *dirent;
  int i;

  OK(svn_fs_fs__root_lookup(&dirs[0], root, "/trunk", pool));
  OK(svn_fs_fs__root_lookup(&dirs[1], root, "/", pool));
  OK(svn_fs_fs__root_lookup(&third, root, "/trunk/d", pool));
  /* Two rounds to be remembered as asked for, then all hits. */
  for (i = 0; i < 4; i++)
    OK(svn_fs_fs__dir_entry(&dirent, fixture.fs, dirs[i % 2], names[i % 2],
                            pool, pool));
  hits = svn_fs_fs__recent_dir_hits;
  for (i = 0; i < 20; i++)
    {
      OK(svn_fs_fs__dir_entry(&dirent, fixture.fs, dirs[i % 2],
                              names[i % 2], pool, pool));
      assert_non_null(dirent);
      assert_string_equal(dirent->name, names[i % 2]);
    }
  assert_int_equal(svn_fs_fs__recent_dir_hits - hits, 20);

  /* "/" was used last: listing the third takes the slot of "/trunk"
     (twice, the first may have had to read it from disk). */
  OK(svn_fs_fs__dir_entries(&entries, fixture.fs, third, pool, pool));
  OK(svn_fs_fs__dir_entries(&entries, fixture.fs, third, pool, pool));
  hits = svn_fs_fs__recent_dir_hits;
  OK(svn_fs_fs__dir_entry(&dirent, fixture.fs, dirs[1], "trunk", pool,
                          pool));
  assert_int_equal(svn_fs_fs__recent_dir_hits - hits, 1);
  OK(svn_fs_fs__dir_entry(&dirent, fixture.fs, dirs[0], "a.txt", pool,
                          pool));
  assert_int_equal(svn_fs_fs__recent_dir_hits - hits, 1);
  assert_non_null(dirent);
  svn_pool_destroy(pool);
}

int
main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_check_path),
    cmocka_unit_test(test_errors),
    cmocka_unit_test(test_node_queries),
    cmocka_unit_test(test_contents_and_props),
    cmocka_unit_test(test_history),
    cmocka_unit_test(test_mergeinfo),
    cmocka_unit_test(test_changes_and_verify),
    cmocka_unit_test(test_verify_damage),
    cmocka_unit_test(test_verify_mergeinfo_damage),
    cmocka_unit_test(test_path_hash),
    cmocka_unit_test(test_shared_path_cache),
    cmocka_unit_test(test_shared_across_fs),
    cmocka_unit_test(test_check_path_kinds),
    cmocka_unit_test(test_recent_listing),
    cmocka_unit_test(test_recent_listings_alternate),
  };
  int failures;

  apr_initialize();
  if (!have_svnadmin())
    {
      const char *ci = getenv("CI");
      int in_ci = ci && strcmp(ci, "true") == 0;
      fprintf(stderr, "test_tree: stock svnadmin not found, %s\n",
              in_ci ? "FAILED (CI=true)" : "skipping");
      return in_ci ? 1 : 77;
    }
  failures = cmocka_run_group_tests(tests, setup, teardown);
  return failures ? 1 : 0;
}
