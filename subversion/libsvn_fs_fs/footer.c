/* footer.c --- footer, trailer and manifest codecs (footer.h).
 *
 * Implements doc/format/addressing.md, sections "Footer" (FOOTER-*),
 * "Trailer" (TRAILER-*) and "Manifest" (MANIFEST-*).  All three are short
 * ASCII structures; the parsers accept exactly the grammar and nothing
 * else, since a damaged end of file is the first thing a crash or a
 * truncated copy leaves behind.
 */
#include <string.h>
#include <apr_strings.h>

#include "corrupt.h"
#include "footer.h"
#include "scan.h"

/* Decimal numbers above this many digits cannot be file offsets we
   accept (and any 18 digits fit an apr_off_t). */
#define MAX_DIGITS 18

/* Parse a decimal number of at most MAX_DIGITS digits at *P (< END) that
   is followed by the byte STOP; advance *P to that byte.
   FALSE if there is no digit, too many digits or another byte. */
static svn_boolean_t
parse_decimal(apr_off_t *value, const char **p, const char *end, char stop)
{
  const char *s = *p;
  const char *digits_end = end - s > MAX_DIGITS ? s + MAX_DIGITS : end;
  apr_uint64_t v;

  if (!svn_fs_fs__scan_decimal_prefix(&v, &s, digits_end, APR_INT64_MAX)
      || s == end || *s != stop)
    return FALSE;
  *value = (apr_off_t)v;
  *p = s;
  return TRUE;
}

/* Parse 32 hex digits at *P into DIGEST and advance *P. */
static svn_boolean_t
parse_md5(unsigned char *digest, const char **p, const char *end)
{
  if (end - *p < 2 * APR_MD5_DIGESTSIZE
      || !svn_fs_fs__scan_hex(digest, *p, 2 * APR_MD5_DIGESTSIZE))
    return FALSE;
  *p += 2 * APR_MD5_DIGESTSIZE;
  return TRUE;
}

/* Expect byte C at *P and step over it. */
static svn_boolean_t
expect(const char **p, const char *end, char c)
{
  if (*p >= end || **p != c)
    return FALSE;
  (*p)++;
  return TRUE;
}

/* The footer text grammar (FOOTER-2). */
static svn_boolean_t
parse_footer_text(svn_fs_fs__footer_t *footer, const char *p, const char *end)
{
  return parse_decimal(&footer->l2p_offset, &p, end, ' ')
         && expect(&p, end, ' ')
         && parse_md5(footer->l2p_md5, &p, end)
         && expect(&p, end, ' ')
         && parse_decimal(&footer->p2l_offset, &p, end, ' ')
         && expect(&p, end, ' ')
         && parse_md5(footer->p2l_md5, &p, end)
         && p == end;
}

svn_error_t *
svn_fs_fs__footer_parse(svn_fs_fs__footer_t *footer,
                        const unsigned char *tail, apr_size_t len,
                        apr_off_t file_size, const char *where)
{
  apr_size_t text_len;
  const char *text;

  if (len == 0 || (apr_off_t)len > file_size)
    return svn_fs_fs__index_corrupt("FOOTER-1", where,
                                    "File too short for a footer");
  text_len = tail[len - 1];
  if (text_len == 0 || text_len + 1 > len)
    return svn_fs_fs__index_corrupt("FOOTER-1", where,
                                    "Footer length byte %u is invalid",
                                    (unsigned)text_len);
  text = (const char *)tail + len - 1 - text_len;
  if (!parse_footer_text(footer, text, text + text_len))
    {
      char shown[SVN_FS_FS__FOOTER_MAX_LEN];
      apr_size_t k;

      /* Damaged footers are often binary; show them printable. */
      for (k = 0; k < text_len; k++)
        shown[k] = (text[k] >= 0x20 && text[k] < 0x7f) ? text[k] : '?';
      shown[text_len] = '\0';
      return svn_fs_fs__index_corrupt("FOOTER-2", where,
                                      "Malformed footer '%s'", shown);
    }
  footer->footer_offset = file_size - 1 - (apr_off_t)text_len;
  if (!(footer->l2p_offset < footer->p2l_offset
        && footer->p2l_offset < footer->footer_offset))
    return svn_fs_fs__index_corrupt("FOOTER-3", where,
             "Footer index offsets %" APR_OFF_T_FMT " and %" APR_OFF_T_FMT
             " are not ordered before the footer at %" APR_OFF_T_FMT,
             footer->l2p_offset, footer->p2l_offset, footer->footer_offset);
  return SVN_NO_ERROR;
}

/* Lowercase hex of DIGEST into BUF (33 bytes incl. NUL). */
static void
md5_hex(char *buf, const unsigned char *digest)
{
  static const char digits[] = "0123456789abcdef";
  int k;

  for (k = 0; k < APR_MD5_DIGESTSIZE; k++)
    {
      buf[2 * k] = digits[digest[k] >> 4];
      buf[2 * k + 1] = digits[digest[k] & 15];
    }
  buf[2 * APR_MD5_DIGESTSIZE] = '\0';
}

