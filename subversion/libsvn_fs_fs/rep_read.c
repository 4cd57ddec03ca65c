/* rep_read.c --- placeholder: every function fails with SVN_ERR_UNSUPPORTED_FEATURE
   until its layer implements it. */
#include "corrupt.h"
#include "rep_read.h"

svn_error_t *
svn_fs_fs__rep_contents_stream(svn_stream_t **contents, svn_fs_t *fs,
                               const svn_fs_fs__rep_t *rep,
                               apr_pool_t *result_pool)
{
  return svn_fs_fs__unsupported("svn_fs_fs__rep_contents_stream");
}

svn_error_t *
svn_fs_fs__rep_contents(svn_stringbuf_t **contents, svn_fs_t *fs,
                        const svn_fs_fs__rep_t *rep, apr_pool_t *result_pool,
                        apr_pool_t *scratch_pool)
{
  return svn_fs_fs__unsupported("svn_fs_fs__rep_contents");
}

svn_error_t *
svn_fs_fs__rep_delta_stream(svn_txdelta_stream_t **stream, svn_fs_t *fs,
                            const svn_fs_fs__rep_t *source,
                            const svn_fs_fs__rep_t *target,
                            apr_pool_t *pool)
{
  return svn_fs_fs__unsupported("svn_fs_fs__rep_delta_stream");
}

svn_error_t *
svn_fs_fs__rep_try_process(svn_boolean_t *success, svn_fs_t *fs,
                           const svn_fs_fs__rep_t *rep,
                           svn_fs_process_contents_func_t processor,
                           void *baton, apr_pool_t *pool)
{
  return svn_fs_fs__unsupported("svn_fs_fs__rep_try_process");
}

svn_boolean_t
svn_fs_fs__rep_same(const svn_fs_fs__rep_t *a, const svn_fs_fs__rep_t *b)
{
  return FALSE;
}

svn_error_t *
svn_fs_fs__reps_init_caches(svn_fs_t *fs, svn_membuffer_t *membuffer,
                            const char *prefix, apr_pool_t *result_pool,
                            apr_pool_t *scratch_pool)
{
  return svn_fs_fs__unsupported("svn_fs_fs__reps_init_caches");
}
