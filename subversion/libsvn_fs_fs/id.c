/* id.c --- node-revision IDs: text form, comparison, the loader's id vtable.
 *
 * Implements id.h and doc/format/ids.md (rules ID-1 .. ID-6).  An ID is
 * three dot-separated parts: node part, copy part and a location part that
 * is either "r<rev>/<item>" (committed) or "t<txn-name>" (transaction).
 * Codec layer: no I/O, no caches.
 */
#include <limits.h>
#include <string.h>
#include <apr_strings.h>

#include "svn_error.h"
#include "svn_string.h"

#include "id.h"
#include "scan.h"

/* ------------------------------------------------------------------ */
/* Number scanning                                                      */

/* Value of base-36 digit C, or -1. */
static int
b36_digit(char c)
{
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'z')
    return c - 'a' + 10;
  return -1;
}

/* Parse all LEN bytes at S as a non-empty base-36 number (ID-2). */
static svn_boolean_t
scan_b36(apr_uint64_t *value, const char *s, apr_size_t len)
{
  apr_uint64_t v = 0;
  apr_size_t i;

  if (len == 0)
    return FALSE;
  for (i = 0; i < len; i++)
    {
      int d = b36_digit(s[i]);
      if (d < 0 || v > (APR_UINT64_MAX - (apr_uint64_t)d) / 36)
        return FALSE;
      v = v * 36 + (apr_uint64_t)d;
    }
  *value = v;
  return TRUE;
}

/* A revision number: decimal, fits svn_revnum_t. */
static svn_boolean_t
scan_rev(svn_revnum_t *rev, const char *s, apr_size_t len)
{
  apr_uint64_t v;

  if (!svn_fs_fs__scan_decimal(&v, s, len, (apr_uint64_t)LONG_MAX))
    return FALSE;
  *rev = (svn_revnum_t)v;
  return TRUE;
}

/* Write V in base 36 to BUF (no terminator); returns the length. */
static apr_size_t
print_b36(char *buf, apr_uint64_t v)
{
  char tmp[16];
  apr_size_t n = 0, i;

  do
    {
      unsigned d = (unsigned)(v % 36);
      tmp[n++] = (char)(d < 10 ? '0' + d : 'a' + d - 10);
      v /= 36;
    }
  while (v);
  for (i = 0; i < n; i++)
    buf[i] = tmp[n - 1 - i];
  return n;
}

/* Write V in decimal to BUF (no terminator); returns the length. */
static apr_size_t
print_dec(char *buf, apr_uint64_t v)
{
  char tmp[24];
  apr_size_t n = 0, i;

  do
    {
      tmp[n++] = (char)('0' + v % 10);
      v /= 10;
    }
  while (v);
  for (i = 0; i < n; i++)
    buf[i] = tmp[n - 1 - i];
  return n;
}

/* ------------------------------------------------------------------ */
/* Parts                                                                */

svn_boolean_t
svn_fs_fs__id_part_parse(svn_fs_fs__id_part_t *part, const char *data,
                         apr_size_t len)
{
  const char *dash;

  /* Transaction-local: "_<b36>". */
  if (len > 0 && data[0] == '_')
    {
      part->revision = SVN_INVALID_REVNUM;
      return scan_b36(&part->number, data + 1, len - 1);
    }

  /* Committed, format 3+: "<b36>-<rev>"; older: plain "<b36>". */
  dash = memchr(data, '-', len);
  if (dash == NULL)
    {
      part->revision = 0;
      return scan_b36(&part->number, data, len);
    }
  return scan_b36(&part->number, data, dash - data)
         && scan_rev(&part->revision, dash + 1, len - (dash + 1 - data));
}

svn_boolean_t
svn_fs_fs__id_txn_parse(svn_fs_fs__id_part_t *part, const char *data,
                        apr_size_t len)
{
  const char *dash = memchr(data, '-', len);

  if (dash == NULL)
    return FALSE;
  return scan_rev(&part->revision, data, dash - data)
         && scan_b36(&part->number, dash + 1, len - (dash + 1 - data));
}

apr_size_t
svn_fs_fs__id_part_unparse(char *buf, const svn_fs_fs__id_part_t *part)
{
  apr_size_t n = 0;

  if (!SVN_IS_VALID_REVNUM(part->revision))
    buf[n++] = '_';
  n += print_b36(buf + n, part->number);
  if (SVN_IS_VALID_REVNUM(part->revision) && part->revision > 0)
    {
      buf[n++] = '-';
      n += print_dec(buf + n, (apr_uint64_t)part->revision);
    }
  buf[n] = '\0';
  return n;
}

