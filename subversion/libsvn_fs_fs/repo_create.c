/* repo_create.c --- creating a new repository's db/ directory
 * (repo.h; doc/format/layout.md, format.md, r0.md, uuid-current.md).
 *
 *   svn_fs_fs__create_repo
 *     choose_format        fs->config -> format, shard size, addressing
 *     make_tree            revs/ revprops/ transactions/ txn-protorevs/
 *     write_r0             revs/0/0 (fixed bytes) and revprops/0/0
 *     write small files    current uuid min-unpacked-rev txn-current ...
 *     write db/format      last: until it exists the repo cannot be opened
 *     svn_fs_fs__open_repo
 */
#include <apr_strings.h>

#include "svn_dirent_uri.h"
#include "svn_hash.h"
#include "svn_io.h"
#include "svn_pools.h"
#include "svn_props.h"
#include "svn_string.h"
#include "svn_time.h"
#include "svn_version.h"
#include "private/svn_fs_util.h"

#include "corrupt.h"
#include "format.h"
#include "fsconf.h"
#include "hashdump.h"
#include "pack.h"
#include "repo.h"
#include "revprops.h"

/* Revision 0 as every stock release writes it: an empty root directory
   and nothing else (R0-1).  Physical addressing puts the root node-rev's
   offset in its id and ends with the "<root> <changes>" trailer; logical
   addressing uses item indexes and appends the L2P / P2L indexes and
   footer.  These bytes are data, taken from stock-created repositories
   (tests/unit/test_repo_create.c compares them with stock output). */
static const unsigned char r0_physical[115] = {
  0x50, 0x4c, 0x41, 0x49, 0x4e, 0x0a, 0x45, 0x4e, 0x44, 0x0a, 0x45, 0x4e,
  0x44, 0x52, 0x45, 0x50, 0x0a, 0x69, 0x64, 0x3a, 0x20, 0x30, 0x2e, 0x30,
  0x2e, 0x72, 0x30, 0x2f, 0x31, 0x37, 0x0a, 0x74, 0x79, 0x70, 0x65, 0x3a,
  0x20, 0x64, 0x69, 0x72, 0x0a, 0x63, 0x6f, 0x75, 0x6e, 0x74, 0x3a, 0x20,
  0x30, 0x0a, 0x74, 0x65, 0x78, 0x74, 0x3a, 0x20, 0x30, 0x20, 0x30, 0x20,
  0x34, 0x20, 0x34, 0x20, 0x32, 0x64, 0x32, 0x39, 0x37, 0x37, 0x64, 0x31,
  0x63, 0x39, 0x36, 0x66, 0x34, 0x38, 0x37, 0x61, 0x62, 0x65, 0x34, 0x61,
  0x31, 0x65, 0x32, 0x30, 0x32, 0x64, 0x64, 0x30, 0x33, 0x62, 0x34, 0x65,
  0x0a, 0x63, 0x70, 0x61, 0x74, 0x68, 0x3a, 0x20, 0x2f, 0x0a, 0x0a, 0x0a,
  0x31, 0x37, 0x20, 0x31, 0x30, 0x37, 0x0a,
};

