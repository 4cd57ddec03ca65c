/* txn_store.c --- the files of an uncommitted transaction (txn_store.h).
 *
 * Implements doc/format/transactions.md except the proto-revision file
 * and its indexes (txn_protorev.c) and the folding of the changes file
 * (txn_changes.c).  Layout of a transaction's directory:
 *
 *   file                     written by            grammar   how
 *   db/txn-current           txn_create            TXN-2     temp+rename
 *   <txn>.txn/next-ids       txn_create, new ids   TXN-3     in place
 *   <txn>.txn/props[-final]  txn_set_props         TXN-5     in place
 *   <txn>.txn/node.N.C       put_noderev           TXN-6     in place
 *   <txn>.txn/node.N.C.children  set_entry         TXN-7     append
 *   <txn>.txn/node.N.C.props set_node_props        TXN-8     in place
 *   <txn>.txn/changes        add_change            TXN-9     append
 *   <txn>.txn/<sha1>         sha1_rep_put          TXN-10    in place
 *
 * Small files are rewritten whole in place (txn-current alone by temp
 * file, fsync and rename); the two append-only files get one complete
 * record per write call.  Nothing here is cached: a transaction may be
 * continued by another process (or the stock module) at any time.  (The
 * nodes layer keeps parsed children listings, checked against the file
 * on every use; set_entry tells it about its own appends.)
 */
#include <string.h>
#include <unistd.h>

#include <apr_portable.h>
#include <apr_strings.h>
#include "svn_pools.h"
#include "svn_dirent_uri.h"
#include "svn_io.h"
#include "private/svn_string_private.h"

#include "changes_codec.h"
#include "corrupt.h"
#include "dirent_codec.h"
#include "hashdump.h"
#include "id.h"
#include "node.h"
#include "noderev_codec.h"
#include "paths.h"
#include "txn_store.h"
#include "durable.h"

/* ------------------------------------------------------------------ */
/* Small file helpers                                                  */

/* Cut FILE (PATH) to LEN bytes.  ftruncate on the descriptor: apr's
   truncate also seeks, one more system call per transaction file write,
   and these files are written without a seek. */
static svn_error_t *
cut(apr_file_t *file, apr_off_t len, const char *path, apr_pool_t *pool)
{
  apr_os_file_t fd;

  SVN_ERR(svn_io_file_flush(file, pool));
  if (apr_os_file_get(&fd, file) == APR_SUCCESS && ftruncate(fd, len) == 0)
    return SVN_NO_ERROR;
  return svn_error_wrap_apr(apr_get_os_error(), "Can't truncate '%s'",
                            svn_dirent_local_style(path, pool));
}

/* Replace the contents of transaction file PATH by LEN bytes at DATA in
   place: a spare file takes PATH's place if it is missing, the bytes go
   over the old ones and the file is cut to LEN afterwards.  Not
   O_TRUNC: on ext4 (auto_da_alloc) a file truncated to zero and written
   again is forced to disk when closed (~1.5 ms), and node files are
   rewritten several times per transaction. */
static svn_error_t *
write_over(const char *path, const char *data, apr_size_t len,
           apr_pool_t *scratch_pool)
{
  apr_file_t *file;
  svn_boolean_t took;

  SVN_ERR(svn_fs_fs__txn_spare_take(&took, svn_dirent_dirname(path,
                                                              scratch_pool),
                                    path, scratch_pool));
  SVN_ERR(svn_io_file_open(&file, path, APR_WRITE | APR_CREATE,
                           APR_OS_DEFAULT, scratch_pool));
  SVN_ERR(svn_io_file_write_full(file, data, len, NULL, scratch_pool));
  SVN_ERR(cut(file, len, path, scratch_pool));
  return svn_error_trace(svn_io_file_close(file, scratch_pool));
}

svn_error_t *
svn_fs_fs__txn_file_prepare(const char *path, apr_pool_t *scratch_pool)
{
  svn_boolean_t took;
  apr_file_t *file;

  SVN_ERR(svn_fs_fs__txn_spare_take(&took, svn_dirent_dirname(path,
                                                              scratch_pool),
                                    path, scratch_pool));
  if (!took)
    return SVN_NO_ERROR;
  /* Cut through a descriptor that is closed before anything is written:
     closing it then has no delayed blocks to force out. */
  SVN_ERR(svn_io_file_open(&file, path, APR_WRITE, APR_OS_DEFAULT,
                           scratch_pool));
  SVN_ERR(cut(file, 0, path, scratch_pool));
  return svn_error_trace(svn_io_file_close(file, scratch_pool));
}

svn_error_t *
svn_fs_fs__txn_file_write(const char *path, const char *data,
                          apr_size_t len, svn_boolean_t flush,
                          apr_pool_t *scratch_pool)
{

  /* Only txn-current is flushed, and it must survive a crash whole: temp
     file beside it, fsync, rename.  The other files live inside one
     invisible transaction, so they are rewritten in place like the stock
     module does: without a flush a rename promises nothing more after a
     power cut, and it costs six system calls per file (temp create,
     fcntl, fstat, chmod, rename).  A torn file fails its parser (TXN-3,
     TXN-6...) and the transaction can still be aborted. */
  if (flush)
    return svn_error_trace(svn_io_write_atomic2(path, data, len, NULL, TRUE,
                                                scratch_pool));
  return svn_error_trace(write_over(path, data, len, scratch_pool));
}

svn_error_t *
svn_fs_fs__txn_file_append(const char *path, const void *data,
                           apr_size_t len, apr_pool_t *scratch_pool)
{
  apr_file_t *file;
  svn_boolean_t took;

  /* A spare taking the place of a missing file is written whole. */
  SVN_ERR(svn_fs_fs__txn_spare_take(&took, svn_dirent_dirname(path,
                                                              scratch_pool),
                                    path, scratch_pool));
  if (took)
    return svn_error_trace(write_over(path, data, len, scratch_pool));
  SVN_ERR(svn_io_file_open(&file, path,
                           APR_WRITE | APR_APPEND | APR_CREATE,
                           APR_OS_DEFAULT, scratch_pool));
  SVN_ERR(svn_io_file_write_full(file, data, len, NULL, scratch_pool));
  return svn_error_trace(svn_io_file_close(file, scratch_pool));
}

