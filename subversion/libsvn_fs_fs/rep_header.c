/* rep_header.c --- parse and write representation header lines.
 *
 * Implements REP-1 .. REP-4 of doc/format/representations.md.  The parser
 * is strict about spelling (single blanks, decimal digits only) because
 * every writer produces exactly that form, and a lenient parser would only
 * turn damaged headers into wrong base locations.
 */
#include <limits.h>
#include <string.h>
#include <apr_strings.h>

#include "corrupt.h"
#include "rep_header.h"
#include "scan.h"

/* Parse the "<rev> <item> <len>" part of a delta header, LINE..END. */
static svn_boolean_t
parse_base(svn_fs_fs__rep_header_t *header, const char *line,
           const char *end)
{
  apr_uint64_t rev, item, length;

  if (!svn_fs_fs__scan_decimal_prefix(&rev, &line, end, LONG_MAX)
      || line == end || *line++ != ' ')
    return FALSE;
  if (!svn_fs_fs__scan_decimal_prefix(&item, &line, end, APR_UINT64_MAX)
      || line == end || *line++ != ' ')
    return FALSE;
  if (!svn_fs_fs__scan_decimal_prefix(&length, &line, end, APR_INT64_MAX)
      || line != end)
    return FALSE;

  header->base_revision = (svn_revnum_t)rev;
  header->base_item_index = item;
  header->base_length = (svn_filesize_t)length;
  return TRUE;
}

svn_error_t *
svn_fs_fs__rep_header_parse(svn_fs_fs__rep_header_t *header,
                            const char *data, apr_size_t len,
                            const char *where)
{
  apr_size_t scan = len < SVN_FS_FS__REP_HEADER_MAX
                  ? len : SVN_FS_FS__REP_HEADER_MAX;
  const char *eol = memchr(data, '\n', scan);
  apr_size_t line_len;

  if (eol == NULL)
    return svn_fs_fs__corrupt("REP-1", where,
                              "Representation header line is missing or "
                              "longer than %d bytes",
                              SVN_FS_FS__REP_HEADER_MAX);

  line_len = (apr_size_t)(eol - data);
  memset(header, 0, sizeof(*header));
  header->base_revision = SVN_INVALID_REVNUM;
  header->header_size = line_len + 1;

  if (line_len == 5 && memcmp(data, "PLAIN", 5) == 0)
    header->kind = svn_fs_fs__rep_plain;
  else if (line_len == 5 && memcmp(data, "DELTA", 5) == 0)
    header->kind = svn_fs_fs__rep_self_delta;
  else if (line_len > 6 && memcmp(data, "DELTA ", 6) == 0)
    {
      header->kind = svn_fs_fs__rep_delta;
      if (!parse_base(header, data + 6, eol))
        return svn_fs_fs__corrupt("REP-4", where,
                                  "Malformed delta base in representation "
                                  "header '%.*s'", (int)line_len, data);
    }
  else
    return svn_fs_fs__corrupt("REP-2", where,
                              "Unknown representation header '%.*s'",
                              (int)line_len, data);

  return SVN_NO_ERROR;
}

svn_stringbuf_t *
svn_fs_fs__rep_header_unparse(const svn_fs_fs__rep_header_t *header,
                              apr_pool_t *result_pool)
{
  switch (header->kind)
    {
      case svn_fs_fs__rep_plain:
        return svn_stringbuf_create("PLAIN\n", result_pool);
      case svn_fs_fs__rep_self_delta:
        return svn_stringbuf_create("DELTA\n", result_pool);
      default:
        return svn_stringbuf_createf(result_pool,
                                     "DELTA %ld %" APR_UINT64_T_FMT
                                     " %" SVN_FILESIZE_T_FMT "\n",
                                     header->base_revision,
                                     header->base_item_index,
                                     header->base_length);
    }
}