static const unsigned char r0_logical[253] = {
  0x50, 0x4c, 0x41, 0x49, 0x4e, 0x0a, 0x45, 0x4e, 0x44, 0x0a, 0x45, 0x4e,
  0x44, 0x52, 0x45, 0x50, 0x0a, 0x69, 0x64, 0x3a, 0x20, 0x30, 0x2e, 0x30,
  0x2e, 0x72, 0x30, 0x2f, 0x32, 0x0a, 0x74, 0x79, 0x70, 0x65, 0x3a, 0x20,
  0x64, 0x69, 0x72, 0x0a, 0x63, 0x6f, 0x75, 0x6e, 0x74, 0x3a, 0x20, 0x30,
  0x0a, 0x74, 0x65, 0x78, 0x74, 0x3a, 0x20, 0x30, 0x20, 0x33, 0x20, 0x34,
  0x20, 0x34, 0x20, 0x32, 0x64, 0x32, 0x39, 0x37, 0x37, 0x64, 0x31, 0x63,
  0x39, 0x36, 0x66, 0x34, 0x38, 0x37, 0x61, 0x62, 0x65, 0x34, 0x61, 0x31,
  0x65, 0x32, 0x30, 0x32, 0x64, 0x64, 0x30, 0x33, 0x62, 0x34, 0x65, 0x0a,
  0x63, 0x70, 0x61, 0x74, 0x68, 0x3a, 0x20, 0x2f, 0x0a, 0x0a, 0x0a, 0x4c,
  0x32, 0x50, 0x2d, 0x49, 0x4e, 0x44, 0x45, 0x58, 0x0a, 0x00, 0x80, 0x40,
  0x01, 0x01, 0x01, 0x06, 0x04, 0x00, 0xd6, 0x01, 0xb1, 0x01, 0x21, 0x50,
  0x32, 0x4c, 0x2d, 0x49, 0x4e, 0x44, 0x45, 0x58, 0x0a, 0x00, 0x6b, 0x80,
  0x80, 0x40, 0x01, 0x1f, 0x00, 0x11, 0x34, 0x00, 0xf5, 0xd6, 0x8c, 0x81,
  0x06, 0x59, 0x09, 0x00, 0xc8, 0xfc, 0xf6, 0x81, 0x04, 0x01, 0x0d, 0x00,
  0x9d, 0x9e, 0xa9, 0x94, 0x0f, 0x95, 0xff, 0x3f, 0x1b, 0x00, 0x00, 0x31,
  0x30, 0x37, 0x20, 0x34, 0x65, 0x65, 0x38, 0x32, 0x36, 0x63, 0x37, 0x32,
  0x39, 0x30, 0x35, 0x30, 0x38, 0x38, 0x32, 0x39, 0x66, 0x35, 0x61, 0x63,
  0x62, 0x31, 0x34, 0x64, 0x30, 0x65, 0x32, 0x36, 0x64, 0x37, 0x32, 0x20,
  0x31, 0x33, 0x31, 0x20, 0x62, 0x31, 0x37, 0x35, 0x34, 0x61, 0x63, 0x36,
  0x65, 0x34, 0x38, 0x31, 0x64, 0x37, 0x39, 0x32, 0x62, 0x65, 0x30, 0x62,
  0x63, 0x64, 0x32, 0x36, 0x34, 0x39, 0x62, 0x33, 0x33, 0x62, 0x30, 0x31,
  0x49,
};

void
svn_fs_fs__r0_contents(const unsigned char **data, apr_size_t *len,
                       svn_boolean_t logical)
{
  *data = logical ? r0_logical : r0_physical;
  *len = logical ? sizeof(r0_logical) : sizeof(r0_physical);
}

/* Stock's default number of revisions per shard. */
#define DEFAULT_SHARD_SIZE 1000

/* TRUE unless the config value VALUE spells "no". */
static svn_boolean_t
config_true(const char *value)
{
  return !(value && (strcmp(value, "0") == 0
                     || svn_cstring_casecmp(value, "false") == 0
                     || svn_cstring_casecmp(value, "no") == 0
                     || svn_cstring_casecmp(value, "off") == 0));
}

/* Format, layout and addressing for a new repository, from the fs config
   exactly as stock 1.14 interprets it (FORMAT-6). */
static svn_error_t *
choose_format(svn_fs_fs__format_t *format, apr_hash_t *config,
              apr_pool_t *scratch_pool)
{
  svn_version_t *compat;
  const char *shard_size = NULL, *log_addressing = NULL;

  SVN_ERR(svn_fs__compatible_version(&compat, config, scratch_pool));
  /* FORMAT-6, OLD-0: the newest format the named release understands. */
  if (compat->major > 1 || compat->minor >= 10)
    format->format = 8;
  else
    format->format = compat->minor == 9 ? 7 : compat->minor == 8 ? 6
                   : compat->minor >= 6 ? 4 : compat->minor == 5 ? 3
                   : compat->minor == 4 ? 2 : 1;
  if (config)
    {
      shard_size = svn_hash_gets(config, SVN_FS_CONFIG_FSFS_SHARD_SIZE);
      log_addressing = svn_hash_gets(config,
                                     SVN_FS_CONFIG_FSFS_LOG_ADDRESSING);
    }
  format->max_files_per_dir = shard_size ? atoi(shard_size)
                                         : DEFAULT_SHARD_SIZE;
  if (format->max_files_per_dir < 0)
    format->max_files_per_dir = DEFAULT_SHARD_SIZE;
  if (format->format < SVN_FS_FS__MIN_LAYOUT_FORMAT)
    format->max_files_per_dir = 0;      /* OLD-1: always linear */
  format->use_log_addressing
    = format->format >= SVN_FS_FS__MIN_LOGICAL_ADDRESSING_FORMAT
      && config_true(log_addressing);
  return SVN_NO_ERROR;
}

