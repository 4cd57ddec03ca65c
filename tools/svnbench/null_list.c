/* null_list.c: `svnbench null-list` -- list a URL (recursively with -R)
 * through svn_client_list4 with every dirent field requested, as
 * `svn list -v` does, and count the entries.
 */
#include <svn_client.h>
#include <svn_pools.h>

#include "svnbench.h"

/* svn_client_list_func2_t: BATON is the svnbench_totals_t. */
static svn_error_t *
list_receiver(void *baton, const char *path, const svn_dirent_t *dirent,
              const svn_lock_t *lock, const char *abs_path,
              const char *external_parent_url, const char *external_target,
              apr_pool_t *scratch_pool)
{
  svnbench_totals_t *totals = baton;

  if (dirent->kind == svn_node_dir)
    totals->dirs++;
  else
    {
      totals->files++;
      totals->bytes += dirent->size;
    }
  return SVN_NO_ERROR;
}

svn_error_t *
svnbench_null_list(svnbench_totals_t *totals, const svnbench_env_t *env,
                   apr_pool_t *scratch_pool)
{
  const svnbench_opts_t *opts = env->opts;
  svn_opt_revision_t rev = opts->start;
  svn_opt_revision_t peg = opts->peg;

  if (peg.kind == svn_opt_revision_unspecified)
    peg.kind = svn_opt_revision_head;
  if (rev.kind == svn_opt_revision_unspecified)
    rev = peg;
  if (rev.kind == svn_opt_revision_number)
    totals->revision = rev.value.number;
  else
    {
      /* Report which revision "HEAD" was; a second session is cheap next
       * to a listing and keeps svn_client_list4 doing the real work. */
      svn_ra_session_t *session;

      SVN_ERR(svnbench_open_session(&session, env, scratch_pool,
                                    scratch_pool));
      SVN_ERR(svn_ra_get_latest_revnum(session, &totals->revision,
                                       scratch_pool));
    }
  return svn_client_list4(opts->url, &peg, &rev, NULL,
                          opts->recursive ? svn_depth_infinity
                                          : svn_depth_immediates,
                          SVN_DIRENT_ALL, FALSE /* fetch_locks */,
                          FALSE /* include_externals */,
                          list_receiver, totals, env->ctx, scratch_pool);
}
