/* null_export.c: `svnbench null-export` -- drive the same report an
 * export sends (an update of an empty target to one revision, depth
 * infinity) and hand the server's answer to an editor that only counts:
 * directories, files, content bytes (summing the target sizes of the
 * delta windows) and properties.  Nothing touches the local disk.
 */
#include <svn_delta.h>
#include <svn_props.h>
#include <svn_pools.h>

#include "svnbench.h"

/* Every editor baton is the totals record itself: the tree shape does not
 * matter for counting, only the calls. */

static void
count_prop(svnbench_totals_t *totals, const char *name,
           const svn_string_t *value)
{
  switch (svn_property_kind2(name))
    {
    case svn_prop_regular_kind:
      totals->props++;
      totals->prop_bytes += value ? value->len : 0;
      break;
    case svn_prop_entry_kind:
      totals->entry_props++;
      break;
    default:   /* svn:wc:* cache data of the http layer */
      totals->wc_props++;
      break;
    }
}

static svn_error_t *
open_root(void *edit_baton, svn_revnum_t base_revision,
          apr_pool_t *result_pool, void **root_baton)
{
  svnbench_totals_t *totals = edit_baton;

  totals->dirs++;
  *root_baton = edit_baton;
  return SVN_NO_ERROR;
}

static svn_error_t *
add_directory(const char *path, void *parent_baton,
              const char *copyfrom_path, svn_revnum_t copyfrom_revision,
              apr_pool_t *result_pool, void **child_baton)
{
  svnbench_totals_t *totals = parent_baton;

  totals->dirs++;
  *child_baton = parent_baton;
  return SVN_NO_ERROR;
}

static svn_error_t *
add_file(const char *path, void *parent_baton, const char *copyfrom_path,
         svn_revnum_t copyfrom_revision, apr_pool_t *result_pool,
         void **file_baton)
{
  svnbench_totals_t *totals = parent_baton;

  totals->files++;
  *file_baton = parent_baton;
  return SVN_NO_ERROR;
}

static svn_error_t *
change_prop(void *baton, const char *name, const svn_string_t *value,
            apr_pool_t *scratch_pool)
{
  count_prop(baton, name, value);
  return SVN_NO_ERROR;
}

/* svn_txdelta_window_handler_t: the window's target view is exactly the
 * stretch of fulltext it produces. */
static svn_error_t *
count_window(svn_txdelta_window_t *window, void *baton)
{
  svnbench_totals_t *totals = baton;

  if (window)
    totals->bytes += window->tview_len;
  return SVN_NO_ERROR;
}

static svn_error_t *
apply_textdelta(void *file_baton, const char *base_checksum,
                apr_pool_t *result_pool, svn_txdelta_window_handler_t *handler,
                void **handler_baton)
{
  *handler = count_window;
  *handler_baton = file_baton;
  return SVN_NO_ERROR;
}

static svn_delta_editor_t *
make_counting_editor(apr_pool_t *pool)
{
  /* Start from the do-nothing editor; an export only ever adds, so the
     add callbacks, both property setters and the delta handler are all
     we need to count. */
  svn_delta_editor_t *ed = svn_delta_default_editor(pool);

  ed->apply_textdelta = apply_textdelta;
  ed->change_file_prop = ed->change_dir_prop = change_prop;
  ed->add_file = add_file;
  ed->add_directory = add_directory;
  ed->open_root = open_root;
  return ed;
}

svn_error_t *
svnbench_null_export(svnbench_totals_t *totals, const svnbench_env_t *env,
                     apr_pool_t *scratch_pool)
{
  const svnbench_opts_t *opts = env->opts;
  svn_ra_session_t *session;
  const svn_ra_reporter3_t *reporter;
  void *report_baton;
  svn_revnum_t rev;

  SVN_ERR(svnbench_open_session(&session, env, scratch_pool, scratch_pool));
  SVN_ERR(svnbench_resolve_rev(&rev, session,
                               opts->start.kind != svn_opt_revision_unspecified
                                 ? &opts->start : &opts->peg, scratch_pool));
  totals->revision = rev;
  SVN_ERR(svn_ra_do_update3(session, &reporter, &report_baton, rev, "",
                            svn_depth_infinity,
                            FALSE /* send_copyfrom_args */,
                            FALSE /* ignore_ancestry */,
                            make_counting_editor(scratch_pool), totals,
                            scratch_pool, scratch_pool));
  /* An empty working copy at REV: the server sends the whole tree. */
  SVN_ERR(reporter->set_path(report_baton, "", rev, svn_depth_infinity,
                             TRUE /* start_empty */, NULL, scratch_pool));
  return reporter->finish_report(report_baton, scratch_pool);
}
