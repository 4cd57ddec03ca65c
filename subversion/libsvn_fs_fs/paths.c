/* paths.c --- repository file locations (paths.h, doc/format/layout.md). */
#include <string.h>
#include <apr_strings.h>
#include "svn_dirent_uri.h"
#include "private/svn_string_private.h"

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

/* Marks an absent number of path_of(). */
#define NO_NUMBER (-1)

/* FS->path/TOP/FIRST[/SECOND]SUFFIX, SECOND left out when it is
   NO_NUMBER.  Formatted by hand: a delta chain through a long
   history names a revision file per link, and apr_psprintf() took 1 %
   of 'svnbench null-export' of lc2 (doc/benchmarks.md). */
static const char *
path_of(svn_fs_t *fs, const char *top, svn_revnum_t first,
        svn_revnum_t second, const char *suffix, apr_pool_t *result_pool)
{
  char one[SVN_INT64_BUFFER_SIZE], two[SVN_INT64_BUFFER_SIZE];
  apr_size_t base_len = strlen(fs->path), top_len = strlen(top);
  apr_size_t suffix_len = strlen(suffix);
  apr_size_t one_len = svn__i64toa(one, first);
  apr_size_t two_len = second == NO_NUMBER ? 0 : svn__i64toa(two, second);
  char *path = apr_palloc(result_pool, base_len + top_len + one_len + two_len
                                       + suffix_len + 4);
  char *p = path;

  memcpy(p, fs->path, base_len);
  p += base_len;
  *p++ = '/';
  memcpy(p, top, top_len);
  p += top_len;
  *p++ = '/';
  memcpy(p, one, one_len);
  p += one_len;
  if (second != NO_NUMBER)
    {
      *p++ = '/';
      memcpy(p, two, two_len);
      p += two_len;
    }
  memcpy(p, suffix, suffix_len + 1);
  return path;
}

/* db/<TOP>/<shard><SUFFIX> */
static const char *
shard_dir(svn_fs_t *fs, const char *top, svn_revnum_t rev, const char *suffix,
          apr_pool_t *result_pool)
{
  return path_of(fs, top, svn_fs_fs__shard_of(fs, rev), NO_NUMBER, suffix,
                 result_pool);
}

/* db/<TOP>/[<shard>/]<rev> */
static const char *
sharded_file(svn_fs_t *fs, const char *top, svn_revnum_t rev,
             apr_pool_t *result_pool)
{
  if (SVN_FS_FS__DATA(fs)->max_files_per_dir == 0)
    return path_of(fs, top, rev, NO_NUMBER, "", result_pool);
  return path_of(fs, top, svn_fs_fs__shard_of(fs, rev), rev, "",
                 result_pool);
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