/* Give *BUF (being filled from FILE) room for more: the first time
   (*SIZED false) a fresh buffer of FILE's size plus some slack, then by
   doubling (a file that keeps growing while we read it). */
static svn_error_t *
make_room(svn_stringbuf_t **buf, svn_boolean_t *sized, apr_file_t *file,
          apr_pool_t *pool)
{
  apr_finfo_t finfo;
  svn_stringbuf_t *fresh;

  if (*sized)
    {
      svn_stringbuf_ensure(*buf, (*buf)->blocksize * 2);
      return SVN_NO_ERROR;
    }
  *sized = TRUE;
  SVN_ERR(svn_io_file_info_get(&finfo, APR_FINFO_SIZE, file, pool));
  fresh = svn_stringbuf_create_ensure(
            (apr_size_t)finfo.size + 512 > (*buf)->blocksize * 2
            ? (apr_size_t)finfo.size + 512 : (*buf)->blocksize * 2, pool);
  memcpy(fresh->data, (*buf)->data, (*buf)->len);
  fresh->len = (*buf)->len;
  *buf = fresh;
  return SVN_NO_ERROR;
}

/* Read all of PATH into *CONTENTS.  Unlike svn_stringbuf_from_file2 this
   does not fstat the file for a size hint up front: most of these files
   are a few dozen bytes, and the stat was one system call per read on
   the commit path.  A file that does not fit the first buffer is sized
   once, though: growing by doubling left every smaller copy in
   RESULT_POOL, ~2-3 times the file (7 MB for the proto index and 5 MB
   for the changes of a 12,805-file commit of the full maven load). */
static svn_error_t *
read_whole_file(svn_stringbuf_t **contents, const char *path,
                apr_pool_t *result_pool)
{
  apr_file_t *file;
  svn_stringbuf_t *buf = svn_stringbuf_create_ensure(255, result_pool);
  svn_boolean_t eof = FALSE, sized = FALSE;

  SVN_ERR(svn_io_file_open(&file, path, APR_READ, APR_OS_DEFAULT,
                           result_pool));
  while (!eof)
    {
      apr_size_t got;

      if (buf->blocksize - buf->len < 256)
        SVN_ERR(make_room(&buf, &sized, file, result_pool));
      SVN_ERR(svn_io_file_read_full2(file, buf->data + buf->len,
                                     buf->blocksize - buf->len - 1, &got,
                                     &eof, result_pool));
      buf->len += got;
    }
  buf->data[buf->len] = '\0';
  *contents = buf;
  return svn_error_trace(svn_io_file_close(file, result_pool));
}

svn_error_t *
svn_fs_fs__txn_file_read(svn_stringbuf_t **contents, const char *path,
                         apr_pool_t *result_pool)
{
  svn_error_t *err = read_whole_file(contents, path, result_pool);

  if (err && APR_STATUS_IS_ENOENT(err->apr_err))
    {
      svn_error_clear(err);
      *contents = NULL;
      return SVN_NO_ERROR;
    }
  return svn_error_trace(err);
}

/* ------------------------------------------------------------------ */
/* Names (TXN-1)                                                       */

const char *
svn_fs_fs__txn_name(const svn_fs_fs__txn_id_t *txn_id, apr_pool_t *pool)
{
  char buf[SVN_FS_FS__ID_PART_MAX];

  svn_fs_fs__id_txn_unparse(buf, txn_id);
  return apr_pstrdup(pool, buf);
}

svn_error_t *
svn_fs_fs__txn_name_parse(svn_fs_fs__txn_id_t *txn_id, const char *name)
{
  if (!svn_fs_fs__id_txn_parse(txn_id, name, strlen(name)))
    return svn_error_createf(SVN_ERR_FS_MALFORMED_TXN_ID, NULL,
                             "malformed txn id '%s'",
                             name);
  return SVN_NO_ERROR;
}

const char *
svn_fs_fs__txn_path(svn_fs_t *fs, const svn_fs_fs__txn_id_t *txn_id,
                    const char *name, apr_pool_t *pool)
{
  char buf[SVN_FS_FS__ID_PART_MAX];
  const char *dir;

  svn_fs_fs__id_txn_unparse(buf, txn_id);
  dir = svn_dirent_join(svn_fs_fs__path_db(fs, "transactions", pool),
                        apr_pstrcat(pool, buf, ".txn", SVN_VA_NULL), pool);
  return name ? svn_dirent_join(dir, name, pool) : dir;
}

const char *
svn_fs_fs__txn_protorev_path(svn_fs_t *fs, const svn_fs_fs__txn_id_t *txn_id,
                             apr_pool_t *pool)
{
  char buf[SVN_FS_FS__ID_PART_MAX];

  /* OLD-4: formats 1 and 2 keep it inside the transaction directory. */
  if (SVN_FS_FS__DATA(fs)->format < SVN_FS_FS__MIN_TXN_CURRENT_FORMAT)
    return svn_fs_fs__txn_path(fs, txn_id, "rev", pool);
  svn_fs_fs__id_txn_unparse(buf, txn_id);
  return svn_dirent_join(svn_fs_fs__path_db(fs, "txn-protorevs", pool),
                         apr_pstrcat(pool, buf, ".rev", SVN_VA_NULL), pool);
}

/* Path of the proto-revision file's lock file. */
const char *
svn_fs_fs__txn_protorev_lock_path(svn_fs_t *fs,
                                  const svn_fs_fs__txn_id_t *txn_id,
                                  apr_pool_t *pool)
{
  return apr_pstrcat(pool, svn_fs_fs__txn_protorev_path(fs, txn_id, pool),
                     "-lock", SVN_VA_NULL);
}

