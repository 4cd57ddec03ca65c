/* test_merge.c --- the three-way merge (merge.c) against the stock module.
 *
 * The stock module is the oracle.  This program has two roles:
 *
 *   test_merge --run DIR     run every scenario below through the public
 *                            FS API (whichever libsvn_fs_fs-1.so.1 the
 *                            dynamic loader picks) with scratch repositories
 *                            under DIR, and print one report per scenario;
 *   test_merge               the cmocka test: run itself with --run once
 *                            under the stock module and once under ours
 *                            (LD_LIBRARY_PATH = the build's .libs), then
 *                            require each scenario's reports to be equal
 *                            and the stock outcome to be the one recorded
 *                            in the table (doc/format/merge.md).
 *
 * Each scenario starts from the same r1, begins two transactions on r1,
 * applies SOURCE's edits to the first and TARGET's to the second, commits
 * the first (r2), and then either (mode "merge") calls svn_fs_merge(r2,
 * txn2, r1) and reports the outcome plus txn2's tree and the node-rev
 * fields merge owns (predecessor, counts, mergeinfo counts), or (mode
 * "commit") commits txn2 and reports the outcome and the new tree.
 * Skipped (exit 77) while our module cannot yet write transactions.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include <cmocka.h>

#include <apr_general.h>
#include <apr_strings.h>
#include "svn_pools.h"
#include "svn_hash.h"
#include "svn_io.h"
#include "svn_fs.h"
#include "svn_sorts.h"
#include "private/svn_sorts_private.h"
#include "private/svn_fspath.h"
#include "svn_dirent_uri.h"
#include "svn_checksum.h"

#include "test_util.h"

/* ------------------------------------------------------------------ */
/* Edits                                                               */

typedef svn_error_t *(*edit_fn)(svn_fs_root_t *root, apr_pool_t *pool);

static svn_error_t *
put_text(svn_fs_root_t *root, const char *path, const char *text,
         apr_pool_t *pool)
{
  svn_stream_t *out;
  apr_size_t len = strlen(text);

  SVN_ERR(svn_fs_apply_text(&out, root, path, NULL, pool));
  SVN_ERR(svn_stream_write(out, text, &len));
  return svn_stream_close(out);
}

static svn_error_t *
add_file(svn_fs_root_t *root, const char *path, const char *text,
         apr_pool_t *pool)
{
  SVN_ERR(svn_fs_make_file(root, path, pool));
  return put_text(root, path, text, pool);
}

static svn_error_t *
set_prop(svn_fs_root_t *root, const char *path, const char *name,
         const char *value, apr_pool_t *pool)
{
  return svn_fs_change_node_prop(root, path, name,
                                 value ? svn_string_create(value, pool)
                                       : NULL, pool);
}

/* A copy from r1 (the base both transactions share). */
static svn_error_t *
copy_r1(svn_fs_root_t *root, const char *from, const char *to,
        apr_pool_t *pool)
{
  svn_fs_root_t *r1;

  SVN_ERR(svn_fs_revision_root(&r1, svn_fs_root_fs(root), 1, pool));
  return svn_fs_copy(r1, from, root, to, pool);
}

#define EDIT(name) \
  static svn_error_t *name(svn_fs_root_t *root, apr_pool_t *pool)

