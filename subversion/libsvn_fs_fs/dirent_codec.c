/* dirent_codec.c --- directory hash dumps to sorted entry arrays and back
 * (dirent_codec.h; doc/format/directories.md, rules DIRENT-1 .. DIRENT-6).
 *
 * The listing is a hash dump: per entry "K <len>\n<name>\nV <len>\n
 * <kind> <id>\n", closed by "END\n".  Transaction "children" files append
 * incremental "K/V" (set) and "D" (delete) records after "END".
 */
#include <stdlib.h>
#include <string.h>
#include <apr_strings.h>

#include "svn_hash.h"
#include "svn_string.h"

#include "corrupt.h"
#include "id.h"
#include "dirent_codec.h"
#include "scan.h"

/* Parser position. */
typedef struct cursor_t
{
  const char *p, *end;
  const char *where;
} cursor_t;

/* Read "<tag> <len>\n<bytes>\n" at C, where TAG is a single letter.
   *TAG_OUT gets the letter, or NUL for the "END\n" line. */
static svn_error_t *
read_record(char *tag_out, const char **bytes, apr_size_t *bytes_len,
            cursor_t *c)
{
  apr_size_t avail = c->end - c->p;
  apr_uint64_t n;
  const char *s;

  if (avail >= 4 && memcmp(c->p, "END\n", 4) == 0)
    {
      *tag_out = '\0';
      c->p += 4;
      return SVN_NO_ERROR;
    }
  if (avail < 4 || c->p[1] != ' ')
    return svn_fs_fs__corrupt("DIRENT-1", c->where,
                              "Malformed directory listing (record header)");
  *tag_out = c->p[0];
  s = c->p + 2;
  /* The limit keeps n + 1 below from wrapping. */
  if (!svn_fs_fs__scan_decimal_prefix(&n, &s, c->end, APR_SIZE_MAX - 1)
      || s == c->end || *s != '\n'
      || (apr_size_t)(c->end - s - 1) < n + 1 || s[1 + n] != '\n')
    return svn_fs_fs__corrupt("DIRENT-1", c->where,
                              "Malformed directory listing (record length)");
  *bytes = s + 1;
  *bytes_len = n;
  c->p = s + 2 + n;
  return SVN_NO_ERROR;
}

/* Decode "<file|dir> <id>" into DIRENT (DIRENT-3). */
static svn_error_t *
parse_value(svn_fs_dirent_t *dirent, const char *v, apr_size_t len,
            const char *where, apr_pool_t *pool)
{
  const svn_fs_fs__id_t *id = NULL;

  if (len > 5 && memcmp(v, "file ", 5) == 0)
    {
      dirent->kind = svn_node_file;
      id = svn_fs_fs__id_parse(v + 5, len - 5, pool);
    }
  else if (len > 4 && memcmp(v, "dir ", 4) == 0)
    {
      dirent->kind = svn_node_dir;
      id = svn_fs_fs__id_parse(v + 4, len - 4, pool);
    }
  if (id == NULL)
    return svn_fs_fs__corrupt("DIRENT-3", where,
                              "Directory entry corrupt in '%s'",
                              dirent->name);
  dirent->id = SVN_FS_FS__PUBLIC_ID(id);
  return SVN_NO_ERROR;
}

/* DIRENT-4: a single, non-empty path component without NULs. */
static svn_boolean_t
valid_name(const char *name, apr_size_t len)
{
  return len > 0 && memchr(name, '/', len) == NULL
         && memchr(name, '\0', len) == NULL
         && !(len == 1 && name[0] == '.')
         && !(len == 2 && name[0] == '.' && name[1] == '.');
}

int
svn_fs_fs__dirent_compare(const void *a, const void *b)
{
  const svn_fs_dirent_t *const *x = a;
  const svn_fs_dirent_t *const *y = b;

  return strcmp((*x)->name, (*y)->name);
}

/* Read the next record of a listing at C.  *DIRENT is the entry of a
   "K/V" pair (in RESULT_POOL), or NULL with *DELETED set to the name of a
   "D" record (TAIL only), or NULL with *DELETED NULL at "END" (not TAIL)
   resp. at the end of data (TAIL). */
