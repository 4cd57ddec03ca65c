/* txn.c --- transactions as the FS API sees them (semantics layer).
 *
 * Owns: the fs vtable's transaction entries (begin, open, purge, list),
 * the txn vtable (commit delegated to commit.h; abort; transaction
 * properties; the root) and the rules the stock module applies to
 * transaction properties:
 *
 *   - begin_txn writes svn:date = now, plus one internal property per
 *     flag: svn:check-ood = "true", svn:check-locks = "true",
 *     svn:client-date = "0";
 *   - the internal properties are invisible to get_prop / get_proplist
 *     and refused by change_prop(s) (SVN_ERR_INCORRECT_PARAMS);
 *   - any change of svn:date while svn:client-date is present sets it
 *     to "1", so that commit keeps the client's date instead of stamping
 *     its own;
 *   - svn_fs_txn_root derives the root's flags from the internal
 *     properties, so a transaction opened by name behaves like the one
 *     begun with the flags.
 *
 * Files on disk are txn_store.h's; transaction roots are tree.c's.
 */
#include <apr_strings.h>

#include "svn_dirent_uri.h"
#include "svn_hash.h"
#include "svn_io.h"
#include "svn_pools.h"
#include "svn_props.h"
#include "svn_time.h"
#include "private/svn_fs_util.h"

#include "commit.h"
#include "id.h"
#include "lookup.h"
#include "node.h"
#include "txn.h"
#include "txn_store.h"

/* The values stock writes for the internal properties. */
#define FLAG_PROP_TRUE "true"
#define CLIENT_DATE_UNSET "0"
#define CLIENT_DATE_SET "1"

static const txn_vtable_t txn_vtable;

/* Our id of TXN. */
static const svn_fs_fs__txn_id_t *
txn_id_of(svn_fs_txn_t *txn)
{
  return &((svn_fs_fs__txn_data_t *)txn->fsap_data)->txn_id;
}

/* TRUE for the properties begin_txn sets from its flags. */
static svn_boolean_t
is_internal_prop(const char *name)
{
  return strcmp(name, SVN_FS__PROP_TXN_CHECK_OOD) == 0
         || strcmp(name, SVN_FS__PROP_TXN_CHECK_LOCKS) == 0
         || strcmp(name, SVN_FS__PROP_TXN_CLIENT_DATE) == 0;
}

/* Parse transaction NAME, with stock's error for anything else. */
static svn_error_t *
parse_name(svn_fs_fs__txn_id_t *txn_id, const char *name)
{
  if (!svn_fs_fs__id_txn_parse(txn_id, name, strlen(name)))
    return svn_error_createf(SVN_ERR_FS_MALFORMED_TXN_ID, NULL,
                             "malformed txn id '%s'", name);
  return SVN_NO_ERROR;
}

/* SVN_ERR_FS_NO_SUCH_TRANSACTION, worded as stock does, unless the
   directory of TXN_ID (named NAME) exists. */
static svn_error_t *
check_exists(svn_fs_t *fs, const svn_fs_fs__txn_id_t *txn_id,
             const char *name, apr_pool_t *scratch_pool)
{
  svn_node_kind_t kind;

  SVN_ERR(svn_io_check_path(svn_fs_fs__txn_path(fs, txn_id, NULL,
                                                scratch_pool),
                            &kind, scratch_pool));
  if (kind != svn_node_dir)
    return svn_error_createf(SVN_ERR_FS_NO_SUCH_TRANSACTION, NULL,
                             "No such transaction '%s'", name);
  return SVN_NO_ERROR;
}

