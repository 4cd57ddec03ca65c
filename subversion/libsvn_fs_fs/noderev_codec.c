/* noderev_codec.c --- parse and print node-revision records
 * (noderev_codec.h; doc/format/noderev.md, rules NODEREV-1 .. NODEREV-12).
 *
 * A record is a run of "<field>: <value>" lines closed by an empty line.
 * Parsing is one pass over the lines; "text"/"props" values are decoded
 * after the pass because they need the record's own ID (mutable reps of
 * a transaction), and fields may in principle come in any order.
 */
#include <string.h>
#include <apr_strings.h>

#include "svn_string.h"
#include "svn_dirent_uri.h"

#include "corrupt.h"
#include "id.h"
#include "noderev_codec.h"
#include "scan.h"

apr_size_t
svn_fs_fs__noderev_record_len(const char *data, apr_size_t len)
{
  apr_size_t pos = 0;

  /* Each iteration looks at the start of a line. */
  while (pos < len)
    {
      const char *nl;

      if (data[pos] == '\n')
        return pos + 1;
      nl = memchr(data + pos, '\n', len - pos);
      if (nl == NULL)
        return 0;
      pos = nl - data + 1;
    }
  return 0;
}

/* ------------------------------------------------------------------ */
/* Small scanners                                                       */

/* A revision: decimal, or "-1" when ALLOW_TXN (a revision yet to come). */
static svn_boolean_t
scan_revision(svn_revnum_t *rev, const char *s, apr_size_t len,
              svn_boolean_t allow_txn)
{
  apr_uint64_t v;

  if (allow_txn && len == 2 && s[0] == '-' && s[1] == '1')
    {
      *rev = SVN_INVALID_REVNUM;
      return TRUE;
    }
  if (!svn_fs_fs__scan_decimal(&v, s, len, (apr_uint64_t)APR_INT32_MAX))
    return FALSE;
  *rev = (svn_revnum_t)v;
  return TRUE;
}

/* Split "<rev> <path>" (NODEREV-7, NODEREV-8); paths hold no NUL. */
static svn_boolean_t
scan_rev_path(svn_revnum_t *rev, const char **path, const char *s,
              apr_size_t len, svn_boolean_t allow_txn, apr_pool_t *pool)
{
  const char *space = memchr(s, ' ', len);

  if (space == NULL || space + 1 == s + len || space[1] != '/'
      || memchr(space, '\0', len - (space - s)) != NULL)
    return FALSE;
  if (!scan_revision(rev, s, space - s, allow_txn))
    return FALSE;
  *path = apr_pstrmemdup(pool, space + 1, len - (space + 1 - s));
  return TRUE;
}

/* ------------------------------------------------------------------ */
/* Representation references (NODEREV-5)                               */

/* Split LEN bytes at S on single spaces into at most MAX tokens; returns
   the count, or MAX + 1 if there are more (or empty tokens). */
static int
split_tokens(const char **tok, apr_size_t *tok_len, int max, const char *s,
             apr_size_t len)
{
  int n = 0;
  const char *end = s + len;

  while (s < end)
    {
      const char *space = memchr(s, ' ', end - s);
      const char *stop = space ? space : end;

      if (n == max || stop == s)
        return max + 1;
      tok[n] = s;
      tok_len[n++] = stop - s;
      s = space ? space + 1 : end;
      if (space && s == end)
        return max + 1;
    }
  return n;
}

static svn_boolean_t
is_dash(const char *s, apr_size_t len)
{
  return len == 1 && s[0] == '-';
}