/* ------------------------------------------------------------------ */
/* Numbers in base 36 (txn-current, next-ids)                          */

svn_boolean_t
svn_fs_fs__txn_base36_parse(apr_uint64_t *value, const char **next,
                            const char *data, const char *end)
{
  apr_uint64_t v = 0;
  const char *p = data;

  while (p < end && ((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'z')))
    {
      unsigned digit = (*p <= '9') ? (unsigned)(*p - '0')
                                   : (unsigned)(*p - 'a' + 10);
      if (v > (APR_UINT64_MAX - digit) / 36)
        return FALSE;
      v = v * 36 + digit;
      p++;
    }
  if (p == data || p - data > 13)
    return FALSE;
  *value = v;
  *next = p;
  return TRUE;
}

svn_error_t *
svn_fs_fs__txn_current_parse(apr_uint64_t *next_seq, const char *data,
                             apr_size_t len, const char *where)
{
  const char *end = data + len, *p;

  if (!svn_fs_fs__txn_base36_parse(next_seq, &p, data, end)
      || !(end - p == 1 && *p == '\n'))
    return svn_fs_fs__corrupt("TXN-2", where,
                              "Invalid txn-current contents");
  return SVN_NO_ERROR;
}

svn_error_t *
svn_fs_fs__txn_next_ids_parse(apr_uint64_t *node_id, apr_uint64_t *copy_id,
                              const char *data, apr_size_t len,
                              const char *where)
{
  const char *end = data + len, *p;

  /* The stock module writes a NUL after the newline on updates. */
  if (len > 0 && end[-1] == '\0')
    end--;
  if (!svn_fs_fs__txn_base36_parse(node_id, &p, data, end)
      || p == end || *p++ != ' '
      || !svn_fs_fs__txn_base36_parse(copy_id, &p, p, end)
      || !(end - p == 1 && *p == '\n'))
    return svn_fs_fs__corrupt("TXN-3", where, "Invalid next-ids contents");
  return SVN_NO_ERROR;
}

/* ------------------------------------------------------------------ */
/* Life cycle                                                          */

/* Read and bump db/txn-current under its lock file; the caller holds the
   in-process mutex.  *SEQ gets the number to use. */
static svn_error_t *
bump_txn_current(apr_uint64_t *seq, svn_fs_t *fs, apr_pool_t *pool)
{
  const char *path = svn_fs_fs__path_db(fs, "txn-current", pool);
  const char *lock = svn_fs_fs__path_db(fs, "txn-current-lock", pool);
  svn_stringbuf_t *text;
  char buf[SVN_INT64_BUFFER_SIZE + 1];
  apr_size_t len;
  svn_error_t *err;

  /* The lock is released when POOL is destroyed by our caller. */
  SVN_ERR(svn_io_file_lock2(lock, TRUE, FALSE, pool));
  SVN_ERR(svn_stringbuf_from_file2(&text, path, pool));
  err = svn_fs_fs__txn_current_parse(seq, text->data, text->len, path);
  /* Refuse rather than guess (stock reads what base-36 digits it finds,
     an empty file as 0): a guess could hand out the name of a
     transaction still in use.  recover knows which are. */
  if (err)
    return svn_error_quick_wrap(err, "No transaction can be started until "
                                "'svnadmin recover' repairs db/txn-current");
  if (*seq == APR_UINT64_MAX)
    return svn_fs_fs__corrupt("TXN-2", path, "txn-current overflows");
  len = svn__ui64tobase36(buf, *seq + 1);
  buf[len++] = '\n';
  /* Flushed (unless the opener waived flushes, as svnadmin load
     --no-flush-to-disk does): a sequence number must never be handed
     out twice.  The
     temp file is a spare when there is one (txn_spare.c).  The new file
     gets the old one's permissions, as with stock, not this process's
     umask: the mode the administrator gave txn-current (group-writable
     in a shared repository) must not drift to the last writer's. */
  return svn_error_trace(svn_fs_fs__txn_spare_write_atomic(
           path, buf, len, path, svn_fs_fs__flush_wanted(fs),
           SVN_FS_FS__DATA(fs)->spare_user
             ? svn_fs_fs__txn_spare_any_dir(
                 svn_fs_fs__path_db(fs, "transactions", pool), pool)
             : NULL,
           pool));
}

/* Take the next transaction sequence number of FS. */
static svn_error_t *
next_txn_seq(apr_uint64_t *seq, svn_fs_t *fs, apr_pool_t *scratch_pool)
{
  svn_fs_fs__data_t *ffd = SVN_FS_FS__DATA(fs);
  apr_pool_t *lock_pool = svn_pool_create(scratch_pool);
  svn_mutex__t *mutex = ffd->shared ? ffd->shared->txn_current_lock : NULL;
  svn_error_t *err;

  SVN_ERR(svn_mutex__lock(mutex));
  err = bump_txn_current(seq, fs, lock_pool);
  svn_pool_destroy(lock_pool);
  return svn_error_trace(svn_mutex__unlock(mutex, err));
}

/* OLD-4: without txn-current, the first "<rev>-<n>" (n = 1, 2, ...)
   whose directory we manage to create names the transaction; names of
   finished transactions are used again. */
static svn_error_t *
make_old_style_txn_dir(svn_fs_fs__txn_id_t *id, svn_fs_t *fs,
                       apr_pool_t *scratch_pool)
{
  apr_pool_t *iterpool = svn_pool_create(scratch_pool);

  for (id->number = 1; ; id->number++)
    {
      svn_error_t *err;

      svn_pool_clear(iterpool);
      err = svn_io_dir_make(svn_fs_fs__txn_path(fs, id, NULL, iterpool),
                            APR_OS_DEFAULT, iterpool);
      if (!err)
        break;
      if (!APR_STATUS_IS_EEXIST(err->apr_err) || id->number >= 99999)
        return svn_error_trace(err);
      svn_error_clear(err);
    }
  svn_pool_destroy(iterpool);
  return SVN_NO_ERROR;
}

