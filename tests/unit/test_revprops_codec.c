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

/* Readers parse only the line of the revision they want: a damaged line
   is the error of its own revision (naming it), never of another. */
static void
test_manifest_per_line(void **state)
{
  static const struct { const char *text; svn_revnum_t rev;
                        const char *rule; svn_revnum_t start; } cases[] = {
    { "1.0\n1*0\n1.0\n1.0", 1, NULL, 1 },
    { "1.0\n1*0\n1.0\n1.0", 2, "RPPACK-1" },     /* its own line      */
    { "1.0\n1*0\n1.0\n1.0", 3, NULL, 1 },        /* after the damage  */
    { "1.0\n1*0\n1.0\n1.0", 4, "RPPACK-1" },     /* no final LF       */
    { "1.0\n1*0\n1.0\n1.0", 5, "RPPACK-1" },     /* no line at all    */
    { "1.0\n1.0\n9.0\n1.0\n", 3, "RPPACK-2" },   /* pack after r3     */
    { "1.0\n1.0\n9.0\n1.0\n", 4, NULL, 1 },
    { "1.0\n1.0\n0.0\n1.0\n", 3, "RPPACK-2" },   /* before the shard  */
    { "1.0\n1.0 \n1.0\n", 2, "RPPACK-1" },       /* trailing space    */
    { "1.0\r\n1.0\n", 1, "RPPACK-1" },
    { "1.0\r\n1.0\n", 2, NULL, 1 },
    { "", 1, "RPPACK-1" },
  };
  apr_pool_t *pool = svn_pool_create(NULL);
  size_t k;

  for (k = 0; k < sizeof(cases) / sizeof(cases[0]); k++)
    {
      svn_fs_fs__revprop_manifest_t manifest;
      svn_fs_fs__revprop_manifest_entry_t entry;
      const char *name = apr_psprintf(pool, "per-line case %zu", k);
      svn_error_t *err;

      svn_fs_fs__revprop_manifest_index(&manifest, cases[k].text,
                                        strlen(cases[k].text), 1, pool);
      err = svn_fs_fs__revprop_manifest_get(&entry, &manifest, cases[k].rev,
                                            "t");
      if (cases[k].rule == NULL)
        {
          assert_null(err);
          assert_int_equal(entry.start_rev, cases[k].start);
        }
      else
        {
          assert_non_null(err);
          assert_non_null(strstr(err->message,
                                 apr_psprintf(pool, "r%ld", cases[k].rev)));
          vector_check_error(err, SVN_ERR_FS_CORRUPT_REVPROP_MANIFEST,
                             cases[k].rule, name);
        }
    }
  svn_pool_destroy(pool);
}

/* RPPACK-3 relates two lines: verify checks it where both are readable;
   the strict parse (writers) refuses any damaged line. */
static void
test_manifest_order(void **state)
{
  apr_pool_t *pool = svn_pool_create(NULL);
  svn_fs_fs__revprop_manifest_t manifest;
  apr_array_header_t *entries;
  const char *backwards = "1.0\n3.0\n2.0\n";
  const char *damaged = "1.0\nx\n1.0\n";

  svn_fs_fs__revprop_manifest_index(&manifest, backwards, strlen(backwards),
                                    1, pool);
  assert_null(svn_fs_fs__revprop_manifest_check_order(&manifest, 2, "t"));
  vector_check_error(svn_fs_fs__revprop_manifest_check_order(&manifest, 3,
                                                             "t"),
                     SVN_ERR_FS_CORRUPT_REVPROP_MANIFEST, "RPPACK-3",
                     "backwards");
  svn_fs_fs__revprop_manifest_index(&manifest, damaged, strlen(damaged), 1,
                                    pool);
  assert_null(svn_fs_fs__revprop_manifest_check_order(&manifest, 2, "t"));
  assert_null(svn_fs_fs__revprop_manifest_check_order(&manifest, 3, "t"));
  vector_check_error(svn_fs_fs__revprop_manifest_parse(
                       &entries, damaged, strlen(damaged), 1, "t", pool),
                     SVN_ERR_FS_CORRUPT_REVPROP_MANIFEST, "RPPACK-1",
                     "strict");
  svn_pool_destroy(pool);
}

/* RPPACK-1 for the whole manifest: a duplicated line gives one line more
   than the shard has revisions (every line still parses, so the per-line
   checks pass); a full manifest and a short one (whose missing line is
   that revision's own error) are not this check's business. */
static void
test_manifest_count(void **state)
{
  apr_pool_t *pool = svn_pool_create(NULL);
  svn_fs_fs__revprop_manifest_t manifest;
  const char *full = "4.0\n4.0\n6.0\n6.0\n";
  const char *duplicated = "4.0\n4.0\n4.0\n6.0\n6.0\n";
  const char *short_one = "4.0\n4.0\n6.0\n";
  svn_revnum_t rev;

  svn_fs_fs__revprop_manifest_index(&manifest, full, strlen(full), 4, pool);
  assert_null(svn_fs_fs__revprop_manifest_check_count(&manifest, 4, "t"));
  svn_fs_fs__revprop_manifest_index(&manifest, short_one, strlen(short_one),
                                    4, pool);
  assert_null(svn_fs_fs__revprop_manifest_check_count(&manifest, 4, "t"));
  svn_fs_fs__revprop_manifest_index(&manifest, duplicated,
                                    strlen(duplicated), 4, pool);
  for (rev = 4; rev < 8; rev++)
    {
      svn_fs_fs__revprop_manifest_entry_t entry;

      assert_null(svn_fs_fs__revprop_manifest_get(&entry, &manifest, rev,
                                                  "t"));
    }
  vector_check_error(svn_fs_fs__revprop_manifest_check_count(&manifest, 4,
                                                             "t"),
                     SVN_ERR_FS_CORRUPT, "RPPACK-1", "duplicated");
  svn_pool_destroy(pool);
}

int
main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_good_vectors),
    cmocka_unit_test(test_bad_vectors),
    cmocka_unit_test(test_pack_round_trip),
    cmocka_unit_test(test_manifest_per_line),
    cmocka_unit_test(test_manifest_order),
    cmocka_unit_test(test_manifest_count),
  };

  apr_initialize();
  return cmocka_run_group_tests(tests, NULL, NULL);
}
