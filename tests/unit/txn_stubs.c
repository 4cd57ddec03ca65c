/* txn_stubs.c --- TEMPORARY weak stand-ins for the write-path functions
 * that test_txn needs before their branches land (txn_store.c: h-store;
 * tree_mutate.c: h-mut; merge.c: h-merge; commit.c: h-commit).
 *
 * Linked into tests/unit/test_txn only, never into the module.  Every
 * definition is weak: once the real one is linked in, it wins.  The
 * txn_store stand-ins do just enough for the transaction life cycle and
 * for reading transactions the stock module wrote; the mutation, merge
 * and commit ones refuse.  Delete this file when those branches are in.
 */
#include <string.h>
#include <apr_strings.h>

#include "svn_dirent_uri.h"
#include "svn_hash.h"
#include "svn_io.h"
#include "svn_pools.h"

#include "commit.h"
#include "corrupt.h"
#include "hashdump.h"
#include "id.h"
#include "merge.h"
#include "node.h"
#include "noderev_codec.h"
#include "paths.h"
#include "tree_mutate.h"
#include "txn_store.h"

#define WEAK __attribute__((weak))

WEAK const char *
svn_fs_fs__txn_name(const svn_fs_fs__txn_id_t *txn_id, apr_pool_t *pool)
{
  char buf[SVN_FS_FS__ID_PART_MAX];

  svn_fs_fs__id_txn_unparse(buf, txn_id);
  return apr_pstrdup(pool, buf);
}

WEAK const char *
svn_fs_fs__txn_path(svn_fs_t *fs, const svn_fs_fs__txn_id_t *txn_id,
                    const char *name, apr_pool_t *pool)
{
  const char *dir = svn_dirent_join(
    svn_fs_fs__path_db(fs, "transactions", pool),
    apr_pstrcat(pool, svn_fs_fs__txn_name(txn_id, pool), ".txn",
                SVN_VA_NULL), pool);

  return name ? svn_dirent_join(dir, name, pool) : dir;
}

static const char *
protorev_path(svn_fs_t *fs, const svn_fs_fs__txn_id_t *txn_id,
              const char *ext, apr_pool_t *pool)
{
  return svn_dirent_join(svn_fs_fs__path_db(fs, "txn-protorevs", pool),
                         apr_pstrcat(pool, svn_fs_fs__txn_name(txn_id, pool),
                                     ext, SVN_VA_NULL), pool);
}

WEAK svn_error_t *
svn_fs_fs__txn_get_props(apr_hash_t **props, svn_fs_t *fs,
                         const svn_fs_fs__txn_id_t *txn_id,
                         svn_boolean_t final, apr_pool_t *result_pool,
                         apr_pool_t *scratch_pool)
{
  const char *path = svn_fs_fs__txn_path(fs, txn_id,
                                         final ? "props-final" : "props",
                                         scratch_pool);
  svn_stringbuf_t *text;

  SVN_ERR(svn_stringbuf_from_file2(&text, path, scratch_pool));
  return svn_error_trace(svn_fs_fs__hashdump_parse(props, NULL, text->data,
                                                   text->len, path,
                                                   result_pool));
}

WEAK svn_error_t *
svn_fs_fs__txn_set_props(svn_fs_t *fs, const svn_fs_fs__txn_id_t *txn_id,
                         apr_hash_t *props, svn_boolean_t final,
                         apr_pool_t *scratch_pool)
{
  const char *path = svn_fs_fs__txn_path(fs, txn_id,
                                         final ? "props-final" : "props",
                                         scratch_pool);
  svn_stringbuf_t *text = svn_stringbuf_create_empty(scratch_pool);

  svn_fs_fs__hashdump_unparse(text, props, scratch_pool);
  return svn_error_trace(svn_io_write_atomic2(path, text->data, text->len,
                                              NULL, FALSE, scratch_pool));
}

