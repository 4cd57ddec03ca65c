/* revfile.c --- placeholder: every function fails with SVN_ERR_UNSUPPORTED_FEATURE
   until its layer implements it. */
#include "corrupt.h"
#include "revfile.h"

svn_error_t *
svn_fs_fs__revfile_open(svn_fs_fs__revfile_t **file, svn_fs_t *fs,
                        svn_revnum_t rev, apr_pool_t *result_pool,
                        apr_pool_t *scratch_pool)
{
  return svn_fs_fs__unsupported("svn_fs_fs__revfile_open");
}

svn_error_t *
svn_fs_fs__revfile_read(void *buf, apr_size_t len,
                        svn_fs_fs__revfile_t *file, apr_off_t offset)
{
  return svn_fs_fs__unsupported("svn_fs_fs__revfile_read");
}

svn_error_t *
svn_fs_fs__revfile_read_some(const char **data, apr_size_t *len,
                             svn_fs_fs__revfile_t *file, apr_off_t offset,
                             apr_size_t max_len, apr_pool_t *result_pool)
{
  return svn_fs_fs__unsupported("svn_fs_fs__revfile_read_some");
}

svn_error_t *
svn_fs_fs__revfile_read_footer(svn_fs_fs__revfile_t *file,
                               apr_pool_t *scratch_pool)
{
  return svn_fs_fs__unsupported("svn_fs_fs__revfile_read_footer");
}

svn_error_t *
svn_fs_fs__revfile_close(svn_fs_fs__revfile_t *file)
{
  return svn_fs_fs__unsupported("svn_fs_fs__revfile_close");
}