/* Fill the numeric and checksum fields of REP from the N tokens. */
static svn_boolean_t
decode_rep_tokens(svn_fs_fs__rep_t *rep, const char **tok,
                  apr_size_t *tok_len, int n, apr_pool_t *pool)
{
  apr_uint64_t v;

  if (n < 5 || !svn_fs_fs__scan_decimal(&rep->item_index, tok[1],
                                        tok_len[1], APR_UINT64_MAX))
    return FALSE;
  if (!svn_fs_fs__scan_decimal(&v, tok[2], tok_len[2], APR_INT64_MAX))
    return FALSE;
  rep->size = (svn_filesize_t)v;
  if (!svn_fs_fs__scan_decimal(&v, tok[3], tok_len[3], APR_INT64_MAX))
    return FALSE;
  rep->expanded_size = (svn_filesize_t)v;
  if (tok_len[4] != 2 * APR_MD5_DIGESTSIZE
      || !svn_fs_fs__scan_hex(rep->md5_digest, tok[4], tok_len[4]))
    return FALSE;
  if (n >= 6 && !is_dash(tok[5], tok_len[5]))
    {
      if (tok_len[5] != 2 * APR_SHA1_DIGESTSIZE
          || !svn_fs_fs__scan_hex(rep->sha1_digest, tok[5], tok_len[5]))
        return FALSE;
      rep->has_sha1 = TRUE;
    }
  if (n >= 7 && !is_dash(tok[6], tok_len[6]))
    {
      apr_size_t i;
      for (i = 0; i < tok_len[6]; i++)
        if ((unsigned char)tok[6][i] < 0x21 || (unsigned char)tok[6][i] > 0x7e)
          return FALSE;
      rep->uniquifier = apr_pstrmemdup(pool, tok[6], tok_len[6]);
    }
  return TRUE;
}

svn_error_t *
svn_fs_fs__rep_parse(svn_fs_fs__rep_t **rep_p, const char *data,
                     apr_size_t len, const svn_fs_fs__txn_id_t *txn_id,
                     const char *where,
                     apr_pool_t *result_pool)
{
  const char *tok[8];
  apr_size_t tok_len[8];
  int n = split_tokens(tok, tok_len, 7, data, len);
  svn_fs_fs__rep_t *rep = apr_pcalloc(result_pool, sizeof(*rep));

  if (n < 1 || n > 7
      || !scan_revision(&rep->revision, tok[0], tok_len[0], txn_id != NULL))
    return svn_fs_fs__corrupt("NODEREV-5", where,
                              "Malformed representation reference '%s'",
                              apr_pstrmemdup(result_pool, data,
                                             len > 200 ? 200 : len));
  if (!SVN_IS_VALID_REVNUM(rep->revision))
    {
      rep->in_txn = TRUE;
      rep->txn_id = *txn_id;
    }

  /* A bare "-1": contents sit in a side file of the transaction. */
  if (n == 1 && rep->in_txn)
    {
      *rep_p = rep;
      return SVN_NO_ERROR;
    }
  if (!decode_rep_tokens(rep, tok, tok_len, n, result_pool))
    return svn_fs_fs__corrupt("NODEREV-5", where,
                              "Malformed representation reference '%s'",
                              apr_pstrmemdup(result_pool, data,
                                             len > 200 ? 200 : len));
  *rep_p = rep;
  return SVN_NO_ERROR;
}

/* Append the lower-case hex form of LEN bytes at DIGEST. */
static void
append_hex(svn_stringbuf_t *out, const unsigned char *digest, apr_size_t len)
{
  static const char hex[] = "0123456789abcdef";
  char buf[2 * APR_SHA1_DIGESTSIZE];
  apr_size_t i;

  for (i = 0; i < len; i++)
    {
      buf[2 * i] = hex[digest[i] >> 4];
      buf[2 * i + 1] = hex[digest[i] & 15];
    }
  svn_stringbuf_appendbytes(out, buf, 2 * len);
}

