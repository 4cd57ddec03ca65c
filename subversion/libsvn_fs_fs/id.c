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

/* The numbers of an ID are read left to right, each up to the first
   byte that cannot continue it, which the caller then checks for the
   delimiter it expects: one pass over the text.  IDs are parsed for
   every changed path of a log and every node-rev of a walk; finding the
   delimiters first with memchr() and scanning each piece again took 680
   instructions an ID, 13 % of 'svnbench null-log -v' of maven (570 in
   one pass). */

/* Value of base-36 digit C, or -1. */
static APR_INLINE int
b36_digit(char c)
{
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'z')
    return c - 'a' + 10;
  return -1;
}

/* Read the base-36 digits at *P (before END) into *VALUE and advance *P
   past them: FALSE if there are none or they overflow (ID-2). */
static svn_boolean_t
b36_prefix(apr_uint64_t *value, const char **p, const char *end)
{
  const char *s = *p;
  apr_uint64_t v = 0;
  int d;

  for (; s < end && (d = b36_digit(*s)) >= 0; s++)
    {
      if (v > (APR_UINT64_MAX - (apr_uint64_t)d) / 36)
        return FALSE;
      v = v * 36 + (apr_uint64_t)d;
    }
  if (s == *p)
    return FALSE;
  *value = v;
  *p = s;
  return TRUE;
}

/* The same for a revision number: decimal, fits svn_revnum_t. */
static svn_boolean_t
rev_prefix(svn_revnum_t *rev, const char **p, const char *end)
{
  apr_uint64_t v;

  if (!svn_fs_fs__scan_decimal_prefix(&v, p, end, (apr_uint64_t)LONG_MAX))
    return FALSE;
  *rev = (svn_revnum_t)v;
  return TRUE;
}

/* Whether *P is END (when STOP is 0) or the byte STOP, which it then
   steps over. */
static APR_INLINE svn_boolean_t
at_delimiter(const char **p, const char *end, char stop)
{
  if (stop == 0)
    return *p == end;
  if (*p == end || **p != stop)
    return FALSE;
  ++*p;
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

/* Read a node or copy part at *P (ID-2) that ends with STOP (0: at END),
   advancing *P past STOP. */
static svn_boolean_t
part_prefix(svn_fs_fs__id_part_t *part, const char **p, const char *end,
            char stop)
{
  /* Transaction-local: "_<b36>". */
  if (*p < end && **p == '_')
    {
      ++*p;
      part->revision = SVN_INVALID_REVNUM;
      return b36_prefix(&part->number, p, end)
             && at_delimiter(p, end, stop);
    }

  /* Committed, format 3+: "<b36>-<rev>"; older: plain "<b36>". */
  if (!b36_prefix(&part->number, p, end))
    return FALSE;
  part->revision = 0;
  if (at_delimiter(p, end, stop))
    return TRUE;
  return at_delimiter(p, end, '-')
         && rev_prefix(&part->revision, p, end)
         && at_delimiter(p, end, stop);
}

/* Read a transaction name "<rev>-<b36>" at *P that ends with STOP (0: at
   END), advancing *P past STOP. */
static svn_boolean_t
txn_prefix(svn_fs_fs__id_part_t *part, const char **p, const char *end,
           char stop)
{
  return rev_prefix(&part->revision, p, end)
         && at_delimiter(p, end, '-')
         && b36_prefix(&part->number, p, end)
         && at_delimiter(p, end, stop);
}

svn_boolean_t
svn_fs_fs__id_part_parse(svn_fs_fs__id_part_t *part, const char *data,
                         apr_size_t len)
{
  return part_prefix(part, &data, data + len, 0);
}

svn_boolean_t
svn_fs_fs__id_txn_parse(svn_fs_fs__id_part_t *part, const char *data,
                        apr_size_t len)
{
  return txn_prefix(part, &data, data + len, 0);
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

/* Read the location part at *P, which must end at END, into ID (ID-3,
   ID-4). */
static svn_boolean_t
location_prefix(svn_fs_fs__id_t *id, const char **p, const char *end)
{
  if (*p == end)
    return FALSE;
  if (**p == 't')
    {
      ++*p;
      id->rev_item.revision = SVN_INVALID_REVNUM;
      id->rev_item.number = 0;
      return txn_prefix(&id->txn_id, p, end, 0);
    }
  if (**p != 'r')
    return FALSE;
  ++*p;
  id->txn_id.revision = SVN_INVALID_REVNUM;
  id->txn_id.number = 0;
  return rev_prefix(&id->rev_item.revision, p, end)
         && at_delimiter(p, end, '/')
         && svn_fs_fs__scan_decimal_prefix(&id->rev_item.number, p, end,
                                           APR_UINT64_MAX)
         && at_delimiter(p, end, 0);
}

svn_fs_fs__id_t *
svn_fs_fs__id_parse(const char *data, apr_size_t len, apr_pool_t *pool)
{
  svn_fs_fs__id_t id;
  const char *p = data, *end = data + len;
  svn_fs_fs__id_t *result;

  /* ID-1: node part, copy part and location, dot-separated (no part can
     hold a dot, so there are exactly two). */
  if (!part_prefix(&id.node_id, &p, end, '.')
      || !part_prefix(&id.copy_id, &p, end, '.')
      || !location_prefix(&id, &p, end))
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
