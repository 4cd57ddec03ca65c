/* loader.c --- the module's entry point: svn_fs_fs__init and the library
 * vtable that libsvn_fs calls (loader glue layer).
 *
 * libsvn_fs links to libsvn_fs_fs-1.so.1 and calls svn_fs_fs__init() once
 * per process; everything else reaches us through the vtables.  This file
 * only adapts the loader's calling conventions to the storage layer
 * (repo.h) and must stay free of format knowledge.
 */
#include <apr_strings.h>

#include "svn_pools.h"
#include "svn_version.h"
#include "svn_io.h"
#include "private/svn_fs_util.h"

#include "corrupt.h"
#include "repo.h"
#include "id.h"
#include "index.h"
#include "pack.h"
#include "tree.h"

#define FSFS7_DESCRIPTION \
  "Module for working with a plain file (FSFS) repository " \
  "(fsfs7 " PACKAGE_VERSION ", clean-room implementation)."

static const svn_version_t *
fsfs7_get_version(void)
{
  /* The loader insists on exact equality with its own version, so report
     the version of the libsvn we were compiled against (configure made
     sure that equals the installed one). */
  SVN_VERSION_BODY;
}

static const char *
fsfs7_get_description(void)
{
  return FSFS7_DESCRIPTION;
}

/* Every entry that opens a repository first hands the loader's common
   pool to repo_shared.c: the in-process locks of each repository live
   there, shared by all svn_fs_t of this process (repo.h). */
static svn_error_t *
fsfs7_create(svn_fs_t *fs, const char *path, svn_mutex__t *common_pool_lock,
             apr_pool_t *scratch_pool, apr_pool_t *common_pool)
{
  SVN_ERR(svn_fs_fs__shared_set_home(common_pool_lock, common_pool));
  SVN_ERR(svn_fs__check_fs(fs, FALSE));
  return svn_error_trace(svn_fs_fs__create_repo(fs, path, scratch_pool));
}

static svn_error_t *
fsfs7_open(svn_fs_t *fs, const char *path, svn_mutex__t *common_pool_lock,
           apr_pool_t *scratch_pool, apr_pool_t *common_pool)
{
  SVN_ERR(svn_fs_fs__shared_set_home(common_pool_lock, common_pool));
  SVN_ERR(svn_fs__check_fs(fs, FALSE));
  return svn_error_trace(svn_fs_fs__open_repo(fs, path, scratch_pool));
}

static svn_error_t *
fsfs7_open_for_recovery(svn_fs_t *fs, const char *path,
                        svn_mutex__t *common_pool_lock, apr_pool_t *pool,
                        apr_pool_t *common_pool)
{
  SVN_ERR(svn_fs_fs__shared_set_home(common_pool_lock, common_pool));
  SVN_ERR(svn_fs__check_fs(fs, FALSE));
  return svn_error_trace(svn_fs_fs__open_repo_for_recovery(fs, path, pool));
}

static svn_error_t *
fsfs7_upgrade(svn_fs_t *fs, const char *path,
              svn_fs_upgrade_notify_t notify_func, void *notify_baton,
              svn_cancel_func_t cancel_func, void *cancel_baton,
              svn_mutex__t *common_pool_lock, apr_pool_t *scratch_pool,
              apr_pool_t *common_pool)
{
  /* Cancellation is not offered: the upgrade is a few small rewrites
     under the write lock. */
  SVN_ERR(svn_fs_fs__shared_set_home(common_pool_lock, common_pool));
  SVN_ERR(svn_fs__check_fs(fs, FALSE));
  SVN_ERR(svn_fs_fs__open_repo(fs, path, scratch_pool));
  return svn_error_trace(svn_fs_fs__upgrade(fs, path, notify_func,
                                            notify_baton, scratch_pool));
}

/* The repository-wide checks of the range (repo_verify.c); svnadmin
   verify then checks each root (svn_fs_verify_root, tree_verify.c) and
   reads every node through the root API. */