/* Next sequence number from db/txn-current (no locking: tests only). */
static svn_error_t *
next_seq(apr_uint64_t *seq, svn_fs_t *fs, apr_pool_t *pool)
{
  const char *path = svn_fs_fs__path_db(fs, "txn-current", pool);
  svn_stringbuf_t *text;
  char buf[SVN_FS_FS__ID_PART_MAX];
  svn_fs_fs__id_part_t part;

  SVN_ERR(svn_stringbuf_from_file2(&text, path, pool));
  svn_stringbuf_strip_whitespace(text);
  part.revision = 0;
  if (!svn_fs_fs__id_txn_parse(&part, apr_pstrcat(pool, "0-", text->data,
                                                  SVN_VA_NULL),
                               text->len + 2))
    return svn_fs_fs__corrupt("TXN-1", path, "Bad txn-current");
  *seq = part.number;
  part.number++;
  svn_fs_fs__id_txn_unparse(buf, &part);
  return svn_error_trace(svn_io_write_atomic2(
           path, apr_pstrcat(pool, buf + 2, "\n", SVN_VA_NULL),
           strlen(buf + 2) + 1, NULL, FALSE, pool));
}

WEAK svn_error_t *
svn_fs_fs__txn_create(svn_fs_fs__txn_id_t *txn_id, svn_fs_t *fs,
                      svn_revnum_t base_rev, apr_pool_t *scratch_pool)
{
  const svn_fs_fs__id_t *root_id;
  svn_fs_fs__noderev_t *root;
  svn_fs_fs__id_part_t zero = { 0, 0 };
  svn_stringbuf_t *text = svn_stringbuf_create_empty(scratch_pool);
  apr_pool_t *pool = scratch_pool;

  txn_id->revision = base_rev;
  SVN_ERR(next_seq(&txn_id->number, fs, pool));
  SVN_ERR(svn_io_dir_make(svn_fs_fs__txn_path(fs, txn_id, NULL, pool),
                          APR_OS_DEFAULT, pool));
  SVN_ERR(svn_io_file_create_empty(protorev_path(fs, txn_id, ".rev", pool),
                                   pool));
  SVN_ERR(svn_io_file_create_empty(protorev_path(fs, txn_id, ".rev-lock",
                                                 pool), pool));
  SVN_ERR(svn_io_file_create_empty(svn_fs_fs__txn_path(fs, txn_id, "changes",
                                                       pool), pool));
  SVN_ERR(svn_io_file_create(svn_fs_fs__txn_path(fs, txn_id, "next-ids",
                                                 pool), "0 0\n", pool));
  SVN_ERR(svn_fs_fs__rev_root_id(&root_id, fs, base_rev, pool, pool));
  SVN_ERR(svn_fs_fs__get_noderev(&root, fs, root_id, pool, pool));
  root->predecessor_id = root_id;
  root->predecessor_count++;
  root->id = svn_fs_fs__id_create_txn(&zero, &zero, txn_id, pool);
  root->copyfrom_rev = SVN_INVALID_REVNUM;
  root->copyfrom_path = NULL;
  root->is_fresh_txn_root = TRUE;
  svn_fs_fs__noderev_unparse(text, root, SVN_FS_FS__DATA(fs)->format, pool);
  return svn_error_trace(svn_io_file_create(
           svn_fs_fs__txn_path(fs, txn_id, "node.0.0", pool), text->data,
           pool));
}

WEAK svn_error_t *
svn_fs_fs__txn_purge(svn_fs_t *fs, const svn_fs_fs__txn_id_t *txn_id,
                     apr_pool_t *scratch_pool)
{
  SVN_ERR(svn_io_remove_dir2(svn_fs_fs__txn_path(fs, txn_id, NULL,
                                                 scratch_pool),
                             TRUE, NULL, NULL, scratch_pool));
  SVN_ERR(svn_io_remove_file2(protorev_path(fs, txn_id, ".rev",
                                            scratch_pool), TRUE,
                              scratch_pool));
  return svn_error_trace(svn_io_remove_file2(
           protorev_path(fs, txn_id, ".rev-lock", scratch_pool), TRUE,
           scratch_pool));
}

