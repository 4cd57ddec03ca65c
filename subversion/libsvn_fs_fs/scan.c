/* scan.c --- digit scanning shared by the codecs (scan.h). */
#include "scan.h"

/* Below this, v * 10 + 9 cannot wrap an apr_uint64_t. */
#define NO_WRAP_LIMIT ((APR_UINT64_MAX - 9) / 10)

svn_boolean_t
svn_fs_fs__scan_decimal_prefix(apr_uint64_t *value, const char **p,
                               const char *end, apr_uint64_t max)
{
  const char *s = *p;
  apr_uint64_t v = 0;

  if (s == end || *s < '0' || *s > '9')
    return FALSE;
  /* Codecs call this for every number of every manifest, index and
     noderev: one division per digit (the general overflow test) cost
     real time in profiles, so that test is left to the rare values
     near the limit of the type, and MAX is compared once per digit. */
  for (; s < end && *s >= '0' && *s <= '9'; s++)
    {
      unsigned digit = (unsigned)(*s - '0');

      if (v > NO_WRAP_LIMIT && v > (APR_UINT64_MAX - digit) / 10)
        return FALSE;
      v = v * 10 + digit;
      if (v > max)
        return FALSE;
    }
  *value = v;
  *p = s;
  return TRUE;
}

svn_boolean_t
svn_fs_fs__scan_decimal(apr_uint64_t *value, const char *s, apr_size_t len,
                        apr_uint64_t max)
{
  const char *p = s;
  apr_uint64_t v;

  if (!svn_fs_fs__scan_decimal_prefix(&v, &p, s + len, max) || p != s + len)
    return FALSE;
  *value = v;
  return TRUE;
}

/* Value of hex digit C (either case), or -1. */
static int
hex_digit(char c)
{
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

svn_boolean_t
svn_fs_fs__scan_hex(unsigned char *bytes, const char *s, apr_size_t len)
{
  apr_size_t i;

  if (len % 2)
    return FALSE;
  for (i = 0; i < len; i += 2)
    {
      int hi = hex_digit(s[i]), lo = hex_digit(s[i + 1]);

      if (hi < 0 || lo < 0)
        return FALSE;
      bytes[i / 2] = (unsigned char)(hi * 16 + lo);
    }
  return TRUE;
}