/* A transaction object for TXN_ID of FS based on BASE_REV, in POOL. */
static svn_fs_txn_t *
make_txn(svn_fs_t *fs, const svn_fs_fs__txn_id_t *txn_id,
         svn_revnum_t base_rev, apr_pool_t *pool)
{
  svn_fs_txn_t *txn = apr_pcalloc(pool, sizeof(*txn));
  svn_fs_fs__txn_data_t *ftd = apr_pcalloc(pool, sizeof(*ftd));

  ftd->txn_id = *txn_id;
  txn->fs = fs;
  txn->base_rev = base_rev;
  txn->id = svn_fs_fs__txn_name(txn_id, pool);
  txn->vtable = &txn_vtable;
  txn->fsap_data = ftd;
  return txn;
}

/* ------------------------------------------------------------------ */
/* Transaction properties                                              */

/* All properties of TXN as stored, internal ones included. */
static svn_error_t *
read_props(apr_hash_t **props, svn_fs_txn_t *txn, apr_pool_t *result_pool,
           apr_pool_t *scratch_pool)
{
  return svn_error_trace(svn_fs_fs__txn_get_props(props, txn->fs,
                                                  txn_id_of(txn), FALSE,
                                                  result_pool,
                                                  scratch_pool));
}

static svn_error_t *
txn_get_proplist(apr_hash_t **table_p, svn_fs_txn_t *txn, apr_pool_t *pool)
{
  apr_hash_t *props;

  SVN_ERR(svn_fs__check_fs(txn->fs, TRUE));
  SVN_ERR(read_props(&props, txn, pool, pool));
  svn_hash_sets(props, SVN_FS__PROP_TXN_CHECK_OOD, NULL);
  svn_hash_sets(props, SVN_FS__PROP_TXN_CHECK_LOCKS, NULL);
  svn_hash_sets(props, SVN_FS__PROP_TXN_CLIENT_DATE, NULL);
  *table_p = props;
  return SVN_NO_ERROR;
}

static svn_error_t *
txn_get_prop(svn_string_t **value_p, svn_fs_txn_t *txn, const char *propname,
             apr_pool_t *pool)
{
  apr_hash_t *props;

  SVN_ERR(txn_get_proplist(&props, txn, pool));
  *value_p = svn_hash_gets(props, propname);
  return SVN_NO_ERROR;
}

/* Apply PROPS (svn_prop_t, NULL value = delete) to TXN's property file:
   refuse the internal properties before changing anything, and mark a
   client-supplied svn:date. */
static svn_error_t *
txn_change_props(svn_fs_txn_t *txn, const apr_array_header_t *props,
                 apr_pool_t *pool)
{
  apr_hash_t *stored;
  int i;

  SVN_ERR(svn_fs__check_fs(txn->fs, TRUE));
  for (i = 0; i < props->nelts; i++)
    {
      const svn_prop_t *prop = &APR_ARRAY_IDX(props, i, svn_prop_t);

      if (is_internal_prop(prop->name))
        return svn_error_createf(SVN_ERR_INCORRECT_PARAMS, NULL,
                                 "Attempt to modify internal transaction "
                                 "property '%s'", prop->name);
    }
  SVN_ERR(read_props(&stored, txn, pool, pool));
  for (i = 0; i < props->nelts; i++)
    {
      const svn_prop_t *prop = &APR_ARRAY_IDX(props, i, svn_prop_t);

      if (strcmp(prop->name, SVN_PROP_REVISION_DATE) == 0
          && svn_hash_gets(stored, SVN_FS__PROP_TXN_CLIENT_DATE))
        svn_hash_sets(stored, SVN_FS__PROP_TXN_CLIENT_DATE,
                      svn_string_create(CLIENT_DATE_SET, pool));
      svn_hash_sets(stored, prop->name, prop->value);
    }
  return svn_error_trace(svn_fs_fs__txn_set_props(txn->fs, txn_id_of(txn),
                                                  stored, FALSE, pool));
}

static svn_error_t *
txn_change_prop(svn_fs_txn_t *txn, const char *name,
                const svn_string_t *value, apr_pool_t *pool)
{
  apr_array_header_t *props = apr_array_make(pool, 1, sizeof(svn_prop_t));
  svn_prop_t prop;

  prop.name = name;
  prop.value = value;
  APR_ARRAY_PUSH(props, svn_prop_t) = prop;
  return svn_error_trace(txn_change_props(txn, props, pool));
}

