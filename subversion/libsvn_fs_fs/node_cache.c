/* node_cache.c --- flat cache values for node-revs, root IDs, listings,
 * property lists and changed-path blocks (node_cache.h).
 *
 * A value is built in a svn_stringbuf_t: first the fixed-size structs
 * (8-byte aligned), then the strings they reference.  Pointer fields hold
 * the byte offset of their target within the value (0 = NULL; offset 0 is
 * always a struct, never a pointer target of these fields).  Deserialising
 * turns offsets back into pointers inside the buffer the cache handed us,
 * which already lives in the caller's pool.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <apr_strings.h>

#include "svn_string.h"

#include "hashdump.h"
#include "id.h"
#include "node_cache.h"

/* ------------------------------------------------------------------ */
/* Building blocks                                                      */

/* Append SIZE zero bytes at an 8-byte aligned position; return it. */
static apr_size_t
reserve(svn_stringbuf_t *buf, apr_size_t size)
{
  apr_size_t pad = (8 - buf->len % 8) % 8;
  apr_size_t off;

  svn_stringbuf_appendfill(buf, 0, pad);
  off = buf->len;
  svn_stringbuf_appendfill(buf, 0, size);
  return off;
}

/* Append S (with its NUL) and return its offset encoded as a pointer. */
static const char *
put_string(svn_stringbuf_t *buf, const char *s, apr_size_t len)
{
  apr_size_t off = buf->len;

  if (s == NULL)
    return NULL;
  svn_stringbuf_appendbytes(buf, s, len);
  svn_stringbuf_appendbyte(buf, '\0');
  return (const char *)(uintptr_t)off;
}

#define PUT_CSTR(buf, s) put_string((buf), (s), (s) ? strlen(s) : 0)
#define AS_OFFSET(off) ((void *)(uintptr_t)(off))

/* Turn the offset stored in *SLOT back into a pointer into BASE. */
static void
fix(const void *base, const void **slot)
{
  if (*slot)
    *slot = (const char *)base + (uintptr_t)*slot;
}

#define FIX(base, field) fix((base), (const void **)(void *)&(field))

/* Finish: hand out the buffer. */
static void
finish(void **data, apr_size_t *data_len, svn_stringbuf_t *buf)
{
  *data = buf->data;
  *data_len = buf->len;
}

/* ------------------------------------------------------------------ */
/* IDs                                                                  */

svn_error_t *
svn_fs_fs__id_serialize(void **data, apr_size_t *data_len, void *in,
                        apr_pool_t *pool)
{
  svn_fs_fs__id_t *copy = apr_pmemdup(pool, in, sizeof(*copy));

  copy->public.vtable = NULL;
  copy->public.fsap_data = NULL;
  *data = copy;
  *data_len = sizeof(*copy);
  return SVN_NO_ERROR;
}

svn_error_t *
svn_fs_fs__id_deserialize(void **out, void *data, apr_size_t data_len,
                          apr_pool_t *pool)
{
  svn_fs_fs__id_init_public(data);
  *out = data;
  return SVN_NO_ERROR;
}

/* ------------------------------------------------------------------ */
/* Node-revisions                                                       */

typedef struct noderev_blob_t
{
  svn_fs_fs__noderev_t nr;
  svn_fs_fs__id_t id;
  svn_fs_fs__id_t pred;
  svn_fs_fs__rep_t data_rep;
  svn_fs_fs__rep_t prop_rep;
} noderev_blob_t;

/* Copy REP into SLOT, strings into BUF. */
static void
put_rep(svn_fs_fs__rep_t *slot, const svn_fs_fs__rep_t *rep,
        svn_stringbuf_t *buf)
{
  *slot = *rep;
  slot->uniquifier = PUT_CSTR(buf, rep->uniquifier);
}