/* The mutable root node-rev of new transaction TXN_ID: BASE_REV's root,
   made the successor of itself in the transaction. */
static svn_error_t *
write_txn_root(svn_fs_t *fs, const svn_fs_fs__txn_id_t *txn_id,
               svn_revnum_t base_rev, apr_pool_t *scratch_pool)
{
  const svn_fs_fs__id_t *base_id;
  svn_fs_fs__noderev_t *root;

  SVN_ERR(svn_fs_fs__rev_root_id(&base_id, fs, base_rev, scratch_pool,
                                 scratch_pool));
  SVN_ERR(svn_fs_fs__get_noderev(&root, fs, base_id, scratch_pool,
                                 scratch_pool));
  root->id = svn_fs_fs__id_create_txn(&base_id->node_id, &base_id->copy_id,
                                      txn_id, scratch_pool);
  root->predecessor_id = base_id;
  if (root->predecessor_count != -1)
    root->predecessor_count++;
  root->copyfrom_rev = SVN_INVALID_REVNUM;
  root->copyfrom_path = NULL;
  root->is_fresh_txn_root = TRUE;
  return svn_error_trace(svn_fs_fs__txn_put_noderev(fs, root, scratch_pool));
}

/* Create the empty file PATH (which must not exist) of the transaction
   whose directory is DIR, from a spare if DIR has one. */
static svn_error_t *
create_empty(const char *dir, const char *path, apr_pool_t *pool)
{
  svn_boolean_t took;
  apr_file_t *file;

  SVN_ERR(svn_fs_fs__txn_spare_take(&took, dir, path, pool));
  if (!took)
    return svn_error_trace(svn_io_file_create_empty(path, pool));
  SVN_ERR(svn_io_file_open(&file, path, APR_WRITE, APR_OS_DEFAULT, pool));
  SVN_ERR(cut(file, 0, path, pool));
  return svn_error_trace(svn_io_file_close(file, pool));
}

/* Everything of txn_create after the directory exists. */
static svn_error_t *
populate_txn(svn_fs_t *fs, const svn_fs_fs__txn_id_t *txn_id,
             svn_revnum_t base_rev, apr_pool_t *pool)
{
  const char *dir = svn_fs_fs__txn_path(fs, txn_id, NULL, pool);

  SVN_ERR(create_empty(dir, svn_fs_fs__txn_protorev_path(fs, txn_id, pool),
                       pool));
  SVN_ERR(create_empty(dir, svn_fs_fs__txn_protorev_lock_path(fs, txn_id,
                                                              pool),
                       pool));
  SVN_ERR(create_empty(dir, svn_fs_fs__txn_path(fs, txn_id, "changes",
                                                pool),
                       pool));
  SVN_ERR(svn_fs_fs__txn_file_write(
            svn_fs_fs__txn_path(fs, txn_id, "next-ids", pool), "0 0\n", 4,
            FALSE, pool));
  return svn_error_trace(write_txn_root(fs, txn_id, base_rev, pool));
}

svn_error_t *
svn_fs_fs__txn_create(svn_fs_fs__txn_id_t *txn_id, svn_fs_t *fs,
                      svn_revnum_t base_rev, apr_pool_t *scratch_pool)
{
  svn_fs_fs__txn_id_t id;
  svn_error_t *err;

  SVN_ERR(svn_fs_fs__ensure_revision_exists(base_rev, fs, scratch_pool));
  id.revision = base_rev;
  if (SVN_FS_FS__DATA(fs)->format < SVN_FS_FS__MIN_TXN_CURRENT_FORMAT)
    SVN_ERR(make_old_style_txn_dir(&id, fs, scratch_pool));
  else
    {
      const char *dir;

      SVN_ERR(next_txn_seq(&id.number, fs, scratch_pool));
      dir = svn_fs_fs__txn_path(fs, &id, NULL, scratch_pool);
      if (SVN_FS_FS__DATA(fs)->spare_user)
        SVN_ERR(svn_fs_fs__txn_spare_make_dir(dir, scratch_pool));
      else
        SVN_ERR(svn_io_dir_make(dir, APR_OS_DEFAULT, scratch_pool));
    }
  err = populate_txn(fs, &id, base_rev, scratch_pool);
  if (err)
    return svn_error_compose_create(
             err, svn_fs_fs__txn_purge(fs, &id, scratch_pool));
  *txn_id = id;
  return SVN_NO_ERROR;
}

/* SVN_ERR_FS_NO_SUCH_TRANSACTION for TXN_ID. */
static svn_error_t *
no_such_txn(const svn_fs_fs__txn_id_t *txn_id, apr_pool_t *pool)
{
  return svn_error_createf(SVN_ERR_FS_NO_SUCH_TRANSACTION, NULL,
                           "No such transaction '%s'",
                           svn_fs_fs__txn_name(txn_id, pool));
}

svn_error_t *
svn_fs_fs__txn_check_exists(svn_fs_t *fs, const svn_fs_fs__txn_id_t *txn_id,
                            apr_pool_t *scratch_pool)
{
  svn_node_kind_t kind;

  SVN_ERR(svn_io_check_path(svn_fs_fs__txn_path(fs, txn_id, NULL,
                                                scratch_pool),
                            &kind, scratch_pool));
  if (kind != svn_node_dir)
    return no_such_txn(txn_id, scratch_pool);
  return SVN_NO_ERROR;
}

/* Remove file PATH; *GONE |= it was there. */
static svn_error_t *
remove_if_present(svn_boolean_t *found, const char *path, apr_pool_t *pool)
{
  svn_node_kind_t kind;

  SVN_ERR(svn_io_check_path(path, &kind, pool));
  if (kind == svn_node_none)
    return SVN_NO_ERROR;
  *found = TRUE;
  if (kind == svn_node_dir)
    return svn_error_trace(svn_io_remove_dir2(path, TRUE, NULL, NULL, pool));
  return svn_error_trace(svn_io_remove_file2(path, TRUE, pool));
}