/* Write a file PATH (relative to the db dir) with LEN bytes of DATA. */
static svn_error_t *
write_db_file(const char *db, const char *name, const void *data,
              apr_size_t len, svn_boolean_t read_only, apr_pool_t *pool)
{
  const char *path = svn_dirent_join(db, name, pool);

  SVN_ERR(svn_io_file_create_bytes(path, data, len, pool));
  if (read_only)
    SVN_ERR(svn_io_set_file_read_only(path, FALSE, pool));
  return SVN_NO_ERROR;
}

/* Same for a C string. */
static svn_error_t *
write_db_text(const char *db, const char *name, const char *text,
              apr_pool_t *pool)
{
  return svn_error_trace(write_db_file(db, name, text, strlen(text), FALSE,
                                       pool));
}

/* Directories of an empty repository (LAYOUT-1). */
static svn_error_t *
make_tree(const char *db, const svn_fs_fs__format_t *format,
          apr_pool_t *pool)
{
  static const char *const dirs[] = {
    "revs", "revprops", "transactions", "txn-protorevs", NULL
  };
  int i;
  /* OLD-4: formats 1 and 2 keep proto-revisions inside the txn dir. */
  int ndirs = format->format < SVN_FS_FS__MIN_TXN_CURRENT_FORMAT ? 3 : 4;

  SVN_ERR(svn_io_make_dir_recursively(db, pool));
  for (i = 0; i < ndirs; i++)
    SVN_ERR(svn_io_dir_make(svn_dirent_join(db, dirs[i], pool),
                            APR_OS_DEFAULT, pool));
  if (format->max_files_per_dir)
    {
      SVN_ERR(svn_io_dir_make(svn_dirent_join(db, "revs/0", pool),
                              APR_OS_DEFAULT, pool));
      SVN_ERR(svn_io_dir_make(svn_dirent_join(db, "revprops/0", pool),
                              APR_OS_DEFAULT, pool));
    }
  return SVN_NO_ERROR;
}

/* revs/0/0 and revprops/0/0 (R0-1, R0-2: svn:date is the creation time). */
static svn_error_t *
write_r0(const char *db, const svn_fs_fs__format_t *format, apr_pool_t *pool)
{
  const char *rev_name = format->max_files_per_dir ? "revs/0/0" : "revs/0";
  const char *props_name = format->max_files_per_dir ? "revprops/0/0"
                                                     : "revprops/0";
  apr_hash_t *props = apr_hash_make(pool);
  svn_stringbuf_t *dump = svn_stringbuf_create_empty(pool);
  const unsigned char *r0;
  apr_size_t r0_len;

  svn_fs_fs__r0_contents(&r0, &r0_len, format->use_log_addressing);
  SVN_ERR(write_db_file(db, rev_name, r0, r0_len, TRUE, pool));
  svn_hash_sets(props, SVN_PROP_REVISION_DATE,
                svn_string_create(svn_time_to_cstring(apr_time_now(), pool),
                                  pool));
  svn_fs_fs__hashdump_unparse(dump, props, pool);
  return svn_error_trace(write_db_file(db, props_name, dump->data,
                                       dump->len, TRUE, pool));
}

/* db/uuid: a new UUID and, format 7+, a new instance id (UUID-1, 2). */
static svn_error_t *
write_uuid(const char *db, const svn_fs_fs__format_t *format,
           apr_pool_t *pool)
{
  const char *text = apr_pstrcat(pool, svn_uuid_generate(pool), "\n",
                                 SVN_VA_NULL);

  if (format->format >= SVN_FS_FS__MIN_LOGICAL_ADDRESSING_FORMAT)
    text = apr_pstrcat(pool, text, svn_uuid_generate(pool), "\n",
                       SVN_VA_NULL);
  return svn_error_trace(write_db_text(db, "uuid", text, pool));
}

