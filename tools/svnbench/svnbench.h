/* svnbench.h: shared types of fsfs7's benchmark client.
 *
 * svnbench runs the read side of a client command (log, export, list)
 * against any repository URL through the public libsvn_ra / libsvn_client
 * APIs and throws the data away, so that its wall time measures the
 * repository server and the wire, not the working copy or the terminal.
 * Each subcommand fills one svnbench_totals_t; svnbench_report() prints it.
 */
#ifndef SVNBENCH_H
#define SVNBENCH_H

#include <apr_pools.h>
#include <apr_tables.h>
#include <svn_types.h>
#include <svn_client.h>
#include <svn_ra.h>
#include <svn_opt.h>

/* Everything a subcommand counted.  Fields a command does not touch stay 0. */
typedef struct svnbench_totals_t
{
  apr_int64_t revisions;      /* log entries received */
  apr_int64_t changed_paths;  /* entries of the changed-paths lists */
  apr_int64_t msg_lines;      /* lines of svn:log text */
  apr_int64_t revprops;       /* revision properties received */
  apr_int64_t dirs;           /* directories, the root included */
  apr_int64_t files;
  apr_int64_t bytes;          /* file content bytes (fulltext sizes) */
  apr_int64_t props;          /* regular node properties */
  apr_int64_t prop_bytes;     /* bytes of regular node property values */
  apr_int64_t entry_props;    /* svn:entry:* properties sent by the server */
  apr_int64_t wc_props;       /* svn:wc:* properties (http:// only) */
  apr_int64_t net_bytes;      /* bytes the RA layer reported as moved */
  apr_off_t net_session_last; /* last cumulative value of this session */
  svn_revnum_t revision;      /* revision exported / listed, or youngest */
} svnbench_totals_t;

/* Options shared by all subcommands, as parsed from the command line. */
typedef struct svnbench_opts_t
{
  const char *subcommand;
  const char *url;            /* canonical URL, peg revision removed */
  svn_opt_revision_t peg;
  svn_opt_revision_t start;   /* -r N[:M]; unspecified if not given */
  svn_opt_revision_t end;
  int limit;                  /* --limit, 0 = none */
  svn_boolean_t verbose;      /* -v */
  svn_boolean_t quiet;        /* -q */
  svn_boolean_t recursive;    /* -R */
  svn_boolean_t json;         /* --json */
  const char *config_dir;
  apr_array_header_t *config_options; /* of const char *, F:S:O=V */
  apr_uint64_t cache_mb;      /* -M, (apr_uint64_t)-1 = leave default */
} svnbench_opts_t;

/* What every subcommand receives. */
typedef struct svnbench_env_t
{
  const svnbench_opts_t *opts;
  svn_client_ctx_t *ctx;
  svnbench_totals_t *totals;  /* where the progress callback counts */
} svnbench_env_t;

/* Subcommands: fill *TOTALS, which the caller zeroed. */
svn_error_t *
svnbench_null_log(svnbench_totals_t *totals, const svnbench_env_t *env,
                  apr_pool_t *scratch_pool);
svn_error_t *
svnbench_null_export(svnbench_totals_t *totals, const svnbench_env_t *env,
                     apr_pool_t *scratch_pool);
svn_error_t *
svnbench_null_list(svnbench_totals_t *totals, const svnbench_env_t *env,
                   apr_pool_t *scratch_pool);

/* Open an RA session to ENV->opts->url, allocated in RESULT_POOL. */
svn_error_t *
svnbench_open_session(svn_ra_session_t **session, const svnbench_env_t *env,
                      apr_pool_t *result_pool, apr_pool_t *scratch_pool);

/* Turn REV (possibly HEAD / unspecified = HEAD) into a number. */
svn_error_t *
svnbench_resolve_rev(svn_revnum_t *revnum, svn_ra_session_t *session,
                     const svn_opt_revision_t *rev, apr_pool_t *scratch_pool);

/* Print TOTALS of OPTS->subcommand, which took SECONDS of wall time, as
 * text or (with --json) as one JSON object on one line. */
void
svnbench_report(const svnbench_opts_t *opts, const svnbench_totals_t *totals,
                double seconds, apr_pool_t *scratch_pool);

#endif /* SVNBENCH_H */
