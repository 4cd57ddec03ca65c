/* fs_vtable.c --- the fs vtable: filesystem-wide operations (loader glue).
 *
 * Each entry adapts one svn_fs_* call to the storage layer (repo.h,
 * revprops.h, locks_*.h), the tree layer (tree.h) or the transaction
 * layer (txn.h, whose entries check the filesystem themselves).
 */
#include <apr_strings.h>

#include "svn_hash.h"
#include "svn_io.h"
#include "svn_props.h"
#include "svn_version.h"
#include "private/svn_fs_util.h"

#include "corrupt.h"
#include "fsconf.h"
#include "locks_read.h"
#include "locks_write.h"
#include "paths.h"
#include "repo.h"
#include "repo_rev_size.h"
#include "repo_repcache.h"
#include "revprops.h"
#include "tree.h"
#include "txn.h"
#include "durable.h"

static svn_error_t *
fs_youngest_rev(svn_revnum_t *youngest_p, svn_fs_t *fs, apr_pool_t *pool)
{
  SVN_ERR(svn_fs__check_fs(fs, TRUE));
  return svn_error_trace(svn_fs_fs__youngest_rev(youngest_p, fs, pool));
}

static svn_error_t *
fs_refresh_revprops(svn_fs_t *fs, apr_pool_t *scratch_pool)
{
  return svn_error_trace(svn_fs_fs__reset_revprop_cache(fs));
}

static svn_error_t *
fs_revision_prop(svn_string_t **value_p, svn_fs_t *fs, svn_revnum_t rev,
                 const char *propname, svn_boolean_t refresh,
                 apr_pool_t *result_pool, apr_pool_t *scratch_pool)
{
  apr_hash_t *props;

  SVN_ERR(svn_fs__check_fs(fs, TRUE));
  SVN_ERR(svn_fs_fs__get_revprops(&props, fs, rev, refresh, result_pool,
                                  scratch_pool));
  *value_p = svn_hash_gets(props, propname);
  return SVN_NO_ERROR;
}

static svn_error_t *
fs_revision_proplist(apr_hash_t **table_p, svn_fs_t *fs, svn_revnum_t rev,
                     svn_boolean_t refresh, apr_pool_t *result_pool,
                     apr_pool_t *scratch_pool)
{
  SVN_ERR(svn_fs__check_fs(fs, TRUE));
  return svn_error_trace(svn_fs_fs__get_revprops(table_p, fs, rev, refresh,
                                                 result_pool, scratch_pool));
}

/* What change_rev_prop does under the write lock. */
typedef struct change_rev_prop_baton_t
{
  svn_fs_t *fs;
  svn_revnum_t rev;
  const char *name;
  const svn_string_t *const *old_value_p;
  const svn_string_t *value;
} change_rev_prop_baton_t;

static svn_error_t *
change_rev_prop_locked(void *baton, apr_pool_t *pool)
{
  change_rev_prop_baton_t *b = baton;
  apr_hash_t *props;
  const svn_string_t *present;

  SVN_ERR(svn_fs_fs__get_revprops(&props, b->fs, b->rev, TRUE, pool, pool));
  present = svn_hash_gets(props, b->name);
  if (b->old_value_p)
    {
      const svn_string_t *wanted = *b->old_value_p;

      if (!(wanted == NULL && present == NULL)
          && !(wanted && present && svn_string_compare(wanted, present)))
        return svn_error_createf(SVN_ERR_FS_PROP_BASEVALUE_MISMATCH, NULL,
                                 "revprop '%s' has unexpected value in "
                                 "filesystem", b->name);
    }
  svn_hash_sets(props, b->name, b->value);
  return svn_error_trace(svn_fs_fs__set_revprops(b->fs, b->rev, props,
                                                 pool));
}

static svn_error_t *
fs_change_rev_prop(svn_fs_t *fs, svn_revnum_t rev, const char *name,
                   const svn_string_t *const *old_value_p,
                   const svn_string_t *value, apr_pool_t *pool)
{
  change_rev_prop_baton_t b;

  SVN_ERR(svn_fs__check_fs(fs, TRUE));
  SVN_ERR(svn_fs_fs__ensure_revision_exists(rev, fs, pool));
  b.fs = fs;
  b.rev = rev;
  b.name = name;
  b.old_value_p = old_value_p;
  b.value = value;
  return svn_error_trace(svn_fs_fs__with_write_lock(
           fs, change_rev_prop_locked, &b, pool));
}

/* Write db/uuid for FS with UUID and (format 7+) a fresh instance id,
   as the stock module does on every set_uuid (UUID-3). */