svn_error_t *
svn_fs_fs__txn_purge(svn_fs_t *fs, const svn_fs_fs__txn_id_t *txn_id,
                     apr_pool_t *scratch_pool)
{
  svn_fs_fs__data_t *ffd = SVN_FS_FS__DATA(fs);
  svn_boolean_t found = FALSE;

  /* Its cached directory listings would only hold memory now. */
  svn_fs_fs__txn_dir_forget_txn(fs, txn_id);
  /* Recycled for the next transaction (txn_spare.c) when possible; the
     first transaction an svn_fs_t finishes only makes it a user. */
  if (ffd->spare_user)
    SVN_ERR(svn_fs_fs__txn_spare_keep(&found,
                                      svn_fs_fs__txn_path(fs, txn_id, NULL,
                                                          scratch_pool),
                                      svn_fs_fs__txn_protorev_lock_path(
                                        fs, txn_id, scratch_pool),
                                      scratch_pool));
  else
    {
      SVN_ERR(svn_fs_fs__txn_spare_join(svn_fs_fs__path_db(
                                          fs, "transactions", scratch_pool),
                                        fs->pool, scratch_pool));
      ffd->spare_user = TRUE;
    }
  SVN_ERR(remove_if_present(&found, svn_fs_fs__txn_path(fs, txn_id, NULL,
                                                        scratch_pool),
                            scratch_pool));
  SVN_ERR(remove_if_present(&found, svn_fs_fs__txn_protorev_path(
                                      fs, txn_id, scratch_pool),
                            scratch_pool));
  SVN_ERR(remove_if_present(&found, svn_fs_fs__txn_protorev_lock_path(
                                      fs, txn_id, scratch_pool),
                            scratch_pool));
  if (!found)
    return no_such_txn(txn_id, scratch_pool);
  return SVN_NO_ERROR;
}

svn_error_t *
svn_fs_fs__txn_list(apr_array_header_t **names, svn_fs_t *fs,
                    apr_pool_t *result_pool, apr_pool_t *scratch_pool)
{
  apr_hash_t *dirents;
  apr_hash_index_t *hi;
  apr_array_header_t *result = apr_array_make(result_pool, 4,
                                              sizeof(const char *));

  SVN_ERR(svn_io_get_dirents3(&dirents, svn_fs_fs__path_db(fs,
                                                           "transactions",
                                                           scratch_pool),
                              TRUE, scratch_pool, scratch_pool));
  for (hi = apr_hash_first(scratch_pool, dirents); hi; hi = apr_hash_next(hi))
    {
      const char *name = apr_hash_this_key(hi);
      apr_size_t len = strlen(name);

      /* Every "<name>.txn" is listed, well-formed or not, as stock lists
         them (opening a malformed one then fails, TXN-1). */
      if (len <= 4 || strcmp(name + len - 4, ".txn") != 0)
        continue;
      APR_ARRAY_PUSH(result, const char *)
        = apr_pstrmemdup(result_pool, name, len - 4);
    }
  *names = result;
  return SVN_NO_ERROR;
}

/* ------------------------------------------------------------------ */
/* Transaction properties (TXN-5)                                      */

svn_error_t *
svn_fs_fs__txn_get_props(apr_hash_t **props, svn_fs_t *fs,
                         const svn_fs_fs__txn_id_t *txn_id,
                         svn_boolean_t final, apr_pool_t *result_pool,
                         apr_pool_t *scratch_pool)
{
  const char *path = svn_fs_fs__txn_path(fs, txn_id,
                                         final ? "props-final" : "props",
                                         scratch_pool);
  svn_stringbuf_t *text;

  SVN_ERR(svn_fs_fs__txn_file_read(&text, path, scratch_pool));
  if (!text)
    {
      SVN_ERR(svn_fs_fs__txn_check_exists(fs, txn_id, scratch_pool));
      *props = apr_hash_make(result_pool);
      return SVN_NO_ERROR;
    }
  return svn_error_trace(svn_fs_fs__hashdump_parse(props, NULL, text->data,
                                                   text->len, path,
                                                   result_pool));
}

svn_error_t *
svn_fs_fs__txn_set_props(svn_fs_t *fs, const svn_fs_fs__txn_id_t *txn_id,
                         apr_hash_t *props, svn_boolean_t final,
                         apr_pool_t *scratch_pool)
{
  svn_stringbuf_t *out = svn_stringbuf_create_empty(scratch_pool);

  svn_fs_fs__hashdump_unparse(out, props, scratch_pool);
  return svn_error_trace(svn_fs_fs__txn_file_write(
           svn_fs_fs__txn_path(fs, txn_id, final ? "props-final" : "props",
                               scratch_pool),
           out->data, out->len, FALSE, scratch_pool));
}

/* ------------------------------------------------------------------ */
/* Ids (TXN-3)                                                         */

/* Without truncating first when the new text is not shorter: on ext4
   (auto_da_alloc) a file truncated to zero and rewritten is forced to disk
   at close, which cost ~1.5 ms per item index or node id taken.  Same
   bytes, same (no) durability. */
svn_error_t *
svn_fs_fs__txn_file_overwrite(const char *path, const char *data,
                              apr_size_t len, apr_size_t old_len,
                              apr_pool_t *scratch_pool)
{
  apr_file_t *file;

  if (len < old_len || old_len == 0)
    return svn_error_trace(write_over(path, data, len, scratch_pool));
  SVN_ERR(svn_io_file_open(&file, path, APR_WRITE | APR_CREATE,
                           APR_OS_DEFAULT, scratch_pool));
  SVN_ERR(svn_io_file_write_full(file, data, len, NULL, scratch_pool));
  return svn_error_trace(svn_io_file_close(file, scratch_pool));
}

