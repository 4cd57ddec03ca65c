/* changes_codec.c --- parse and print changed-path entries
 * (changes_codec.h; doc/format/changes.md, rules CHANGES-1 .. CHANGES-6).
 *
 * Entry line one: "<id> <action>[-<kind>] <text-mod> <prop-mod>
 * [<mergeinfo-mod>] <path>", line two: "<rev> <path>" or empty.  Paths may
 * contain spaces, so the path is always "the rest of the line"; it is
 * absolute, which is what tells an optional mergeinfo flag from a path.
 */
#include <string.h>
#include <apr_strings.h>

#include "svn_string.h"

#include "corrupt.h"
#include "id.h"
#include "changes_codec.h"
#include "scan.h"

/* The largest copy-source revision accepted (CHANGES-5): the same
   APR_INT32_MAX that noderev_codec.c puts on the copyfrom field of a
   node-rev, so both records of one copy obey one limit. */
#define COPYFROM_REV_MAX ((apr_uint64_t)APR_INT32_MAX)

svn_fs_fs__change_scan_t
svn_fs_fs__change_scan(apr_size_t *len_p, const char *data, apr_size_t len)
{
  const char *nl1, *nl2;

  if (len == 0)
    return svn_fs_fs__change_scan_incomplete;
  if (data[0] == '\n')
    {
      *len_p = 1;
      return svn_fs_fs__change_scan_end;
    }
  nl1 = memchr(data, '\n', len);
  if (nl1 == NULL)
    return svn_fs_fs__change_scan_incomplete;
  nl2 = memchr(nl1 + 1, '\n', data + len - nl1 - 1);
  if (nl2 == NULL)
    return svn_fs_fs__change_scan_incomplete;
  *len_p = nl2 - data + 1;
  return svn_fs_fs__change_scan_entry;
}

/* Cut the next space-terminated token off *S (END is the line end). */
static svn_boolean_t
next_token(const char **tok, apr_size_t *tok_len, const char **s,
           const char *end)
{
  const char *space = memchr(*s, ' ', end - *s);

  if (space == NULL || space == *s)
    return FALSE;
  *tok = *s;
  *tok_len = space - *s;
  *s = space + 1;
  return TRUE;
}

#define TOKEN_IS(tok, len, lit) \
  ((len) == sizeof(lit) - 1 && memcmp((tok), (lit), (len)) == 0)

/* "true" / "false" (CHANGES-4). */
static svn_boolean_t
scan_flag(svn_boolean_t *flag, const char *tok, apr_size_t len)
{
  if (TOKEN_IS(tok, len, "true"))
    *flag = TRUE;
  else if (TOKEN_IS(tok, len, "false"))
    *flag = FALSE;
  else
    return FALSE;
  return TRUE;
}

/* "<action>[-<kind>]" (CHANGES-3). */
static svn_boolean_t
scan_action(svn_fs_fs__change_t *change, const char *tok, apr_size_t len)
{
  const char *dash = memchr(tok, '-', len);
  apr_size_t alen = dash ? (apr_size_t)(dash - tok) : len;

  change->node_kind = svn_node_unknown;
  if (dash)
    {
      apr_size_t klen = len - alen - 1;
      if (TOKEN_IS(dash + 1, klen, "file"))
        change->node_kind = svn_node_file;
      else if (TOKEN_IS(dash + 1, klen, "dir"))
        change->node_kind = svn_node_dir;
      else
        return FALSE;
    }
  if (TOKEN_IS(tok, alen, "add"))
    change->change_kind = svn_fs_path_change_add;
  else if (TOKEN_IS(tok, alen, "delete"))
    change->change_kind = svn_fs_path_change_delete;
  else if (TOKEN_IS(tok, alen, "replace"))
    change->change_kind = svn_fs_path_change_replace;
  else if (TOKEN_IS(tok, alen, "modify"))
    change->change_kind = svn_fs_path_change_modify;
  else if (TOKEN_IS(tok, alen, "reset"))
    change->change_kind = svn_fs_path_change_reset;
  else
    return FALSE;
  return TRUE;
}

