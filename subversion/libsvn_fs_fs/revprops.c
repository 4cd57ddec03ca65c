/* revprops.c --- placeholder: every function fails with SVN_ERR_UNSUPPORTED_FEATURE
   until its layer implements it. */
#include "corrupt.h"
#include "revprops.h"

svn_error_t *
svn_fs_fs__get_revprops(apr_hash_t **proplist, svn_fs_t *fs, svn_revnum_t rev,
                        svn_boolean_t refresh, apr_pool_t *result_pool,
                        apr_pool_t *scratch_pool)
{
  return svn_fs_fs__unsupported("svn_fs_fs__get_revprops");
}

svn_error_t *
svn_fs_fs__set_revprops(svn_fs_t *fs, svn_revnum_t rev, apr_hash_t *proplist,
                        apr_pool_t *scratch_pool)
{
  return svn_fs_fs__unsupported("svn_fs_fs__set_revprops");
}

svn_error_t *
svn_fs_fs__reset_revprop_cache(svn_fs_t *fs)
{
  return svn_fs_fs__unsupported("svn_fs_fs__reset_revprop_cache");
}
