/* heapbuf.h --- growable byte buffers on the heap (utility).
 *
 * For buffers that live longer than one operation and are grown to the
 * largest size they meet (encoder and rep writer state, the section
 * buffers of the svndiff decoder): in a pool every step of growth would
 * leave the smaller copy behind until the pool goes.  Owner: the codec
 * layer; no Subversion types besides apr_size_t.
 */
#ifndef FSFS7_HEAPBUF_H
#define FSFS7_HEAPBUF_H

#include <apr.h>

/* A growable byte buffer in heap memory rather than a pool.  Long-lived
   users (an encoder or rep writer buffers serving many reps one after the
   other) grow it to the largest window they see and keep that one copy;
   growing in a pool would keep every smaller copy too.  DATA is NULL
   until the first reservation.  Out of memory aborts, as pools do. */
typedef struct svn_fs_fs__heapbuf_t
{
  char *data;
  apr_size_t len;
  apr_size_t capacity;
} svn_fs_fs__heapbuf_t;

/* Make BUF hold at least NEED bytes (keeping its contents); exactly NEED
   if it must grow, so the caller picks the growth policy. */
void
svn_fs_fs__heapbuf_reserve(svn_fs_fs__heapbuf_t *buf, apr_size_t need);

/* Append LEN bytes at DATA to BUF, at least doubling its capacity when
   it must grow. */
void
svn_fs_fs__heapbuf_append(svn_fs_fs__heapbuf_t *buf, const void *data,
                          apr_size_t len);

/* Free BUF's memory; BUF is then empty and can be used again. */
void
svn_fs_fs__heapbuf_free(svn_fs_fs__heapbuf_t *buf);

/* BYTES of heap memory, for memory that must not live in a pool (see
   above); out of memory aborts, as pools do.  Release with free(). */
void *
svn_fs_fs__heap_alloc(apr_size_t bytes);

/* MEM (from svn_fs_fs__heap_alloc or this, or NULL) resized to BYTES,
   contents kept; out of memory aborts. */
void *
svn_fs_fs__heap_realloc(void *mem, apr_size_t bytes);

/* BYTES of memory mapped from the kernel for this caller alone, for the
   few buffers of a quarter megabyte or more that live across reads (the
   large texts of rep_read.c, the read blocks of a file set in
   revfile.c); pages not yet written take no memory.  Freed to malloc,
   each large text raised glibc's mmap threshold (and its trim
   threshold, twice that) to its own size, so every later allocation up
   to that size came from the brk heap, whose freed memory then stayed
   resident: 1.3 MB of peak RSS on a dump of packed full maven.  Out of
   memory aborts.  Release with svn_fs_fs__pages_free(MEM, BYTES), BYTES
   as allocated. */
void *
svn_fs_fs__pages_alloc(apr_size_t bytes);

/* Unmap MEM (from svn_fs_fs__pages_alloc(BYTES), or NULL). */
void
svn_fs_fs__pages_free(void *mem, apr_size_t bytes);

#endif /* FSFS7_HEAPBUF_H */
