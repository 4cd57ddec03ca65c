/* test_scan.c --- unit tests for scan.c: table-driven vectors for the
 * decimal and hex scanners, including empty input, non-digits, the exact
 * limit, one past it and values that would wrap 64 bits. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "scan.h"

/* Sentinel that must survive a failed scan. */
#define UNTOUCHED 4242

/* A whole-field vector: TEXT parsed against MAX gives VALUE, or fails. */
typedef struct decimal_case_t
{
  const char *text;
  apr_uint64_t max;
  svn_boolean_t ok;
  apr_uint64_t value;
} decimal_case_t;

static const decimal_case_t decimal_cases[] = {
  { "0", 9, TRUE, 0 },
  { "7", 9, TRUE, 7 },
  { "42", 100, TRUE, 42 },
  { "000000000000000000000000123", 123, TRUE, 123 },  /* leading zeros */
  { "2147483647", APR_INT32_MAX, TRUE, APR_INT32_MAX },
  { "2147483648", APR_INT32_MAX, FALSE, 0 },          /* one past MAX */
  { "18446744073709551615", APR_UINT64_MAX, TRUE, APR_UINT64_MAX },
  { "18446744073709551616", APR_UINT64_MAX, FALSE, 0 }, /* wraps 64 bits */
  { "99999999999999999999", APR_UINT64_MAX, FALSE, 0 },
  { "184467440737095516150", APR_UINT64_MAX, FALSE, 0 },
  { "5", 5, TRUE, 5 },
  { "6", 5, FALSE, 0 },       /* a digit above a MAX below 9 */
  { "0", 0, TRUE, 0 },
  { "1", 0, FALSE, 0 },
  { "", 100, FALSE, 0 },      /* empty */
  { "-1", 100, FALSE, 0 },    /* no sign */
  { "+1", 100, FALSE, 0 },
  { " 1", 100, FALSE, 0 },    /* no blanks */
  { "1 ", 100, FALSE, 0 },
  { "1\n", 100, FALSE, 0 },
  { "1a", 100, FALSE, 0 },
  { "a", 100, FALSE, 0 },
  { "/", 100, FALSE, 0 },     /* the bytes either side of '0'..'9' */
  { ":", 100, FALSE, 0 },
};

static void
test_decimal_whole(void **state)
{
  apr_size_t i;

  for (i = 0; i < sizeof(decimal_cases) / sizeof(decimal_cases[0]); i++)
    {
      const decimal_case_t *c = &decimal_cases[i];
      apr_uint64_t v = UNTOUCHED;
      svn_boolean_t ok = svn_fs_fs__scan_decimal(&v, c->text, strlen(c->text),
                                                 c->max);

      if (ok != c->ok)
        fail_msg("'%s' (max %" APR_UINT64_T_FMT "): %s, expected %s",
                 c->text, c->max, ok ? "accepted" : "rejected",
                 c->ok ? "accepted" : "rejected");
      assert_true(v == (c->ok ? c->value : UNTOUCHED));
    }
}

/* The length bounds the field even where more digits follow. */
static void
test_decimal_whole_len(void **state)
{
  apr_uint64_t v = 0;

  assert_true(svn_fs_fs__scan_decimal(&v, "12345", 3, 1000));
  assert_true(v == 123);
  assert_false(svn_fs_fs__scan_decimal(&v, "12345", 0, 1000));
}

/* A prefix vector: TEXT parsed up to END_AT gives VALUE and stops after
   CONSUMED bytes, or fails. */
typedef struct prefix_case_t
{
  const char *text;
  apr_size_t end_at;
  apr_uint64_t max;
  svn_boolean_t ok;
  apr_uint64_t value;
  apr_size_t consumed;
} prefix_case_t;

static const prefix_case_t prefix_cases[] = {
  { "12 34", 5, 100, TRUE, 12, 2 },
  { "12\n", 3, 100, TRUE, 12, 2 },
  { "12", 2, 100, TRUE, 12, 2 },      /* digits up to END */
  { "12345", 3, 1000, TRUE, 123, 3 }, /* END caps the digit count */
  { "007x", 4, 100, TRUE, 7, 3 },
  { "101 ", 4, 100, FALSE, 0, 0 },    /* over MAX */
  { "18446744073709551616 ", 21, APR_UINT64_MAX, FALSE, 0, 0 },
  { "", 0, 100, FALSE, 0, 0 },        /* empty */
  { "12", 0, 100, FALSE, 0, 0 },      /* END at the start */
  { " 12", 3, 100, FALSE, 0, 0 },     /* no digit first */
  { "x", 1, 100, FALSE, 0, 0 },
};

static void
test_decimal_prefix(void **state)
{
  apr_size_t i;

  for (i = 0; i < sizeof(prefix_cases) / sizeof(prefix_cases[0]); i++)
    {
      const prefix_case_t *c = &prefix_cases[i];
      const char *p = c->text;
      apr_uint64_t v = UNTOUCHED;
      svn_boolean_t ok = svn_fs_fs__scan_decimal_prefix(&v, &p,
                                                        c->text + c->end_at,
                                                        c->max);

      if (ok != c->ok)
        fail_msg("prefix '%s': %s, expected %s", c->text,
                 ok ? "accepted" : "rejected",
                 c->ok ? "accepted" : "rejected");
      assert_true(v == (c->ok ? c->value : UNTOUCHED));
      assert_int_equal(p - c->text, c->consumed);
    }
}

static void
test_hex(void **state)
{
  unsigned char bytes[4];

  assert_true(svn_fs_fs__scan_hex(bytes, "00ff7Fa0", 8));
  assert_int_equal(bytes[0], 0x00);
  assert_int_equal(bytes[1], 0xff);
  assert_int_equal(bytes[2], 0x7f);
  assert_int_equal(bytes[3], 0xa0);
  assert_true(svn_fs_fs__scan_hex(bytes, "", 0));
  assert_false(svn_fs_fs__scan_hex(bytes, "abc", 3));   /* odd length */
  assert_false(svn_fs_fs__scan_hex(bytes, "0g", 2));
  assert_false(svn_fs_fs__scan_hex(bytes, "g0", 2));
  assert_false(svn_fs_fs__scan_hex(bytes, "0 ", 2));
  assert_false(svn_fs_fs__scan_hex(bytes, "/0", 2));    /* before '0' */
  assert_false(svn_fs_fs__scan_hex(bytes, ":0", 2));    /* after '9' */
  assert_false(svn_fs_fs__scan_hex(bytes, "@0", 2));    /* before 'A' */
  assert_false(svn_fs_fs__scan_hex(bytes, "`0", 2));    /* before 'a' */
  assert_false(svn_fs_fs__scan_hex(bytes, "0\xb0", 2)); /* high bytes  */
  assert_false(svn_fs_fs__scan_hex(bytes, "\xe6" "1", 2));
  assert_false(svn_fs_fs__scan_hex(bytes, "G0", 2));
}

int
main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_decimal_whole),
    cmocka_unit_test(test_decimal_whole_len),
    cmocka_unit_test(test_decimal_prefix),
    cmocka_unit_test(test_hex),
  };

  return cmocka_run_group_tests(tests, NULL, NULL);
}
