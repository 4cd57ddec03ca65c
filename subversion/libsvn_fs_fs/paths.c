/* paths.c --- repository file locations (paths.h, doc/format/layout.md). */
#include <apr_strings.h>
#include "svn_dirent_uri.h"

#include "paths.h"

const char *
svn_fs_fs__path_db(svn_fs_t *fs, const char *name, apr_pool_t *result_pool)
{
  return svn_dirent_join(fs->path, name, result_pool);
}

svn_revnum_t
svn_fs_fs__shard_of(svn_fs_t *fs, svn_revnum_t rev)
{
  int per_shard = SVN_FS_FS__DATA(fs)->max_files_per_dir;
  return per_shard ? rev / per_shard : 0;
}

svn_revnum_t
svn_fs_fs__shard_start(svn_fs_t *fs, svn_revnum_t rev)
{
  int per_shard = SVN_FS_FS__DATA(fs)->max_files_per_dir;
  return per_shard ? rev - rev % per_shard : rev;
}

/* db/<TOP>/<shard><SUFFIX> */
static const char *
shard_dir(svn_fs_t *fs, const char *top, svn_revnum_t rev, const char *suffix,
          apr_pool_t *result_pool)
{
  return apr_psprintf(result_pool, "%s/%s/%ld%s", fs->path, top,
                      svn_fs_fs__shard_of(fs, rev), suffix);
}

/* db/<TOP>/[<shard>/]<rev> */
static const char *
sharded_file(svn_fs_t *fs, const char *top, svn_revnum_t rev,
             apr_pool_t *result_pool)
{
  if (SVN_FS_FS__DATA(fs)->max_files_per_dir == 0)
    return apr_psprintf(result_pool, "%s/%s/%ld", fs->path, top, rev);
  return apr_psprintf(result_pool, "%s/%s/%ld/%ld", fs->path, top,
                      svn_fs_fs__shard_of(fs, rev), rev);
}

const char *
svn_fs_fs__path_rev(svn_fs_t *fs, svn_revnum_t rev, apr_pool_t *result_pool)
{
  return sharded_file(fs, "revs", rev, result_pool);
}

const char *
svn_fs_fs__path_rev_packed(svn_fs_t *fs, svn_revnum_t rev, const char *kind,
                           apr_pool_t *result_pool)
{
  return apr_psprintf(result_pool, "%s/%s",
                      shard_dir(fs, "revs", rev, ".pack", result_pool), kind);
}

const char *
svn_fs_fs__path_rev_shard(svn_fs_t *fs, svn_revnum_t rev,
                          apr_pool_t *result_pool)
{
  return shard_dir(fs, "revs", rev, "", result_pool);
}

const char *
svn_fs_fs__path_revprops(svn_fs_t *fs, svn_revnum_t rev,
                         apr_pool_t *result_pool)
{
  return sharded_file(fs, "revprops", rev, result_pool);
}

const char *
svn_fs_fs__path_revprops_shard(svn_fs_t *fs, svn_revnum_t rev,
                               apr_pool_t *result_pool)
{
  return shard_dir(fs, "revprops", rev, "", result_pool);
}

const char *
svn_fs_fs__path_revprops_pack_shard(svn_fs_t *fs, svn_revnum_t rev,
                                    apr_pool_t *result_pool)
{
  return shard_dir(fs, "revprops", rev, ".pack", result_pool);
}