/* Decode line one, [S, END), into CHANGE.  Returns the rule broken or
   NULL. */
static const char *
parse_main_line(svn_fs_fs__change_t *change, const char *s, const char *end,
                svn_boolean_t allow_reset, apr_pool_t *pool)
{
  const char *tok;
  apr_size_t tok_len;
  svn_boolean_t flag;

  if (!next_token(&tok, &tok_len, &s, end))
    return "CHANGES-1";
  if (!TOKEN_IS(tok, tok_len, "reset"))
    {
      change->noderev_id = svn_fs_fs__id_parse(tok, tok_len, pool);
      if (change->noderev_id == NULL)
        return "CHANGES-2";
    }
  if (!next_token(&tok, &tok_len, &s, end)
      || !scan_action(change, tok, tok_len))
    return "CHANGES-3";
  if ((change->change_kind == svn_fs_path_change_reset)
      != (change->noderev_id == NULL)
      || (change->noderev_id == NULL && !allow_reset))
    return "CHANGES-3";
  if (!next_token(&tok, &tok_len, &s, end)
      || !scan_flag(&change->text_mod, tok, tok_len)
      || !next_token(&tok, &tok_len, &s, end)
      || !scan_flag(&change->prop_mod, tok, tok_len))
    return "CHANGES-4";

  /* The mergeinfo flag exists from format 7 on, and not even there in
     revisions that were upgraded. */
  change->mergeinfo_mod = svn_tristate_unknown;
  if (s < end && *s != '/')
    {
      if (!next_token(&tok, &tok_len, &s, end)
          || !scan_flag(&flag, tok, tok_len))
        return "CHANGES-4";
      change->mergeinfo_mod = flag ? svn_tristate_true : svn_tristate_false;
    }
  if (s == end || *s != '/' || memchr(s, '\0', end - s) != NULL)
    return "CHANGES-5";
  change->path.data = apr_pstrmemdup(pool, s, end - s);
  change->path.len = end - s;
  return NULL;
}

/* Decode line two, [S, END), the copy source (CHANGES-5). */
static svn_boolean_t
parse_copyfrom_line(svn_fs_fs__change_t *change, const char *s,
                    const char *end, apr_pool_t *pool)
{
  const char *space;
  apr_uint64_t rev;

  change->copyfrom_known = TRUE;
  change->copyfrom_rev = SVN_INVALID_REVNUM;
  change->copyfrom_path = NULL;
  if (s == end)
    return TRUE;
  space = memchr(s, ' ', end - s);
  if (space == NULL || space == s || space + 1 == end || space[1] != '/'
      || memchr(space, '\0', end - space) != NULL)
    return FALSE;
  if (!svn_fs_fs__scan_decimal(&rev, s, space - s, COPYFROM_REV_MAX))
    return FALSE;
  change->copyfrom_rev = (svn_revnum_t)rev;
  change->copyfrom_path = apr_pstrmemdup(pool, space + 1, end - space - 1);
  return TRUE;
}

svn_error_t *
svn_fs_fs__change_parse(svn_fs_fs__change_t **change_p, const char *data,
                        apr_size_t len, svn_boolean_t allow_reset,
                        const char *where, apr_pool_t *result_pool)
{
  svn_fs_fs__change_t *change = apr_pcalloc(result_pool, sizeof(*change));
  const char *end = data + len;
  const char *nl1 = memchr(data, '\n', len);
  const char *rule;

  /* CHANGES-1: two complete lines. */
  if (nl1 == NULL || nl1 == data || nl1 + 1 >= end || end[-1] != '\n'
      || memchr(nl1 + 1, '\n', end - nl1 - 2) != NULL)
    return svn_fs_fs__corrupt("CHANGES-1", where,
                              "Malformed changed-path entry");
  rule = parse_main_line(change, data, nl1, allow_reset, result_pool);
  if (rule)
    return svn_fs_fs__corrupt(rule, where,
                              "Invalid changes line in rev-file: '%s'",
                              apr_pstrmemdup(result_pool, data,
                                             nl1 - data > 200
                                             ? 200 : nl1 - data));
  if (!parse_copyfrom_line(change, nl1 + 1, end - 1, result_pool))
    return svn_fs_fs__corrupt("CHANGES-5", where,
                              "Malformed copyfrom line in changed-path "
                              "entry");
  *change_p = change;
  return SVN_NO_ERROR;
}

