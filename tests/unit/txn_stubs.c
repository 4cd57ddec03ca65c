/* txn_stubs.c --- TEMPORARY weak stand-ins for the write-path functions
 * that test_txn needs before their branches land (commit.c: h-commit).
 *
 * Linked into tests/unit/test_txn only, never into the module.  Every
 * definition is weak: once the real one is linked in, it wins.  What is
 * left refuses.  Delete this file when h-commit is in.
 */
#include <string.h>
#include <apr_strings.h>

#include "svn_dirent_uri.h"
#include "svn_hash.h"
#include "svn_io.h"
#include "svn_pools.h"

#include "commit.h"
#include "deltify.h"
#include "rep_cache.h"
#include "corrupt.h"
#include "hashdump.h"
#include "id.h"
#include "merge.h"
#include "node.h"
#include "noderev_codec.h"
#include "paths.h"
#include "tree_mutate.h"
#include "txn_store.h"

#define WEAK __attribute__((weak))

WEAK svn_error_t *
svn_fs_fs__commit_txn(const char **conflict_p, svn_revnum_t *new_rev,
                      svn_fs_txn_t *txn, apr_pool_t *pool)
{
  return svn_fs_fs__unsupported("commit (stub)");
}

/* ---- commit-side helpers tree_mutate.c calls: neutral answers ------ */

WEAK svn_error_t *
svn_fs_fs__choose_delta_base(svn_fs_fs__rep_t **base_rep, svn_fs_t *fs,
                             const svn_fs_fs__noderev_t *noderev,
                             svn_boolean_t props, apr_pool_t *result_pool,
                             apr_pool_t *scratch_pool)
{
  *base_rep = NULL;
  return SVN_NO_ERROR;
}

WEAK svn_error_t *
svn_fs_fs__delta_base_open(const svn_fs_fs__rep_write_base_t **base,
                           svn_fs_t *fs, const svn_fs_fs__rep_t *base_rep,
                           apr_pool_t *result_pool,
                           apr_pool_t *scratch_pool)
{
  *base = NULL;
  return SVN_NO_ERROR;
}

WEAK svn_error_t *
svn_fs_fs__rep_cache_get(svn_fs_fs__rep_t **rep, svn_fs_t *fs,
                         const unsigned char *sha1_digest,
                         apr_pool_t *result_pool, apr_pool_t *scratch_pool)
{
  *rep = NULL;
  return SVN_NO_ERROR;
}

/* libsvn_fs's, which unit tests do not link. */
WEAK svn_error_t *
svn_fs__path_valid(const char *path, apr_pool_t *pool)
{
  return SVN_NO_ERROR;
}