static svn_error_t *
next_entry(svn_fs_dirent_t **dirent, const char **deleted, apr_size_t *klen,
           cursor_t *c, svn_boolean_t tail, apr_pool_t *result_pool)
{
  char tag;
  const char *key, *val;
  apr_size_t key_len, val_len;

  *dirent = NULL;
  *deleted = NULL;
  if (c->p == c->end)
    {
      if (tail)
        return SVN_NO_ERROR;
      return svn_fs_fs__corrupt("DIRENT-2", c->where,
                                "Directory listing lacks its END line");
    }
  SVN_ERR(read_record(&tag, &key, &key_len, c));
  if (tag == '\0' && !tail)
    return SVN_NO_ERROR;
  if (!(tag == 'K' || (tail && tag == 'D')))
    return svn_fs_fs__corrupt(tail ? "DIRENT-5" : "DIRENT-1", c->where,
                              "Unexpected record in directory listing");
  if (!valid_name(key, key_len))
    return svn_fs_fs__corrupt("DIRENT-4", c->where,
                              "Invalid entry name in directory listing");
  *klen = key_len;
  if (tag == 'D')
    {
      *deleted = key;
      return SVN_NO_ERROR;
    }
  SVN_ERR(read_record(&tag, &val, &val_len, c));
  if (tag != 'V')
    return svn_fs_fs__corrupt("DIRENT-1", c->where,
                              "Directory entry lacks its value");
  *dirent = apr_palloc(result_pool, sizeof(**dirent));
  (*dirent)->name = apr_pstrmemdup(result_pool, key, key_len);
  return svn_error_trace(parse_value(*dirent, val, val_len, c->where,
                                     result_pool));
}

/* A committed listing straight into LIST.  Stock writes listings sorted,
   so the usual case needs neither a hash nor a sort (DIRENT-6). */
static svn_error_t *
parse_plain(apr_array_header_t *list, cursor_t *c, apr_pool_t *result_pool)
{
  svn_boolean_t sorted = TRUE;
  int i;

  for (;;)
    {
      svn_fs_dirent_t *dirent;
      const char *deleted;
      apr_size_t klen;

      SVN_ERR(next_entry(&dirent, &deleted, &klen, c, FALSE, result_pool));
      if (dirent == NULL)
        break;
      if (sorted && list->nelts > 0
          && strcmp(APR_ARRAY_IDX(list, list->nelts - 1,
                                  svn_fs_dirent_t *)->name,
                    dirent->name) >= 0)
        sorted = FALSE;
      APR_ARRAY_PUSH(list, svn_fs_dirent_t *) = dirent;
    }
  if (sorted)
    return SVN_NO_ERROR;

  qsort(list->elts, list->nelts, list->elt_size, svn_fs_fs__dirent_compare);
  for (i = 1; i < list->nelts; i++)
    if (svn_fs_fs__dirent_compare(&APR_ARRAY_IDX(list, i - 1, void *),
                                  &APR_ARRAY_IDX(list, i, void *)) == 0)
      return svn_fs_fs__corrupt("DIRENT-4", c->where,
                                "Duplicate entry in directory listing");
  return SVN_NO_ERROR;
}

/* A transaction's children file: the listing, then changes (DIRENT-5). */
static svn_error_t *
parse_incremental(apr_array_header_t *list, cursor_t *c,
                  apr_pool_t *result_pool, apr_pool_t *scratch_pool)
{
  apr_hash_t *by_name = apr_hash_make(scratch_pool);
  apr_hash_index_t *hi;
  int i;

  SVN_ERR(parse_plain(list, c, result_pool));
  for (i = 0; i < list->nelts; i++)
    {
      svn_fs_dirent_t *d = APR_ARRAY_IDX(list, i, svn_fs_dirent_t *);
      svn_hash_sets(by_name, d->name, d);
    }
  for (;;)
    {
      svn_fs_dirent_t *dirent;
      const char *deleted;
      apr_size_t klen;

      SVN_ERR(next_entry(&dirent, &deleted, &klen, c, TRUE, result_pool));
      if (dirent)
        apr_hash_set(by_name, dirent->name, klen, dirent);
      else if (deleted)
        apr_hash_set(by_name, deleted, klen, NULL);
      else
        break;
    }

  apr_array_clear(list);
  for (hi = apr_hash_first(scratch_pool, by_name); hi; hi = apr_hash_next(hi))
    APR_ARRAY_PUSH(list, svn_fs_dirent_t *) = apr_hash_this_val(hi);
  qsort(list->elts, list->nelts, list->elt_size, svn_fs_fs__dirent_compare);
  return SVN_NO_ERROR;
}