EDIT(nothing) { return SVN_NO_ERROR; }
EDIT(mod_f) { return put_text(root, "/A/f", "f2\n", pool); }
EDIT(mod_f_other) { return put_text(root, "/A/f", "f3\n", pool); }
EDIT(mod_g) { return put_text(root, "/A/g", "g2\n", pool); }
EDIT(mod_x) { return put_text(root, "/A/D/x", "x2\n", pool); }
EDIT(mod_iota) { return put_text(root, "/iota", "iota2\n", pool); }
EDIT(add_n) { return add_file(root, "/A/n", "n\n", pool); }
EDIT(add_n_other) { return add_file(root, "/A/n", "n2\n", pool); }
EDIT(add_m) { return add_file(root, "/A/m", "m\n", pool); }
EDIT(add_y) { return add_file(root, "/A/D/y", "y\n", pool); }
EDIT(add_z) { return add_file(root, "/A/D/z", "z\n", pool); }
EDIT(mkdir_n) { return svn_fs_make_dir(root, "/A/N", pool); }
EDIT(del_f) { return svn_fs_delete(root, "/A/f", pool); }
EDIT(del_d) { return svn_fs_delete(root, "/A/D", pool); }
EDIT(del_m) { return svn_fs_delete(root, "/M", pool); }
EDIT(del_b) { return svn_fs_delete(root, "/B", pool); }
EDIT(prop_a) { return set_prop(root, "/A", "p", "2", pool); }
EDIT(prop_a_q) { return set_prop(root, "/A", "q", "1", pool); }
EDIT(prop_a_del) { return set_prop(root, "/A", "p", NULL, pool); }
EDIT(prop_root) { return set_prop(root, "/", "r", "1", pool); }
EDIT(prop_root2) { return set_prop(root, "/", "s", "1", pool); }
EDIT(prop_f) { return set_prop(root, "/A/f", "fp", "1", pool); }
EDIT(prop_a_same) { return set_prop(root, "/A", "p", "1", pool); }
EDIT(prop_b) { return set_prop(root, "/B", "bp", "1", pool); }
EDIT(add_k_b) { return add_file(root, "/B/k", "k\n", pool); }
EDIT(prop_d) { return set_prop(root, "/A/D", "dp", "1", pool); }
EDIT(minfo_d) { return set_prop(root, "/A/D", "svn:mergeinfo", "/B:1", pool); }
EDIT(minfo_b) { return set_prop(root, "/B", "svn:mergeinfo", "/A:1", pool); }
EDIT(minfo_m_del) { return set_prop(root, "/M", "svn:mergeinfo", NULL, pool); }
EDIT(minfo_x) { return set_prop(root, "/A/D/x", "svn:mergeinfo", "/B/h:1",
                                pool); }

EDIT(replace_f)
{
  SVN_ERR(svn_fs_delete(root, "/A/f", pool));
  return add_file(root, "/A/f", "new f\n", pool);
}

EDIT(replace_d_file)
{
  SVN_ERR(svn_fs_delete(root, "/A/D", pool));
  return add_file(root, "/A/D", "D is a file\n", pool);
}

EDIT(replace_d_copy)      /* same node line, new copy */
{
  SVN_ERR(svn_fs_delete(root, "/A/D", pool));
  return copy_r1(root, "/A/D", "/A/D", pool);
}

EDIT(copy_a_a2) { return copy_r1(root, "/A", "/A2", pool); }
EDIT(copy_b_a2) { return copy_r1(root, "/B", "/A2", pool); }
EDIT(copy_f_b) { return copy_r1(root, "/A/f", "/B/f2", pool); }
EDIT(copy_m_b) { return copy_r1(root, "/M", "/B/M2", pool); }

EDIT(copy_a_a2_mod)
{
  SVN_ERR(copy_r1(root, "/A", "/A2", pool));
  return put_text(root, "/A2/f", "a2f\n", pool);
}

EDIT(mod_f_and_g)
{
  SVN_ERR(mod_f(root, pool));
  return mod_g(root, pool);
}

/* ------------------------------------------------------------------ */
/* Scenarios                                                           */

typedef struct scenario_t
{
  const char *name;
  edit_fn source;             /* committed first: r2 */
  edit_fn target;             /* merged / committed second */
  const char *stock;          /* stock outcome: "ok" or the conflict path */
} scenario_t;