/* Take the next node id (COPY false) or copy id (COPY true) of TXN_ID. */
static svn_error_t *
take_next_id(apr_uint64_t *number, svn_fs_t *fs,
             const svn_fs_fs__txn_id_t *txn_id, svn_boolean_t copy,
             apr_pool_t *scratch_pool)
{
  const char *path = svn_fs_fs__txn_path(fs, txn_id, "next-ids",
                                         scratch_pool);
  svn_stringbuf_t *text;
  apr_uint64_t node, cp;
  char buf[2 * SVN_INT64_BUFFER_SIZE + 3];
  apr_size_t len;

  SVN_ERR(read_whole_file(&text, path, scratch_pool));
  SVN_ERR(svn_fs_fs__txn_next_ids_parse(&node, &cp, text->data, text->len,
                                        path));
  *number = copy ? cp++ : node++;
  if ((copy ? cp : node) == 0)
    return svn_fs_fs__corrupt("TXN-3", path, "next-ids overflows");
  len = svn__ui64tobase36(buf, node);
  buf[len++] = ' ';
  len += svn__ui64tobase36(buf + len, cp);
  buf[len++] = '\n';
  /* Like the stock module, updates carry a terminating NUL (TXN-3). */
  buf[len++] = '\0';
  return svn_error_trace(svn_fs_fs__txn_file_overwrite(path, buf, len,
                                                       text->len,
                                                       scratch_pool));
}

svn_error_t *
svn_fs_fs__txn_new_node_id(svn_fs_fs__id_part_t *node_id, svn_fs_t *fs,
                           const svn_fs_fs__txn_id_t *txn_id,
                           apr_pool_t *scratch_pool)
{
  SVN_ERR(take_next_id(&node_id->number, fs, txn_id, FALSE, scratch_pool));
  node_id->revision = SVN_INVALID_REVNUM;
  return SVN_NO_ERROR;
}

svn_error_t *
svn_fs_fs__txn_new_copy_id(svn_fs_fs__id_part_t *copy_id, svn_fs_t *fs,
                           const svn_fs_fs__txn_id_t *txn_id,
                           apr_pool_t *scratch_pool)
{
  SVN_ERR(take_next_id(&copy_id->number, fs, txn_id, TRUE, scratch_pool));
  copy_id->revision = SVN_INVALID_REVNUM;
  return SVN_NO_ERROR;
}

svn_error_t *
svn_fs_fs__txn_new_uniquifier(const char **uniquifier, svn_fs_t *fs,
                              const svn_fs_fs__txn_id_t *txn_id,
                              apr_pool_t *result_pool,
                              apr_pool_t *scratch_pool)
{
  svn_fs_fs__id_part_t part;
  char txn[SVN_FS_FS__ID_PART_MAX], node[SVN_FS_FS__ID_PART_MAX];

  /* OLD-6: no rep sharing before format 4, so no uniquifiers either (and
     no node ids spent on them: formats 1 and 2 count them globally). */
  if (SVN_FS_FS__DATA(fs)->format < SVN_FS_FS__MIN_REP_SHARING_FORMAT)
    {
      *uniquifier = NULL;
      return SVN_NO_ERROR;
    }
  SVN_ERR(svn_fs_fs__txn_new_node_id(&part, fs, txn_id, scratch_pool));
  svn_fs_fs__id_txn_unparse(txn, txn_id);
  svn_fs_fs__id_part_unparse(node, &part);
  *uniquifier = apr_pstrcat(result_pool, txn, "/", node, SVN_VA_NULL);
  return SVN_NO_ERROR;
}

/* ------------------------------------------------------------------ */
/* Node-revisions and their side files (TXN-6, TXN-7, TXN-8)           */

/* Path of the node file of transaction node-rev ID plus SUFFIX. */
static const char *
node_path(svn_fs_t *fs, const svn_fs_fs__id_t *id, const char *suffix,
          apr_pool_t *pool)
{
  char node[SVN_FS_FS__ID_PART_MAX], copy[SVN_FS_FS__ID_PART_MAX];

  svn_fs_fs__id_part_unparse(node, &id->node_id);
  svn_fs_fs__id_part_unparse(copy, &id->copy_id);
  return svn_fs_fs__txn_path(fs, &id->txn_id,
                             apr_pstrcat(pool, "node.", node, ".", copy,
                                         suffix, SVN_VA_NULL),
                             pool);
}

svn_error_t *
svn_fs_fs__txn_put_noderev(svn_fs_t *fs, const svn_fs_fs__noderev_t *noderev,
                           apr_pool_t *scratch_pool)
{
  svn_stringbuf_t *out = svn_stringbuf_create_empty(scratch_pool);

  SVN_ERR_ASSERT(svn_fs_fs__id_is_txn(noderev->id));
  svn_fs_fs__noderev_unparse(out, noderev, SVN_FS_FS__DATA(fs)->format,
                             scratch_pool);
  return svn_error_trace(svn_fs_fs__txn_file_write(
           node_path(fs, noderev->id, "", scratch_pool), out->data, out->len,
           FALSE, scratch_pool));
}

svn_error_t *
svn_fs_fs__txn_delete_noderev(svn_fs_t *fs, const svn_fs_fs__id_t *id,
                              apr_pool_t *scratch_pool)
{
  SVN_ERR_ASSERT(svn_fs_fs__id_is_txn(id));
  svn_fs_fs__txn_dir_forget(fs, id, scratch_pool);
  SVN_ERR(svn_io_remove_file2(node_path(fs, id, ".props", scratch_pool),
                              TRUE, scratch_pool));
  SVN_ERR(svn_io_remove_file2(node_path(fs, id, ".children", scratch_pool),
                              TRUE, scratch_pool));
  return svn_error_trace(svn_io_remove_file2(node_path(fs, id, "",
                                                       scratch_pool),
                                             TRUE, scratch_pool));
}