static svn_error_t *
set_uuid_locked(void *baton, apr_pool_t *pool)
{
  svn_fs_t *fs = ((void **)baton)[0];
  const char *uuid = ((void **)baton)[1];
  svn_fs_fs__data_t *ffd = SVN_FS_FS__DATA(fs);
  const char *instance_id = ffd->instance_id;
  const char *path = svn_fs_fs__path_db(fs, "uuid", pool);
  const char *text;

  if (ffd->format >= SVN_FS_FS__MIN_LOGICAL_ADDRESSING_FORMAT)
    {
      instance_id = svn_uuid_generate(pool);
      text = apr_pstrcat(pool, uuid, "\n", instance_id, "\n", SVN_VA_NULL);
    }
  else
    text = apr_pstrcat(pool, uuid, "\n", SVN_VA_NULL);
  /* The mode of db/current, as stock gives it (UUID-3). */
  SVN_ERR(svn_io_write_atomic2(path, text, strlen(text),
                               svn_fs_fs__path_db(fs, "current", pool),
                               svn_fs_fs__flush_wanted(fs), pool));
  fs->uuid = apr_pstrdup(fs->pool, uuid);
  if (ffd->format >= SVN_FS_FS__MIN_LOGICAL_ADDRESSING_FORMAT)
    ffd->instance_id = apr_pstrdup(fs->pool, instance_id);
  return SVN_NO_ERROR;
}

static svn_error_t *
fs_set_uuid(svn_fs_t *fs, const char *uuid, apr_pool_t *pool)
{
  void *baton[2];

  SVN_ERR(svn_fs__check_fs(fs, TRUE));
  baton[0] = fs;
  baton[1] = (void *)(uuid ? uuid : svn_uuid_generate(pool));
  return svn_error_trace(svn_fs_fs__with_write_lock(fs, set_uuid_locked,
                                                    baton, pool));
}

static svn_error_t *
fs_revision_root(svn_fs_root_t **root_p, svn_fs_t *fs, svn_revnum_t rev,
                 apr_pool_t *pool)
{
  SVN_ERR(svn_fs__check_fs(fs, TRUE));
  SVN_ERR(svn_fs_fs__ensure_revision_exists(rev, fs, pool));
  return svn_error_trace(svn_fs_fs__revision_root(root_p, fs, rev, pool));
}

static svn_error_t *
fs_deltify(svn_fs_t *fs, svn_revnum_t rev, apr_pool_t *pool)
{
  /* FSFS deltifies at commit time; like stock, this is a no-op. */
  return SVN_NO_ERROR;
}

static svn_error_t *
fs_lock(svn_fs_t *fs, apr_hash_t *targets, const char *comment,
        svn_boolean_t is_dav_comment, apr_time_t expiration_date,
        svn_boolean_t steal_lock, svn_fs_lock_callback_t lock_callback,
        void *lock_baton, apr_pool_t *result_pool, apr_pool_t *scratch_pool)
{
  SVN_ERR(svn_fs__check_fs(fs, TRUE));
  return svn_error_trace(svn_fs_fs__locks_lock(
           fs, targets, comment, is_dav_comment, expiration_date, steal_lock,
           lock_callback, lock_baton, result_pool, scratch_pool));
}

static svn_error_t *
fs_generate_lock_token(const char **token, svn_fs_t *fs, apr_pool_t *pool)
{
  SVN_ERR(svn_fs__check_fs(fs, TRUE));
  *token = svn_fs_fs__generate_lock_token(pool);
  return SVN_NO_ERROR;
}

static svn_error_t *
fs_unlock(svn_fs_t *fs, apr_hash_t *targets, svn_boolean_t break_lock,
          svn_fs_lock_callback_t lock_callback, void *lock_baton,
          apr_pool_t *result_pool, apr_pool_t *scratch_pool)
{
  SVN_ERR(svn_fs__check_fs(fs, TRUE));
  return svn_error_trace(svn_fs_fs__locks_unlock(
           fs, targets, break_lock, lock_callback, lock_baton, result_pool,
           scratch_pool));
}

static svn_error_t *
fs_get_lock(svn_lock_t **lock, svn_fs_t *fs, const char *path,
            apr_pool_t *pool)
{
  SVN_ERR(svn_fs__check_fs(fs, TRUE));
  return svn_error_trace(svn_fs_fs__locks_get(lock, fs, path, pool));
}

static svn_error_t *
fs_get_locks(svn_fs_t *fs, const char *path, svn_depth_t depth,
             svn_fs_get_locks_callback_t get_locks_func,
             void *get_locks_baton, apr_pool_t *pool)
{
  SVN_ERR(svn_fs__check_fs(fs, TRUE));
  return svn_error_trace(svn_fs_fs__locks_walk(fs, path, depth,
                                               get_locks_func,
                                               get_locks_baton, pool));
}

static svn_error_t *
fs_info_format(int *fs_format, svn_version_t **supports_version,
               svn_fs_t *fs, apr_pool_t *result_pool,
               apr_pool_t *scratch_pool)
{
  svn_fs_fs__data_t *ffd = SVN_FS_FS__DATA(fs);
  svn_version_t *v = apr_pcalloc(result_pool, sizeof(*v));

  /* FORMAT-2, OLD-0: the release that introduced each format (format 5
     only ever existed in 1.7 development builds). */
  static const int minors[] = { 0, 1, 4, 5, 6, 7, 8, 9, 10 };

  v->major = 1;
  v->minor = minors[ffd->format];
  v->patch = 0;
  v->tag = "";
  *fs_format = ffd->format;
  *supports_version = v;
  return SVN_NO_ERROR;
}

