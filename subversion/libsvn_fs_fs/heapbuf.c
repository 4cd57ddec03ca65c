/* heapbuf.c --- growable byte buffers on the heap (heapbuf.h). */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "heapbuf.h"

void *
svn_fs_fs__heap_alloc(apr_size_t bytes)
{
  void *mem = malloc(bytes);

  if (!mem)
    abort();          /* out of memory: what APR pools do too */
  return mem;
}

void *
svn_fs_fs__heap_realloc(void *mem, apr_size_t bytes)
{
  void *grown = realloc(mem, bytes);

  if (!grown)
    abort();          /* out of memory: what APR pools do too */
  return grown;
}

void
svn_fs_fs__heapbuf_reserve(svn_fs_fs__heapbuf_t *buf, apr_size_t need)
{
  if (need <= buf->capacity)
    return;
  buf->data = svn_fs_fs__heap_realloc(buf->data, need);
  buf->capacity = need;
}

void
svn_fs_fs__heapbuf_append(svn_fs_fs__heapbuf_t *buf, const void *data,
                          apr_size_t len)
{
  apr_size_t need = buf->len + len;

  if (need > buf->capacity)
    svn_fs_fs__heapbuf_reserve(buf, need > 2 * buf->capacity
                                    ? (need > 256 ? need : 256)
                                    : 2 * buf->capacity);
  if (len)
    memcpy(buf->data + buf->len, data, len);
  buf->len = need;
}

void
svn_fs_fs__heapbuf_free(svn_fs_fs__heapbuf_t *buf)
{
  free(buf->data);
  memset(buf, 0, sizeof(*buf));
}

void *
svn_fs_fs__pages_alloc(apr_size_t bytes)
{
  void *mem = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

  if (mem == MAP_FAILED)
    abort();          /* out of memory: what APR pools do too */
  return mem;
}

void
svn_fs_fs__pages_free(void *mem, apr_size_t bytes)
{
  if (mem)
    munmap(mem, bytes);
}