static const scenario_t scenarios[] = {
  { "nothing_in_target", mod_f, nothing, "ok" },
  { "files_differ", mod_f, mod_g, "ok" },
  { "same_file", mod_f, mod_f_other, "/A/f" },
  { "same_file_same_text", mod_f, mod_f, "/A/f" },
  { "both_add_same_name", add_n, add_n_other, "/A/n" },
  { "both_add_same_file", add_n, add_n, "/A/n" },
  { "adds_differ", add_n, add_m, "ok" },
  { "both_mkdir", mkdir_n, mkdir_n, "/A/N" },
  { "delete_vs_modify", del_f, mod_f, "/A/f" },
  { "modify_vs_delete", mod_f, del_f, "/A/f" },
  { "delete_both", del_f, del_f, "/A/f" },
  { "delete_vs_other_file", del_f, mod_g, "ok" },
  { "dir_prop_vs_entry", prop_a, mod_f, "/A" },
  { "entry_vs_dir_prop", mod_f, prop_a, "ok" },
  { "dir_props_both", prop_a, prop_a_q, "/A" },
  { "dir_props_both_same", prop_a, prop_a, "/A" },
  { "dir_prop_del_vs_set", prop_a_del, prop_a_q, "/A" },
  { "root_props_both", prop_root, prop_root2, "/" },
  { "root_prop_vs_entry", prop_root, mod_iota, "/" },
  { "file_prop_vs_text", prop_f, mod_f, "/A/f" },
  { "replace_vs_modify", replace_f, mod_f, "/A/f" },
  { "modify_vs_replace", mod_f, replace_f, "/A/f" },
  { "dir_to_file_vs_below", replace_d_file, mod_x, "/A/D" },
  { "dir_copy_replace_vs_below", replace_d_copy, mod_x, "/A/D" },
  { "below_vs_dir_copy_replace", mod_x, replace_d_copy, "/A/D" },
  { "delete_dir_vs_below", del_d, mod_x, "/A/D" },
  { "below_vs_delete_dir", mod_x, del_d, "/A/D" },
  { "tgt_prop_del_vs_entry", mod_f, prop_a_del, "ok" },
  { "tgt_prop_same_vs_entry", mod_f, prop_a_same, "ok" },
  { "src_prop_same_vs_entry", prop_a_same, mod_f, "ok" },
  { "tgt_new_prop_vs_entry", add_k_b, prop_b, "/B" },
  { "src_new_prop_vs_entry", prop_b, add_k_b, "/B" },
  { "deep_both", mod_x, add_y, "ok" },
  { "add_vs_dir_prop", add_n, prop_a, "/A" },
  { "modify_vs_new_dir_prop", mod_x, prop_d, "ok" },
  { "add_vs_dir_prop_delete", add_n, prop_a_del, "/A" },
  { "deep_adds", add_y, add_z, "ok" },
  { "deep_vs_dirprop", add_y, prop_d, "/A/D" },
  { "copy_both_same_dest", copy_a_a2, copy_b_a2, "/A2" },
  { "copy_both_same_src", copy_a_a2, copy_a_a2, "/A2" },
  { "copy_vs_modify_src", copy_f_b, mod_f, "ok" },
  { "modify_vs_copy_src", mod_f, copy_f_b, "ok" },
  { "copy_mod_vs_other", copy_a_a2_mod, mod_f_and_g, "ok" },
  { "minfo_source", minfo_d, mod_g, "ok" },
  { "minfo_target", mod_g, minfo_d, "ok" },
  { "minfo_both_dirs", minfo_d, minfo_b, "ok" },
  { "minfo_deep_both", minfo_x, minfo_d, "ok" },
  { "minfo_delete_source", del_m, mod_f, "ok" },
  { "minfo_delete_target", mod_f, del_m, "ok" },
  { "minfo_propdel_source", minfo_m_del, minfo_b, "ok" },
  { "minfo_copy_source", copy_m_b, mod_f, "ok" },
  { "minfo_copy_vs_b", copy_m_b, minfo_b, "/B" },
  { "delete_b_vs_minfo_b", del_b, minfo_b, "/B" },
};

/* ------------------------------------------------------------------ */
/* Reports                                                             */

/* r1: /A (p=1) {f, g, D {x}}, /B {h}, /M (svn:mergeinfo), /iota. */
static svn_error_t *
make_r1(svn_fs_t *fs, apr_pool_t *pool)
{
  svn_fs_txn_t *txn;
  svn_fs_root_t *root;
  svn_revnum_t rev;
  const char *conflict;

  SVN_ERR(svn_fs_begin_txn2(&txn, fs, 0, 0, pool));
  SVN_ERR(svn_fs_txn_root(&root, txn, pool));
  SVN_ERR(svn_fs_make_dir(root, "/A", pool));
  SVN_ERR(set_prop(root, "/A", "p", "1", pool));
  SVN_ERR(add_file(root, "/A/f", "f\n", pool));
  SVN_ERR(add_file(root, "/A/g", "g\n", pool));
  SVN_ERR(svn_fs_make_dir(root, "/A/D", pool));
  SVN_ERR(add_file(root, "/A/D/x", "x\n", pool));
  SVN_ERR(svn_fs_make_dir(root, "/B", pool));
  SVN_ERR(add_file(root, "/B/h", "h\n", pool));
  SVN_ERR(svn_fs_make_dir(root, "/M", pool));
  SVN_ERR(set_prop(root, "/M", "svn:mergeinfo", "/A:1", pool));
  SVN_ERR(add_file(root, "/iota", "iota\n", pool));
  return svn_fs_commit_txn(&conflict, &rev, txn, pool);
}

