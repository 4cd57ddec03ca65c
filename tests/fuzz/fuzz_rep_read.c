/* fuzz_rep_read.c --- libFuzzer target for the representation reader.
 *
 * Turns the input into a tiny physically addressed (format 6) repository:
 * the input after a 24-byte prefix becomes both revision files r0 and r1,
 * and the prefix gives the size, expanded size and MD5 of the rep
 * reference read from r1 offset 0 (base references may point anywhere in r0/r1, so
 * chains, loops and bad views all get exercised).  The rep is read whole,
 * streamed, and turned into a delta stream; errors are expected, crashes,
 * hangs and sanitizer reports are not.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <apr_general.h>

#include "svn_pools.h"
#include "svn_dirent_uri.h"
#include "svn_io.h"
#include "fsfs7.h"
#include "fsconf.h"
#include "rep_read.h"

static char root[256];

/* The first file access makes APR/libsvn_subr open an iconv handle that
   they keep for the life of the process; LeakSanitizer reports it.  Our
   own pools are all destroyed per input, so leak checking has nothing
   else to find here. */
const char *__asan_default_options(void);
const char *
__asan_default_options(void)
{
  return "detect_leaks=0";
}

/* Write LEN bytes of DATA to ROOT/db/NAME. */
static void
put(const char *name, const void *data, size_t len)
{
  char path[512];
  FILE *f;

  snprintf(path, sizeof(path), "%s/db/%s", root, name);
  f = fopen(path, "wb");
  if (!f)
    abort();
  fwrite(data, 1, len, f);
  fclose(f);
}

/* Remove the files and directories made under ROOT. */
static void
cleanup(void)
{
  static const char *const names[] = {
    "db/revs/0/0", "db/revs/0/1", "db/format", "db/current",
    "db/min-unpacked-rev", "db/revs/0", "db/revs", "db", ""
  };
  char path[512];
  size_t i;

  for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
    {
      snprintf(path, sizeof(path), "%s/%s", root, names[i]);
      (void)remove(path);
    }
}

/* Read all of STREAM, ignoring the data. */
static svn_error_t *
drain(svn_stream_t *stream)
{
  char buf[7919];
  apr_size_t len;

  do
    {
      len = sizeof(buf);
      SVN_ERR(svn_stream_read_full(stream, buf, &len));
    }
  while (len == sizeof(buf));
  return svn_error_trace(svn_stream_close(stream));
}

static void
exercise(svn_fs_t *fs, const svn_fs_fs__rep_t *rep, apr_pool_t *pool)
{
  svn_stringbuf_t *text;
  svn_stream_t *stream;
  svn_txdelta_stream_t *delta;
  svn_txdelta_window_t *window;
  svn_error_t *err;
  int n = 0;

  err = svn_fs_fs__rep_contents(&text, fs, rep, TRUE, pool, pool);
  if (getenv("FUZZ_REP_READ_DEBUG"))
    fprintf(stderr, "%s\n", err ? svn_error_root_cause(err)->message : "ok");
  svn_error_clear(err);
  err = svn_fs_fs__rep_contents_stream(&stream, fs, rep, pool);
  svn_error_clear(err ? err : drain(stream));
  err = svn_fs_fs__rep_delta_stream(&delta, fs, NULL, rep, pool);
  while (!err && n++ < 1000)
    {
      err = svn_txdelta_next_window(&window, delta, pool);
      if (!err && !window)
        break;
    }
  svn_error_clear(err);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  static apr_pool_t *top;
  apr_pool_t *pool;
  svn_fs_t *fs;
  svn_fs_fs__data_t *ffd;
  svn_fs_fs__rep_t rep;

  if (!top)
    {
      char path[512];
      apr_initialize();
      top = svn_pool_create(NULL);
      snprintf(root, sizeof(root), "/tmp/fsfs7-fuzz-rep-read.%ld",
               (long)getpid());
      snprintf(path, sizeof(path), "%s/db/revs/0", root);
      svn_error_clear(svn_io_make_dir_recursively(path, top));
      put("format", "6\nlayout sharded 1000\n", 22);
      put("current", "1\n", 2);
      put("min-unpacked-rev", "0\n", 2);
      atexit(cleanup);
    }
  if (size < 24)
    return 0;
  put("revs/0/0", data + 24, size - 24);
  put("revs/0/1", data + 24, size - 24);

  pool = svn_pool_create(top);
  fs = apr_pcalloc(pool, sizeof(*fs));
  ffd = apr_pcalloc(pool, sizeof(*ffd));
  fs->pool = pool;
  fs->path = apr_psprintf(pool, "%s/db", root);
  fs->fsap_data = ffd;
  ffd->format = 6;
  ffd->max_files_per_dir = 1000;
  ffd->youngest_rev_cache = 1;
  svn_fs_fs__fsconf_defaults(ffd);

  memset(&rep, 0, sizeof(rep));
  rep.revision = 1;
  rep.item_index = 0;
  rep.size = (data[0] | data[1] << 8 | data[2] << 16) & 0x3fffff;
  rep.expanded_size = (data[4] | data[5] << 8 | data[6] << 16) & 0x3fffff;
  rep.has_sha1 = data[3] & 1;
  memcpy(rep.md5_digest, data + 8, sizeof(rep.md5_digest));
  exercise(fs, &rep, pool);
  svn_pool_destroy(pool);
  return 0;
}