apr_size_t
svn_fs_fs__footer_unparse(char *buf, const svn_fs_fs__footer_t *footer)
{
  char l2p_hex[33], p2l_hex[33];
  int n;

  md5_hex(l2p_hex, footer->l2p_md5);
  md5_hex(p2l_hex, footer->p2l_md5);
  n = apr_snprintf(buf, SVN_FS_FS__FOOTER_MAX_LEN - 1,
                   "%" APR_OFF_T_FMT " %s %" APR_OFF_T_FMT " %s",
                   footer->l2p_offset, l2p_hex, footer->p2l_offset, p2l_hex);
  buf[n] = (char)(unsigned char)n;
  return (apr_size_t)n + 1;
}

svn_error_t *
svn_fs_fs__trailer_parse(apr_off_t *root_offset, apr_off_t *changes_offset,
                         apr_off_t *line_offset, const char *tail,
                         apr_size_t len, apr_off_t rev_len,
                         const char *where)
{
  const char *end = tail + len;
  const char *line;
  apr_off_t line_start;

  /* TRAILER-1: the revision ends in "\n<root> <changes>\n". */
  if (len < 2 || end[-1] != '\n')
    return svn_fs_fs__corrupt("TRAILER-1", where,
                              "Revision does not end with a trailer line");
  line = end - 1;
  while (line > tail && line[-1] != '\n')
    line--;
  if (line == tail)
    return svn_fs_fs__corrupt("TRAILER-1", where,
                              "Revision trailer line is too long");
  line_start = rev_len - (end - line);
  if (!parse_decimal(root_offset, &line, end, ' ')
      || !expect(&line, end, ' ')
      || !parse_decimal(changes_offset, &line, end, '\n')
      || line + 1 != end)
    return svn_fs_fs__corrupt("TRAILER-1", where,
                              "Malformed revision trailer line");
  /* TRAILER-2: both items lie before the trailer line. */
  if (*root_offset >= line_start || *changes_offset > line_start)
    return svn_fs_fs__corrupt("TRAILER-2", where,
             "Revision trailer offsets %" APR_OFF_T_FMT " %" APR_OFF_T_FMT
             " point past the revision data", *root_offset, *changes_offset);
  if (line_offset)
    *line_offset = line_start;
  return SVN_NO_ERROR;
}

svn_error_t *
svn_fs_fs__manifest_parse(apr_off_t **offsets, const char *data,
                          apr_size_t len, int expected_count,
                          apr_off_t pack_size, const char *where,
                          apr_pool_t *result_pool)
{
  const char *p = data, *end = data + len;
  apr_off_t *result = apr_palloc(result_pool,
                                 (expected_count + 1) * sizeof(*result));
  int k;

  for (k = 0; k < expected_count && p < end; k++)
    {
      const char *lf = memchr(p, '\n', end - p);
      const char *line_end = lf ? lf : end;
      const char *q = p;

      /* MANIFEST-1 for this line only; svn_fs_fs__manifest_bounds
         reports it to the revisions that need it. */
      if (!lf || !parse_decimal(&result[k], &q, end, '\n') || q != line_end)
        result[k] = -1;
      p = lf ? lf + 1 : end;
    }
  if (k < expected_count || p != end)
    return svn_fs_fs__corrupt("MANIFEST-1", where,
                              "Manifest does not have exactly %d lines",
                              expected_count);
  result[expected_count] = pack_size;
  *offsets = result;
  return SVN_NO_ERROR;
}

svn_error_t *
svn_fs_fs__manifest_bounds(apr_off_t *start, apr_off_t *end,
                           const apr_off_t *offsets, int count, int index,
                           svn_revnum_t shard_start, apr_off_t file_size,
                           const char *where)
{
  int k;

  /* This revision's line and the next one (its end). */
  for (k = index; k <= index + 1 && k < count; k++)
    if (offsets[k] < 0)
      return svn_fs_fs__corrupt("MANIFEST-1", where,
                                "Manifest line %d (bounds of r%ld) is "
                                "malformed", k + 1, shard_start + index);
  *start = offsets[index];
  *end = index + 1 < count ? offsets[index + 1] : file_size;
  if ((index == 0 && *start != 0) || *start >= *end)
    return svn_fs_fs__corrupt("MANIFEST-2", where,
             "Manifest gives r%ld the bytes %" APR_OFF_T_FMT " to %"
             APR_OFF_T_FMT " (lines %d and %d): out of order",
             shard_start + index, *start, *end, index + 1, index + 2);
  if (*end > file_size)
    return svn_fs_fs__corrupt("MANIFEST-2", where,
             "Manifest says r%ld ends at %" APR_OFF_T_FMT ", beyond the "
             "pack file's %" APR_OFF_T_FMT " bytes", shard_start + index,
             *end, file_size);
  return SVN_NO_ERROR;
}