/* Append "PATH KIND ID [props] [md5]" for PATH and, for a directory,
   everything below it, to OUT. */
static svn_error_t *
print_tree(svn_stringbuf_t *out, svn_fs_root_t *root, const char *path,
           apr_pool_t *pool)
{
  svn_node_kind_t kind;
  const svn_fs_id_t *id;
  apr_hash_t *props, *entries;
  apr_array_header_t *sorted;
  int i;

  SVN_ERR(svn_fs_check_path(&kind, root, path, pool));
  SVN_ERR(svn_fs_node_id(&id, root, path, pool));
  SVN_ERR(svn_fs_node_proplist(&props, root, path, pool));
  svn_stringbuf_appendcstr(out, apr_psprintf(pool, "  %s %s %s", path,
                           kind == svn_node_dir ? "dir" : "file",
                           svn_fs_unparse_id(id, pool)->data));
  sorted = svn_sort__hash(props, svn_sort_compare_items_lexically, pool);
  for (i = 0; i < sorted->nelts; i++)
    {
      svn_sort__item_t *it = &APR_ARRAY_IDX(sorted, i, svn_sort__item_t);
      svn_stringbuf_appendcstr(out, apr_psprintf(pool, " %s=%s",
        (const char *)it->key, ((svn_string_t *)it->value)->data));
    }
  if (kind == svn_node_file)
    {
      svn_checksum_t *md5;
      SVN_ERR(svn_fs_file_checksum(&md5, svn_checksum_md5, root, path,
                                   TRUE, pool));
      svn_stringbuf_appendcstr(out, apr_psprintf(pool, " md5=%s",
                               svn_checksum_to_cstring(md5, pool)));
    }
  svn_stringbuf_appendcstr(out, "\n");
  if (kind != svn_node_dir)
    return SVN_NO_ERROR;
  SVN_ERR(svn_fs_dir_entries(&entries, root, path, pool));
  sorted = svn_sort__hash(entries, svn_sort_compare_items_lexically, pool);
  for (i = 0; i < sorted->nelts; i++)
    {
      svn_sort__item_t *it = &APR_ARRAY_IDX(sorted, i, svn_sort__item_t);
      SVN_ERR(print_tree(out, root,
                         svn_fspath__join(path, it->key, pool), pool));
    }
  return SVN_NO_ERROR;
}

/* Keep the node-rev lines that merge is responsible for. */
static svn_boolean_t
interesting_line(const char *line)
{
  static const char *const keys[] = { "id: ", "pred: ", "count: ",
    "minfo-cnt: ", "minfo-here", "copyfrom: ", "copyroot: ", "cpath: ",
    NULL };
  int i;

  for (i = 0; keys[i]; i++)
    if (strncmp(line, keys[i], strlen(keys[i])) == 0)
      return TRUE;
  return FALSE;
}

/* Append the interesting lines of every node file of transaction TXN of
   the repository at REPO, in file-name order, to OUT. */
static svn_error_t *
print_txn_nodes(svn_stringbuf_t *out, const char *repo, const char *txn,
                apr_pool_t *pool)
{
  const char *dir = apr_psprintf(pool, "%s/transactions/%s.txn", repo,
                                 txn);
  apr_hash_t *dirents;
  apr_array_header_t *sorted;
  int i;

  SVN_ERR(svn_io_get_dirents3(&dirents, dir, TRUE, pool, pool));
  sorted = svn_sort__hash(dirents, svn_sort_compare_items_lexically, pool);
  for (i = 0; i < sorted->nelts; i++)
    {
      const char *name = APR_ARRAY_IDX(sorted, i, svn_sort__item_t).key;
      svn_stringbuf_t *text;
      char *line, *last;

      if (strncmp(name, "node.", 5) != 0 || strstr(name, ".props")
          || strstr(name, ".children"))
        continue;
      SVN_ERR(svn_stringbuf_from_file2(&text,
                                       svn_dirent_join(dir, name, pool),
                                       pool));
      svn_stringbuf_appendcstr(out, apr_psprintf(pool, "  %s:", name));
      for (line = apr_strtok(text->data, "\n", &last); line;
           line = apr_strtok(NULL, "\n", &last))
        if (interesting_line(line))
          svn_stringbuf_appendcstr(out, apr_psprintf(pool, " [%s]", line));
      svn_stringbuf_appendcstr(out, "\n");
    }
  return SVN_NO_ERROR;
}

