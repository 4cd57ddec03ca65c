/* report.c: svnbench's output -- a short human-readable summary, or with
 * --json one JSON object per run for the benchmark harness (tools/bench).
 */
#include <stdio.h>
#include <string.h>
#include <apr_strings.h>

#include "svnbench.h"

/* One counter: its JSON key, its text label and where it lives. */
typedef struct counter_t
{
  const char *key;
  const char *label;
  apr_size_t offset;
} counter_t;

#define COUNTER(field, label) \
  { #field, label, APR_OFFSETOF(svnbench_totals_t, field) }

static const counter_t counters[] = {
  COUNTER(revisions, "revisions"),
  COUNTER(changed_paths, "changed paths"),
  COUNTER(msg_lines, "msg lines"),
  COUNTER(revprops, "revision properties"),
  COUNTER(dirs, "directories"),
  COUNTER(files, "files"),
  COUNTER(bytes, "bytes in files"),
  COUNTER(props, "properties"),
  COUNTER(prop_bytes, "bytes in properties"),
  COUNTER(entry_props, "entry properties"),
  COUNTER(wc_props, "working copy properties"),
  COUNTER(net_bytes, "bytes transferred over network"),
  { NULL, NULL, 0 }
};

static apr_int64_t
counter_value(const svnbench_totals_t *totals, const counter_t *c)
{
  return *(const apr_int64_t *)((const char *)totals + c->offset);
}

/* Which counters are meaningful for SUBCOMMAND; text output shows only
 * those, JSON shows all. */
static svn_boolean_t
relevant(const char *subcommand, const char *key)
{
  if (!strcmp(key, "net_bytes"))
    return TRUE;
  if (!strcmp(subcommand, "null-log"))
    return !strcmp(key, "revisions") || !strcmp(key, "changed_paths")
           || !strcmp(key, "msg_lines") || !strcmp(key, "revprops");
  if (!strcmp(subcommand, "null-list"))
    return !strcmp(key, "dirs") || !strcmp(key, "files")
           || !strcmp(key, "bytes");
  return strcmp(key, "revisions") && strcmp(key, "changed_paths")
         && strcmp(key, "msg_lines") && strcmp(key, "revprops");
}

static void
print_json(const svnbench_opts_t *opts, const svnbench_totals_t *totals,
           double seconds)
{
  const counter_t *c;
  apr_int64_t items = totals->revisions + totals->files + totals->dirs;

  printf("{\"command\": \"%s\", \"url\": \"", opts->subcommand);
  for (const char *p = opts->url; *p; p++)   /* URLs are URI-escaped */
    printf(*p == '"' || *p == '\\' ? "\\%c" : "%c", *p);
  printf("\", \"revision\": %ld", (long)totals->revision);
  for (c = counters; c->key; c++)
    printf(", \"%s\": %" APR_INT64_T_FMT, c->key, counter_value(totals, c));
  printf(", \"wall_s\": %.6f, \"bytes_per_s\": %.1f, \"items_per_s\": %.1f}\n",
         seconds, seconds > 0 ? totals->bytes / seconds : 0.0,
         seconds > 0 ? items / seconds : 0.0);
}

void
svnbench_report(const svnbench_opts_t *opts, const svnbench_totals_t *totals,
                double seconds, apr_pool_t *scratch_pool)
{
  const counter_t *c;

  if (opts->json)
    {
      print_json(opts, totals, seconds);
      return;
    }
  for (c = counters; c->key; c++)
    if (relevant(opts->subcommand, c->key))
      printf("%15" APR_INT64_T_FMT " %s\n", counter_value(totals, c),
             c->label);
  printf("%15.6f seconds taken\n", seconds);
}