svn_error_t *
svn_fs_fs__dirents_parse(apr_array_header_t **entries, const char *data,
                         apr_size_t len, svn_boolean_t incremental,
                         const char *where, apr_pool_t *result_pool,
                         apr_pool_t *scratch_pool)
{
  apr_array_header_t *list = apr_array_make(result_pool, 16,
                                            sizeof(svn_fs_dirent_t *));
  cursor_t c;

  c.p = data;
  c.end = data + len;
  c.where = where;
  if (incremental)
    SVN_ERR(parse_incremental(list, &c, result_pool, scratch_pool));
  else
    {
      SVN_ERR(parse_plain(list, &c, result_pool));
      if (c.p != c.end)
        return svn_fs_fs__corrupt("DIRENT-2", where,
                                  "Data after the END of a directory "
                                  "listing");
    }
  *entries = list;
  return SVN_NO_ERROR;
}

/* Append "<tag> <len>\n<bytes>\n". */
static void
append_record(svn_stringbuf_t *out, char tag, const char *bytes,
              apr_size_t len)
{
  char head[32];
  int n = apr_snprintf(head, sizeof(head), "%c %" APR_SIZE_T_FMT "\n",
                       tag, len);

  svn_stringbuf_appendbytes(out, head, n);
  svn_stringbuf_appendbytes(out, bytes, len);
  svn_stringbuf_appendbyte(out, '\n');
}

/* Append the "K"/"V" pair of one entry. */
static void
append_entry(svn_stringbuf_t *out, const char *name, svn_node_kind_t kind,
             const svn_fs_fs__id_t *id)
{
  char val[SVN_FS_FS__ID_MAX + 8];
  apr_size_t n;

  strcpy(val, kind == svn_node_dir ? "dir " : "file ");
  n = strlen(val);
  n += svn_fs_fs__id_unparse_to(val + n, id);
  append_record(out, 'K', name, strlen(name));
  append_record(out, 'V', val, n);
}

void
svn_fs_fs__dirents_unparse(svn_stringbuf_t *out,
                           const apr_array_header_t *entries)
{
  int i;

  for (i = 0; i < entries->nelts; i++)
    {
      const svn_fs_dirent_t *d = APR_ARRAY_IDX(entries, i,
                                               const svn_fs_dirent_t *);
      append_entry(out, d->name, d->kind, SVN_FS_FS__ID(d->id));
    }
  svn_stringbuf_appendbytes(out, "END\n", 4);
}

void
svn_fs_fs__dirent_unparse_change(svn_stringbuf_t *out, const char *name,
                                 svn_node_kind_t kind,
                                 const svn_fs_fs__id_t *id)
{
  if (id)
    append_entry(out, name, kind, id);
  else
    append_record(out, 'D', name, strlen(name));
}

int
svn_fs_fs__dirent_find(const apr_array_header_t *entries, const char *name)
{
  int lo = 0, hi = entries->nelts - 1;

  while (lo <= hi)
    {
      int mid = lo + (hi - lo) / 2;
      const svn_fs_dirent_t *d = APR_ARRAY_IDX(entries, mid,
                                               const svn_fs_dirent_t *);
      int cmp = strcmp(d->name, name);

      if (cmp == 0)
        return mid;
      if (cmp < 0)
        lo = mid + 1;
      else
        hi = mid - 1;
    }
  return -1;
}