/* Append the outcome of ERR (consumed) to OUT. */
static void
print_outcome(svn_stringbuf_t *out, svn_error_t *err, const char *conflict,
              apr_pool_t *pool)
{
  if (!err)
    svn_stringbuf_appendcstr(out, "  ok\n");
  else
    {
      svn_error_t *top = svn_error_purge_tracing(err);
      svn_stringbuf_appendcstr(out, apr_psprintf(pool,
        "  error %d conflict=%s msg=%s\n", top->apr_err,
        conflict ? conflict : "(null)",
        top->message ? top->message : "(none)"));
      svn_error_clear(err);
    }
}

/* Append the interesting lines of revision file REV of REPO (unsharded
   shard 0, not packed) to OUT, with item numbers of committed ids
   replaced by '*': they depend on the order commit writes items in,
   which is not merge's business. */
static svn_error_t *
print_rev_nodes(svn_stringbuf_t *out, const char *repo, svn_revnum_t rev,
                apr_pool_t *pool)
{
  svn_stringbuf_t *text;
  const char *p, *end;

  SVN_ERR(svn_stringbuf_from_file2(&text, apr_psprintf(pool,
                                   "%s/revs/0/%ld", repo, rev), pool));
  for (p = text->data, end = p + text->len; p < end; )
    {
      const char *nl = memchr(p, '\n', end - p);
      const char *line = apr_pstrmemdup(pool, p, (nl ? nl : end) - p);
      char *q;

      p = nl ? nl + 1 : end;
      if (!interesting_line(line))
        continue;
      for (q = strchr(line, '/'); q && line[0] != 'c'; q = strchr(q, '/'))
        {
          char *s = q + 1;
          while (*s >= '0' && *s <= '9')
            *s++ = '*';
          q = s;
        }
      svn_stringbuf_appendcstr(out, apr_psprintf(pool, "  [%s]\n", line));
    }
  return SVN_NO_ERROR;
}

/* Print transaction TXN_NAME of the repository at REPO as a fresh
   svn_fs_t sees it (the svn_fs_t that merged may serve stale directory
   listings from its caches: the stock module's does). */
static svn_error_t *
print_txn(svn_stringbuf_t *out, const char *repo, const char *txn_name,
          apr_pool_t *pool)
{
  svn_fs_t *fs;
  svn_fs_txn_t *txn;
  svn_fs_root_t *root;

  SVN_ERR(svn_fs_open2(&fs, repo, NULL, pool, pool));
  SVN_ERR(svn_fs_open_txn(&txn, fs, txn_name, pool));
  SVN_ERR(svn_fs_txn_root(&root, txn, pool));
  SVN_ERR(print_tree(out, root, "/", pool));
  return print_txn_nodes(out, repo, txn_name, pool);
}

/* Open or create the repository at PATH (format 7). */
static svn_error_t *
create_repo(svn_fs_t **fs, const char *path, apr_pool_t *pool)
{
  apr_hash_t *config = apr_hash_make(pool);

  svn_hash_sets(config, SVN_FS_CONFIG_FS_TYPE, SVN_FS_TYPE_FSFS);
  svn_hash_sets(config, SVN_FS_CONFIG_COMPATIBLE_VERSION, "1.9");
  SVN_ERR(svn_io_remove_dir2(path, TRUE, NULL, NULL, pool));
  return svn_fs_create2(fs, path, config, pool, pool);
}

/* Run scenario S in MODE ("merge" or "commit") in a repository under
   DIR, appending its report to OUT. */