static svn_error_t *
fsfs7_verify(svn_fs_t *fs, const char *path, svn_revnum_t start,
             svn_revnum_t end, svn_fs_progress_notify_func_t notify_func,
             void *notify_baton, svn_cancel_func_t cancel_func,
             void *cancel_baton, svn_mutex__t *common_pool_lock,
             apr_pool_t *pool, apr_pool_t *common_pool)
{
  apr_allocator_t *allocator;
  apr_pool_t *work_pool;
  svn_fs_t *work;
  svn_revnum_t youngest;
  svn_error_t *err;

  SVN_ERR(svn_fs_fs__shared_set_home(common_pool_lock, common_pool));
  SVN_ERR(svn_fs__check_fs(fs, FALSE));
  /* The loader's FS lives in POOL, which 'svnadmin verify' keeps until
     the end of its replay of every revision: the work is done on a copy
     in a pool of its own, so that the open files, read blocks and parsed
     indexes of the index pass are let go when it ends instead of adding
     to the replay's peak RSS.  With an allocator of its own, too: a
     subpool of POOL would give its blocks to POOL's allocator, which
     keeps them (resident) for the replay.  The allocator comes with the
     root pool that owns it, which is the one to destroy. */
  allocator = svn_pool_create_allocator(FALSE);
  work_pool = apr_allocator_owner_get(allocator);
  work = apr_pmemdup(work_pool, fs, sizeof(*fs));
  work->pool = work_pool;
  err = svn_fs_fs__open_repo(work, path, work_pool);
  if (!err)
    err = svn_fs_fs__youngest_rev(&youngest, work, work_pool);
  if (!err)
    {
      if (!SVN_IS_VALID_REVNUM(start))
        start = 0;
      if (!SVN_IS_VALID_REVNUM(end) || end > youngest)
        end = youngest;
      err = svn_fs_fs__verify(work, start, end, notify_func, notify_baton,
                              cancel_func, cancel_baton, work_pool);
    }
  /* Errors are allocated in their own pools, not in WORK_POOL. */
  svn_pool_destroy(work_pool);
  return svn_error_trace(err);
}

static svn_error_t *
fsfs7_delete(const char *path, apr_pool_t *pool)
{
  return svn_error_trace(svn_io_remove_dir2(path, FALSE, NULL, NULL, pool));
}

static svn_error_t *
fsfs7_hotcopy(svn_fs_t *src_fs, svn_fs_t *dst_fs, const char *src_path,
              const char *dst_path, svn_boolean_t clean,
              svn_boolean_t incremental, svn_fs_hotcopy_notify_t notify_func,
              void *notify_baton, svn_cancel_func_t cancel_func,
              void *cancel_baton, svn_mutex__t *common_pool_lock,
              apr_pool_t *pool, apr_pool_t *common_pool)
{
  /* CLEAN is about Berkeley DB logs; FSFS has none to clean. */
  SVN_ERR(svn_fs_fs__shared_set_home(common_pool_lock, common_pool));
  SVN_ERR(svn_fs__check_fs(src_fs, FALSE));
  SVN_ERR(svn_fs_fs__open_repo(src_fs, src_path, pool));
  SVN_ERR(svn_fs__check_fs(dst_fs, FALSE));
  return svn_error_trace(svn_fs_fs__hotcopy(src_fs, dst_fs, src_path,
                                            dst_path, incremental,
                                            notify_func, notify_baton,
                                            cancel_func, cancel_baton, pool));
}

static svn_error_t *
fsfs7_recover(svn_fs_t *fs, svn_cancel_func_t cancel_func, void *cancel_baton,
              apr_pool_t *pool)
{
  /* The loader has already opened FS with fsfs7_open_for_recovery. */
  return svn_error_trace(svn_fs_fs__recover(fs, cancel_func, cancel_baton,
                                            pool));
}

static svn_error_t *
fsfs7_pack(svn_fs_t *fs, const char *path, svn_fs_pack_notify_t notify_func,
           void *notify_baton, svn_cancel_func_t cancel_func,
           void *cancel_baton, svn_mutex__t *common_pool_lock,
           apr_pool_t *pool, apr_pool_t *common_pool)
{
  SVN_ERR(svn_fs_fs__shared_set_home(common_pool_lock, common_pool));
  SVN_ERR(svn_fs__check_fs(fs, FALSE));
  SVN_ERR(svn_fs_fs__open_repo(fs, path, pool));
  return svn_error_trace(svn_fs_fs__pack(fs, notify_func, notify_baton,
                                         cancel_func, cancel_baton, pool));
}

static svn_error_t *
fsfs7_bdb_logfiles(apr_array_header_t **logfiles, const char *path,
                   svn_boolean_t only_unused, apr_pool_t *pool)
{
  /* FSFS has no Berkeley DB log files; report none, as stock does. */
  *logfiles = apr_array_make(pool, 0, sizeof(const char *));
  return SVN_NO_ERROR;
}

