/* fs_vtable.c --- the fs vtable: filesystem-wide operations (loader glue).
 *
 * Each entry adapts one svn_fs_* call to the storage layer.  Entries that
 * are not implemented yet fail with SVN_ERR_UNSUPPORTED_FEATURE.
 */
#include "corrupt.h"
#include "repo.h"

static svn_error_t *
fs_youngest_rev(svn_revnum_t *youngest_p, svn_fs_t *fs, apr_pool_t *pool)
{
  return svn_fs_fs__unsupported("youngest_rev");
}

static svn_error_t *
fs_refresh_revprops(svn_fs_t *fs, apr_pool_t *scratch_pool)
{
  return svn_fs_fs__unsupported("refresh_revprops");
}

static svn_error_t *
fs_revision_prop(svn_string_t **value_p, svn_fs_t *fs, svn_revnum_t rev, const char *propname, svn_boolean_t refresh, apr_pool_t *result_pool, apr_pool_t *scratch_pool)
{
  return svn_fs_fs__unsupported("revision_prop");
}

static svn_error_t *
fs_revision_proplist(apr_hash_t **table_p, svn_fs_t *fs, svn_revnum_t rev, svn_boolean_t refresh, apr_pool_t *result_pool, apr_pool_t *scratch_pool)
{
  return svn_fs_fs__unsupported("revision_proplist");
}

static svn_error_t *
fs_change_rev_prop(svn_fs_t *fs, svn_revnum_t rev, const char *name, const svn_string_t *const *old_value_p, const svn_string_t *value, apr_pool_t *pool)
{
  return svn_fs_fs__unsupported("change_rev_prop");
}

static svn_error_t *
fs_set_uuid(svn_fs_t *fs, const char *uuid, apr_pool_t *pool)
{
  return svn_fs_fs__unsupported("set_uuid");
}

static svn_error_t *
fs_revision_root(svn_fs_root_t **root_p, svn_fs_t *fs, svn_revnum_t rev, apr_pool_t *pool)
{
  return svn_fs_fs__unsupported("revision_root");
}

static svn_error_t *
fs_begin_txn(svn_fs_txn_t **txn_p, svn_fs_t *fs, svn_revnum_t rev, apr_uint32_t flags, apr_pool_t *pool)
{
  return svn_fs_fs__unsupported("begin_txn");
}

static svn_error_t *
fs_open_txn(svn_fs_txn_t **txn, svn_fs_t *fs, const char *name, apr_pool_t *pool)
{
  return svn_fs_fs__unsupported("open_txn");
}

static svn_error_t *
fs_purge_txn(svn_fs_t *fs, const char *txn_id, apr_pool_t *pool)
{
  return svn_fs_fs__unsupported("purge_txn");
}

static svn_error_t *
fs_list_transactions(apr_array_header_t **names_p, svn_fs_t *fs, apr_pool_t *pool)
{
  return svn_fs_fs__unsupported("list_transactions");
}

static svn_error_t *
fs_deltify(svn_fs_t *fs, svn_revnum_t rev, apr_pool_t *pool)
{
  return svn_fs_fs__unsupported("deltify");
}

static svn_error_t *
fs_lock(svn_fs_t *fs, apr_hash_t *targets, const char *comment, svn_boolean_t is_dav_comment, apr_time_t expiration_date, svn_boolean_t steal_lock, svn_fs_lock_callback_t lock_callback, void *lock_baton, apr_pool_t *result_pool, apr_pool_t *scratch_pool)
{
  return svn_fs_fs__unsupported("lock");
}

static svn_error_t *
fs_generate_lock_token(const char **token, svn_fs_t *fs, apr_pool_t *pool)
{
  return svn_fs_fs__unsupported("generate_lock_token");
}

static svn_error_t *
fs_unlock(svn_fs_t *fs, apr_hash_t *targets, svn_boolean_t break_lock, svn_fs_lock_callback_t lock_callback, void *lock_baton, apr_pool_t *result_pool, apr_pool_t *scratch_pool)
{
  return svn_fs_fs__unsupported("unlock");
}

static svn_error_t *
fs_get_lock(svn_lock_t **lock, svn_fs_t *fs, const char *path, apr_pool_t *pool)
{
  return svn_fs_fs__unsupported("get_lock");
}

static svn_error_t *
fs_get_locks(svn_fs_t *fs, const char *path, svn_depth_t depth, svn_fs_get_locks_callback_t get_locks_func, void *get_locks_baton, apr_pool_t *pool)
{
  return svn_fs_fs__unsupported("get_locks");
}

static svn_error_t *
fs_info_format(int *fs_format, svn_version_t **supports_version, svn_fs_t *fs, apr_pool_t *result_pool, apr_pool_t *scratch_pool)
{
  return svn_fs_fs__unsupported("info_format");
}

static svn_error_t *
fs_info_config_files(apr_array_header_t **files, svn_fs_t *fs, apr_pool_t *result_pool, apr_pool_t *scratch_pool)
{
  return svn_fs_fs__unsupported("info_config_files");
}

static svn_error_t *
fs_info_fsap(const void **fsap_info, svn_fs_t *fs, apr_pool_t *result_pool, apr_pool_t *scratch_pool)
{
  return svn_fs_fs__unsupported("info_fsap");
}

static svn_error_t *
fs_verify_root(svn_fs_root_t *root, apr_pool_t *pool)
{
  return svn_fs_fs__unsupported("verify_root");
}

static svn_error_t *
fs_freeze(svn_fs_t *fs, svn_fs_freeze_func_t freeze_func, void *freeze_baton, apr_pool_t *pool)
{
  return svn_fs_fs__unsupported("freeze");
}

static svn_error_t *
fs_bdb_set_errcall(svn_fs_t *fs, void (*handler)(const char *errpfx, char *msg))
{
  return svn_fs_fs__unsupported("bdb_set_errcall");
}

static svn_error_t *
fs_ioctl(svn_fs_t *fs, svn_fs_ioctl_code_t ctlcode, void *input, void **output_p, svn_cancel_func_t cancel_func, void *cancel_baton, apr_pool_t *result_pool, apr_pool_t *scratch_pool)
{
  return svn_fs_fs__unsupported("ioctl");
}

const fs_vtable_t svn_fs_fs__fs_vtable = {
  fs_youngest_rev,
  fs_refresh_revprops,
  fs_revision_prop,
  fs_revision_proplist,
  fs_change_rev_prop,
  fs_set_uuid,
  fs_revision_root,
  fs_begin_txn,
  fs_open_txn,
  fs_purge_txn,
  fs_list_transactions,
  fs_deltify,
  fs_lock,
  fs_generate_lock_token,
  fs_unlock,
  fs_get_lock,
  fs_get_locks,
  fs_info_format,
  fs_info_config_files,
  fs_info_fsap,
  fs_verify_root,
  fs_freeze,
  fs_bdb_set_errcall,
  fs_ioctl
};
