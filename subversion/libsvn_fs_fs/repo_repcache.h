/* repo_repcache.h --- keeping db/rep-cache.db in step with db/current
 * (admin layer; doc/format/layout.md REPCACHE-1).
 *
 * Owner: the admin layer (repo_recover.c, repo_hotcopy.c).
 */
#ifndef FSFS7_REPO_REPCACHE_H
#define FSFS7_REPO_REPCACHE_H

#include "svn_error.h"
#include "svn_types.h"
#include <apr_pools.h>

/* Delete the rows of DB_PATH/rep-cache.db that name revisions after
   YOUNGEST (REPCACHE-1).  A missing rep-cache.db is left missing: it is
   never created here.  Errors from SQLite become SVN_ERR_SQLITE_ERROR. */
svn_error_t *
svn_fs_fs__rep_cache_prune(const char *db_path, svn_revnum_t youngest,
                           apr_pool_t *scratch_pool);

#endif