/* A new mutable rep of NODEREV's transaction for a side file.  The
   struct must outlive the call but PARENT's pool is not known here, so it
   lives in FS->pool, and since callers treat it as read-only and it says
   no more than "in transaction X" (the node file spells such a rep "-1",
   TXN-6, which drops any uniquifier), all reps of one transaction share
   one: a struct per call grew the fs pool by ~3 kB per loaded revision
   for the whole load.  The node id the stock module spends on one is
   still taken so that next-ids stays equal to stock's (TXN-3). */
static svn_error_t *
new_mutable_rep(svn_fs_fs__rep_t **rep, svn_fs_t *fs,
                const svn_fs_fs__noderev_t *noderev,
                apr_pool_t *scratch_pool)
{
  svn_fs_fs__data_t *ffd = SVN_FS_FS__DATA(fs);
  svn_fs_fs__rep_t *r = ffd->txn_mutable_rep;
  svn_fs_fs__id_part_t unused;

  if (!r || r->txn_id.revision != noderev->id->txn_id.revision
      || r->txn_id.number != noderev->id->txn_id.number)
    {
      r = apr_pcalloc(fs->pool, sizeof(*r));
      r->revision = SVN_INVALID_REVNUM;
      r->in_txn = TRUE;
      r->txn_id = noderev->id->txn_id;
      ffd->txn_mutable_rep = r;
    }
  /* OLD-6: stock spends none before format 4 (no uniquifiers there). */
  if (ffd->format >= SVN_FS_FS__MIN_REP_SHARING_FORMAT)
    SVN_ERR(svn_fs_fs__txn_new_node_id(&unused, fs, &r->txn_id,
                                       scratch_pool));
  *rep = r;
  return SVN_NO_ERROR;
}

/* First change of PARENT's listing: write the whole listing read from
   its (immutable) data rep, then make the rep mutable. */
static svn_error_t *
start_children(svn_fs_t *fs, svn_fs_fs__noderev_t *parent,
               const char *path, apr_pool_t *scratch_pool)
{
  apr_array_header_t *entries;
  svn_stringbuf_t *out = svn_stringbuf_create_empty(scratch_pool);

  SVN_ERR(svn_fs_fs__dir_entries(&entries, fs, parent, scratch_pool,
                                 scratch_pool));
  svn_fs_fs__dirents_unparse(out, entries);
  /* The file is rewritten: a listing cached for it is void. */
  svn_fs_fs__txn_dir_forget(fs, parent->id, scratch_pool);
  return svn_error_trace(svn_fs_fs__txn_file_write(path, out->data,
                                                   out->len, FALSE,
                                                   scratch_pool));
}

svn_error_t *
svn_fs_fs__txn_set_entry(svn_fs_t *fs, svn_fs_fs__noderev_t *parent,
                         const char *name, const svn_fs_fs__id_t *id,
                         svn_node_kind_t kind, apr_pool_t *scratch_pool)
{
  const char *path = node_path(fs, parent->id, ".children", scratch_pool);
  svn_stringbuf_t *out = svn_stringbuf_create_empty(scratch_pool);

  SVN_ERR_ASSERT(svn_fs_fs__id_is_txn(parent->id));
  if (!parent->data_rep || !parent->data_rep->in_txn)
    {
      svn_fs_fs__rep_t *rep;

      SVN_ERR(start_children(fs, parent, path, scratch_pool));
      SVN_ERR(new_mutable_rep(&rep, fs, parent, scratch_pool));
      parent->data_rep = rep;
      SVN_ERR(svn_fs_fs__txn_put_noderev(fs, parent, scratch_pool));
    }
  svn_fs_fs__dirent_unparse_change(out, name, kind, id);
  SVN_ERR(svn_fs_fs__txn_file_append(path, out->data, out->len,
                                     scratch_pool));
  /* Keeps lookups in this directory from parsing the file again. */
  return svn_error_trace(svn_fs_fs__txn_dir_changed(fs, parent->id, name,
                                                    kind, id, out->len,
                                                    scratch_pool));
}

svn_error_t *
svn_fs_fs__txn_set_node_props(svn_fs_t *fs, svn_fs_fs__noderev_t *noderev,
                              apr_hash_t *props, apr_pool_t *scratch_pool)
{
  svn_stringbuf_t *out = svn_stringbuf_create_empty(scratch_pool);

  SVN_ERR_ASSERT(svn_fs_fs__id_is_txn(noderev->id));
  svn_fs_fs__hashdump_unparse(out, props, scratch_pool);
  SVN_ERR(svn_fs_fs__txn_file_write(node_path(fs, noderev->id, ".props",
                                              scratch_pool),
                                    out->data, out->len, FALSE,
                                    scratch_pool));
  if (!noderev->prop_rep || !noderev->prop_rep->in_txn)
    {
      svn_fs_fs__rep_t *rep;

      SVN_ERR(new_mutable_rep(&rep, fs, noderev, scratch_pool));
      noderev->prop_rep = rep;
      SVN_ERR(svn_fs_fs__txn_put_noderev(fs, noderev, scratch_pool));
    }
  return SVN_NO_ERROR;
}

/* ------------------------------------------------------------------ */
/* Changed paths (TXN-9)                                               */

svn_error_t *
svn_fs_fs__txn_add_change(svn_fs_t *fs, const svn_fs_fs__txn_id_t *txn_id,
                          const svn_fs_fs__change_t *change,
                          apr_pool_t *scratch_pool)
{
  svn_stringbuf_t *out = svn_stringbuf_create_empty(scratch_pool);

  svn_fs_fs__change_unparse(out, change, SVN_FS_FS__DATA(fs)->format);
  return svn_error_trace(svn_fs_fs__txn_file_append(
           svn_fs_fs__txn_path(fs, txn_id, "changes", scratch_pool),
           out->data, out->len, scratch_pool));
}