svn_error_t *
svn_fs_fs__create_repo(svn_fs_t *fs, const char *path,
                       apr_pool_t *scratch_pool)
{
  svn_fs_fs__format_t format;
  const char *format_text;

  SVN_ERR(choose_format(&format, fs->config, scratch_pool));
  SVN_ERR(make_tree(path, &format, scratch_pool));
  SVN_ERR(write_r0(path, &format, scratch_pool));
  /* OLD-3: before format 3, db/current also holds the next node and copy
     ids; r0 used node id 0 and copy id 0. */
  SVN_ERR(write_db_text(path, "current",
                        format.format < SVN_FS_FS__MIN_NEW_IDS_FORMAT
                        ? "0 1 1\n" : "0\n", scratch_pool));
  SVN_ERR(write_uuid(path, &format, scratch_pool));
  if (format.format >= SVN_FS_FS__MIN_PACKING_FORMAT)
    SVN_ERR(write_db_text(path, "min-unpacked-rev", "0\n", scratch_pool));
  if (format.format >= SVN_FS_FS__MIN_TXN_CURRENT_FORMAT)
    {
      SVN_ERR(write_db_text(path, "txn-current", "0\n", scratch_pool));
      SVN_ERR(write_db_text(path, "txn-current-lock", "", scratch_pool));
    }
  SVN_ERR(write_db_text(path, "write-lock", "", scratch_pool));
  if (format.format >= SVN_FS_FS__MIN_CONFIG_FILE_FORMAT)
    SVN_ERR(write_db_text(path, SVN_FS_FS__CONFIG_FILE,
                          svn_fs_fs__fsconf_template(), scratch_pool));
  format_text = svn_fs_fs__format_unparse(&format, scratch_pool);
  SVN_ERR(write_db_file(path, "format", format_text, strlen(format_text),
                        TRUE, scratch_pool));
  return svn_error_trace(svn_fs_fs__open_repo(fs, path, scratch_pool));
}

/* ------------------------------------------------------------------ */
/* Upgrade                                                             */

typedef struct upgrade_baton_t
{
  svn_fs_t *fs;
  svn_fs_upgrade_notify_t notify_func;
  void *notify_baton;
} upgrade_baton_t;

/* Create NAME in DB with TEXT unless it exists already; durably (temp
   file fsynced, renamed, DB fsynced): the new db/format will rely on it. */
static svn_error_t *
create_if_missing(const char *db, const char *name, const char *text,
                  apr_pool_t *pool)
{
  const char *path = svn_dirent_join(db, name, pool);
  svn_node_kind_t kind;

  SVN_ERR(svn_io_check_path(path, &kind, pool));
  if (kind != svn_node_none)
    return SVN_NO_ERROR;
  return svn_error_trace(svn_io_write_atomic2(path, text, strlen(text), NULL,
                                              TRUE, pool));
}

/* OLD-9: what a format FORMAT repository lacks to be a format 6+ one.
   Revisions, ids and db/current stay as they are: newer formats read the
   old forms.  The entry of a new txn-protorevs/ becomes durable with the
   next fsync of DB (the uuid's, before db/format changes). */
static svn_error_t *
add_missing_files(const char *db, int format, apr_pool_t *pool)
{
  if (format < SVN_FS_FS__MIN_TXN_CURRENT_FORMAT)
    {
      SVN_ERR(create_if_missing(db, "txn-current", "0\n", pool));
      SVN_ERR(create_if_missing(db, "txn-current-lock", "", pool));
      SVN_ERR(svn_io_make_dir_recursively(
                svn_dirent_join(db, "txn-protorevs", pool), pool));
    }
  if (format < SVN_FS_FS__MIN_PACKING_FORMAT)
    SVN_ERR(create_if_missing(db, "min-unpacked-rev", "0\n", pool));
  if (format < SVN_FS_FS__MIN_CONFIG_FILE_FORMAT)
    SVN_ERR(create_if_missing(db, SVN_FS_FS__CONFIG_FILE,
                              svn_fs_fs__fsconf_template(), pool));
  return SVN_NO_ERROR;
}

/* OLD-9: format 4 packed revisions only, format 6+ packs their revprops
   too.  Before the format changes, pack the revprops of every packed
   shard, durably (CLEANUP false); afterwards, remove their plain files
   (CLEANUP true).  The steps, each durable before the next begins:
     1. revprops/<S>.pack: pack files, manifest, the directory and its
        entry in revprops/ fsynced (svn_fs_fs__pack_revprops_durably);
     2. db/format replaced (temp file fsynced, renamed, db/ fsynced);
     3. the plain files unlinked.
   A crash before 2 leaves an old-format repository whose readers use the
   plain files; after 2, every revprop of a packed shard is in its pack. */