WEAK svn_error_t *
svn_fs_fs__txn_list(apr_array_header_t **names, svn_fs_t *fs,
                    apr_pool_t *result_pool, apr_pool_t *scratch_pool)
{
  apr_hash_t *dirents;
  apr_hash_index_t *hi;

  SVN_ERR(svn_io_get_dirents3(&dirents, svn_fs_fs__path_db(fs, "transactions",
                                                          scratch_pool),
                              TRUE, scratch_pool, scratch_pool));
  *names = apr_array_make(result_pool, 1, sizeof(const char *));
  for (hi = apr_hash_first(scratch_pool, dirents); hi; hi = apr_hash_next(hi))
    {
      const char *name = apr_hash_this_key(hi);
      apr_size_t len = strlen(name);

      if (len > 4 && strcmp(name + len - 4, ".txn") == 0)
        APR_ARRAY_PUSH(*names, const char *)
          = apr_pstrmemdup(result_pool, name, len - 4);
    }
  return SVN_NO_ERROR;
}

WEAK svn_error_t *
svn_fs_fs__txn_changes(apr_hash_t **changes, svn_fs_t *fs,
                       const svn_fs_fs__txn_id_t *txn_id,
                       apr_pool_t *result_pool, apr_pool_t *scratch_pool)
{
  return svn_fs_fs__unsupported("txn_changes (stub)");
}

/* ---- mutations, merge, commit: refused ---------------------------- */

WEAK svn_error_t *
svn_fs_fs__txn_make_dir(svn_fs_root_t *root, const char *path,
                        apr_pool_t *pool)
{
  return svn_fs_fs__unsupported("make_dir (stub)");
}

WEAK svn_error_t *
svn_fs_fs__txn_make_file(svn_fs_root_t *root, const char *path,
                         apr_pool_t *pool)
{
  return svn_fs_fs__unsupported("make_file (stub)");
}

WEAK svn_error_t *
svn_fs_fs__txn_delete_node(svn_fs_root_t *root, const char *path,
                           apr_pool_t *pool)
{
  return svn_fs_fs__unsupported("delete_node (stub)");
}

WEAK svn_error_t *
svn_fs_fs__txn_copy(svn_fs_root_t *from_root, const char *from_path,
                    svn_fs_root_t *to_root, const char *to_path,
                    apr_pool_t *pool)
{
  return svn_fs_fs__unsupported("copy (stub)");
}

WEAK svn_error_t *
svn_fs_fs__txn_revision_link(svn_fs_root_t *from_root, svn_fs_root_t *to_root,
                             const char *path, apr_pool_t *pool)
{
  return svn_fs_fs__unsupported("revision_link (stub)");
}

WEAK svn_error_t *
svn_fs_fs__txn_change_node_prop(svn_fs_root_t *root, const char *path,
                                const char *name, const svn_string_t *value,
                                apr_pool_t *pool)
{
  return svn_fs_fs__unsupported("change_node_prop (stub)");
}

WEAK svn_error_t *
svn_fs_fs__txn_apply_textdelta(svn_txdelta_window_handler_t *contents_p,
                               void **contents_baton_p, svn_fs_root_t *root,
                               const char *path,
                               svn_checksum_t *base_checksum,
                               svn_checksum_t *result_checksum,
                               apr_pool_t *pool)
{
  return svn_fs_fs__unsupported("apply_textdelta (stub)");
}

WEAK svn_error_t *
svn_fs_fs__txn_apply_text(svn_stream_t **contents_p, svn_fs_root_t *root,
                          const char *path, svn_checksum_t *result_checksum,
                          apr_pool_t *pool)
{
  return svn_fs_fs__unsupported("apply_text (stub)");
}

WEAK svn_error_t *
svn_fs_fs__merge(const char **conflict_p, svn_fs_root_t *source_root,
                 const char *source_path, svn_fs_root_t *target_root,
                 const char *target_path, svn_fs_root_t *ancestor_root,
                 const char *ancestor_path, apr_pool_t *pool)
{
  return svn_fs_fs__unsupported("merge (stub)");
}

WEAK svn_error_t *
svn_fs_fs__commit_txn(const char **conflict_p, svn_revnum_t *new_rev,
                      svn_fs_txn_t *txn, apr_pool_t *pool)
{
  return svn_fs_fs__unsupported("commit (stub)");
}
