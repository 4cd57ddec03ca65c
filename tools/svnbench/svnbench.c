/* svnbench.c: command line, client context and timing of fsfs7's
 * benchmark client.  The subcommands live in null_*.c; the output format
 * in report.c.  Usage is printed by `svnbench --help`.
 */
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <apr_getopt.h>
#include <apr_strings.h>
#include <apr_time.h>

#include <svn_cmdline.h>
#include <svn_config.h>
#include <svn_cache_config.h>
#include <svn_dirent_uri.h>
#include <svn_path.h>
#include <svn_pools.h>
#include <svn_error.h>
#include <svn_hash.h>

#include "svnbench.h"

enum { OPT_LIMIT = 256, OPT_JSON, OPT_CONFIG_DIR, OPT_CONFIG_OPTION };

static const apr_getopt_option_t option_table[] = {
  { "verbose", 'v', 0, "null-log: also fetch the changed paths" },
  { "quiet", 'q', 0, "null-log: fetch author and date, not the message" },
  { "revision", 'r', 1, "ARG: REV or REV1:REV2 (numbers or HEAD)" },
  { "limit", OPT_LIMIT, 1, "null-log: at most ARG revisions" },
  { "recursive", 'R', 0, "null-list: descend into subdirectories" },
  { "json", OPT_JSON, 0, "print one JSON record instead of text" },
  { "memory-cache-size", 'M', 1, "client-side cache size in MB (file://)" },
  { "config-dir", OPT_CONFIG_DIR, 1, "read user configuration from ARG" },
  { "config-option", OPT_CONFIG_OPTION, 1, "FILE:SECTION:OPTION=VALUE" },
  { "help", 'h', 0, "show this help" },
  { NULL, 0, 0, NULL }
};

static void
print_usage(FILE *out)
{
  int i;

  fputs("usage: svnbench SUBCOMMAND URL[@REV] [OPTIONS]\n"
        "Subcommands (each reads what the real command reads, then "
        "discards it):\n"
        "  null-log     like 'svn log' (-v, -q, --limit, -r)\n"
        "  null-export  like 'svn export' (-r or URL@REV)\n"
        "  null-list    like 'svn list' (-R, -r)\n"
        "Options:\n", out);
  for (i = 0; option_table[i].name; i++)
    {
      char shortopt[8] = "    ";

      if (option_table[i].optch < 256)
        snprintf(shortopt, sizeof(shortopt), "-%c, ", option_table[i].optch);
      fprintf(out, "  %s--%-18s %s\n", shortopt, option_table[i].name,
              option_table[i].description);
    }
}

/* Parse one -r value: "N", "HEAD", "N:M". */
static svn_error_t *
parse_revision_arg(svnbench_opts_t *opts, const char *arg, apr_pool_t *pool)
{
  if (svn_opt_parse_revision(&opts->start, &opts->end, arg, pool) != 0)
    return svn_error_createf(SVN_ERR_CL_ARG_PARSING_ERROR, NULL,
                             "svnbench: bad revision '%s'", arg);
  return SVN_NO_ERROR;
}

/* Split the one positional argument into URL and peg revision. */
static svn_error_t *
parse_target(svnbench_opts_t *opts, const char *arg, apr_pool_t *pool)
{
  const char *truepath;

  SVN_ERR(svn_opt_parse_path(&opts->peg, &truepath, arg, pool));
  if (!svn_path_is_url(truepath))
    return svn_error_createf(SVN_ERR_CL_ARG_PARSING_ERROR, NULL,
                             "svnbench: '%s' is not a URL", truepath);
  opts->url = svn_uri_canonicalize(truepath, pool);
  return SVN_NO_ERROR;
}

/* Handle one option letter OPTCH with argument ARG. */
static svn_error_t *
apply_option(svnbench_opts_t *opts, int optch, const char *arg,
             apr_pool_t *pool)
{
  switch (optch)
    {
    case 'v': opts->verbose = TRUE; break;
    case 'q': opts->quiet = TRUE; break;
    case 'R': opts->recursive = TRUE; break;
    case OPT_JSON: opts->json = TRUE; break;
    case 'r': return parse_revision_arg(opts, arg, pool);
    case OPT_LIMIT:
      opts->limit = atoi(arg);
      if (opts->limit <= 0)
        return svn_error_create(SVN_ERR_CL_ARG_PARSING_ERROR, NULL,
                                "svnbench: --limit needs a positive number");
      break;
    case 'M':
      opts->cache_mb = apr_strtoi64(arg, NULL, 10);
      break;
    case OPT_CONFIG_DIR: opts->config_dir = arg; break;
    case OPT_CONFIG_OPTION:
      APR_ARRAY_PUSH(opts->config_options, const char *) = arg;
      break;
    default:
      return svn_error_create(SVN_ERR_CL_ARG_PARSING_ERROR, NULL, NULL);
    }
  return SVN_NO_ERROR;
}