static svn_error_t *
fs_info_config_files(apr_array_header_t **files, svn_fs_t *fs,
                     apr_pool_t *result_pool, apr_pool_t *scratch_pool)
{
  *files = apr_array_make(result_pool, 1, sizeof(const char *));
  /* Named even where it does not exist (formats 1 to 3, OLD-8), as stock
     does: svnadmin info prints it. */
  APR_ARRAY_PUSH(*files, const char *)
    = svn_fs_fs__path_db(fs, SVN_FS_FS__CONFIG_FILE, result_pool);
  return SVN_NO_ERROR;
}

static svn_error_t *
fs_info_fsap(const void **fsap_info, svn_fs_t *fs, apr_pool_t *result_pool,
             apr_pool_t *scratch_pool)
{
  return svn_error_trace(svn_fs_fs__info_fsap(fsap_info, fs, result_pool,
                                              scratch_pool));
}

static svn_error_t *
fs_verify_root(svn_fs_root_t *root, apr_pool_t *pool)
{
  return svn_error_trace(svn_fs_fs__verify_root(root, pool));
}

/* Adapts svn_fs_freeze_func_t to the write-lock callback signature. */
typedef struct freeze_baton_t
{
  svn_fs_freeze_func_t func;
  void *baton;
} freeze_baton_t;

static svn_error_t *
freeze_locked(void *baton, apr_pool_t *pool)
{
  freeze_baton_t *b = baton;
  return svn_error_trace(b->func(b->baton, pool));
}

static svn_error_t *
fs_freeze(svn_fs_t *fs, svn_fs_freeze_func_t freeze_func, void *freeze_baton,
          apr_pool_t *pool)
{
  freeze_baton_t b;

  SVN_ERR(svn_fs__check_fs(fs, TRUE));
  b.func = freeze_func;
  b.baton = freeze_baton;
  return svn_error_trace(svn_fs_fs__with_freeze_locks(fs, freeze_locked, &b,
                                                      pool));
}

static svn_error_t *
fs_bdb_set_errcall(svn_fs_t *fs,
                   void (*handler)(const char *errpfx, char *msg))
{
  /* Nothing to report through it for FSFS. */
  return SVN_NO_ERROR;
}

static svn_error_t *
fs_ioctl(svn_fs_t *fs, svn_fs_ioctl_code_t ctlcode, void *input,
         void **output_p, svn_cancel_func_t cancel_func, void *cancel_baton,
         apr_pool_t *result_pool, apr_pool_t *scratch_pool)
{
  svn_boolean_t handled;

  SVN_ERR(svn_fs__check_fs(fs, TRUE));
  SVN_ERR(svn_fs_fs__index_ioctl(&handled, fs, ctlcode, input, cancel_func,
                                 cancel_baton, scratch_pool));
  if (!handled)
    SVN_ERR(svn_fs_fs__stats_ioctl(&handled, fs, ctlcode, input, output_p,
                                   cancel_func, cancel_baton, result_pool,
                                   scratch_pool));
  if (!handled)
    SVN_ERR(svn_fs_fs__rev_size_ioctl(&handled, fs, ctlcode, input,
                                      output_p, result_pool, scratch_pool));
  if (handled)
    return SVN_NO_ERROR;
  return svn_error_createf(SVN_ERR_FS_UNRECOGNIZED_IOCTL_CODE, NULL,
                           "fsfs7 does not implement ioctl code %s:%d",
                           ctlcode.fs_type, ctlcode.code);
}

/* 'svnadmin build-repcache' (input: svn_fs_fs__repcache_range_t). */
#define IOCTL_BUILD_REP_CACHE 1004

/* The vtable's ioctl: build-repcache here, the other codes in
   fs_ioctl. */
static svn_error_t *
fs_ioctl_or_build_rep_cache(svn_fs_t *fs, svn_fs_ioctl_code_t ctlcode,
                            void *input, void **output_p,
                            svn_cancel_func_t cancel_func,
                            void *cancel_baton, apr_pool_t *result_pool,
                            apr_pool_t *scratch_pool)
{
  const svn_fs_fs__repcache_range_t *range = input;

  if (strcmp(ctlcode.fs_type, SVN_FS_TYPE_FSFS) != 0
      || ctlcode.code != IOCTL_BUILD_REP_CACHE)
    return svn_error_trace(fs_ioctl(fs, ctlcode, input, output_p,
                                    cancel_func, cancel_baton, result_pool,
                                    scratch_pool));
  SVN_ERR(svn_fs__check_fs(fs, TRUE));
  return svn_error_trace(svn_fs_fs__repcache_fill(fs, range, cancel_func,
                                                  cancel_baton,
                                                  scratch_pool));
}

const fs_vtable_t svn_fs_fs__fs_vtable = {
  fs_youngest_rev,
  fs_refresh_revprops,
  fs_revision_prop,
  fs_revision_proplist,
  fs_change_rev_prop,
  fs_set_uuid,
  fs_revision_root,
  svn_fs_fs__begin_txn,
  svn_fs_fs__open_txn,
  svn_fs_fs__purge_txn,
  svn_fs_fs__list_transactions,
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
  fs_ioctl_or_build_rep_cache
};
