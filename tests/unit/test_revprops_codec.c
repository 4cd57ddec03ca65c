/* test_revprops_codec.c --- unit tests for revprops_codec.c
 * (doc/format/revprops.md, "Packed shards"). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <apr_general.h>
#include "svn_hash.h"
#include "hashdump.h"
#include "revprops_codec.h"
#include "test_util.h"

/* Unwrap and parse the pack file TEXT; every revision's dump must parse. */
static svn_error_t *
parse_pack_file(svn_fs_fs__revprop_pack_t *pack, svn_stringbuf_t **plain,
                const svn_stringbuf_t *text, const char *name,
                apr_pool_t *pool)
{
  int i;

  SVN_ERR(svn_fs_fs__revprop_pack_unwrap(plain, text->data, text->len, name,
                                         pool));
  SVN_ERR(svn_fs_fs__revprop_pack_parse(pack, (*plain)->data, (*plain)->len,
                                        name, pool));
  for (i = 0; i < pack->count; i++)
    {
      apr_hash_t *props;
      SVN_ERR(svn_fs_fs__hashdump_parse(&props, NULL,
                                        pack->body + pack->offsets[i],
                                        pack->sizes[i], name, pool));
    }
  return SVN_NO_ERROR;
}

/* Stock's manifest TEXT (shard size 4) parses and re-encodes to the same
   bytes. */
static void
check_good_manifest(const svn_stringbuf_t *text, const char *name,
                    svn_boolean_t shard0, apr_pool_t *pool)
{
  svn_stringbuf_t *out = svn_stringbuf_create_empty(pool);
  apr_array_header_t *entries;

  assert_null(svn_fs_fs__revprop_manifest_parse(&entries, text->data,
                                                text->len, shard0 ? 1 : 4,
                                                name, pool));
  assert_int_equal(entries->nelts, shard0 ? 3 : 4);
  svn_fs_fs__revprop_manifest_unparse(out, entries);
  assert_string_equal(out->data, text->data);
}

/* Stock's pack TEXT (shard size 4) parses and re-encodes to the same
   bytes; a compressed pack re-encodes to the same plain container. */
static void
check_good_pack(const svn_stringbuf_t *text, const char *name,
                svn_boolean_t shard0, apr_pool_t *pool)
{
  svn_stringbuf_t *out = svn_stringbuf_create_empty(pool), *plain;
  svn_fs_fs__revprop_pack_t pack;
  apr_array_header_t *dumps = apr_array_make(pool, 4, sizeof(void *));
  svn_stringbuf_t *wrapped;
  int j;

  assert_null(parse_pack_file(&pack, &plain, text, name, pool));
  assert_int_equal(pack.start_rev, shard0 ? 1 : 4);
  for (j = 0; j < pack.count; j++)
    APR_ARRAY_PUSH(dumps, svn_stringbuf_t *)
      = svn_stringbuf_ncreate(pack.body + pack.offsets[j], pack.sizes[j],
                              pool);
  svn_fs_fs__revprop_pack_unparse(out, pack.start_rev, dumps, pool);
  assert_int_equal(out->len, plain->len);
  assert_memory_equal(out->data, plain->data, plain->len);
  assert_null(svn_fs_fs__revprop_pack_wrap(
                &wrapped, out,
                vector_name_ends_with(name, "-compressed.pack"), pool));
  assert_int_equal(wrapped->len, text->len);
  assert_memory_equal(wrapped->data, text->data, text->len);
}

static void
check_good_vector(const svn_stringbuf_t *text, const char *name,
                  apr_pool_t *pool)
{
  svn_boolean_t shard0 = strncmp(name, "shard0", 6) == 0;

  if (vector_name_ends_with(name, ".manifest"))
    check_good_manifest(text, name, shard0, pool);
  else
    check_good_pack(text, name, shard0, pool);
}

static void
test_good_vectors(void **state)
{
  vector_check_good("revprops", NULL, 1, check_good_vector, NULL);
}

/* Bad manifests are checked as shard 0 (first revision 1). */
static svn_error_t *
parse_bad_vector(const svn_stringbuf_t *text, const char *name,
                 apr_pool_t *pool)
{
  if (vector_name_ends_with(name, ".manifest"))
    {
      apr_array_header_t *entries;
      return svn_fs_fs__revprop_manifest_parse(&entries, text->data,
                                               text->len, 1, name, pool);
    }
  else
    {
      svn_fs_fs__revprop_pack_t pack;
      svn_stringbuf_t *plain;
      return parse_pack_file(&pack, &plain, text, name, pool);
    }
}

static void
test_bad_vectors(void **state)
{
  vector_check_bad("revprops", NULL, 1, parse_bad_vector, NULL);
}

/* A container built from dumps reads back the same dumps. */
static void
test_pack_round_trip(void **state)
{
  apr_pool_t *pool = svn_pool_create(NULL);
  apr_array_header_t *dumps = apr_array_make(pool, 3, sizeof(void *));
  svn_stringbuf_t *plain = svn_stringbuf_create_empty(pool);
  svn_stringbuf_t *wrapped, *back;
  svn_fs_fs__revprop_pack_t pack;

  APR_ARRAY_PUSH(dumps, svn_stringbuf_t *)
    = svn_stringbuf_create("END\n", pool);
  APR_ARRAY_PUSH(dumps, svn_stringbuf_t *)
    = svn_stringbuf_create("K 1\na\nV 2\nbc\nEND\n", pool);
  svn_fs_fs__revprop_pack_unparse(plain, 1001, dumps, pool);
  assert_string_equal(plain->data,
                      "1001\n2\n4\n17\n\nEND\nK 1\na\nV 2\nbc\nEND\n");
  assert_null(svn_fs_fs__revprop_pack_wrap(&wrapped, plain, TRUE, pool));
  assert_null(svn_fs_fs__revprop_pack_unwrap(&back, wrapped->data,
                                             wrapped->len, "t", pool));
  assert_string_equal(back->data, plain->data);
  assert_null(svn_fs_fs__revprop_pack_parse(&pack, back->data, back->len,
                                            "t", pool));
  assert_int_equal(pack.start_rev, 1001);
  assert_int_equal(pack.count, 2);
  assert_int_equal(pack.offsets[1], 4);
  assert_int_equal(pack.sizes[1], 17);
  svn_pool_destroy(pool);
}

int
main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_good_vectors),
    cmocka_unit_test(test_bad_vectors),
    cmocka_unit_test(test_pack_round_trip),
  };

  apr_initialize();
  return cmocka_run_group_tests(tests, NULL, NULL);
}