static svn_error_t *
pack_old_revprops(upgrade_baton_t *b, int old_format, svn_boolean_t cleanup,
                  apr_pool_t *pool)
{
  svn_fs_fs__data_t *ffd = SVN_FS_FS__DATA(b->fs);
  apr_pool_t *iterpool;
  svn_revnum_t shard;

  if (old_format >= SVN_FS_FS__MIN_PACKED_REVPROPS_FORMAT
      || old_format < SVN_FS_FS__MIN_PACKING_FORMAT
      || ffd->max_files_per_dir == 0)
    return SVN_NO_ERROR;
  SVN_ERR(svn_fs_fs__update_min_unpacked_rev(b->fs, pool));
  iterpool = svn_pool_create(pool);
  for (shard = 0; shard < ffd->min_unpacked_rev / ffd->max_files_per_dir;
       shard++)
    {
      svn_pool_clear(iterpool);
      if (cleanup)
        SVN_ERR(svn_fs_fs__remove_unpacked_revprops(b->fs, shard, iterpool));
      else
        SVN_ERR(svn_fs_fs__pack_revprops_durably(b->fs, shard, NULL, NULL,
                                                 iterpool));
      if (b->notify_func)
        SVN_ERR(b->notify_func(b->notify_baton, shard,
                               cleanup ? svn_fs_upgrade_cleanup_revprops
                                       : svn_fs_upgrade_pack_revprops,
                               iterpool));
    }
  svn_pool_destroy(iterpool);
  return SVN_NO_ERROR;
}

/* Under the write lock: write a new instance id (added for format 6,
   replaced for 7: caches keyed by the old id must not serve the upgraded
   repository), then switch db/format (last, so a crash leaves a valid
   old repo). */
static svn_error_t *
upgrade_locked(void *baton, apr_pool_t *pool)
{
  upgrade_baton_t *b = baton;
  svn_fs_fs__data_t *ffd = SVN_FS_FS__DATA(b->fs);
  const char *db = b->fs->path;
  svn_fs_fs__format_t format;
  const char *text, *format_path = svn_dirent_join(db, "format", pool);

  int old_format = ffd->format;

  if (ffd->format >= SVN_FS_FS__MAX_FORMAT)
    return SVN_NO_ERROR;
  SVN_ERR(add_missing_files(db, ffd->format, pool));
  SVN_ERR(pack_old_revprops(b, old_format, FALSE, pool));
  {
    const char *instance_id = svn_uuid_generate(pool);

    text = apr_pstrcat(pool, b->fs->uuid, "\n", instance_id, "\n",
                       SVN_VA_NULL);
    /* With db/current's mode, as stock gives it (multi-user repos). */
    SVN_ERR(svn_io_write_atomic2(svn_dirent_join(db, "uuid", pool), text,
                                 strlen(text),
                                 svn_dirent_join(db, "current", pool), TRUE,
                                 pool));
    ffd->instance_id = apr_pstrdup(b->fs->pool, instance_id);
  }
  format.format = SVN_FS_FS__MAX_FORMAT;
  format.max_files_per_dir = ffd->max_files_per_dir;
  format.use_log_addressing = ffd->use_log_addressing;
  text = svn_fs_fs__format_unparse(&format, pool);
  SVN_ERR(svn_io_write_atomic2(format_path, text, strlen(text), NULL, TRUE,
                               pool));
  SVN_ERR(svn_io_set_file_read_only(format_path, FALSE, pool));
  ffd->format = format.format;
  if (b->notify_func)
    SVN_ERR(b->notify_func(b->notify_baton, format.format,
                           svn_fs_upgrade_format_bumped, pool));
  return svn_error_trace(pack_old_revprops(b, old_format, TRUE, pool));
}

svn_error_t *
svn_fs_fs__upgrade(svn_fs_t *fs, const char *path,
                   svn_fs_upgrade_notify_t notify_func, void *notify_baton,
                   apr_pool_t *scratch_pool)
{
  upgrade_baton_t b;

  SVN_ERR(svn_fs_fs__open_repo(fs, path, scratch_pool));
  b.fs = fs;
  b.notify_func = notify_func;
  b.notify_baton = notify_baton;
  return svn_error_trace(svn_fs_fs__with_all_locks(fs, upgrade_locked, &b,
                                                   scratch_pool));
}
