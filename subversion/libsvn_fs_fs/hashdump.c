/* hashdump.c --- parse and write hash dumps (hashdump.h,
 * doc/format/revprops.md "Hash dump").
 *
 *   dump  = *( "K " len LF key LF "V " len LF value LF ) "END" LF
 *   len   = 1*DIGIT            ; byte length of the following key / value
 *
 * Lengths are exact, so keys and values may hold any bytes, LF included.
 */
#include <string.h>
#include <apr_strings.h>

#include "svn_hash.h"
#include "svn_sorts.h"
#include "private/svn_sorts_private.h"

#include "corrupt.h"
#include "hashdump.h"
#include "scan.h"

/* Read cursor over the input. */
typedef struct cursor_t
{
  const char *p;
  const char *end;
  const char *where;
} cursor_t;

/* Parse "<TAG> <digits>\n" at C into *LEN (HASH-2). */
static svn_error_t *
read_length(apr_size_t *len, cursor_t *c, char tag)
{
  apr_uint64_t v = 0;
  const char *digits;

  if (c->end - c->p < 3 || c->p[0] != tag || c->p[1] != ' ')
    return svn_fs_fs__corrupt("HASH-2", c->where,
                              "Expected '%c <length>' in property list",
                              tag);
  c->p += 2;
  digits = c->p;
  /* With a digit at hand, only an overflow can fail the scan. */
  if (c->p < c->end && *c->p >= '0' && *c->p <= '9'
      && !svn_fs_fs__scan_decimal_prefix(&v, &c->p, c->end, APR_INT32_MAX))
    return svn_fs_fs__corrupt("HASH-2", c->where,
                              "Property length too large");
  if (c->p == digits || c->p == c->end || *c->p != '\n')
    return svn_fs_fs__corrupt("HASH-2", c->where,
                              "Malformed length line in property list");
  c->p++;
  *len = (apr_size_t)v;
  return SVN_NO_ERROR;
}

/* Read LEN bytes plus the LF that must follow them (HASH-3). */
static svn_error_t *
read_body(const char **body, cursor_t *c, apr_size_t len,
          apr_pool_t *result_pool)
{
  if ((apr_size_t)(c->end - c->p) <= len || c->p[len] != '\n')
    return svn_fs_fs__corrupt("HASH-3", c->where,
                              "Property key or value not followed by "
                              "a newline at its stated length");
  *body = apr_pstrmemdup(result_pool, c->p, len);
  c->p += len + 1;
  return SVN_NO_ERROR;
}

/* TRUE if C starts with the terminator "END\n" (HASH-1). */
static svn_boolean_t
at_end_marker(const cursor_t *c)
{
  return c->end - c->p >= 4 && memcmp(c->p, "END\n", 4) == 0;
}

svn_error_t *
svn_fs_fs__hashdump_parse(apr_hash_t **props, apr_size_t *consumed,
                          const char *data, apr_size_t len,
                          const char *where, apr_pool_t *result_pool)
{
  cursor_t c;

  c.p = data;
  c.end = data + len;
  c.where = where;
  *props = apr_hash_make(result_pool);
  while (!at_end_marker(&c))
    {
      apr_size_t klen, vlen;
      const char *key = NULL, *value = NULL;  /* read_body sets them; gcc 14 misses it */

      SVN_ERR(read_length(&klen, &c, 'K'));
      SVN_ERR(read_body(&key, &c, klen, result_pool));
      SVN_ERR(read_length(&vlen, &c, 'V'));
      SVN_ERR(read_body(&value, &c, vlen, result_pool));
      apr_hash_set(*props, key, klen,
                   svn_string_ncreate(value, vlen, result_pool));
    }
  c.p += 4;
  if (consumed)
    *consumed = c.p - data;
  else if (c.p != c.end)
    return svn_fs_fs__corrupt("HASH-1", where,
                              "Unexpected data after the property list");
  return SVN_NO_ERROR;
}

void
svn_fs_fs__hashdump_unparse(svn_stringbuf_t *out, apr_hash_t *props,
                            apr_pool_t *scratch_pool)
{
  apr_array_header_t *sorted
    = svn_sort__hash(props, svn_sort_compare_items_lexically, scratch_pool);
  int i;

  for (i = 0; i < sorted->nelts; i++)
    {
      const svn_sort__item_t *item
        = &APR_ARRAY_IDX(sorted, i, svn_sort__item_t);
      const svn_string_t *value = item->value;

      svn_stringbuf_appendcstr(out, apr_psprintf(scratch_pool, "K %ld\n",
                                                 (long)item->klen));
      svn_stringbuf_appendbytes(out, item->key, item->klen);
      svn_stringbuf_appendcstr(out, apr_psprintf(scratch_pool, "\nV %ld\n",
                                                 (long)value->len));
      svn_stringbuf_appendbytes(out, value->data, value->len);
      svn_stringbuf_appendbyte(out, '\n');
    }
  svn_stringbuf_appendcstr(out, "END\n");
}