/* Fill *OPTS from ARGV.  Sets *HELP when usage was asked for. */
static svn_error_t *
parse_args(svnbench_opts_t *opts, svn_boolean_t *help, int argc,
           const char *argv[], apr_pool_t *pool)
{
  apr_getopt_t *os;
  int optch;
  const char *arg;
  apr_status_t status;

  memset(opts, 0, sizeof(*opts));
  opts->cache_mb = (apr_uint64_t)-1;
  opts->config_options = apr_array_make(pool, 4, sizeof(const char *));
  *help = FALSE;
  if (apr_getopt_init(&os, pool, argc, argv) != APR_SUCCESS)
    return svn_error_create(SVN_ERR_CL_ARG_PARSING_ERROR, NULL, NULL);
  os->interleave = 1;
  while ((status = apr_getopt_long(os, option_table, &optch, &arg))
         != APR_EOF)
    {
      if (status != APR_SUCCESS)
        return svn_error_create(SVN_ERR_CL_ARG_PARSING_ERROR, NULL,
                                "svnbench: bad option (see --help)");
      if (optch == 'h')
        *help = TRUE;
      else
        SVN_ERR(apply_option(opts, optch, arg, pool));
    }
  if (*help)
    return SVN_NO_ERROR;
  if (argc - os->ind != 2)
    return svn_error_create(SVN_ERR_CL_ARG_PARSING_ERROR, NULL,
                            "svnbench: need SUBCOMMAND and one URL");
  opts->subcommand = os->argv[os->ind];
  return parse_target(opts, os->argv[os->ind + 1], pool);
}

/* Apply the --config-option values "FILE:SECTION:OPTION=VALUE" to CFG_HASH
 * (FILE is "config" or "servers"). */
static svn_error_t *
apply_config_options(apr_hash_t *cfg_hash, const apr_array_header_t *args,
                     apr_pool_t *pool)
{
  int i;

  for (i = 0; i < args->nelts; i++)
    {
      const char *arg = APR_ARRAY_IDX(args, i, const char *);
      char *file = apr_pstrdup(pool, arg);
      char *section = strchr(file, ':');
      char *option = section ? strchr(section + 1, ':') : NULL;
      char *value = option ? strchr(option + 1, '=') : NULL;
      svn_config_t *cfg;

      if (!value)
        return svn_error_createf(SVN_ERR_CL_ARG_PARSING_ERROR, NULL,
                                 "svnbench: bad --config-option '%s'", arg);
      *section++ = '\0';
      *option++ = '\0';
      *value++ = '\0';
      cfg = svn_hash_gets(cfg_hash, file);
      if (!cfg)
        return svn_error_createf(SVN_ERR_CL_ARG_PARSING_ERROR, NULL,
                                 "svnbench: unknown config file '%s'", file);
      svn_config_set(cfg, section, option, value);
    }
  return SVN_NO_ERROR;
}

/* Make the client context: configuration, non-interactive auth, and the
 * in-process cache size the file:// access uses. */
static svn_error_t *
make_context(svn_client_ctx_t **ctx, const svnbench_opts_t *opts,
             apr_pool_t *pool)
{
  apr_hash_t *cfg_hash;
  svn_config_t *cfg;
  svn_auth_baton_t *auth;

  SVN_ERR(svn_config_ensure(opts->config_dir, pool));
  SVN_ERR(svn_config_get_config(&cfg_hash, opts->config_dir, pool));
  SVN_ERR(apply_config_options(cfg_hash, opts->config_options, pool));
  cfg = svn_hash_gets(cfg_hash, SVN_CONFIG_CATEGORY_CONFIG);
  if (opts->cache_mb != (apr_uint64_t)-1)
    {
      svn_cache_config_t settings = *svn_cache_config_get();

      settings.cache_size = opts->cache_mb * 1024 * 1024;
      svn_cache_config_set(&settings);
    }
  SVN_ERR(svn_client_create_context2(ctx, cfg_hash, pool));
  SVN_ERR(svn_cmdline_create_auth_baton2(&auth, TRUE, NULL, NULL,
                                         opts->config_dir, TRUE,
                                         FALSE, FALSE, FALSE, FALSE, FALSE,
                                         cfg, NULL, NULL, pool));
  (*ctx)->auth_baton = auth;
  return SVN_NO_ERROR;
}

