/* test_md5.c --- unit tests for md5.c: the test suite of RFC 1321
 * (appendix A.5), then agreement with apr_md5 on every length around the
 * 64-byte block and padding edges, fed whole and in uneven pieces, and on
 * a few MB. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <apr_md5.h>
#include "md5.h"

static void
hex_of(char out[33], const unsigned char digest[16])
{
  int i;

  for (i = 0; i < 16; i++)
    sprintf(out + 2 * i, "%02x", digest[i]);
}

static void
digest_of(unsigned char digest[16], const void *data, apr_size_t len)
{
  svn_fs_fs__md5_t ctx;

  svn_fs_fs__md5_init(&ctx);
  svn_fs_fs__md5_update(&ctx, data, len);
  svn_fs_fs__md5_final(digest, &ctx);
}

/* RFC 1321 A.5. */
static void
test_rfc1321_suite(void **state)
{
  static const struct { const char *text, *md5; } cases[] = {
    { "", "d41d8cd98f00b204e9800998ecf8427e" },
    { "a", "0cc175b9c0f1b6a831c399e269772661" },
    { "abc", "900150983cd24fb0d6963f7d28e17f72" },
    { "message digest", "f96b697d7cb7938d525a2f31aaf161d0" },
    { "abcdefghijklmnopqrstuvwxyz", "c3fcd3d76192e4007dfb496cca67e13b" },
    { "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
      "d174ab98d277d9f5a5611c2c9f419d9f" },
    { "1234567890123456789012345678901234567890"
      "1234567890123456789012345678901234567890",
      "57edf4a22be3c955ac49da2e2107b67a" },
  };
  size_t k;

  for (k = 0; k < sizeof(cases) / sizeof(cases[0]); k++)
    {
      unsigned char digest[16];
      char hex[33];

      digest_of(digest, cases[k].text, strlen(cases[k].text));
      hex_of(hex, digest);
      assert_string_equal(hex, cases[k].md5);
    }
}

/* Lengths 0..300 (every padding case: 55, 56, 63, 64, 119, 120 ...), each
   hashed whole and in pieces of 1..13 bytes, against apr_md5. */
static void
test_lengths_and_pieces(void **state)
{
  unsigned char data[300];
  apr_size_t len, k;

  for (k = 0; k < sizeof(data); k++)
    data[k] = (unsigned char)(k * 131 + 7);
  for (len = 0; len <= sizeof(data); len++)
    {
      unsigned char expected[16], whole[16], pieces[16];
      svn_fs_fs__md5_t ctx;
      apr_size_t at = 0;

      apr_md5(expected, data, len);
      digest_of(whole, data, len);
      svn_fs_fs__md5_init(&ctx);
      while (at < len)
        {
          apr_size_t n = (at * 7 + 3) % 13 + 1;
          if (n > len - at)
            n = len - at;
          svn_fs_fs__md5_update(&ctx, data + at, n);
          at += n;
        }
      svn_fs_fs__md5_final(pieces, &ctx);
      assert_memory_equal(whole, expected, 16);
      assert_memory_equal(pieces, expected, 16);
    }
}

/* A few MB with every byte value, unaligned start. */
static void
test_large(void **state)
{
  apr_size_t n = 3 * 1024 * 1024 + 17, k;
  unsigned char *data = malloc(n + 1);
  unsigned char expected[16], got[16];

  for (k = 0; k < n + 1; k++)
    data[k] = (unsigned char)((k * 2654435761u) >> 7);
  apr_md5(expected, data + 1, n);
  digest_of(got, data + 1, n);
  assert_memory_equal(got, expected, 16);
  free(data);
}

int
main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_rfc1321_suite),
    cmocka_unit_test(test_lengths_and_pieces),
    cmocka_unit_test(test_large),
  };

  return cmocka_run_group_tests(tests, NULL, NULL);
}