static svn_error_t *
run_scenario(svn_stringbuf_t *out, const scenario_t *s, const char *mode,
             const char *dir, apr_pool_t *pool)
{
  const char *repo = apr_psprintf(pool, "%s/%s-%s", dir, mode, s->name);
  svn_fs_t *fs;
  svn_fs_txn_t *txn1, *txn2;
  svn_fs_root_t *root1, *root2, *r1, *r2;
  svn_revnum_t rev;
  const char *conflict = NULL, *txn_name;
  svn_error_t *err;

  SVN_ERR(create_repo(&fs, repo, pool));
  SVN_ERR(make_r1(fs, pool));
  SVN_ERR(svn_fs_begin_txn2(&txn1, fs, 1, 0, pool));
  SVN_ERR(svn_fs_begin_txn2(&txn2, fs, 1, 0, pool));
  SVN_ERR(svn_fs_txn_root(&root1, txn1, pool));
  SVN_ERR(svn_fs_txn_root(&root2, txn2, pool));
  SVN_ERR(s->source(root1, pool));
  SVN_ERR(s->target(root2, pool));
  SVN_ERR(svn_fs_commit_txn(&conflict, &rev, txn1, pool));
  SVN_ERR(svn_fs_txn_name(&txn_name, txn2, pool));
  svn_stringbuf_appendcstr(out, apr_psprintf(pool, "%s %s\n", mode,
                                             s->name));
  conflict = NULL;
  if (strcmp(mode, "merge") == 0)
    {
      SVN_ERR(svn_fs_revision_root(&r1, fs, 1, pool));
      SVN_ERR(svn_fs_revision_root(&r2, fs, 2, pool));
      err = svn_fs_merge(&conflict, r2, "/", root2, "/", r1, "/", pool);
      print_outcome(out, err, conflict, pool);
      return err ? SVN_NO_ERROR : print_txn(out, repo, txn_name, pool);
    }
  err = svn_fs_commit_txn(&conflict, &rev, txn2, pool);
  print_outcome(out, err, conflict, pool);
  SVN_ERR(svn_fs_youngest_rev(&rev, fs, pool));
  SVN_ERR(svn_fs_revision_root(&r2, fs, rev, pool));
  SVN_ERR(print_tree(out, r2, "/", pool));
  if (rev == 3)
    SVN_ERR(print_rev_nodes(out, repo, rev, pool));
  return SVN_NO_ERROR;
}

/* Direct svn_fs_merge calls outside the two-transaction pattern:
   ancestor == source, paths other than "/", a revision root as target. */
static svn_error_t *
run_direct(svn_stringbuf_t *out, const char *dir, apr_pool_t *pool)
{
  const char *repo = apr_psprintf(pool, "%s/direct", dir);
  svn_fs_t *fs;
  svn_fs_txn_t *txn1, *txn2;
  svn_fs_root_t *root1, *root2, *r1, *r2;
  svn_revnum_t rev;
  const char *conflict, *txn_name;

  SVN_ERR(create_repo(&fs, repo, pool));
  SVN_ERR(make_r1(fs, pool));
  SVN_ERR(svn_fs_revision_root(&r1, fs, 1, pool));
  SVN_ERR(svn_fs_begin_txn2(&txn1, fs, 1, 0, pool));
  SVN_ERR(svn_fs_begin_txn2(&txn2, fs, 1, 0, pool));
  SVN_ERR(svn_fs_txn_root(&root1, txn1, pool));
  SVN_ERR(svn_fs_txn_root(&root2, txn2, pool));
  SVN_ERR(mod_g(root1, pool));
  SVN_ERR(mod_x(root2, pool));
  SVN_ERR(svn_fs_commit_txn(&conflict, &rev, txn1, pool));
  SVN_ERR(svn_fs_revision_root(&r2, fs, 2, pool));
  svn_stringbuf_appendcstr(out, "direct ancestor_is_source\n");
  conflict = NULL;
  print_outcome(out, svn_fs_merge(&conflict, r1, "/", root2, "/", r1, "/",
                                  pool), conflict, pool);
  SVN_ERR(svn_fs_txn_name(&txn_name, txn2, pool));
  SVN_ERR(print_txn(out, repo, txn_name, pool));
  svn_stringbuf_appendcstr(out, "direct paths_ignored\n");
  conflict = NULL;
  print_outcome(out, svn_fs_merge(&conflict, r2, "/B", root2, "/A", r1,
                                  "/M", pool), conflict, pool);
  SVN_ERR(print_txn(out, repo, txn_name, pool));
  svn_stringbuf_appendcstr(out, "direct merge_again\n");
  conflict = NULL;
  print_outcome(out, svn_fs_merge(&conflict, r2, "/", root2, "/", r1, "/",
                                  pool), conflict, pool);
  return print_txn_nodes(out, repo, txn_name, pool);
}