void
svn_fs_fs__rep_unparse(svn_stringbuf_t *out, const svn_fs_fs__rep_t *rep,
                       int format, svn_boolean_t mutable_short)
{
  char num[96];

  if (rep->in_txn && mutable_short)
    {
      svn_stringbuf_appendcstr(out, "-1");
      return;
    }
  apr_snprintf(num, sizeof(num), "%ld %" APR_UINT64_T_FMT " %"
               SVN_FILESIZE_T_FMT " %" SVN_FILESIZE_T_FMT " ",
               rep->in_txn ? SVN_INVALID_REVNUM : rep->revision,
               rep->item_index, rep->size, rep->expanded_size);
  svn_stringbuf_appendcstr(out, num);
  append_hex(out, rep->md5_digest, APR_MD5_DIGESTSIZE);

  /* Format 8 spells absent optional values "-"; older formats write both
     SHA1 and uniquifier or neither. */
  if (format >= 8)
    {
      svn_stringbuf_appendbyte(out, ' ');
      if (rep->has_sha1)
        append_hex(out, rep->sha1_digest, APR_SHA1_DIGESTSIZE);
      else
        svn_stringbuf_appendbyte(out, '-');
      svn_stringbuf_appendbyte(out, ' ');
      svn_stringbuf_appendcstr(out, rep->uniquifier ? rep->uniquifier : "-");
    }
  else if (rep->has_sha1 && rep->uniquifier
           && format >= SVN_FS_FS__MIN_REP_SHARING_FORMAT)   /* OLD-6 */
    {
      svn_stringbuf_appendbyte(out, ' ');
      append_hex(out, rep->sha1_digest, APR_SHA1_DIGESTSIZE);
      svn_stringbuf_appendbyte(out, ' ');
      svn_stringbuf_appendcstr(out, rep->uniquifier);
    }
}

/* ------------------------------------------------------------------ */
/* Records                                                              */

/* Values whose decoding waits for the end of the record. */
typedef struct pending_t
{
  const char *text, *props, *copyroot;
  apr_size_t text_len, props_len, copyroot_len;
} pending_t;

#define FIELD_IS(name) \
  (name_len == sizeof(name) - 1 && memcmp(line, name, name_len) == 0)

/* An ID-valued field; malformed IDs break RULE. */
static svn_error_t *
parse_id_value(const svn_fs_fs__id_t **id, const char *value,
               apr_size_t value_len, const char *rule, const char *where,
               apr_pool_t *pool)
{
  *id = svn_fs_fs__id_parse(value, value_len, pool);
  if (*id == NULL)
    return svn_fs_fs__corrupt(rule, where, "Malformed node-rev ID '%s'",
                              apr_pstrmemdup(pool, value,
                                             value_len > 100 ? 100
                                                             : value_len));
  return SVN_NO_ERROR;
}

/* Handle one "<name>: <value>" line of a record. */
static svn_error_t *
parse_field(svn_fs_fs__noderev_t *nr, pending_t *pend, const char *line,
            apr_size_t name_len, const char *value, apr_size_t value_len,
            const char *where, apr_pool_t *pool)
{
  apr_uint64_t v;

  if (FIELD_IS("id"))
    SVN_ERR(parse_id_value(&nr->id, value, value_len, "NODEREV-2", where,
                           pool));
  else if (FIELD_IS("pred"))
    SVN_ERR(parse_id_value(&nr->predecessor_id, value, value_len,
                           "NODEREV-4", where, pool));
  else if (FIELD_IS("type"))
    {
      if (value_len == 4 && memcmp(value, "file", 4) == 0)
        nr->kind = svn_node_file;
      else if (value_len == 3 && memcmp(value, "dir", 3) == 0)
        nr->kind = svn_node_dir;
      else
        return svn_fs_fs__corrupt("NODEREV-3", where,
                                  "Unknown node kind in node-rev");
    }
  else if (FIELD_IS("count"))
    {
      if (!svn_fs_fs__scan_decimal(&v, value, value_len, APR_INT32_MAX))
        return svn_fs_fs__corrupt("NODEREV-4", where,
                                  "Malformed predecessor count");
      nr->predecessor_count = (int)v;
    }
  else if (FIELD_IS("text"))
    pend->text = value, pend->text_len = value_len;
  else if (FIELD_IS("props"))
    pend->props = value, pend->props_len = value_len;
  else if (FIELD_IS("cpath"))
    {
      if (value_len == 0 || value[0] != '/'
          || memchr(value, '\0', value_len) != NULL)
        return svn_fs_fs__corrupt("NODEREV-6", where,
                                  "Created path of node-rev is not absolute");
      nr->created_path = apr_pstrmemdup(pool, value, value_len);
    }
  else if (FIELD_IS("copyfrom"))
    {
      if (!scan_rev_path(&nr->copyfrom_rev, &nr->copyfrom_path, value,
                         value_len, FALSE, pool))
        return svn_fs_fs__corrupt("NODEREV-7", where,
                                  "Malformed copyfrom line in node-rev");
    }
  else if (FIELD_IS("copyroot"))
    pend->copyroot = value, pend->copyroot_len = value_len;
  else if (FIELD_IS("minfo-cnt"))
    {
      if (!svn_fs_fs__scan_decimal(&v, value, value_len, APR_INT64_MAX))
        return svn_fs_fs__corrupt("NODEREV-9", where,
                                  "Malformed mergeinfo count in node-rev");
      nr->mergeinfo_count = (apr_int64_t)v;
    }
  else if (FIELD_IS("minfo-here"))
    nr->has_mergeinfo = TRUE;
  else if (FIELD_IS("is-fresh-txn-root"))
    nr->is_fresh_txn_root = TRUE;
  /* NODEREV-11: anything else is ignored. */
  return SVN_NO_ERROR;
}

