/* test_inflate.c --- unit tests for inflate.c: zlib streams made by zlib
 * itself (levels 0, 1, 6, 9; empty, tiny, incompressible and repetitive
 * inputs) must come back byte for byte; a wrong expected length, damaged
 * data or a damaged Adler-32 trailer must be refused; bytes after the
 * stream are ignored; and four threads inflating at once each get right
 * results.  The binary runs four passes, each in its own process (the
 * choice of implementation is made once per process): FSFS7_INFLATE
 * unset (zlib first, libdeflate once 4 MB have been inflated), forced to
 * "libdeflate", forced to "zlib", and unset again for streams of a
 * whole svndiff window (which switch at once).  FSFS7_EXPECT_INFLATE, when set,
 * names the implementation the first two must end up with (CI installs
 * libdeflate0 so that the fast path is what it tests). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>
#include <cmocka.h>

#include "inflate.h"

/* LEN bytes of kind KIND: 0 random-looking, 1 repetitive text. */
static unsigned char *
make_input(apr_size_t len, int kind)
{
  unsigned char *data = malloc(len + 1);
  apr_size_t k;

  for (k = 0; k < len; k++)
    data[k] = kind == 0 ? (unsigned char)((k * 2654435761u) >> 19)
                        : (unsigned char)("<dependency>\n"[k % 13]);
  return data;
}

/* Compress IN (LEN bytes) at LEVEL; *OUT_LEN receives the stream size. */
static unsigned char *
deflate_it(const unsigned char *in, apr_size_t len, int level,
           apr_size_t *out_len)
{
  uLongf cap = compressBound((uLong)len) + 16;
  unsigned char *out = malloc(cap);

  assert_int_equal(compress2(out, &cap, in, (uLong)len, level), Z_OK);
  *out_len = cap;
  return out;
}

static void
test_round_trips(void **state)
{
  static const apr_size_t sizes[] = { 0, 1, 13, 4096, 100000, 102400 };
  static const int levels[] = { 0, 1, 6, 9 };
  size_t i, j;
  int kind;

  for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
    for (j = 0; j < sizeof(levels) / sizeof(levels[0]); j++)
      for (kind = 0; kind < 2; kind++)
        {
          unsigned char *in = make_input(sizes[i], kind);
          apr_size_t zlen;
          unsigned char *z = deflate_it(in, sizes[i], levels[j], &zlen);
          unsigned char *out = malloc(sizes[i] + 1);

          assert_true(svn_fs_fs__inflate(out, sizes[i], z, zlen));
          assert_memory_equal(out, in, sizes[i]);
          free(in);
          free(z);
          free(out);
        }
}

static void
test_refusals(void **state)
{
  apr_size_t n = 50000, zlen;
  unsigned char *in = make_input(n, 1);
  unsigned char *z = deflate_it(in, n, 6, &zlen);
  unsigned char *out = malloc(n + 10);
  unsigned char *bad = malloc(zlen + 8);

  /* Expands to one byte more, or one less, than said. */
  assert_false(svn_fs_fs__inflate(out, n - 1, z, zlen));
  assert_false(svn_fs_fs__inflate(out, n + 1, z, zlen));
  /* Cut short. */
  assert_false(svn_fs_fs__inflate(out, n, z, zlen - 5));
  assert_false(svn_fs_fs__inflate(out, n, z, 1));
  /* A damaged Adler-32 trailer. */
  memcpy(bad, z, zlen);
  bad[zlen - 1] ^= 0x5a;
  assert_false(svn_fs_fs__inflate(out, n, bad, zlen));
  /* A damaged header. */
  memcpy(bad, z, zlen);
  bad[0] ^= 0xff;
  assert_false(svn_fs_fs__inflate(out, n, bad, zlen));
  /* Bytes after the stream are ignored, as by zlib's uncompress(). */
  memcpy(bad, z, zlen);
  memcpy(bad + zlen, "TRAILING", 8);
  assert_true(svn_fs_fs__inflate(out, n, bad, zlen + 8));
  assert_memory_equal(out, in, n);
  free(in);
  free(z);
  free(out);
  free(bad);
}

/* One thread of test_threads: inflate its own input 200 times. */
static void *
inflate_loop(void *arg)
{
  apr_size_t n = 20000 + (apr_size_t)(long)arg * 777, zlen;
  unsigned char *in = make_input(n, (int)((long)arg & 1));
  unsigned char *z = deflate_it(in, n, 6, &zlen);
  unsigned char *out = malloc(n);
  long bad = 0;
  int k;

  for (k = 0; k < 200; k++)
    if (!svn_fs_fs__inflate(out, n, z, zlen) || memcmp(out, in, n) != 0)
      bad++;
  free(in);
  free(z);
  free(out);
  return (void *)bad;
}

