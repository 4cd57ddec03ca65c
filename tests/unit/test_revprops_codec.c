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
#include "admin_test_util.h"

/* TRUE if NAME ends with SUFFIX. */
static svn_boolean_t
ends_with(const char *name, const char *suffix)
{
  size_t n = strlen(name), s = strlen(suffix);
  return n >= s && strcmp(name + n - s, suffix) == 0;
}

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

/* Stock-made manifests and packs (shard size 4) parse and re-encode to
   the same bytes; the compressed pack re-encodes to the same plain
   container. */
static void
test_good_vectors(void **state)
{
  apr_pool_t *pool = svn_pool_create(NULL);
  const char *dir = admin_vector_dir("good", "revprops", pool);
  apr_array_header_t *names = admin_vector_names(dir, pool);
  int i, j;

  for (i = 0; i < names->nelts; i++)
    {
      const char *name = APR_ARRAY_IDX(names, i, const char *);
      svn_stringbuf_t *text = admin_vector_load(dir, name, pool);
      svn_stringbuf_t *out = svn_stringbuf_create_empty(pool), *plain;
      svn_boolean_t shard0 = strncmp(name, "shard0", 6) == 0;

      if (ends_with(name, ".manifest"))
        {
          apr_array_header_t *entries;
          assert_null(svn_fs_fs__revprop_manifest_parse(
                        &entries, text->data, text->len, shard0 ? 1 : 4,
                        name, pool));
          assert_int_equal(entries->nelts, shard0 ? 3 : 4);
          svn_fs_fs__revprop_manifest_unparse(out, entries);
          assert_string_equal(out->data, text->data);
        }
      else
        {
          svn_fs_fs__revprop_pack_t pack;
          apr_array_header_t *dumps = apr_array_make(pool, 4,
                                                     sizeof(void *));
          svn_stringbuf_t *wrapped;

          assert_null(parse_pack_file(&pack, &plain, text, name, pool));
          assert_int_equal(pack.start_rev, shard0 ? 1 : 4);
          for (j = 0; j < pack.count; j++)
            APR_ARRAY_PUSH(dumps, svn_stringbuf_t *)
              = svn_stringbuf_ncreate(pack.body + pack.offsets[j],
                                      pack.sizes[j], pool);
          svn_fs_fs__revprop_pack_unparse(out, pack.start_rev, dumps, pool);
          assert_int_equal(out->len, plain->len);
          assert_memory_equal(out->data, plain->data, plain->len);
          assert_null(svn_fs_fs__revprop_pack_wrap(
                        &wrapped, out, ends_with(name, "-compressed.pack"),
                        pool));
          assert_int_equal(wrapped->len, text->len);
          assert_memory_equal(wrapped->data, text->data, text->len);
        }
    }
  svn_pool_destroy(pool);
}

/* Bad manifests are checked as shard 0 (first revision 1). */
static void
test_bad_vectors(void **state)
{
  apr_pool_t *pool = svn_pool_create(NULL);
  const char *dir = admin_vector_dir("bad", "revprops", pool);
  apr_array_header_t *names = admin_vector_names(dir, pool);
  int i;

  for (i = 0; i < names->nelts; i++)
    {
      const char *name = APR_ARRAY_IDX(names, i, const char *);
      svn_stringbuf_t *text = admin_vector_load(dir, name, pool), *plain;
      apr_status_t code;
      const char *rule;
      svn_error_t *err;

      admin_vector_expect(&code, &rule, dir, name, pool);
      if (ends_with(name, ".manifest"))
        {
          apr_array_header_t *entries;
          err = svn_fs_fs__revprop_manifest_parse(&entries, text->data,
                                                  text->len, 1, name, pool);
        }
      else
        {
          svn_fs_fs__revprop_pack_t pack;
          err = parse_pack_file(&pack, &plain, text, name, pool);
        }
      admin_check_error(err, code, rule, name);
    }
  svn_pool_destroy(pool);
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