/* Decode the deferred fields and apply defaults (NODEREV-2/3/5/6/8). */
static svn_error_t *
finish_record(svn_fs_fs__noderev_t *nr, const pending_t *pend,
              const char *where, apr_pool_t *pool)
{
  const svn_fs_fs__txn_id_t *txn_id = NULL;

  if (nr->id == NULL)
    return svn_fs_fs__corrupt("NODEREV-2", where,
                              "Missing id field in node-rev");
  if (nr->kind == svn_node_none)
    return svn_fs_fs__corrupt("NODEREV-3", where,
                              "Node-rev record has no kind field");
  if (nr->created_path == NULL)
    return svn_fs_fs__corrupt("NODEREV-6", where,
                              "Node-rev record has no cpath field");

  if (svn_fs_fs__id_is_txn(nr->id))
    txn_id = &nr->id->txn_id;
  if (pend->text)
    SVN_ERR(svn_fs_fs__rep_parse(&nr->data_rep, pend->text, pend->text_len,
                                 txn_id, where, pool));
  if (pend->props)
    SVN_ERR(svn_fs_fs__rep_parse(&nr->prop_rep, pend->props, pend->props_len,
                                 txn_id, where, pool));

  /* NODEREV-8: a node-rev without copyroot is its own copy root. */
  if (pend->copyroot)
    {
      if (!scan_rev_path(&nr->copyroot_rev, &nr->copyroot_path,
                         pend->copyroot, pend->copyroot_len,
                         txn_id != NULL, pool))
        return svn_fs_fs__corrupt("NODEREV-8", where,
                                  "Malformed copyroot line in node-rev");
    }
  else
    {
      nr->copyroot_rev = svn_fs_fs__id_rev(nr->id);
      nr->copyroot_path = nr->created_path;
    }
  return SVN_NO_ERROR;
}

svn_error_t *
svn_fs_fs__noderev_parse(svn_fs_fs__noderev_t **noderev, const char *data,
                         apr_size_t len, const char *where,
                         apr_pool_t *result_pool, apr_pool_t *scratch_pool)
{
  svn_fs_fs__noderev_t *nr = apr_pcalloc(result_pool, sizeof(*nr));
  pending_t pend = { 0 };
  const char *end = data + len;

  nr->kind = svn_node_none;
  nr->copyfrom_rev = SVN_INVALID_REVNUM;

  while (data < end && *data != '\n')
    {
      const char *nl = memchr(data, '\n', end - data);
      const char *colon;

      /* NODEREV-1: every line is complete and of the form "name: value". */
      if (nl == NULL)
        return svn_fs_fs__corrupt("NODEREV-1", where,
                                  "Node-rev record is truncated");
      colon = memchr(data, ':', nl - data);
      /* The wording is stock's: upstream's tests match it. */
      if (colon == NULL || colon == data || colon + 1 == nl
          || colon[1] != ' ')
        return svn_fs_fs__corrupt("NODEREV-1", where,
                                  "Found malformed header '%.*s' in "
                                  "revision file",
                                  (int)(nl - data < 80 ? nl - data : 80),
                                  data);
      SVN_ERR(parse_field(nr, &pend, data, colon - data, colon + 2,
                          nl - colon - 2, where, result_pool));
      data = nl + 1;
    }

  SVN_ERR(finish_record(nr, &pend, where, result_pool));
  *noderev = nr;
  return SVN_NO_ERROR;
}