static void
test_threads(void **state)
{
  pthread_t threads[4];
  long t;

  for (t = 0; t < 4; t++)
    assert_int_equal(pthread_create(&threads[t], NULL, inflate_loop,
                                    (void *)t), 0);
  for (t = 0; t < 4; t++)
    {
      void *bad;

      assert_int_equal(pthread_join(threads[t], &bad), 0);
      assert_int_equal((long)bad, 0);
    }
}

static void
test_implementation(void **state)
{
  const char *forced = getenv("FSFS7_INFLATE");
  const char *expect = getenv("FSFS7_EXPECT_INFLATE");
  const char *got = svn_fs_fs__inflate_implementation();

  printf("# inflate implementation: %s\n", got);
  if (forced && strcmp(forced, "zlib") == 0)
    assert_string_equal(got, "zlib");
  else if (expect && *expect)
    assert_string_equal(got, expect);
}

/* Without FSFS7_INFLATE: zlib until 4 MB have been inflated, then the
   implementation the process can load. */
static void
test_default_switches(void **state)
{
  const char *expect = getenv("FSFS7_EXPECT_INFLATE");
  apr_size_t n = 1024 * 1024, zlen;
  unsigned char *in = make_input(n, 1);
  unsigned char *z = deflate_it(in, n, 6, &zlen);
  unsigned char *out = malloc(n);
  int k;

  assert_string_equal(svn_fs_fs__inflate_implementation(), "zlib");
  for (k = 0; k < 5; k++)
    {
      assert_true(svn_fs_fs__inflate(out, n, z, zlen));
      assert_memory_equal(out, in, n);
    }
  printf("# after 5 MB: %s\n", svn_fs_fs__inflate_implementation());
  if (expect && *expect)
    assert_string_equal(svn_fs_fs__inflate_implementation(), expect);
  free(in);
  free(z);
  free(out);
}

/* Without FSFS7_INFLATE: streams smaller than a whole svndiff window
   keep zlib however many there are (below 4 MB in all), and the first
   stream of a whole window (100,000 bytes and more) switches at once. */
static void
test_full_window_switches(void **state)
{
  const char *expect = getenv("FSFS7_EXPECT_INFLATE");
  apr_size_t small = 64 * 1024, full = 102400, zlen, flen;
  unsigned char *in = make_input(full, 1);
  unsigned char *z = deflate_it(in, small, 6, &zlen);
  unsigned char *fz = deflate_it(in, full, 6, &flen);
  unsigned char *out = malloc(full);
  int k;

  for (k = 0; k < 40; k++)
    assert_true(svn_fs_fs__inflate(out, small, z, zlen));
  assert_string_equal(svn_fs_fs__inflate_implementation(), "zlib");
  assert_true(svn_fs_fs__inflate(out, full, fz, flen));
  assert_memory_equal(out, in, full);
  printf("# after a whole window: %s\n",
         svn_fs_fs__inflate_implementation());
  if (expect && *expect)
    assert_string_equal(svn_fs_fs__inflate_implementation(), expect);
  free(in);
  free(z);
  free(fz);
  free(out);
}

/* Run this binary again with the environment variable VAR set to MODE;
   its exit status. */
static int
run_pass(char **argv, const char *var, const char *mode)
{
  pid_t child;
  int status;

  fflush(NULL);
  child = fork();
  if (child == 0)
    {
      setenv(var, mode, 1);
      execv("/proc/self/exe", argv);
      _exit(127);
    }
  if (child < 0 || waitpid(child, &status, 0) != child
      || !WIFEXITED(status))
    return 1;
  return WEXITSTATUS(status);
}

int
main(int argc, char **argv)
{
  const struct CMUnitTest default_pass[] = {
    cmocka_unit_test(test_default_switches),
    cmocka_unit_test(test_round_trips),
    cmocka_unit_test(test_refusals),
    cmocka_unit_test(test_threads),
  };
  const struct CMUnitTest forced_pass[] = {
    cmocka_unit_test(test_implementation),
    cmocka_unit_test(test_round_trips),
    cmocka_unit_test(test_refusals),
    cmocka_unit_test(test_threads),
  };
  const struct CMUnitTest window_pass[] = {
    cmocka_unit_test(test_full_window_switches),
  };
  int failed;

  (void)argc;
  if (getenv("FSFS7_INFLATE"))
    return cmocka_run_group_tests(forced_pass, NULL, NULL);
  if (getenv("FSFS7_INFLATE_TEST_WINDOW"))
    return cmocka_run_group_tests(window_pass, NULL, NULL);
  failed = cmocka_run_group_tests(default_pass, NULL, NULL);
  failed |= run_pass(argv, "FSFS7_INFLATE", "libdeflate");
  failed |= run_pass(argv, "FSFS7_INFLATE", "zlib");
  failed |= run_pass(argv, "FSFS7_INFLATE_TEST_WINDOW", "1");
  return failed;
}