static svn_fs_id_t *
fsfs7_parse_id(const char *data, apr_size_t len, apr_pool_t *pool)
{
  svn_fs_fs__id_t *id = svn_fs_fs__id_parse(data, len, pool);
  return id ? &id->public : NULL;
}

static svn_error_t *
fsfs7_set_svn_fs_open(svn_fs_t *fs,
                      svn_error_t *(*svn_fs_open_)(svn_fs_t **, const char *,
                                                   apr_hash_t *, apr_pool_t *,
                                                   apr_pool_t *))
{
  SVN_FS_FS__DATA(fs)->svn_fs_open_ = svn_fs_open_;
  return SVN_NO_ERROR;
}

static svn_error_t *
fsfs7_ioctl(svn_fs_ioctl_code_t ctlcode, void *input, void **output_p,
            svn_cancel_func_t cancel_func, void *cancel_baton,
            apr_pool_t *result_pool, apr_pool_t *scratch_pool)
{
  return svn_error_createf(SVN_ERR_FS_UNRECOGNIZED_IOCTL_CODE, NULL,
                           "fsfs7 does not implement ioctl code %s:%d",
                           ctlcode.fs_type, ctlcode.code);
}

static fs_library_vtable_t library_vtable = {
  fsfs7_get_version,
  fsfs7_create,
  fsfs7_open,
  fsfs7_open_for_recovery,
  fsfs7_upgrade,
  fsfs7_verify,
  fsfs7_delete,
  fsfs7_hotcopy,
  fsfs7_get_description,
  fsfs7_recover,
  fsfs7_pack,
  fsfs7_bdb_logfiles,
  fsfs7_parse_id,
  fsfs7_set_svn_fs_open,
  svn_fs_fs__info_fsap_dup,
  fsfs7_ioctl
};

/* Make sure the libsvn libraries loaded beside us are exactly the release
   we were compiled against: we call their private functions, whose ABI
   may change between any two releases. */
static svn_error_t *
check_linked_libraries(void)
{
  svn_version_checklist_t list[4] = { { NULL, NULL } };

  list[0].label = "svn_fs_util";
  list[0].version_query = svn_fs_util__version;
  list[1].label = "svn_delta";
  list[1].version_query = svn_delta_version;
  list[2].label = "svn_subr";
  list[2].version_query = svn_subr_version;
  return svn_ver_check_list2(fsfs7_get_version(), list, svn_ver_equal);
}

/* What fsfs7 says instead of crashing or mis-reading after a Subversion
   update: the release it was built for, what it found (FOUND_WHAT, in
   words; CAUSE, if any, names the library that differs) and what to do. */
#define FSFS7_REFUSAL_HINT \
  "; install the fsfs7 built for this Subversion, or switch back to " \
  "the stock module (fsfs7-disable)"

static svn_error_t *
version_refusal(const char *found_what, svn_error_t *cause)
{
  const svn_version_t *ours = fsfs7_get_version();

  return svn_error_createf(SVN_ERR_VERSION_MISMATCH, cause,
                           "fsfs7 " PACKAGE_VERSION " was built for "
                           "Subversion %d.%d.%d%s but %s" FSFS7_REFUSAL_HINT,
                           ours->major, ours->minor, ours->patch, ours->tag,
                           found_what);
}

/* The module's one exported symbol.  The loader hands in its own version
   (libsvn_fs's); it and every libsvn library whose private functions we
   call must be exactly the release we were compiled against. */
__attribute__((visibility("default"))) svn_error_t *
svn_fs_fs__init(const svn_version_t *loader_version,
                fs_library_vtable_t **vtable, apr_pool_t *common_pool)
{
  svn_error_t *err;
  char found[80];

  if (!svn_ver_equal(loader_version, fsfs7_get_version()))
    {
      apr_snprintf(found, sizeof(found), "it is loaded by libsvn_fs %d.%d.%d%s",
                   loader_version->major, loader_version->minor,
                   loader_version->patch, loader_version->tag);
      return version_refusal(found, NULL);
    }
  err = check_linked_libraries();
  if (err)
    return version_refusal("a different release of its libraries is loaded",
                           err);
  *vtable = &library_vtable;
  return SVN_NO_ERROR;
}