svn_error_t *
svn_fs_fs__noderev_serialize(void **data, apr_size_t *data_len, void *in,
                             apr_pool_t *pool)
{
  const svn_fs_fs__noderev_t *nr = in;
  svn_stringbuf_t *buf = svn_stringbuf_create_ensure(sizeof(noderev_blob_t)
                                                     + 256, pool);
  noderev_blob_t blob;

  memset(&blob, 0, sizeof(blob));
  reserve(buf, sizeof(blob));
  blob.nr = *nr;
  blob.id = *nr->id;
  blob.nr.id = AS_OFFSET(offsetof(noderev_blob_t, id));
  if (nr->predecessor_id)
    {
      blob.pred = *nr->predecessor_id;
      blob.nr.predecessor_id = AS_OFFSET(offsetof(noderev_blob_t, pred));
    }
  if (nr->data_rep)
    {
      put_rep(&blob.data_rep, nr->data_rep, buf);
      blob.nr.data_rep = AS_OFFSET(offsetof(noderev_blob_t, data_rep));
    }
  if (nr->prop_rep)
    {
      put_rep(&blob.prop_rep, nr->prop_rep, buf);
      blob.nr.prop_rep = AS_OFFSET(offsetof(noderev_blob_t, prop_rep));
    }
  blob.nr.copyfrom_path = PUT_CSTR(buf, nr->copyfrom_path);
  blob.nr.copyroot_path = PUT_CSTR(buf, nr->copyroot_path);
  blob.nr.created_path = PUT_CSTR(buf, nr->created_path);
  memcpy(buf->data, &blob, sizeof(blob));
  finish(data, data_len, buf);
  return SVN_NO_ERROR;
}

svn_error_t *
svn_fs_fs__noderev_deserialize(void **out, void *data, apr_size_t data_len,
                               apr_pool_t *pool)
{
  noderev_blob_t *blob = data;

  FIX(blob, blob->nr.id);
  svn_fs_fs__id_init_public(&blob->id);
  if (blob->nr.predecessor_id)
    {
      FIX(blob, blob->nr.predecessor_id);
      svn_fs_fs__id_init_public(&blob->pred);
    }
  FIX(blob, blob->nr.data_rep);
  FIX(blob, blob->nr.prop_rep);
  FIX(blob, blob->data_rep.uniquifier);
  FIX(blob, blob->prop_rep.uniquifier);
  FIX(blob, blob->nr.copyfrom_path);
  FIX(blob, blob->nr.copyroot_path);
  FIX(blob, blob->nr.created_path);
  *out = &blob->nr;
  return SVN_NO_ERROR;
}

svn_error_t *
svn_fs_fs__noderev_get_kind(void **out, const void *data,
                            apr_size_t data_len, void *baton,
                            apr_pool_t *pool)
{
  /* The node-rev struct starts the value (noderev_blob_t). */
  memcpy(baton, (const char *)data + offsetof(svn_fs_fs__noderev_t, kind),
         sizeof(svn_node_kind_t));
  *out = baton;
  return SVN_NO_ERROR;
}

/* ------------------------------------------------------------------ */
/* Directory listings                                                   */

/* Layout: header, pointer array, dirent structs, id structs, names. */
typedef struct dir_header_t
{
  apr_uint32_t count;
  apr_uint32_t ptr_off, dirent_off, id_off;
} dir_header_t;

svn_error_t *
svn_fs_fs__dirents_serialize(void **data, apr_size_t *data_len, void *in,
                             apr_pool_t *pool)
{
  const apr_array_header_t *entries = in;
  apr_size_t n = entries->nelts, i;
  svn_stringbuf_t *buf = svn_stringbuf_create_ensure(n * 128 + 64, pool);
  dir_header_t hdr;

  reserve(buf, sizeof(hdr));
  hdr.count = (apr_uint32_t)n;
  hdr.ptr_off = (apr_uint32_t)reserve(buf, n * sizeof(void *));
  hdr.dirent_off = (apr_uint32_t)reserve(buf, n * sizeof(svn_fs_dirent_t));
  hdr.id_off = (apr_uint32_t)reserve(buf, n * sizeof(svn_fs_fs__id_t));
  for (i = 0; i < n; i++)
    {
      const svn_fs_dirent_t *src = APR_ARRAY_IDX(entries, i,
                                                 svn_fs_dirent_t *);
      svn_fs_dirent_t d = *src;
      svn_fs_fs__id_t id = *SVN_FS_FS__ID(src->id);
      apr_size_t d_off = hdr.dirent_off + i * sizeof(d);
      apr_size_t id_off = hdr.id_off + i * sizeof(id);
      void *ptr = AS_OFFSET(d_off);

      d.name = PUT_CSTR(buf, src->name);
      d.id = AS_OFFSET(id_off);
      id.public.vtable = NULL;
      id.public.fsap_data = NULL;
      memcpy(buf->data + d_off, &d, sizeof(d));
      memcpy(buf->data + id_off, &id, sizeof(id));
      memcpy(buf->data + hdr.ptr_off + i * sizeof(ptr), &ptr, sizeof(ptr));
    }
  memcpy(buf->data, &hdr, sizeof(hdr));
  finish(data, data_len, buf);
  return SVN_NO_ERROR;
}