apr_size_t
svn_fs_fs__id_txn_unparse(char *buf, const svn_fs_fs__id_part_t *txn_id)
{
  apr_size_t n = print_dec(buf, (apr_uint64_t)txn_id->revision);

  buf[n++] = '-';
  n += print_b36(buf + n, txn_id->number);
  buf[n] = '\0';
  return n;
}

/* ------------------------------------------------------------------ */
/* Whole IDs                                                            */

static svn_string_t *
vtable_unparse(const svn_fs_id_t *id, apr_pool_t *pool)
{
  return svn_fs_fs__id_unparse(SVN_FS_FS__ID(id), pool);
}

static svn_fs_node_relation_t
vtable_compare(const svn_fs_id_t *a, const svn_fs_id_t *b)
{
  return svn_fs_fs__id_compare(SVN_FS_FS__ID(a), SVN_FS_FS__ID(b));
}

static const id_vtable_t id_vtable = { vtable_unparse, vtable_compare };

void
svn_fs_fs__id_init_public(svn_fs_fs__id_t *id)
{
  id->public.vtable = &id_vtable;
  id->public.fsap_data = id;
}

/* Parse the location part (after the second dot) into ID (ID-3, ID-4). */
static svn_boolean_t
parse_location(svn_fs_fs__id_t *id, const char *s, apr_size_t len)
{
  const char *slash;

  if (len < 2)
    return FALSE;
  if (s[0] == 't')
    {
      id->rev_item.revision = SVN_INVALID_REVNUM;
      id->rev_item.number = 0;
      return svn_fs_fs__id_txn_parse(&id->txn_id, s + 1, len - 1);
    }
  if (s[0] != 'r')
    return FALSE;
  id->txn_id.revision = SVN_INVALID_REVNUM;
  id->txn_id.number = 0;
  slash = memchr(s, '/', len);
  if (slash == NULL)
    return FALSE;
  return scan_rev(&id->rev_item.revision, s + 1, slash - s - 1)
         && svn_fs_fs__scan_decimal(&id->rev_item.number, slash + 1,
                                    len - (slash + 1 - s), APR_UINT64_MAX);
}

svn_fs_fs__id_t *
svn_fs_fs__id_parse(const char *data, apr_size_t len, apr_pool_t *pool)
{
  svn_fs_fs__id_t id;
  const char *dot1, *dot2, *end = data + len;
  svn_fs_fs__id_t *result;

  /* ID-1: exactly three dot-separated parts. */
  dot1 = memchr(data, '.', len);
  if (dot1 == NULL)
    return NULL;
  dot2 = memchr(dot1 + 1, '.', end - dot1 - 1);
  if (dot2 == NULL || memchr(dot2 + 1, '.', end - dot2 - 1) != NULL)
    return NULL;

  if (!svn_fs_fs__id_part_parse(&id.node_id, data, dot1 - data)
      || !svn_fs_fs__id_part_parse(&id.copy_id, dot1 + 1, dot2 - dot1 - 1)
      || !parse_location(&id, dot2 + 1, end - dot2 - 1))
    return NULL;

  result = apr_pmemdup(pool, &id, sizeof(id));
  svn_fs_fs__id_init_public(result);
  return result;
}

svn_error_t *
svn_fs_fs__id_parse_checked(svn_fs_fs__id_t **id, const char *data,
                            apr_size_t len, apr_pool_t *pool)
{
  *id = svn_fs_fs__id_parse(data, len, pool);
  if (*id == NULL)
    {
      /* Quote at most 64 bytes of the bad text; it may be binary junk. */
      apr_size_t show = len > 64 ? 64 : len;
      return svn_error_createf(SVN_ERR_FS_MALFORMED_NODEREV_ID, NULL,
                               "Malformed node revision ID string '%s' "
                               "(rule ID-1)",
                               apr_pstrmemdup(pool, data, show));
    }
  return SVN_NO_ERROR;
}

