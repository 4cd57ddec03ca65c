/* inflate.c --- decompressing zlib streams of a known size (inflate.h).
 *
 * libdeflate is looked up once per process.  Its decompressor objects
 * may not be shared between threads, and svnserve -T or mod_dav_svn read
 * from many threads at once, so each thread gets its own, made on its
 * first use and freed when the thread ends (a thread-specific key with a
 * destructor: svnserve -T runs one thread per connection).
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "inflate.h"

/* The three entry points of libdeflate's public API that we use, with
   the signatures its documentation gives.  Success is 0. */
typedef void *(*deflate_alloc_t)(void);
typedef void (*deflate_free_t)(void *decompressor);
typedef int (*deflate_zlib_t)(void *decompressor,
                              const void *in, size_t in_len,
                              void *out, size_t out_avail,
                              size_t *in_used, size_t *out_made);

static struct
{
  deflate_alloc_t alloc;
  deflate_free_t release;
  deflate_zlib_t zlib_ex;
  pthread_key_t key;           /* this thread's decompressor */
  int loaded;
} lib;

static pthread_once_t lib_once = PTHREAD_ONCE_INIT;

/* Bytes a process inflates with zlib before it loads libdeflate
   (inflate.h says why). */
#define LIBDEFLATE_AFTER (4 * 1024 * 1024)

/* ... unless one stream expands to this much: a whole svndiff window
   of new data (102,400 bytes; 96 kB leaves room for windows cut a
   little short), which only texts larger than a window have.  A
   process reading those inflates plenty: 'svnbench null-export' of
   the long-chain histories, where the first 4 MB at zlib's speed were
   7-9 % of the CPU.  maven-small's largest text is 70 kB, so its loads
   keep zlib and their peak RSS. */
#define LIBDEFLATE_WINDOW (96 * 1024)

/* FSFS7_INFLATE, read once (read_mode): 0 default, 1 zlib only, 2
   libdeflate at once. */
static int mode;

/* Bytes inflated so far, while below LIBDEFLATE_AFTER (a hint: threads
   add to it without ordering). */
static apr_size_t inflated;

/* Thread exit: the destructor of LIB.KEY. */
static void
free_decompressor(void *decompressor)
{
  lib.release(decompressor);
}

/* Look up a symbol of HANDLE as a function pointer (dlsym() returns an
   object pointer; copying its bytes is the conversion POSIX blesses). */
static void
find(void *fn, void *handle, const char *name)
{
  void *sym = dlsym(handle, name);

  memcpy(fn, &sym, sizeof(sym));
}

static void
load_libdeflate(void)
{
  /* Never reached with FSFS7_INFLATE=zlib: zlib_for_now() says so
     first. */
  void *handle = dlopen("libdeflate.so.0", RTLD_NOW | RTLD_LOCAL);
  if (handle == NULL)
    return;
  find(&lib.alloc, handle, "libdeflate_alloc_decompressor");
  find(&lib.release, handle, "libdeflate_free_decompressor");
  find(&lib.zlib_ex, handle, "libdeflate_zlib_decompress_ex");
  if (lib.alloc == NULL || lib.release == NULL || lib.zlib_ex == NULL
      || pthread_key_create(&lib.key, free_decompressor) != 0)
    {
      dlclose(handle);
      return;
    }
  lib.loaded = 1;              /* the handle stays open for good */
}

static pthread_once_t mode_once = PTHREAD_ONCE_INIT;

static void
read_mode(void)
{
  const char *force = getenv("FSFS7_INFLATE");

  mode = force && strcmp(force, "zlib") == 0 ? 1
       : force && strcmp(force, "libdeflate") == 0 ? 2 : 0;
}

/* Whether this process inflates with zlib for now, OUT_LEN bytes more
   being asked for (they count towards LIBDEFLATE_AFTER). */
static svn_boolean_t
zlib_for_now(apr_size_t out_len)
{
  pthread_once(&mode_once, read_mode);
  if (mode == 1)
    return TRUE;
  if (mode == 2 || __atomic_load_n(&inflated, __ATOMIC_RELAXED)
                   >= LIBDEFLATE_AFTER)
    return FALSE;
  if (out_len >= LIBDEFLATE_WINDOW)
    {
      __atomic_store_n(&inflated, LIBDEFLATE_AFTER, __ATOMIC_RELAXED);
      return FALSE;
    }
  __atomic_fetch_add(&inflated, out_len, __ATOMIC_RELAXED);
  return TRUE;
}

/* This thread's libdeflate decompressor, or NULL to use zlib. */
static void *
decompressor(void)
{
  void *d;

  pthread_once(&lib_once, load_libdeflate);
  if (!lib.loaded)
    return NULL;
  d = pthread_getspecific(lib.key);
  if (d == NULL)
    {
      d = lib.alloc();
      if (d && pthread_setspecific(lib.key, d) != 0)
        {
          lib.release(d);
          d = NULL;
        }
    }
  return d;
}

svn_boolean_t
svn_fs_fs__inflate(unsigned char *out, apr_size_t out_len,
                   const unsigned char *in, apr_size_t in_len)
{
  void *d = zlib_for_now(out_len) ? NULL : decompressor();
  uLongf got = (uLongf)out_len;

  if (d)
    {
      size_t used, made;

      return lib.zlib_ex(d, in, in_len, out, out_len, &used, &made) == 0
             && made == out_len;
    }
  return uncompress((Bytef *)out, &got, in, (uLong)in_len) == Z_OK
         && got == out_len;
}

const char *
svn_fs_fs__inflate_implementation(void)
{
  return zlib_for_now(0) || decompressor() == NULL ? "zlib" : "libdeflate";
}