/* Append "<name>: <value>\n". */
static void
append_field(svn_stringbuf_t *out, const char *name, const char *value)
{
  svn_stringbuf_appendcstr(out, name);
  svn_stringbuf_appendbytes(out, ": ", 2);
  svn_stringbuf_appendcstr(out, value);
  svn_stringbuf_appendbyte(out, '\n');
}

static void
append_id_field(svn_stringbuf_t *out, const char *name,
                const svn_fs_fs__id_t *id)
{
  char buf[SVN_FS_FS__ID_MAX];

  svn_fs_fs__id_unparse_to(buf, id);
  append_field(out, name, buf);
}

static void
append_rep_field(svn_stringbuf_t *out, const char *name,
                 const svn_fs_fs__rep_t *rep, int format,
                 svn_boolean_t mutable_short)
{
  svn_stringbuf_appendcstr(out, name);
  svn_stringbuf_appendbytes(out, ": ", 2);
  svn_fs_fs__rep_unparse(out, rep, format, mutable_short);
  svn_stringbuf_appendbyte(out, '\n');
}

void
svn_fs_fs__noderev_unparse(svn_stringbuf_t *out,
                           const svn_fs_fs__noderev_t *nr, int format,
                           apr_pool_t *scratch_pool)
{
  append_id_field(out, "id", nr->id);
  append_field(out, "type", nr->kind == svn_node_dir ? "dir" : "file");
  if (nr->predecessor_id)
    append_id_field(out, "pred", nr->predecessor_id);
  append_field(out, "count",
               apr_psprintf(scratch_pool, "%d", nr->predecessor_count));

  /* Directory listings and property lists under construction live in
     side files of the transaction: stock writes a bare "-1" for them. */
  if (nr->data_rep)
    append_rep_field(out, "text", nr->data_rep, format,
                     nr->kind == svn_node_dir);
  if (nr->prop_rep)
    append_rep_field(out, "props", nr->prop_rep, format, TRUE);
  append_field(out, "cpath", nr->created_path);
  if (nr->copyfrom_path && SVN_IS_VALID_REVNUM(nr->copyfrom_rev))
    append_field(out, "copyfrom",
                 apr_psprintf(scratch_pool, "%ld %s", nr->copyfrom_rev,
                              nr->copyfrom_path));
  if (nr->copyroot_rev != svn_fs_fs__id_rev(nr->id)
      || strcmp(nr->copyroot_path, nr->created_path) != 0)
    append_field(out, "copyroot",
                 apr_psprintf(scratch_pool, "%ld %s", nr->copyroot_rev,
                              nr->copyroot_path));
  if (nr->is_fresh_txn_root)
    append_field(out, "is-fresh-txn-root", "y");
  if (format < SVN_FS_FS__MIN_MERGEINFO_FORMAT)
    ;   /* OLD-5: formats 1 and 2 do not track mergeinfo */
  else if (nr->mergeinfo_count > 0)
    append_field(out, "minfo-cnt",
                 apr_psprintf(scratch_pool, "%" APR_INT64_T_FMT,
                              nr->mergeinfo_count));
  if (nr->has_mergeinfo && format >= SVN_FS_FS__MIN_MERGEINFO_FORMAT)
    append_field(out, "minfo-here", "y");
  svn_stringbuf_appendbyte(out, '\n');
}