apr_size_t
svn_fs_fs__id_unparse_to(char *buf, const svn_fs_fs__id_t *id)
{
  apr_size_t n = svn_fs_fs__id_part_unparse(buf, &id->node_id);

  buf[n++] = '.';
  n += svn_fs_fs__id_part_unparse(buf + n, &id->copy_id);
  buf[n++] = '.';
  if (svn_fs_fs__id_is_txn(id))
    {
      buf[n++] = 't';
      n += svn_fs_fs__id_txn_unparse(buf + n, &id->txn_id);
    }
  else
    {
      buf[n++] = 'r';
      n += print_dec(buf + n, (apr_uint64_t)id->rev_item.revision);
      buf[n++] = '/';
      n += print_dec(buf + n, id->rev_item.number);
      buf[n] = '\0';
    }
  return n;
}

svn_string_t *
svn_fs_fs__id_unparse(const svn_fs_fs__id_t *id, apr_pool_t *pool)
{
  char buf[SVN_FS_FS__ID_MAX];
  apr_size_t len = svn_fs_fs__id_unparse_to(buf, id);

  return svn_string_ncreate(buf, len, pool);
}

svn_fs_fs__id_t *
svn_fs_fs__id_create_rev(const svn_fs_fs__id_part_t *node_id,
                         const svn_fs_fs__id_part_t *copy_id,
                         svn_revnum_t revision, apr_uint64_t item_index,
                         apr_pool_t *pool)
{
  svn_fs_fs__id_t *id = apr_pcalloc(pool, sizeof(*id));

  id->node_id = *node_id;
  id->copy_id = *copy_id;
  id->txn_id.revision = SVN_INVALID_REVNUM;
  id->rev_item.revision = revision;
  id->rev_item.number = item_index;
  svn_fs_fs__id_init_public(id);
  return id;
}

svn_fs_fs__id_t *
svn_fs_fs__id_create_txn(const svn_fs_fs__id_part_t *node_id,
                         const svn_fs_fs__id_part_t *copy_id,
                         const svn_fs_fs__id_part_t *txn_id,
                         apr_pool_t *pool)
{
  svn_fs_fs__id_t *id = apr_pcalloc(pool, sizeof(*id));

  id->node_id = *node_id;
  id->copy_id = *copy_id;
  id->txn_id = *txn_id;
  id->rev_item.revision = SVN_INVALID_REVNUM;
  svn_fs_fs__id_init_public(id);
  return id;
}

svn_fs_fs__id_t *
svn_fs_fs__id_copy(const svn_fs_fs__id_t *id, apr_pool_t *pool)
{
  svn_fs_fs__id_t *copy = apr_pmemdup(pool, id, sizeof(*id));

  svn_fs_fs__id_init_public(copy);
  return copy;
}

svn_boolean_t
svn_fs_fs__id_is_txn(const svn_fs_fs__id_t *id)
{
  return !SVN_IS_VALID_REVNUM(id->rev_item.revision);
}

static svn_boolean_t
part_eq(const svn_fs_fs__id_part_t *a, const svn_fs_fs__id_part_t *b)
{
  return a->revision == b->revision && a->number == b->number;
}

svn_boolean_t
svn_fs_fs__id_eq(const svn_fs_fs__id_t *a, const svn_fs_fs__id_t *b)
{
  if (a == b)
    return TRUE;
  return part_eq(&a->node_id, &b->node_id)
         && part_eq(&a->copy_id, &b->copy_id)
         && part_eq(&a->txn_id, &b->txn_id)
         && part_eq(&a->rev_item, &b->rev_item);
}

svn_boolean_t
svn_fs_fs__id_check_related(const svn_fs_fs__id_t *a,
                            const svn_fs_fs__id_t *b)
{
  if (a == b)
    return TRUE;
  if (!part_eq(&a->node_id, &b->node_id))
    return FALSE;

  /* ID-5: a transaction-local node-id means something only within its
     own transaction. */
  if (!SVN_IS_VALID_REVNUM(a->node_id.revision))
    return part_eq(&a->txn_id, &b->txn_id);
  return TRUE;
}

svn_fs_node_relation_t
svn_fs_fs__id_compare(const svn_fs_fs__id_t *a, const svn_fs_fs__id_t *b)
{
  if (svn_fs_fs__id_eq(a, b))
    return svn_fs_node_unchanged;
  return svn_fs_fs__id_check_related(a, b) ? svn_fs_node_common_ancestor
                                           : svn_fs_node_unrelated;
}

svn_revnum_t
svn_fs_fs__id_rev(const svn_fs_fs__id_t *id)
{
  return id->rev_item.revision;
}
