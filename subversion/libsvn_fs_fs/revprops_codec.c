/* revprops_codec.c --- packed revprop manifests and containers
 * (revprops_codec.h, doc/format/revprops.md "Packed shards").
 *
 *   manifest  = 1*( start "." counter LF )      ; one line per revision
 *   pack file = varint(plain-size) ( plain / zlib(plain) )
 *   plain     = start LF count LF count*( size LF ) LF count*( dump )
 */
#include <string.h>
#include <apr_strings.h>

#include "private/svn_subr_private.h"

#include "corrupt.h"
#include "revprops_codec.h"
#include "scan.h"

/* Parse a decimal number of at most 18 digits at *P (< END), stopping at
   the first non-digit; FALSE if there is no digit at all.  (18 digits
   always fit an apr_int64_t.) */
static svn_boolean_t
take_number(apr_int64_t *value, const char **p, const char *end)
{
  const char *digits_end = end - *p > 18 ? *p + 18 : end;
  apr_uint64_t v;

  if (!svn_fs_fs__scan_decimal_prefix(&v, p, digits_end, APR_INT64_MAX))
    return FALSE;
  *value = (apr_int64_t)v;
  return TRUE;
}

/* Expect byte C at *P and step over it. */
static svn_boolean_t
take_char(const char **p, const char *end, char c)
{
  if (*p >= end || **p != c)
    return FALSE;
  (*p)++;
  return TRUE;
}

void
svn_fs_fs__revprop_manifest_index(svn_fs_fs__revprop_manifest_t *manifest,
                                  const char *data, apr_size_t len,
                                  svn_revnum_t first_rev,
                                  apr_pool_t *result_pool)
{
  const char *p = data, *end = data + len;
  int count = 0;

  /* Count first, then fill: one array of exactly the right size. */
  while (p < end)
    {
      const char *lf = memchr(p, '\n', end - p);
      p = lf ? lf + 1 : end;
      count++;
    }
  manifest->data = data;
  manifest->first_rev = first_rev;
  manifest->count = count;
  manifest->starts = apr_palloc(result_pool,
                                (count + 1) * sizeof(*manifest->starts));
  for (p = data, count = 0; p < end; count++)
    {
      const char *lf = memchr(p, '\n', end - p);
      manifest->starts[count] = (apr_size_t)(p - data);
      p = lf ? lf + 1 : end;
    }
  manifest->starts[count] = len;
}

/* Parse line INDEX of MANIFEST into *ENTRY; FALSE if it is not
   "<digits>.<digits>\n". */
static svn_boolean_t
parse_line(svn_fs_fs__revprop_manifest_entry_t *entry,
           const svn_fs_fs__revprop_manifest_t *manifest, int index)
{
  const char *p = manifest->data + manifest->starts[index];
  const char *end = manifest->data + manifest->starts[index + 1];
  apr_int64_t start;

  if (!take_number(&start, &p, end) || !take_char(&p, end, '.')
      || !take_number(&entry->counter, &p, end)
      || !take_char(&p, end, '\n') || p != end)
    return FALSE;
  entry->start_rev = (svn_revnum_t)start;
  return TRUE;
}

svn_error_t *
svn_fs_fs__revprop_manifest_get(svn_fs_fs__revprop_manifest_entry_t *entry,
                                const svn_fs_fs__revprop_manifest_t *manifest,
                                svn_revnum_t rev, const char *where)
{
  svn_revnum_t index = rev - manifest->first_rev;

  if (index < 0 || index >= manifest->count)
    return svn_fs_fs__corrupt_code(SVN_ERR_FS_CORRUPT_REVPROP_MANIFEST,
                                   "RPPACK-1", where,
                                   "Revprop manifest has no line for r%ld",
                                   rev);
  if (!parse_line(entry, manifest, (int)index))
    return svn_fs_fs__corrupt_code(SVN_ERR_FS_CORRUPT_REVPROP_MANIFEST,
                                   "RPPACK-1", where,
                                   "Malformed manifest line for r%ld", rev);
  if (entry->start_rev > rev || entry->start_rev < manifest->first_rev)
    return svn_fs_fs__corrupt_code(SVN_ERR_FS_CORRUPT_REVPROP_MANIFEST,
                                   "RPPACK-2", where,
                                   "Manifest names pack %ld for r%ld",
                                   entry->start_rev, rev);
  return SVN_NO_ERROR;
}

