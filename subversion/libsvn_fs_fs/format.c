/* format.c --- parse and write db/format (format.h, doc/format/format.md).
 *
 * The file is line oriented:
 *
 *   format-file = number LF *( option LF )
 *   option      = "layout linear" / "layout sharded " number
 *               / "addressing logical" / "addressing physical"
 *
 * Rules cited below are those of doc/format/format.md.
 */
#include <string.h>
#include <apr_strings.h>

#include "corrupt.h"
#include "format.h"
#include "scan.h"

/* Parse the decimal number of LEN bytes at S into *VALUE; FALSE if it is
   empty, has a non-digit or exceeds INT_MAX / 2 (a sane upper bound for
   both format numbers and shard sizes). */
static svn_boolean_t
parse_small_number(int *value, const char *s, apr_size_t len)
{
  apr_uint64_t v;

  /* Nine digits at most: below INT_MAX / 2 whatever they are. */
  if (len > 9 || !svn_fs_fs__scan_decimal(&v, s, len, APR_INT32_MAX))
    return FALSE;
  *value = (int)v;
  return TRUE;
}

/* TRUE if the LEN bytes at LINE are exactly the string WORD. */
static svn_boolean_t
line_is(const char *line, apr_size_t len, const char *word)
{
  return strlen(word) == len && memcmp(line, word, len) == 0;
}

/* Apply one option LINE (LEN bytes, no LF) to FORMAT (FORMAT-3/4). */
static svn_error_t *
parse_option(svn_fs_fs__format_t *format, const char *line, apr_size_t len,
             const char *where)
{
  static const char sharded[] = "layout sharded ";
  const apr_size_t sharded_len = sizeof(sharded) - 1;

  if (format->format < SVN_FS_FS__MIN_LAYOUT_FORMAT)
    return svn_fs_fs__corrupt_code(SVN_ERR_BAD_VERSION_FILE_FORMAT,
                                   "OLD-1", where,
                                   "Format %d permits no format options, "
                                   "found '%.*s'", format->format,
                                   (int)(len > 80 ? 80 : len), line);
  if (line_is(line, len, "layout linear"))
    format->max_files_per_dir = 0;
  else if (len > sharded_len && memcmp(line, sharded, sharded_len) == 0)
    {
      if (!parse_small_number(&format->max_files_per_dir, line + sharded_len,
                              len - sharded_len)
          || format->max_files_per_dir < 1)
        return svn_fs_fs__corrupt_code(SVN_ERR_BAD_VERSION_FILE_FORMAT,
                                       "FORMAT-3", where,
                                       "Invalid shard size in '%.*s'",
                                       (int)len, line);
    }
  else if (format->format >= SVN_FS_FS__MIN_LOGICAL_ADDRESSING_FORMAT
           && line_is(line, len, "addressing logical"))
    format->use_log_addressing = TRUE;
  else if (format->format >= SVN_FS_FS__MIN_LOGICAL_ADDRESSING_FORMAT
           && line_is(line, len, "addressing physical"))
    format->use_log_addressing = FALSE;
  else
    return svn_fs_fs__corrupt_code(SVN_ERR_BAD_VERSION_FILE_FORMAT,
                                   "FORMAT-5", where,
                                   "Invalid filesystem format option '%.*s'",
                                   (int)(len > 80 ? 80 : len), line);
  return SVN_NO_ERROR;
}

/* TRUE if everything from P to END is line feeds. */
static svn_boolean_t
trailing_blank(const char *p, const char *end)
{
  while (p < end && *p == '\n')
    p++;
  return p == end;
}

/* The first line: the format number (FORMAT-1, FORMAT-2). */
static svn_error_t *
parse_number_line(svn_fs_fs__format_t *format, const char *line,
                  apr_size_t len, const char *where)
{
  if (!parse_small_number(&format->format, line, len))
    return svn_fs_fs__corrupt_code(SVN_ERR_BAD_VERSION_FILE_FORMAT,
                                   "FORMAT-1", where,
                                   "First line of the format file is not "
                                   "a format number");
  if (format->format < SVN_FS_FS__MIN_FORMAT
      || format->format > SVN_FS_FS__MAX_FORMAT)
    return svn_error_createf(SVN_ERR_FS_UNSUPPORTED_FORMAT, NULL,
                             "Unsupported FSFS format %d%s%s: fsfs7 handles "
                             "formats %d to %d only (rule FORMAT-2)",
                             format->format, where ? " in " : "",
                             where ? where : "", SVN_FS_FS__MIN_FORMAT,
                             SVN_FS_FS__MAX_FORMAT);
  return SVN_NO_ERROR;
}

svn_error_t *
svn_fs_fs__format_parse(svn_fs_fs__format_t *format, const char *data,
                        apr_size_t len, const char *where)
{
  const char *end = data + len;
  const char *line = data;
  svn_boolean_t first = TRUE;

  format->format = 0;
  format->max_files_per_dir = 0;      /* FORMAT-3: linear unless stated */
  format->use_log_addressing = FALSE; /* FORMAT-4: physical unless stated */

  if (len == 0)
    return svn_fs_fs__corrupt_code(SVN_ERR_BAD_VERSION_FILE_FORMAT,
                                   "FORMAT-1", where, "Empty format file");
  while (line < end)
    {
      const char *eol = memchr(line, '\n', end - line);
      apr_size_t line_len = (eol ? eol : end) - line;

      if (first)
        SVN_ERR(parse_number_line(format, line, line_len, where));
      else if (line_len == 0 && trailing_blank(line, end))
        break;  /* FORMAT-5: blank lines at the very end are harmless */
      else
        SVN_ERR(parse_option(format, line, line_len, where));
      first = FALSE;
      line = eol ? eol + 1 : end;
    }
  return SVN_NO_ERROR;
}

const char *
svn_fs_fs__format_unparse(const svn_fs_fs__format_t *format,
                          apr_pool_t *result_pool)
{
  const char *layout = format->max_files_per_dir
    ? apr_psprintf(result_pool, "layout sharded %d\n",
                   format->max_files_per_dir)
    : "layout linear\n";
  const char *addressing = "";

  /* OLD-1: formats 1 and 2 are always linear and have the number only. */
  if (format->format < SVN_FS_FS__MIN_LAYOUT_FORMAT)
    return apr_psprintf(result_pool, "%d\n", format->format);
  if (format->format >= SVN_FS_FS__MIN_LOGICAL_ADDRESSING_FORMAT)
    addressing = format->use_log_addressing ? "addressing logical\n"
                                            : "addressing physical\n";
  return apr_psprintf(result_pool, "%d\n%s%s", format->format, layout,
                      addressing);
}