/* Bytes of a changes file read at a time when folding it. */
#define CHANGES_READ_CHUNK (64 * 1024)

/* Fold the changes file of FILE (named PATH) into CHANGES, a chunk at a
   time: read whole, the file of a 12,805-path commit (3.6 MB) sat in
   memory beside its folded hash at the peak of the full maven load. */
static svn_error_t *
fold_changes_file(apr_hash_t *changes, apr_file_t *file, const char *path,
                  apr_pool_t *result_pool, apr_pool_t *scratch_pool)
{
  apr_size_t size = CHANGES_READ_CHUNK, kept = 0;
  char *buf = apr_palloc(scratch_pool, size);
  svn_boolean_t eof = FALSE;

  while (!eof)
    {
      apr_size_t got, used;

      /* An entry longer than the whole buffer: make room for it. */
      if (kept == size)
        {
          char *bigger = apr_palloc(scratch_pool, size * 2);

          memcpy(bigger, buf, kept);
          buf = bigger;
          size *= 2;
        }
      SVN_ERR(svn_io_file_read_full2(file, buf + kept, size - kept, &got,
                                     &eof, scratch_pool));
      kept += got;
      SVN_ERR(svn_fs_fs__txn_changes_fold_some(changes, &used, buf, kept,
                                               path, result_pool,
                                               scratch_pool));
      memmove(buf, buf + used, kept - used);
      kept -= used;
    }
  if (kept)
    return svn_fs_fs__corrupt("TXN-9", path,
                              "Changes file ends inside an entry");
  return SVN_NO_ERROR;
}

svn_error_t *
svn_fs_fs__txn_changes(apr_hash_t **changes, svn_fs_t *fs,
                       const svn_fs_fs__txn_id_t *txn_id,
                       apr_pool_t *result_pool, apr_pool_t *scratch_pool)
{
  const char *path = svn_fs_fs__txn_path(fs, txn_id, "changes",
                                         scratch_pool);
  apr_hash_t *result = apr_hash_make(result_pool);
  apr_file_t *file;
  svn_error_t *err = svn_io_file_open(&file, path, APR_READ, APR_OS_DEFAULT,
                                      scratch_pool);

  /* No file yet: nothing changed, if the transaction is there. */
  if (err && APR_STATUS_IS_ENOENT(err->apr_err))
    {
      svn_error_clear(err);
      *changes = result;
      return svn_error_trace(svn_fs_fs__txn_check_exists(fs, txn_id,
                                                         scratch_pool));
    }
  SVN_ERR(err);
  err = fold_changes_file(result, file, path, result_pool, scratch_pool);
  SVN_ERR(svn_error_compose_create(err, svn_io_file_close(file,
                                                          scratch_pool)));
  *changes = result;
  return SVN_NO_ERROR;
}

/* ------------------------------------------------------------------ */
/* Rep-sharing inside one transaction (TXN-10)                         */

/* Path of the <sha1> file for DIGEST. */
static const char *
sha1_path(svn_fs_t *fs, const svn_fs_fs__txn_id_t *txn_id,
          const unsigned char *digest, apr_pool_t *pool)
{
  svn_checksum_t checksum;

  checksum.kind = svn_checksum_sha1;
  checksum.digest = digest;
  return svn_fs_fs__txn_path(fs, txn_id,
                             svn_checksum_to_cstring_display(&checksum, pool),
                             pool);
}

svn_error_t *
svn_fs_fs__txn_sha1_parse(svn_fs_fs__rep_t **rep, const char *data,
                          apr_size_t len, const svn_fs_fs__txn_id_t *txn_id,
                          const unsigned char *sha1_digest, const char *where,
                          apr_pool_t *result_pool)
{
  svn_error_t *err = svn_fs_fs__rep_parse(rep, data, len, txn_id, where,
                                          result_pool);

  if (err)
    return svn_error_compose_create(
             svn_fs_fs__corrupt("TXN-10", where, "Invalid rep reference"),
             err);
  if (!(*rep)->has_sha1
      || memcmp((*rep)->sha1_digest, sha1_digest, APR_SHA1_DIGESTSIZE) != 0)
    return svn_fs_fs__corrupt("TXN-10", where,
                              "Rep reference does not match its SHA1");
  return SVN_NO_ERROR;
}

svn_error_t *
svn_fs_fs__txn_sha1_rep_get(svn_fs_fs__rep_t **rep, svn_fs_t *fs,
                            const svn_fs_fs__txn_id_t *txn_id,
                            const unsigned char *sha1_digest,
                            apr_pool_t *result_pool,
                            apr_pool_t *scratch_pool)
{
  const char *path = sha1_path(fs, txn_id, sha1_digest, scratch_pool);
  svn_stringbuf_t *text;

  SVN_ERR(svn_fs_fs__txn_file_read(&text, path, scratch_pool));
  if (!text)
    {
      *rep = NULL;
      return SVN_NO_ERROR;
    }
  return svn_error_trace(svn_fs_fs__txn_sha1_parse(rep, text->data,
                                                   text->len, txn_id,
                                                   sha1_digest, path,
                                                   result_pool));
}

svn_error_t *
svn_fs_fs__txn_sha1_rep_put(svn_fs_t *fs, const svn_fs_fs__txn_id_t *txn_id,
                            const svn_fs_fs__rep_t *rep,
                            apr_pool_t *scratch_pool)
{
  svn_stringbuf_t *out = svn_stringbuf_create_empty(scratch_pool);

  SVN_ERR_ASSERT(rep->has_sha1);
  /* The full reference, no newline, as the stock module writes it. */
  svn_fs_fs__rep_unparse(out, rep, SVN_FS_FS__DATA(fs)->format, FALSE);
  return svn_error_trace(svn_fs_fs__txn_file_write(
           sha1_path(fs, txn_id, rep->sha1_digest, scratch_pool),
           out->data, out->len, FALSE, scratch_pool));
}