svn_error_t *
svn_fs_fs__revprop_manifest_check_order(
  const svn_fs_fs__revprop_manifest_t *manifest, svn_revnum_t rev,
  const char *where)
{
  svn_fs_fs__revprop_manifest_entry_t entry, previous;
  svn_revnum_t index = rev - manifest->first_rev;

  if (index < 1 || index >= manifest->count
      || !parse_line(&entry, manifest, (int)index)
      || !parse_line(&previous, manifest, (int)index - 1))
    return SVN_NO_ERROR;
  if (entry.start_rev < previous.start_rev)
    return svn_fs_fs__corrupt_code(SVN_ERR_FS_CORRUPT_REVPROP_MANIFEST,
                                   "RPPACK-3", where,
                                   "Manifest start revisions go backwards "
                                   "at r%ld", rev);
  return SVN_NO_ERROR;
}

svn_error_t *
svn_fs_fs__revprop_manifest_check_count(
  const svn_fs_fs__revprop_manifest_t *manifest, int expected,
  const char *where)
{
  /* Fewer lines leave a revision without one, which
     svn_fs_fs__revprop_manifest_get reports for that revision.  More
     lines (a duplicated one, say) shift the lines after it to the wrong
     revisions; stock refuses the shard then, with SVN_ERR_FS_CORRUPT. */
  if (manifest->count > expected)
    return svn_fs_fs__corrupt_code(SVN_ERR_FS_CORRUPT, "RPPACK-1", where,
                                   "Packed revprop manifest for r%ld has "
                                   "too many entries (%d lines for %d "
                                   "revisions)", manifest->first_rev,
                                   manifest->count, expected);
  return SVN_NO_ERROR;
}

svn_error_t *
svn_fs_fs__revprop_manifest_parse(apr_array_header_t **entries,
                                  const char *data, apr_size_t len,
                                  svn_revnum_t first_rev, const char *where,
                                  apr_pool_t *result_pool)
{
  svn_fs_fs__revprop_manifest_t manifest;
  svn_revnum_t rev;

  svn_fs_fs__revprop_manifest_index(&manifest, data, len, first_rev,
                                    result_pool);
  if (manifest.count == 0)
    return svn_fs_fs__corrupt_code(SVN_ERR_FS_CORRUPT_REVPROP_MANIFEST,
                                   "RPPACK-1", where, "Empty manifest");
  *entries = apr_array_make(result_pool, manifest.count,
                            sizeof(svn_fs_fs__revprop_manifest_entry_t));
  for (rev = first_rev; rev < first_rev + manifest.count; rev++)
    {
      svn_fs_fs__revprop_manifest_entry_t entry;

      SVN_ERR(svn_fs_fs__revprop_manifest_get(&entry, &manifest, rev,
                                              where));
      SVN_ERR(svn_fs_fs__revprop_manifest_check_order(&manifest, rev,
                                                      where));
      APR_ARRAY_PUSH(*entries, svn_fs_fs__revprop_manifest_entry_t) = entry;
    }
  return SVN_NO_ERROR;
}

const char *
svn_fs_fs__revprop_pack_name(const svn_fs_fs__revprop_manifest_entry_t *entry,
                             apr_pool_t *result_pool)
{
  return apr_psprintf(result_pool, "%ld.%" APR_INT64_T_FMT, entry->start_rev,
                      entry->counter);
}

void
svn_fs_fs__revprop_manifest_unparse(svn_stringbuf_t *out,
                                    const apr_array_header_t *entries)
{
  int i;
  char buf[64];

  for (i = 0; i < entries->nelts; i++)
    {
      const svn_fs_fs__revprop_manifest_entry_t *entry
        = &APR_ARRAY_IDX(entries, i, svn_fs_fs__revprop_manifest_entry_t);

      apr_snprintf(buf, sizeof(buf), "%ld.%" APR_INT64_T_FMT "\n",
                   entry->start_rev, entry->counter);
      svn_stringbuf_appendcstr(out, buf);
    }
}

/* The header of a container: start, count, sizes and the blank line. */
static svn_error_t *
parse_pack_header(svn_fs_fs__revprop_pack_t *pack, const char **p,
                  const char *end, const char *where,
                  apr_pool_t *result_pool)
{
  apr_int64_t start, count, size;
  int i;

  if (!take_number(&start, p, end) || !take_char(p, end, '\n')
      || !take_number(&count, p, end) || !take_char(p, end, '\n'))
    return svn_fs_fs__corrupt("RPPACK-5", where,
                              "Malformed revprop pack header");
  /* Each size needs at least two header bytes. */
  if (count < 1 || count > (end - *p) / 2)
    return svn_fs_fs__corrupt("RPPACK-5", where,
                              "Implausible revision count in revprop pack");
  pack->start_rev = (svn_revnum_t)start;
  pack->count = (int)count;
  pack->sizes = apr_palloc(result_pool, count * sizeof(apr_size_t));
  pack->offsets = apr_palloc(result_pool, count * sizeof(apr_size_t));
  for (i = 0; i < pack->count; i++)
    {
      if (!take_number(&size, p, end) || !take_char(p, end, '\n'))
        return svn_fs_fs__corrupt("RPPACK-5", where,
                                  "Malformed size line in revprop pack");
      pack->sizes[i] = (apr_size_t)size;
    }
  if (!take_char(p, end, '\n'))
    return svn_fs_fs__corrupt("RPPACK-5", where,
                              "Revprop pack header not ended by a blank line");
  return SVN_NO_ERROR;
}

