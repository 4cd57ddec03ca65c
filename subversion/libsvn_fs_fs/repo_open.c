/* repo_open.c --- placeholder: every function fails with SVN_ERR_UNSUPPORTED_FEATURE
   until its layer implements it. */
#include "corrupt.h"
#include "fsfs7.h"
#include "repo.h"

svn_error_t *
svn_fs_fs__create_repo(svn_fs_t *fs, const char *path,
                       apr_pool_t *scratch_pool)
{
  return svn_fs_fs__unsupported("svn_fs_fs__create_repo");
}

svn_error_t *
svn_fs_fs__open_repo(svn_fs_t *fs, const char *path,
                     apr_pool_t *scratch_pool)
{
  return svn_fs_fs__unsupported("svn_fs_fs__open_repo");
}

svn_error_t *
svn_fs_fs__open_repo_for_recovery(svn_fs_t *fs, const char *path,
                                  apr_pool_t *scratch_pool)
{
  return svn_fs_fs__unsupported("svn_fs_fs__open_repo_for_recovery");
}

svn_error_t *
svn_fs_fs__info_fsap(const void **fsap_info, svn_fs_t *fs,
                     apr_pool_t *result_pool, apr_pool_t *scratch_pool)
{
  return svn_fs_fs__unsupported("svn_fs_fs__info_fsap");
}

void *
svn_fs_fs__info_fsap_dup(const void *fsap_info, apr_pool_t *result_pool)
{
  return NULL;
}

svn_error_t *
svn_fs_fs__with_write_lock(svn_fs_t *fs,
                           svn_error_t *(*func)(void *baton,
                                                apr_pool_t *pool),
                           void *baton, apr_pool_t *pool)
{
  return svn_fs_fs__unsupported("svn_fs_fs__with_write_lock");
}

svn_boolean_t
svn_fs_fs__use_log_addressing(svn_fs_t *fs)
{
  return FALSE;
}

svn_boolean_t
svn_fs_fs__is_packed_rev(svn_fs_t *fs, svn_revnum_t rev)
{
  return FALSE;
}

svn_error_t *
svn_fs_fs__ensure_revision_exists(svn_revnum_t rev, svn_fs_t *fs,
                                  apr_pool_t *scratch_pool)
{
  return svn_fs_fs__unsupported("svn_fs_fs__ensure_revision_exists");
}

svn_error_t *
svn_fs_fs__youngest_rev(svn_revnum_t *youngest, svn_fs_t *fs,
                        apr_pool_t *scratch_pool)
{
  return svn_fs_fs__unsupported("svn_fs_fs__youngest_rev");
}

svn_error_t *
svn_fs_fs__update_min_unpacked_rev(svn_fs_t *fs, apr_pool_t *scratch_pool)
{
  return svn_fs_fs__unsupported("svn_fs_fs__update_min_unpacked_rev");
}

