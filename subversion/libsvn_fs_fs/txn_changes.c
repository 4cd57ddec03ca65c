/* txn_changes.c --- folding a transaction's "changes" file into one
 * change per path (txn_store.h; doc/format/transactions.md, TXN-9).
 *
 * The file is a log: every mutation appends one entry, so a path may
 * appear many times.  Readers (commit, svn_fs_paths_changed on a txn
 * root) want the net effect per path.  The rules, in the order they are
 * checked for an entry E on a path that already has a folded change O:
 *
 *   TXN-9a  E has no node-rev id and is not a reset        -> corrupt
 *   TXN-9b  E's id differs from O's and O is not a delete   -> corrupt
 *   TXN-9c  O is a delete and E is not add/replace/reset    -> corrupt
 *   TXN-9d  E is an add and O is not a delete               -> corrupt
 *
 *   E \ O      any
 *   reset      drop O
 *   delete     O add: drop O; O a replace: back to the delete it replaced
 *              (the add is undone, as for O add); otherwise O becomes a
 *              delete (mods from E, no copy source)
 *   add/repl.  O becomes a replace with E's id, kind, mods and copy source
 *   modify     O keeps its kind; text/prop/mergeinfo flags are or-ed in
 *
 * Without O, E is taken as is (a reset is dropped).  After a delete or a
 * replace every folded change strictly below E's path is dropped: those
 * nodes are gone with their parent.
 *
 * Pure functions; no I/O.
 */
#include <string.h>

#include <apr_strings.h>
#include "svn_pools.h"

#include "changes_codec.h"
#include "corrupt.h"
#include "id.h"
#include "txn_store.h"

/* What the hash holds for a path: the folded change, and, while that is
   a replace, the delete it replaced, so that deleting the replacement
   again leaves the original delete (its node-rev id and kind), as the
   stock module reports.  Every value of a folded hash is one of these,
   made by change_dup. */
typedef struct folded_t
{
  svn_fs_fs__change_t change;         /* first: the hash's value */
  const svn_fs_fs__change_t *replaced; /* a delete, or NULL */
} folded_t;

/* Deep copy of CHANGE in POOL, as a folded_t that replaced nothing. */
static svn_fs_fs__change_t *
change_dup(const svn_fs_fs__change_t *change, apr_pool_t *pool)
{
  folded_t *f = apr_pcalloc(pool, sizeof(*f));
  svn_fs_fs__change_t *c = &f->change;

  *c = *change;
  c->path.data = apr_pstrmemdup(pool, change->path.data, change->path.len);
  if (change->noderev_id)
    c->noderev_id = svn_fs_fs__id_copy(change->noderev_id, pool);
  if (change->copyfrom_path)
    c->copyfrom_path = apr_pstrdup(pool, change->copyfrom_path);
  return c;
}

/* TXN-9a..d: may CHANGE follow OLD (NULL: none) on the same path? */
static svn_error_t *
check_order(const svn_fs_fs__change_t *old, const svn_fs_fs__change_t *change,
            const char *where)
{
  svn_fs_path_change_kind_t kind = change->change_kind;

  if (!change->noderev_id && kind != svn_fs_path_change_reset)
    return svn_fs_fs__corrupt("TXN-9a", where,
                              "Missing required node revision ID");
  if (!old)
    return SVN_NO_ERROR;
  if (change->noderev_id && old->noderev_id
      && !svn_fs_fs__id_eq(old->noderev_id, change->noderev_id)
      && old->change_kind != svn_fs_path_change_delete)
    return svn_fs_fs__corrupt("TXN-9b", where, "Invalid change ordering: "
                              "new node revision ID without delete");
  if (old->change_kind == svn_fs_path_change_delete
      && kind != svn_fs_path_change_add
      && kind != svn_fs_path_change_replace
      && kind != svn_fs_path_change_reset)
    return svn_fs_fs__corrupt("TXN-9c", where, "Invalid change ordering: "
                              "non-add change on deleted path");
  if (kind == svn_fs_path_change_add
      && old->change_kind != svn_fs_path_change_delete)
    return svn_fs_fs__corrupt("TXN-9d", where, "Invalid change ordering: "
                              "add change on preexisting path");
  return SVN_NO_ERROR;
}

/* Fold CHANGE into the existing OLD (a copy owned by the hash) and return
   what should be stored: OLD itself, or NULL to drop the path. */
static svn_fs_fs__change_t *
fold_into(svn_fs_fs__change_t *old, const svn_fs_fs__change_t *change,
          apr_pool_t *pool)
{
  folded_t *f = (folded_t *)old;

  switch (change->change_kind)
    {
      case svn_fs_path_change_reset:
        return NULL;
      case svn_fs_path_change_delete:
        if (old->change_kind == svn_fs_path_change_add)
          return NULL;
        if (old->change_kind == svn_fs_path_change_replace && f->replaced)
          return change_dup(f->replaced, pool);
        old->change_kind = svn_fs_path_change_delete;
        old->text_mod = change->text_mod;
        old->prop_mod = change->prop_mod;
        old->mergeinfo_mod = change->mergeinfo_mod;
        old->copyfrom_known = TRUE;
        old->copyfrom_rev = SVN_INVALID_REVNUM;
        old->copyfrom_path = NULL;
        return old;
      case svn_fs_path_change_add:
      case svn_fs_path_change_replace:
        if (old->change_kind == svn_fs_path_change_delete)
          f->replaced = change_dup(old, pool);
        old->change_kind = svn_fs_path_change_replace;
        old->noderev_id = svn_fs_fs__id_copy(change->noderev_id, pool);
        old->text_mod = change->text_mod;
        old->prop_mod = change->prop_mod;
        old->mergeinfo_mod = change->mergeinfo_mod;
        old->node_kind = change->node_kind;
        old->copyfrom_known = change->copyfrom_known;
        old->copyfrom_rev = change->copyfrom_rev;
        old->copyfrom_path = change->copyfrom_path
                           ? apr_pstrdup(pool, change->copyfrom_path) : NULL;
        return old;
      default:
        old->text_mod = old->text_mod || change->text_mod;
        old->prop_mod = old->prop_mod || change->prop_mod;
        if (change->mergeinfo_mod == svn_tristate_true)
          old->mergeinfo_mod = svn_tristate_true;
        return old;
    }
}