/* ------------------------------------------------------------------ */
/* The txn vtable                                                      */

static svn_error_t *
txn_commit(const char **conflict_p, svn_revnum_t *new_rev, svn_fs_txn_t *txn,
           apr_pool_t *pool)
{
  return svn_error_trace(svn_fs_fs__commit_txn(conflict_p, new_rev, txn,
                                               pool));
}

/* Stock reports a transaction that is already gone as a failed cleanup
   wrapping the error of the missing directory. */
static svn_error_t *
txn_abort(svn_fs_txn_t *txn, apr_pool_t *pool)
{
  SVN_ERR(svn_fs__check_fs(txn->fs, TRUE));
  return svn_error_quick_wrapf(svn_fs_fs__purge_txn(txn->fs, txn->id, pool),
                               "Transaction '%s' cleanup failed", txn->id);
}

static svn_error_t *
txn_vtable_root(svn_fs_root_t **root_p, svn_fs_txn_t *txn, apr_pool_t *pool)
{
  return svn_error_trace(svn_fs_fs__txn_root(root_p, txn, pool));
}

static const txn_vtable_t txn_vtable = {
  txn_commit,
  txn_abort,
  txn_get_prop,
  txn_get_proplist,
  txn_change_prop,
  txn_vtable_root,
  txn_change_props
};

/* ------------------------------------------------------------------ */
/* fs vtable entries                                                   */

/* The properties a new transaction starts with: svn:date and one
   internal property per flag of FLAGS. */
static apr_hash_t *
initial_props(apr_uint32_t flags, apr_pool_t *pool)
{
  apr_hash_t *props = apr_hash_make(pool);

  svn_hash_sets(props, SVN_PROP_REVISION_DATE,
                svn_string_create(svn_time_to_cstring(apr_time_now(), pool),
                                  pool));
  if (flags & SVN_FS_TXN_CHECK_OOD)
    svn_hash_sets(props, SVN_FS__PROP_TXN_CHECK_OOD,
                  svn_string_create(FLAG_PROP_TRUE, pool));
  if (flags & SVN_FS_TXN_CHECK_LOCKS)
    svn_hash_sets(props, SVN_FS__PROP_TXN_CHECK_LOCKS,
                  svn_string_create(FLAG_PROP_TRUE, pool));
  if (flags & SVN_FS_TXN_CLIENT_DATE)
    svn_hash_sets(props, SVN_FS__PROP_TXN_CLIENT_DATE,
                  svn_string_create(CLIENT_DATE_UNSET, pool));
  return props;
}

svn_error_t *
svn_fs_fs__begin_txn(svn_fs_txn_t **txn_p, svn_fs_t *fs, svn_revnum_t rev,
                     apr_uint32_t flags, apr_pool_t *pool)
{
  svn_fs_fs__txn_id_t txn_id;
  svn_error_t *err;

  SVN_ERR(svn_fs__check_fs(fs, TRUE));
  SVN_ERR(svn_fs_fs__ensure_revision_exists(rev, fs, pool));
  SVN_ERR(svn_fs_fs__txn_create(&txn_id, fs, rev, pool));
  /* A transaction without its props file would be half made: remove it
     again if they cannot be written. */
  err = svn_fs_fs__txn_set_props(fs, &txn_id, initial_props(flags, pool),
                                 FALSE, pool);
  if (err)
    return svn_error_compose_create(err, svn_fs_fs__txn_purge(fs, &txn_id,
                                                              pool));
  *txn_p = make_txn(fs, &txn_id, rev, pool);
  return SVN_NO_ERROR;
}

/* The revision TXN_ID is based on now: that of its root's predecessor
   (a commit's merge moves it forward to the youngest revision), or the
   one its name was made from if the root says nothing. */
