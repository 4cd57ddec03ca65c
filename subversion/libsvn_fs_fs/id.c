/* id.c --- placeholder: every function fails with SVN_ERR_UNSUPPORTED_FEATURE
   until its layer implements it. */
#include "corrupt.h"
#include "id.h"

svn_fs_fs__id_t *
svn_fs_fs__id_parse(const char *data, apr_size_t len, apr_pool_t *pool)
{
  return NULL;
}

svn_error_t *
svn_fs_fs__id_parse_checked(svn_fs_fs__id_t **id, const char *data,
                            apr_size_t len, apr_pool_t *pool)
{
  return svn_fs_fs__unsupported("svn_fs_fs__id_parse_checked");
}

svn_string_t *
svn_fs_fs__id_unparse(const svn_fs_fs__id_t *id, apr_pool_t *pool)
{
  return NULL;
}

svn_fs_fs__id_t *
svn_fs_fs__id_create_rev(const svn_fs_fs__id_part_t *node_id,
                         const svn_fs_fs__id_part_t *copy_id,
                         svn_revnum_t revision, apr_uint64_t item_index,
                         apr_pool_t *pool)
{
  return NULL;
}

svn_fs_fs__id_t *
svn_fs_fs__id_copy(const svn_fs_fs__id_t *id, apr_pool_t *pool)
{
  return NULL;
}

svn_boolean_t
svn_fs_fs__id_eq(const svn_fs_fs__id_t *a, const svn_fs_fs__id_t *b)
{
  return FALSE;
}

svn_boolean_t
svn_fs_fs__id_check_related(const svn_fs_fs__id_t *a,
                            const svn_fs_fs__id_t *b)
{
  return FALSE;
}

svn_fs_node_relation_t
svn_fs_fs__id_compare(const svn_fs_fs__id_t *a, const svn_fs_fs__id_t *b)
{
  return svn_fs_node_unrelated;
}

svn_revnum_t
svn_fs_fs__id_rev(const svn_fs_fs__id_t *id)
{
  return SVN_INVALID_REVNUM;
}