svn_error_t *
svn_fs_fs__changes_parse(apr_array_header_t **changes, apr_size_t *consumed,
                         const char *data, apr_size_t len,
                         svn_boolean_t allow_reset, const char *where,
                         apr_pool_t *result_pool, apr_pool_t *scratch_pool)
{
  apr_array_header_t *list = apr_array_make(result_pool, 16,
                                            sizeof(svn_fs_fs__change_t *));
  apr_size_t pos = 0;

  for (;;)
    {
      apr_size_t n;
      svn_fs_fs__change_scan_t what = svn_fs_fs__change_scan(&n, data + pos,
                                                             len - pos);
      svn_fs_fs__change_t *change;

      if (what == svn_fs_fs__change_scan_end)
        {
          pos += n;
          break;
        }
      if (what == svn_fs_fs__change_scan_incomplete)
        {
          /* CHANGES-1: a list stops at a line boundary. */
          if (pos != len)
            return svn_fs_fs__corrupt("CHANGES-1", where,
                                      "Changed-path list is truncated");
          break;
        }
      SVN_ERR(svn_fs_fs__change_parse(&change, data + pos, n, allow_reset,
                                      where, result_pool));
      APR_ARRAY_PUSH(list, svn_fs_fs__change_t *) = change;
      pos += n;
    }
  if (consumed)
    *consumed = pos;
  *changes = list;
  return SVN_NO_ERROR;
}

static const char *
action_word(svn_fs_path_change_kind_t kind)
{
  switch (kind)
    {
      case svn_fs_path_change_add: return "add";
      case svn_fs_path_change_delete: return "delete";
      case svn_fs_path_change_replace: return "replace";
      case svn_fs_path_change_reset: return "reset";
      default: return "modify";
    }
}

void
svn_fs_fs__change_unparse(svn_stringbuf_t *out,
                          const svn_fs_fs__change_t *change, int format)
{
  char buf[SVN_FS_FS__ID_MAX];

  if (change->noderev_id)
    svn_stringbuf_appendbytes(out, buf,
                              svn_fs_fs__id_unparse_to(buf,
                                                       change->noderev_id));
  else
    svn_stringbuf_appendcstr(out, "reset");
  svn_stringbuf_appendbyte(out, ' ');
  svn_stringbuf_appendcstr(out, action_word(change->change_kind));
  if (change->node_kind == svn_node_file)
    svn_stringbuf_appendcstr(out, "-file");
  else if (change->node_kind == svn_node_dir)
    svn_stringbuf_appendcstr(out, "-dir");
  svn_stringbuf_appendcstr(out, change->text_mod ? " true" : " false");
  svn_stringbuf_appendcstr(out, change->prop_mod ? " true" : " false");
  if (format >= 7)
    svn_stringbuf_appendcstr(out, change->mergeinfo_mod == svn_tristate_true
                                  ? " true" : " false");
  svn_stringbuf_appendbyte(out, ' ');
  svn_stringbuf_appendbytes(out, change->path.data, change->path.len);
  svn_stringbuf_appendbyte(out, '\n');
  if (SVN_IS_VALID_REVNUM(change->copyfrom_rev) && change->copyfrom_path)
    {
      apr_snprintf(buf, sizeof(buf), "%ld ", change->copyfrom_rev);
      svn_stringbuf_appendcstr(out, buf);
      svn_stringbuf_appendcstr(out, change->copyfrom_path);
    }
  svn_stringbuf_appendbyte(out, '\n');
}