svn_error_t *
svn_fs_fs__dirents_deserialize(void **out, void *data, apr_size_t data_len,
                               apr_pool_t *pool)
{
  dir_header_t *hdr = data;
  svn_fs_dirent_t **ptrs = (void *)((char *)data + hdr->ptr_off);
  apr_array_header_t *entries = apr_pcalloc(pool, sizeof(*entries));
  apr_uint32_t i;

  for (i = 0; i < hdr->count; i++)
    {
      svn_fs_dirent_t *d;
      FIX(data, ptrs[i]);
      d = ptrs[i];
      FIX(data, d->name);
      FIX(data, d->id);
      svn_fs_fs__id_init_public((svn_fs_fs__id_t *)d->id);
    }
  entries->pool = pool;
  entries->elt_size = sizeof(svn_fs_dirent_t *);
  entries->nelts = entries->nalloc = (int)hdr->count;
  entries->elts = (char *)ptrs;
  *out = entries;
  return SVN_NO_ERROR;
}

svn_error_t *
svn_fs_fs__dirents_get_entry(void **out, const void *data,
                             apr_size_t data_len, void *baton,
                             apr_pool_t *pool)
{
  const char *name = baton;
  const char *base = data;
  dir_header_t hdr;
  int lo = 0, hi;

  memcpy(&hdr, data, sizeof(hdr));
  hi = (int)hdr.count - 1;
  *out = NULL;
  while (lo <= hi)
    {
      int mid = lo + (hi - lo) / 2;
      svn_fs_dirent_t d;
      int cmp;

      memcpy(&d, base + hdr.dirent_off + mid * sizeof(d), sizeof(d));
      cmp = strcmp(base + (uintptr_t)d.name, name);
      if (cmp == 0)
        {
          svn_fs_dirent_t *result = apr_palloc(pool, sizeof(*result));
          svn_fs_fs__id_t *id = apr_palloc(pool, sizeof(*id));

          memcpy(id, base + (uintptr_t)d.id, sizeof(*id));
          svn_fs_fs__id_init_public(id);
          result->name = apr_pstrdup(pool, name);
          result->id = SVN_FS_FS__PUBLIC_ID(id);
          result->kind = d.kind;
          *out = result;
          return SVN_NO_ERROR;
        }
      if (cmp < 0)
        lo = mid + 1;
      else
        hi = mid - 1;
    }
  return SVN_NO_ERROR;
}

/* ------------------------------------------------------------------ */
/* Property lists: the hash dump text itself is compact enough.         */

svn_error_t *
svn_fs_fs__props_serialize(void **data, apr_size_t *data_len, void *in,
                           apr_pool_t *pool)
{
  svn_stringbuf_t *buf = svn_stringbuf_create_empty(pool);

  svn_fs_fs__hashdump_unparse(buf, in, pool);
  finish(data, data_len, buf);
  return SVN_NO_ERROR;
}

svn_error_t *
svn_fs_fs__props_deserialize(void **out, void *data, apr_size_t data_len,
                             apr_pool_t *pool)
{
  apr_hash_t *props;

  SVN_ERR(svn_fs_fs__hashdump_parse(&props, NULL, data, data_len,
                                    "properties cache", pool));
  *out = props;
  return SVN_NO_ERROR;
}

/* ------------------------------------------------------------------ */
/* Changed-path blocks                                                  */

typedef struct changes_header_t
{
  apr_int64_t next_offset;
  apr_uint32_t count, done;
  apr_uint32_t ptr_off, change_off, id_off, pad;
} changes_header_t;

