/* null_log.c: `svnbench null-log` -- receive the log of a URL the way
 * `svn log` asks for it (one svn_ra_get_log2 call, changed paths with -v,
 * no message with -q) and count what arrives instead of printing it.
 */
#include <string.h>
#include <svn_props.h>
#include <svn_pools.h>
#include <svn_hash.h>

#include "svnbench.h"

/* Count the lines of a log message as `svn log` states them in its
 * "| N lines" header: one more than the number of line ends, where CRLF,
 * LF and a lone CR each end a line.  No message at all counts 0. */
static apr_int64_t
count_lines(const svn_string_t *msg)
{
  apr_int64_t lines = 1;
  apr_size_t i;

  if (!msg)
    return 0;
  for (i = 0; i < msg->len; i++)
    if (msg->data[i] == '\n')
      lines++;
    else if (msg->data[i] == '\r')
      {
        lines++;
        if (i + 1 < msg->len && msg->data[i + 1] == '\n')
          i++;
      }
  return lines;
}

/* svn_log_entry_receiver_t: BATON is the svnbench_totals_t. */
static svn_error_t *
log_receiver(void *baton, svn_log_entry_t *entry, apr_pool_t *pool)
{
  svnbench_totals_t *totals = baton;

  /* Merged-revision nesting ends with an invalid revision; we do not ask
   * for merged revisions, but such an entry must not be counted anyway. */
  if (!SVN_IS_VALID_REVNUM(entry->revision))
    return SVN_NO_ERROR;
  totals->revisions++;
  if (entry->changed_paths2)
    totals->changed_paths += apr_hash_count(entry->changed_paths2);
  if (entry->revprops)
    {
      totals->revprops += apr_hash_count(entry->revprops);
      totals->msg_lines += count_lines(svn_hash_gets(entry->revprops,
                                                     SVN_PROP_REVISION_LOG));
    }
  return SVN_NO_ERROR;
}

/* The revision range: -r as given, else from the peg (or HEAD) down to 1. */
static svn_error_t *
resolve_range(svn_revnum_t *start, svn_revnum_t *end,
              svn_ra_session_t *session, const svnbench_opts_t *opts,
              apr_pool_t *pool)
{
  if (opts->start.kind == svn_opt_revision_unspecified)
    {
      SVN_ERR(svnbench_resolve_rev(start, session, &opts->peg, pool));
      *end = *start > 0 ? 1 : 0;
      return SVN_NO_ERROR;
    }
  SVN_ERR(svnbench_resolve_rev(start, session, &opts->start, pool));
  if (opts->end.kind == svn_opt_revision_unspecified)
    *end = *start;
  else
    SVN_ERR(svnbench_resolve_rev(end, session, &opts->end, pool));
  return SVN_NO_ERROR;
}

svn_error_t *
svnbench_null_log(svnbench_totals_t *totals, const svnbench_env_t *env,
                  apr_pool_t *scratch_pool)
{
  const svnbench_opts_t *opts = env->opts;
  svn_ra_session_t *session;
  svn_revnum_t start, end;
  /* What `svn log` asks for: author and date always, the message
     unless quiet.  The session root is the only target. */
  static const char *const wanted[] = {
    SVN_PROP_REVISION_AUTHOR, SVN_PROP_REVISION_DATE, SVN_PROP_REVISION_LOG
  };
  apr_array_header_t *revprops, *paths;
  int n_wanted = opts->quiet ? 2 : 3, k;

  paths = apr_array_make(scratch_pool, 1, sizeof(const char *));
  *(const char **)apr_array_push(paths) = "";
  revprops = apr_array_make(scratch_pool, n_wanted, sizeof(const char *));
  for (k = 0; k < n_wanted; k++)
    *(const char **)apr_array_push(revprops) = wanted[k];

  SVN_ERR(svnbench_open_session(&session, env, scratch_pool, scratch_pool));
  SVN_ERR(resolve_range(&start, &end, session, opts, scratch_pool));
  totals->revision = start;
  return svn_ra_get_log2(session, paths, start, end, opts->limit,
                         opts->verbose, FALSE /* strict_node_history */,
                         FALSE /* include_merged_revisions */, revprops,
                         log_receiver, totals, scratch_pool);
}