svn_error_t *
svnbench_open_session(svn_ra_session_t **session, const svnbench_env_t *env,
                      apr_pool_t *result_pool, apr_pool_t *scratch_pool)
{
  return svn_client_open_ra_session2(session, env->opts->url, NULL,
                                     env->ctx, result_pool, scratch_pool);
}

svn_error_t *
svnbench_resolve_rev(svn_revnum_t *revnum, svn_ra_session_t *session,
                     const svn_opt_revision_t *rev, apr_pool_t *scratch_pool)
{
  switch (rev->kind)
    {
    case svn_opt_revision_number:
      *revnum = rev->value.number;
      return SVN_NO_ERROR;
    case svn_opt_revision_unspecified:
    case svn_opt_revision_head:
      return svn_ra_get_latest_revnum(session, revnum, scratch_pool);
    default:
      return svn_error_create(SVN_ERR_CL_ARG_PARSING_ERROR, NULL,
                              "svnbench: only numbers and HEAD are "
                              "supported as revisions");
    }
}

/* svn_ra_progress_notify_func_t: PROGRESS is cumulative per RA session,
 * so a value below the last one means a new session has begun. */
static void
count_progress(apr_off_t progress, apr_off_t total, void *baton,
               apr_pool_t *pool)
{
  svnbench_totals_t *totals = baton;

  if (progress < totals->net_session_last)
    totals->net_bytes += totals->net_session_last;
  totals->net_session_last = progress;
}

/* Run the subcommand named in ENV->opts, timing it. */
static svn_error_t *
run(svnbench_env_t *env, apr_pool_t *pool)
{
  svnbench_totals_t totals;
  apr_time_t start;
  svn_error_t *(*cmd)(svnbench_totals_t *, const svnbench_env_t *,
                      apr_pool_t *);
  const char *name = env->opts->subcommand;

  if (!strcmp(name, "null-log"))
    cmd = svnbench_null_log;
  else if (!strcmp(name, "null-export"))
    cmd = svnbench_null_export;
  else if (!strcmp(name, "null-list"))
    cmd = svnbench_null_list;
  else
    return svn_error_createf(SVN_ERR_CL_ARG_PARSING_ERROR, NULL,
                             "svnbench: unknown subcommand '%s'", name);
  memset(&totals, 0, sizeof(totals));
  totals.revision = SVN_INVALID_REVNUM;
  env->totals = &totals;
  env->ctx->progress_func = count_progress;
  env->ctx->progress_baton = &totals;
  start = apr_time_now();
  SVN_ERR(cmd(&totals, env, pool));
  totals.net_bytes += totals.net_session_last;
  svnbench_report(env->opts, &totals,
                  (double)(apr_time_now() - start) / APR_USEC_PER_SEC, pool);
  return SVN_NO_ERROR;
}

int
main(int argc, const char *argv[])
{
  apr_pool_t *pool;
  svnbench_opts_t opts;
  svnbench_env_t env;
  svn_boolean_t help;
  svn_error_t *err;

  if (svn_cmdline_init("svnbench", stderr) != EXIT_SUCCESS)
    return EXIT_FAILURE;
  pool = svn_pool_create(NULL);
  err = parse_args(&opts, &help, argc, argv, pool);
  if (!err && help)
    {
      print_usage(stdout);
      return EXIT_SUCCESS;
    }
  if (err && err->apr_err == SVN_ERR_CL_ARG_PARSING_ERROR)
    print_usage(stderr);
  env.opts = &opts;
  if (!err)
    err = make_context(&env.ctx, &opts, pool);
  if (!err)
    err = run(&env, pool);
  if (err)
    return svn_cmdline_handle_exit_error(err, pool, "svnbench: ");
  svn_pool_destroy(pool);
  return EXIT_SUCCESS;
}
