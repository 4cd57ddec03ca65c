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

/* One more than the value of each hex digit (either case), 0 for every
   other byte: a table lookup per digit instead of three range tests.
   Every node-rev of a file names two digests (72 digits) and every rev
   file footer two more; the tests took 2.3 % of an export. */
static const unsigned char hex_value[256] =
{
  ['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5,
  ['5'] = 6, ['6'] = 7, ['7'] = 8, ['8'] = 9, ['9'] = 10,
  ['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16,
  ['A'] = 11, ['B'] = 12, ['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16
};

svn_boolean_t
svn_fs_fs__scan_hex(unsigned char *bytes, const char *s, apr_size_t len)
{
  const unsigned char *u = (const unsigned char *)s;
  apr_size_t i;

  if (len % 2)
    return FALSE;
  for (i = 0; i < len; i += 2)
    {
      int hi = hex_value[u[i]], lo = hex_value[u[i + 1]];

      if (hi == 0 || lo == 0)
        return FALSE;
      bytes[i / 2] = (unsigned char)((hi - 1) * 16 + lo - 1);
    }
  return TRUE;
}