svn_error_t *
svn_fs_fs__revprop_pack_parse(svn_fs_fs__revprop_pack_t *pack,
                              const char *data, apr_size_t len,
                              const char *where, apr_pool_t *result_pool)
{
  const char *p = data, *end = data + len;
  apr_size_t total = 0;
  int i;

  SVN_ERR(parse_pack_header(pack, &p, end, where, result_pool));
  pack->body = p;
  for (i = 0; i < pack->count; i++)
    {
      pack->offsets[i] = total;
      if (pack->sizes[i] > (apr_size_t)(end - p) - total)
        return svn_fs_fs__corrupt("RPPACK-6", where,
                                  "Revprop pack sizes exceed its data");
      total += pack->sizes[i];
    }
  if (total != (apr_size_t)(end - p))
    return svn_fs_fs__corrupt("RPPACK-6", where,
                              "Revprop pack has %lu bytes not covered by "
                              "its sizes", (unsigned long)((end - p) - total));
  return SVN_NO_ERROR;
}

void
svn_fs_fs__revprop_pack_unparse(svn_stringbuf_t *out, svn_revnum_t start_rev,
                                const apr_array_header_t *dumps,
                                apr_pool_t *scratch_pool)
{
  int i;

  svn_stringbuf_appendcstr(out, apr_psprintf(scratch_pool, "%ld\n%d\n",
                                             start_rev, dumps->nelts));
  for (i = 0; i < dumps->nelts; i++)
    svn_stringbuf_appendcstr(out, apr_psprintf(
      scratch_pool, "%lu\n",
      (unsigned long)APR_ARRAY_IDX(dumps, i, svn_stringbuf_t *)->len));
  svn_stringbuf_appendbyte(out, '\n');
  for (i = 0; i < dumps->nelts; i++)
    {
      const svn_stringbuf_t *dump = APR_ARRAY_IDX(dumps, i, svn_stringbuf_t *);
      svn_stringbuf_appendbytes(out, dump->data, dump->len);
    }
}

svn_error_t *
svn_fs_fs__revprop_pack_unwrap(svn_stringbuf_t **plain, const char *data,
                               apr_size_t len, const char *where,
                               apr_pool_t *result_pool)
{
  const unsigned char *p = (const unsigned char *)data;
  const unsigned char *end = p + len;
  const unsigned char *payload;
  apr_uint64_t plain_size;
  svn_error_t *err;

  payload = svn__decode_uint(&plain_size, p, end);
  if (payload == NULL)
    return svn_fs_fs__corrupt("RPPACK-4", where,
                              "Missing size prefix of revprop pack");
  /* Stored uncompressed exactly when the remainder has the plain size;
     otherwise zlib, which cannot expand more than ~1032:1. */
  if (plain_size != (apr_uint64_t)(end - payload)
      && plain_size / 1032 > (apr_uint64_t)(end - payload))
    return svn_fs_fs__corrupt("RPPACK-4", where,
                              "Implausible plain size of revprop pack");
  *plain = svn_stringbuf_create_empty(result_pool);
  err = svn__decompress_zlib(data, len, *plain, (apr_size_t)plain_size);
  if (err)
    return svn_error_compose_create(
             svn_fs_fs__corrupt("RPPACK-4", where,
                                "Revprop pack does not decompress"), err);
  return SVN_NO_ERROR;
}

svn_error_t *
svn_fs_fs__revprop_pack_wrap(svn_stringbuf_t **wrapped,
                             const svn_stringbuf_t *plain,
                             svn_boolean_t compress,
                             apr_pool_t *result_pool)
{
  *wrapped = svn_stringbuf_create_empty(result_pool);
  return svn_error_trace(svn__compress_zlib(
           plain->data, plain->len, *wrapped,
           compress ? SVN__COMPRESSION_ZLIB_DEFAULT
                    : SVN__COMPRESSION_NONE));
}