svn_error_t *
svn_fs_fs__changes_block_serialize(void **data, apr_size_t *data_len,
                                   void *in, apr_pool_t *pool)
{
  const svn_fs_fs__changes_block_t *block = in;
  apr_size_t n = block->changes->nelts, i;
  svn_stringbuf_t *buf = svn_stringbuf_create_ensure(n * 200 + 64, pool);
  changes_header_t hdr = { 0 };

  reserve(buf, sizeof(hdr));
  hdr.next_offset = block->next_offset;
  hdr.count = (apr_uint32_t)n;
  hdr.done = block->done;
  hdr.ptr_off = (apr_uint32_t)reserve(buf, n * sizeof(void *));
  hdr.change_off = (apr_uint32_t)reserve(buf,
                                         n * sizeof(svn_fs_fs__change_t));
  hdr.id_off = (apr_uint32_t)reserve(buf, n * sizeof(svn_fs_fs__id_t));
  for (i = 0; i < n; i++)
    {
      const svn_fs_fs__change_t *src = APR_ARRAY_IDX(block->changes, i,
                                                     svn_fs_fs__change_t *);
      svn_fs_fs__change_t c = *src;
      svn_fs_fs__id_t id = { { 0 } };
      apr_size_t c_off = hdr.change_off + i * sizeof(c);
      apr_size_t id_off = hdr.id_off + i * sizeof(id);
      void *ptr = AS_OFFSET(c_off);

      c.path.data = put_string(buf, src->path.data, src->path.len);
      c.copyfrom_path = PUT_CSTR(buf, src->copyfrom_path);
      if (src->noderev_id)
        {
          id = *src->noderev_id;
          id.public.vtable = NULL;
          id.public.fsap_data = NULL;
          c.noderev_id = AS_OFFSET(id_off);
        }
      memcpy(buf->data + c_off, &c, sizeof(c));
      memcpy(buf->data + id_off, &id, sizeof(id));
      memcpy(buf->data + hdr.ptr_off + i * sizeof(ptr), &ptr, sizeof(ptr));
    }
  memcpy(buf->data, &hdr, sizeof(hdr));
  finish(data, data_len, buf);
  return SVN_NO_ERROR;
}

svn_error_t *
svn_fs_fs__changes_block_deserialize(void **out, void *data,
                                     apr_size_t data_len, apr_pool_t *pool)
{
  changes_header_t *hdr = data;
  svn_fs_fs__change_t **ptrs = (void *)((char *)data + hdr->ptr_off);
  svn_fs_fs__changes_block_t *block = apr_pcalloc(pool, sizeof(*block));
  apr_array_header_t *changes = apr_pcalloc(pool, sizeof(*changes));
  apr_uint32_t i;

  for (i = 0; i < hdr->count; i++)
    {
      svn_fs_fs__change_t *c;
      FIX(data, ptrs[i]);
      c = ptrs[i];
      FIX(data, c->path.data);
      FIX(data, c->copyfrom_path);
      if (c->noderev_id)
        {
          FIX(data, c->noderev_id);
          svn_fs_fs__id_init_public((svn_fs_fs__id_t *)c->noderev_id);
        }
    }
  changes->pool = pool;
  changes->elt_size = sizeof(svn_fs_fs__change_t *);
  changes->nelts = changes->nalloc = (int)hdr->count;
  changes->elts = (char *)ptrs;
  block->changes = changes;
  block->done = hdr->done;
  block->next_offset = (apr_off_t)hdr->next_offset;
  *out = block;
  return SVN_NO_ERROR;
}

svn_error_t *
svn_fs_fs__changes_block_get_next(void **out, const void *data,
                                  apr_size_t data_len, void *baton,
                                  apr_pool_t *pool)
{
  changes_header_t hdr;

  memcpy(&hdr, data, sizeof(hdr));
  if (hdr.done)
    *out = NULL;
  else
    {
      apr_off_t *next = apr_palloc(pool, sizeof(*next));
      *next = (apr_off_t)hdr.next_offset;
      *out = next;
    }
  return SVN_NO_ERROR;
}