static svn_error_t *
current_base_rev(svn_revnum_t *base_rev, svn_fs_t *fs,
                 const svn_fs_fs__txn_id_t *txn_id, apr_pool_t *scratch_pool)
{
  svn_fs_fs__id_part_t zero = { 0, 0 };
  svn_fs_fs__noderev_t *root;

  SVN_ERR(svn_fs_fs__get_noderev(&root, fs,
                                 svn_fs_fs__id_create_txn(&zero, &zero,
                                                          txn_id,
                                                          scratch_pool),
                                 scratch_pool, scratch_pool));
  *base_rev = root->predecessor_id
            ? svn_fs_fs__id_rev(root->predecessor_id) : txn_id->revision;
  return SVN_NO_ERROR;
}

svn_error_t *
svn_fs_fs__open_txn(svn_fs_txn_t **txn_p, svn_fs_t *fs, const char *name,
                    apr_pool_t *pool)
{
  svn_fs_fs__txn_id_t txn_id;
  svn_revnum_t base_rev;

  SVN_ERR(svn_fs__check_fs(fs, TRUE));
  SVN_ERR(parse_name(&txn_id, name));
  SVN_ERR(check_exists(fs, &txn_id, name, pool));
  SVN_ERR(current_base_rev(&base_rev, fs, &txn_id, pool));
  *txn_p = make_txn(fs, &txn_id, base_rev, pool);
  return SVN_NO_ERROR;
}

svn_error_t *
svn_fs_fs__purge_txn(svn_fs_t *fs, const char *txn_name, apr_pool_t *pool)
{
  svn_fs_fs__txn_id_t txn_id;
  const char *dir;
  svn_node_kind_t kind;

  SVN_ERR(svn_fs__check_fs(fs, TRUE));
  SVN_ERR(parse_name(&txn_id, txn_name));
  /* Stock fails on a missing transaction with the error of listing its
     directory; txn_store.h tolerates partial leftovers, so ask first. */
  dir = svn_fs_fs__txn_path(fs, &txn_id, NULL, pool);
  SVN_ERR(svn_io_check_path(dir, &kind, pool));
  if (kind == svn_node_none)
    return svn_error_wrap_apr(APR_ENOENT, "Can't open directory '%s'",
                              svn_dirent_local_style(dir, pool));
  return svn_error_trace(svn_fs_fs__txn_purge(fs, &txn_id, pool));
}

svn_error_t *
svn_fs_fs__list_transactions(apr_array_header_t **names_p, svn_fs_t *fs,
                             apr_pool_t *pool)
{
  SVN_ERR(svn_fs__check_fs(fs, TRUE));
  return svn_error_trace(svn_fs_fs__txn_list(names_p, fs, pool, pool));
}

/* ------------------------------------------------------------------ */
/* Transaction roots                                                   */

/* The root's flags come from the stored internal properties, not from
   the flags TXN was begun with, so that every svn_fs_txn_t of the same
   transaction agrees (stock reads them the same way). */
svn_error_t *
svn_fs_fs__txn_root(svn_fs_root_t **root_p, svn_fs_txn_t *txn,
                    apr_pool_t *pool)
{
  apr_hash_t *props;
  apr_uint32_t flags;

  SVN_ERR(svn_fs__check_fs(txn->fs, TRUE));
  SVN_ERR(read_props(&props, txn, pool, pool));
  /* The begin flags live on as internal txn props (TXN-5). */
  flags = (svn_hash_gets(props, SVN_FS__PROP_TXN_CHECK_LOCKS)
           ? SVN_FS_TXN_CHECK_LOCKS : 0)
          | (svn_hash_gets(props, SVN_FS__PROP_TXN_CHECK_OOD)
             ? SVN_FS_TXN_CHECK_OOD : 0);
  return svn_error_trace(svn_fs_fs__txn_root_create(root_p, txn->fs,
                                                    txn_id_of(txn), txn->id,
                                                    txn->base_rev, flags,
                                                    pool));
}