/* Where the dynamic loader found libsvn_fs_fs-1.so.1 (from our maps). */
static const char *
loaded_module(apr_pool_t *pool)
{
  char line[4096];
  FILE *maps = fopen("/proc/self/maps", "r");
  const char *found = "(none)";

  while (maps && fgets(line, sizeof(line), maps))
    {
      char *p = strchr(line, '/');
      if (p && strstr(p, "libsvn_fs_fs-1.so"))
        {
          p[strcspn(p, "\n")] = '\0';
          found = apr_pstrdup(pool, p);
          break;
        }
    }
  if (maps)
    fclose(maps);
  return found;
}

/* The --run role: every scenario in both modes, reports on stdout.
   A scenario whose set-up fails reports that error and the run goes on. */
static int
run_all(const char *dir, const char *only)
{
  apr_pool_t *pool, *iterpool;
  svn_stringbuf_t *out;
  size_t i;
  int m;
  static const char *const modes[] = { "merge", "commit" };

  apr_initialize();
  pool = svn_pool_create(NULL);
  iterpool = svn_pool_create(pool);
  if (svn_fs_initialize(pool))
    return 2;
  out = svn_stringbuf_create_empty(pool);
  for (m = 0; m < 2; m++)
    for (i = 0; i < sizeof(scenarios) / sizeof(scenarios[0]); i++)
      {
        svn_error_t *err;

        if (only && !strstr(scenarios[i].name, only))
          continue;
        svn_pool_clear(iterpool);
        err = run_scenario(out, &scenarios[i], modes[m], dir, iterpool);
        if (err)
          {
            svn_stringbuf_appendcstr(out, apr_psprintf(iterpool,
                                     "%s %s\n  setup-failed", modes[m],
                                     scenarios[i].name));
            print_outcome(out, err, NULL, iterpool);
          }
      }
  svn_pool_clear(iterpool);
  if (!only)
    print_outcome(out, run_direct(out, dir, iterpool), NULL, iterpool);
  printf("module %s\n%s", loaded_module(pool), out->data);
  svn_pool_destroy(pool);
  return 0;
}

/* ------------------------------------------------------------------ */
/* The cmocka role                                                     */

static apr_pool_t *test_pool;

/* Reports of the stock run and of ours: "merge NAME" etc. -> block. */
static apr_hash_t *stock_blocks, *our_blocks;
static const char *stock_module, *our_module, *our_libdir;

/* Split the output of a --run into blocks; *MODULE gets its first line. */
static apr_hash_t *
split_blocks(const char **module, const char *text, apr_pool_t *pool)
{
  apr_hash_t *blocks = apr_hash_make(pool);
  const char *p = text;

  *module = "";
  while (*p)
    {
      const char *nl = strchr(p, '\n');
      const char *end = nl ? nl : p + strlen(p);
      const char *body = end;

      while (*body == '\n' && body[1] == ' ')
        {
          body = strchr(body + 1, '\n');
          if (!body)
            body = text + strlen(text);
        }
      if (strncmp(p, "module ", 7) == 0)
        *module = apr_pstrmemdup(pool, p + 7, end - p - 7);
      else
        svn_hash_sets(blocks, apr_pstrmemdup(pool, p, end - p),
                      apr_pstrmemdup(pool, end, body - end));
      p = *body ? body + 1 : body;
    }
  return blocks;
}

/* Stdout of this program run as "--run DIR", with LD_LIBRARY_PATH set to
   LIBDIR or (NULL) removed. */
static const char *
run_role(const char *dir, const char *libdir, apr_pool_t *pool)
{
  char self[4096];
  ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
  svn_stringbuf_t *out = svn_stringbuf_create_empty(pool);
  char buf[8192];
  size_t got;
  FILE *pipe;

  assert_true(n > 0);
  self[n] = '\0';
  assert_int_equal(0, svn_io_make_dir_recursively(dir, pool) ? 1 : 0);
  pipe = popen(libdir
               ? apr_psprintf(pool, "LD_LIBRARY_PATH='%s' '%s' --run '%s'",
                              libdir, self, dir)
               : apr_psprintf(pool, "env -u LD_LIBRARY_PATH '%s' --run '%s'",
                              self, dir), "r");
  assert_non_null(pipe);
  while ((got = fread(buf, 1, sizeof(buf), pipe)) > 0)
    svn_stringbuf_appendbytes(out, buf, got);
  assert_int_equal(0, pclose(pipe));
  return out->data;
}