/* TRUE if KEY names a path strictly below PATH.  Plain byte comparison:
   paths come from disk and need not be canonical, and the libsvn_subr
   helpers assert canonical input (an abort, not an error). */
static svn_boolean_t
is_below(const char *path, const char *key)
{
  apr_size_t len = strlen(path);

  if (strncmp(path, key, len) != 0 || key[len] == '\0')
    return FALSE;
  /* "/" is everyone's parent; "/d" is the parent of "/d/x", not "/dx". */
  return (len > 0 && path[len - 1] == '/') || key[len] == '/';
}

/* Drop every change in CHANGES strictly below PATH. */
static void
drop_descendants(apr_hash_t *changes, const char *path,
                 apr_pool_t *scratch_pool)
{
  apr_hash_index_t *hi;

  for (hi = apr_hash_first(scratch_pool, changes); hi; hi = apr_hash_next(hi))
    {
      const char *key = apr_hash_this_key(hi);

      /* Removing the entry under the iterator is allowed by APR. */
      if (is_below(path, key))
        apr_hash_set(changes, key, APR_HASH_KEY_STRING, NULL);
    }
}

svn_error_t *
svn_fs_fs__txn_changes_fold(apr_hash_t *changes,
                            const svn_fs_fs__change_t *change,
                            const char *where, apr_pool_t *result_pool,
                            apr_pool_t *scratch_pool)
{
  const char *path = change->path.data;
  svn_fs_fs__change_t *old = apr_hash_get(changes, path, APR_HASH_KEY_STRING);
  svn_fs_fs__change_t *folded;

  SVN_ERR(check_order(old, change, where));
  if (old)
    folded = fold_into(old, change, result_pool);
  else if (change->change_kind == svn_fs_path_change_reset)
    folded = NULL;
  else
    folded = change_dup(change, result_pool);
  if (folded)
    apr_hash_set(changes, folded->path.data, APR_HASH_KEY_STRING, folded);
  else if (old)
    apr_hash_set(changes, path, APR_HASH_KEY_STRING, NULL);

  if (change->change_kind == svn_fs_path_change_delete
      || change->change_kind == svn_fs_path_change_replace)
    drop_descendants(changes, path, scratch_pool);
  return SVN_NO_ERROR;
}

svn_error_t *
svn_fs_fs__txn_changes_fold_some(apr_hash_t *changes, apr_size_t *consumed,
                                 const char *data, apr_size_t len,
                                 const char *where, apr_pool_t *result_pool,
                                 apr_pool_t *scratch_pool)
{
  apr_pool_t *iterpool = svn_pool_create(scratch_pool);
  apr_size_t pos = 0;

  while (pos < len)
    {
      apr_size_t n;
      svn_fs_fs__change_t *change;
      svn_fs_fs__change_scan_t what = svn_fs_fs__change_scan(&n, data + pos,
                                                             len - pos);

      /* A transaction's list has no terminator (TXN-9). */
      if (what == svn_fs_fs__change_scan_end)
        return svn_fs_fs__corrupt("TXN-9", where,
                                  "Unexpected empty line in changes file");
      /* The rest may come with the caller's next chunk. */
      if (what == svn_fs_fs__change_scan_incomplete)
        break;
      svn_pool_clear(iterpool);
      SVN_ERR(svn_fs_fs__change_parse(&change, data + pos, n, TRUE, where,
                                      iterpool));
      SVN_ERR(svn_fs_fs__txn_changes_fold(changes, change, where,
                                          result_pool, iterpool));
      pos += n;
    }
  svn_pool_destroy(iterpool);
  *consumed = pos;
  return SVN_NO_ERROR;
}

svn_error_t *
svn_fs_fs__txn_changes_parse_fold(apr_hash_t **changes, const char *data,
                                  apr_size_t len, const char *where,
                                  apr_pool_t *result_pool,
                                  apr_pool_t *scratch_pool)
{
  apr_hash_t *result = apr_hash_make(result_pool);
  apr_size_t consumed;

  SVN_ERR(svn_fs_fs__txn_changes_fold_some(result, &consumed, data, len,
                                           where, result_pool,
                                           scratch_pool));
  /* No torn tail either (TXN-9). */
  if (consumed < len)
    return svn_fs_fs__corrupt("TXN-9", where,
                              "Changes file ends inside an entry");
  *changes = result;
  return SVN_NO_ERROR;
}
