/* tree.c --- placeholder: every function fails with SVN_ERR_UNSUPPORTED_FEATURE
   until its layer implements it. */
#include "corrupt.h"
#include "tree.h"

svn_error_t *
svn_fs_fs__revision_root(svn_fs_root_t **root_p, svn_fs_t *fs,
                         svn_revnum_t rev, apr_pool_t *pool)
{
  return svn_fs_fs__unsupported("svn_fs_fs__revision_root");
}

svn_error_t *
svn_fs_fs__verify_root(svn_fs_root_t *root, apr_pool_t *pool)
{
  return svn_fs_fs__unsupported("svn_fs_fs__verify_root");
}