static int
setup_runs(void **state)
{
  const char *top = getenv("top_builddir");
  char tmpl[] = "/tmp/merge-test-XXXXXX";
  const char *dir = mkdtemp(tmpl);

  if (!dir)
    return -1;
  our_libdir = apr_psprintf(test_pool, "%s/subversion/libsvn_fs_fs/.libs",
                            top ? top : ".");
  stock_blocks = split_blocks(&stock_module,
                              run_role(apr_pstrcat(test_pool, dir, "/stock",
                                                   SVN_VA_NULL),
                                       NULL, test_pool), test_pool);
  our_blocks = split_blocks(&our_module,
                            run_role(apr_pstrcat(test_pool, dir, "/ours",
                                                 SVN_VA_NULL),
                                     our_libdir, test_pool), test_pool);
  svn_error_clear(svn_io_remove_dir2(dir, FALSE, NULL, NULL, test_pool));
  return 0;
}

/* The outcome line a block must start with for EXPECTED ("ok" or a
   conflict path). */
static const char *
expected_outcome(const char *expected, apr_pool_t *pool)
{
  if (strcmp(expected, "ok") == 0)
    return "\n  ok\n";
  return apr_psprintf(pool, "\n  error %d conflict=%s msg=Conflict at '%s'\n",
                      SVN_ERR_FS_CONFLICT, expected, expected);
}

/* The stock module still behaves as recorded in the table (and as
   doc/format/merge.md says). */
static void
test_stock_outcomes(void **state)
{
  size_t i;
  int m;
  static const char *const modes[] = { "merge", "commit" };

  assert_null(strstr(stock_module, "libsvn_fs_fs/.libs"));
  for (m = 0; m < 2; m++)
    for (i = 0; i < sizeof(scenarios) / sizeof(scenarios[0]); i++)
      {
        const char *key = apr_psprintf(test_pool, "%s %s", modes[m],
                                       scenarios[i].name);
        const char *block = svn_hash_gets(stock_blocks, key);
        const char *want = expected_outcome(scenarios[i].stock, test_pool);

        if (block)                 /* blocks come without their last \n */
          block = apr_pstrcat(test_pool, block, "\n", SVN_VA_NULL);
        if (!block || strncmp(block, want, strlen(want)) != 0)
          fail_msg("stock %s: want%sgot%s", key, want,
                   block ? block : "(missing)");
      }
}

/* TRUE while our module cannot yet run the scenarios at all (the write
   path is still being built): every report is a set-up failure. */
static svn_boolean_t
ours_unavailable(void)
{
  apr_hash_index_t *hi;

  for (hi = apr_hash_first(test_pool, our_blocks); hi;
       hi = apr_hash_next(hi))
    if (!strstr(apr_hash_this_val(hi), "setup-failed"))
      return FALSE;
  return TRUE;
}

static svn_boolean_t skipped;

/* Every report of ours equals stock's: outcome, conflict path, message,
   the merged tree with its ids, and the node-rev fields merge owns. */
static void
test_ours_matches_stock(void **state)
{
  apr_hash_index_t *hi;
  int differ = 0;

  assert_non_null(strstr(our_module, "libsvn_fs_fs/.libs"));
  if (ours_unavailable())
    {
      skipped = TRUE;
      skip();
    }
  for (hi = apr_hash_first(test_pool, stock_blocks); hi;
       hi = apr_hash_next(hi))
    {
      const char *key = apr_hash_this_key(hi);
      const char *ours = svn_hash_gets(our_blocks, key);

      if (!ours || strcmp(ours, apr_hash_this_val(hi)) != 0)
        {
          print_message("%s differs.\nstock:%s\nours:%s\n", key,
                        (const char *)apr_hash_this_val(hi),
                        ours ? ours : "(missing)");
          differ++;
        }
    }
  assert_int_equal(0, differ);
}

int
main(int argc, char **argv)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_stock_outcomes),
    cmocka_unit_test(test_ours_matches_stock),
  };
  int rc;

  if (argc >= 3 && strcmp(argv[1], "--run") == 0)
    return run_all(argv[2], argc > 3 ? argv[3] : NULL);
  apr_initialize();
  test_pool = svn_pool_create(NULL);
  if (svn_fs_initialize(test_pool))
    return 1;
  rc = _cmocka_run_group_tests("merge", tests, 2, setup_runs, NULL);
  svn_pool_destroy(test_pool);
  apr_terminate();
  return rc ? rc : skipped ? 77 : 0;
}
