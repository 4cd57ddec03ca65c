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
  apr_size_t avail = c->end - c->p, n = 0;
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
  for (s = c->p + 2; s < c->end && *s >= '0' && *s <= '9'; s++)
    {
      if (n > (APR_SIZE_MAX - 9) / 10)
        break;
      n = n * 10 + (apr_size_t)(*s - '0');
    }
  if (s == c->p + 2 || s == c->end || *s != '\n'
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

/* Read records from C into the hash BY_NAME (name -> svn_fs_dirent_t *)
   until "END" (first pass) or the end of data (incremental tail). */
static svn_error_t *
read_records(apr_hash_t *by_name, cursor_t *c, svn_boolean_t tail,
             apr_pool_t *result_pool)
{
  for (;;)
    {
      char tag;
      const char *key, *val;
      apr_size_t key_len, val_len;
      svn_fs_dirent_t *dirent;

      if (tail && c->p == c->end)
        return SVN_NO_ERROR;
      if (!tail && c->p == c->end)
        return svn_fs_fs__corrupt("DIRENT-2", c->where,
                                  "Directory listing lacks its END line");
      SVN_ERR(read_record(&tag, &key, &key_len, c));
      if (tag == '\0' && !tail)
        return SVN_NO_ERROR;
      if (!(tag == 'K' || (tail && tag == 'D')))
        return svn_fs_fs__corrupt(tail ? "DIRENT-5" : "DIRENT-1", c->where,
                                  "Unexpected record in directory listing");
      if (!valid_name(key, key_len))
        return svn_fs_fs__corrupt("DIRENT-4", c->where,
                                  "Invalid entry name in directory listing");
      if (tag == 'D')
        {
          apr_hash_set(by_name, key, key_len, NULL);
          continue;
        }
      SVN_ERR(read_record(&tag, &val, &val_len, c));
      if (tag != 'V')
        return svn_fs_fs__corrupt("DIRENT-1", c->where,
                                  "Directory entry lacks its value");
      if (!tail && apr_hash_get(by_name, key, key_len))
        return svn_fs_fs__corrupt("DIRENT-4", c->where,
                                  "Duplicate entry in directory listing");
      dirent = apr_palloc(result_pool, sizeof(*dirent));
      dirent->name = apr_pstrmemdup(result_pool, key, key_len);
      SVN_ERR(parse_value(dirent, val, val_len, c->where, result_pool));
      apr_hash_set(by_name, dirent->name, key_len, dirent);
    }
}

svn_error_t *
svn_fs_fs__dirents_parse(apr_array_header_t **entries, const char *data,
                         apr_size_t len, svn_boolean_t incremental,
                         const char *where, apr_pool_t *result_pool,
                         apr_pool_t *scratch_pool)
{
  apr_hash_t *by_name = apr_hash_make(scratch_pool);
  cursor_t c;
  apr_array_header_t *list;
  apr_hash_index_t *hi;

  c.p = data;
  c.end = data + len;
  c.where = where;
  SVN_ERR(read_records(by_name, &c, FALSE, result_pool));
  if (incremental)
    SVN_ERR(read_records(by_name, &c, TRUE, result_pool));
  else if (c.p != c.end)
    return svn_fs_fs__corrupt("DIRENT-2", where,
                              "Data after the END of a directory listing");

  list = apr_array_make(result_pool, apr_hash_count(by_name),
                        sizeof(svn_fs_dirent_t *));
  for (hi = apr_hash_first(scratch_pool, by_name); hi; hi = apr_hash_next(hi))
    APR_ARRAY_PUSH(list, svn_fs_dirent_t *) = apr_hash_this_val(hi);
  qsort(list->elts, list->nelts, list->elt_size, svn_fs_fs__dirent_compare);
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
