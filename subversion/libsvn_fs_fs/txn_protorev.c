/* txn_protorev.c --- a transaction's proto-revision file and its proto
 * indexes (txn_store.h; doc/format/transactions.md TXN-4, TXN-11..13).
 *
 * Call tree of a rep written during a transaction:
 *
 *   svn_fs_fs__protorev_open       in-process claim (txn_list_lock) +
 *                                  fcntl lock on <txn>.rev-lock (TXN-13)
 *   svn_fs_fs__protorev_rep_begin  remember the file / index sizes
 *     svn_fs_fs__rep_writer_open   header line
 *   ... stream writes ...
 *   svn_fs_fs__protorev_rep_finish trailer, then
 *     svn_fs_fs__protorev_add_item itemidx, index.l2p, index.p2l records
 *   svn_fs_fs__protorev_rep_abort  (duplicate or error) cut all back
 *   svn_fs_fs__protorev_close      or clearing the handle's pool
 *
 * The handle is our own apr_file_t, not revfile.c's cache: that cache
 * assumes files that never change, and this one grows with every rep.
 * Item checksums are computed from the bytes read back from disk, so the
 * P2L records describe what is really there.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include <apr_portable.h>
#include <apr_strings.h>
#include "svn_pools.h"
#include "svn_dirent_uri.h"
#include "svn_io.h"
#include "private/svn_subr_private.h"
#include "private/svn_mutex.h"

#include "corrupt.h"
#include "index_codec.h"
#include "txn_store.h"

/* Lock bookkeeping of an open proto-revision file (protorev->priv). */
typedef struct protorev_lock_t
{
  svn_fs_fs__shared_t *shared;   /* NULL: no in-process bookkeeping */
  const char *name;              /* key in shared->locked_protorevs */
  svn_boolean_t claimed;         /* we own that key */
  apr_file_t *lock_file;         /* holds the fcntl lock while open */
  svn_boolean_t closed;

  /* While we hold the lock nobody else appends index records (TXN-13),
     so the proto index files stay open for appending (NULL: not yet). */
  apr_file_t *l2p;
  apr_file_t *p2l;

  /* Likewise nobody else takes item indexes: the next one, once read
     from "itemidx" (0: not read yet; real values are >= 1). */
  apr_uint64_t next_item;
  svn_boolean_t itemidx_exists;  /* "itemidx" is on disk (when known) */
  apr_size_t itemidx_len;        /* and its length in bytes */
} protorev_lock_t;

/* Forget what the handle keeps of the index files (after they were cut
   back or removed behind its back). */
static svn_error_t *
drop_index_state(protorev_lock_t *lock, apr_pool_t *pool)
{
  svn_error_t *err = SVN_NO_ERROR;

  if (lock->l2p)
    err = svn_io_file_close(lock->l2p, pool);
  if (lock->p2l)
    err = svn_error_compose_create(err, svn_io_file_close(lock->p2l, pool));
  lock->l2p = lock->p2l = NULL;
  return svn_error_trace(err);
}

/* The stock module's message for a proto-rev file that is busy. */
static svn_error_t *
being_written(const char *name, svn_boolean_t this_process)
{
  return svn_error_createf(SVN_ERR_FS_REP_BEING_WRITTEN, NULL,
                           "Cannot write to the prototype revision file of "
                           "transaction '%s' because a previous "
                           "representation is currently being written by "
                           "%s", name,
                           this_process ? "this process" : "another process");
}

/* Drop the in-process claim of LOCK (under txn_list_lock). */
static svn_error_t *
release_claim(protorev_lock_t *lock)
{
  if (!lock->claimed || !lock->shared)
    return SVN_NO_ERROR;
  lock->claimed = FALSE;
  SVN_ERR(svn_mutex__lock(lock->shared->txn_list_lock));
  apr_hash_set(lock->shared->locked_protorevs, lock->name,
               APR_HASH_KEY_STRING, NULL);
  return svn_error_trace(svn_mutex__unlock(lock->shared->txn_list_lock,
                                           SVN_NO_ERROR));
}

/* Pool cleanup: the handle's pool is going away. */
static apr_status_t
protorev_cleanup(void *baton)
{
  protorev_lock_t *lock = baton;

  /* The files themselves are closed by their own pool cleanups. */
  svn_error_clear(release_claim(lock));
  lock->closed = TRUE;
  return APR_SUCCESS;
}

/* Claim NAME in this process: error if another handle has it. */
static svn_error_t *
claim_in_process(protorev_lock_t *lock, void *value)
{
  svn_boolean_t busy = FALSE;
  svn_fs_fs__shared_t *shared = lock->shared;

  if (!shared || !shared->locked_protorevs)
    return SVN_NO_ERROR;
  SVN_ERR(svn_mutex__lock(shared->txn_list_lock));
  if (apr_hash_get(shared->locked_protorevs, lock->name, APR_HASH_KEY_STRING))
    busy = TRUE;
  else
    apr_hash_set(shared->locked_protorevs, lock->name, APR_HASH_KEY_STRING,
                 value);
  SVN_ERR(svn_mutex__unlock(shared->txn_list_lock, SVN_NO_ERROR));
  if (busy)
    return being_written(lock->name, TRUE);
  lock->claimed = TRUE;
  return SVN_NO_ERROR;
}

/* Take the fcntl lock on the lock file without waiting, then open the
   proto-revision file positioned at its end. */
static svn_error_t *
lock_and_open(svn_fs_fs__protorev_t *p, protorev_lock_t *lock,
              apr_pool_t *scratch_pool)
{
  apr_off_t end = 0;
  svn_error_t *err;

  SVN_ERR(svn_io_file_open(&lock->lock_file,
                           svn_fs_fs__txn_protorev_lock_path(p->fs,
                                                             &p->txn_id,
                                                             scratch_pool),
                           APR_READ | APR_WRITE | APR_CREATE, APR_OS_DEFAULT,
                           p->pool));
  /* The lock lives (and is released) with the handle's pool. */
  err = svn_io_lock_open_file(lock->lock_file, TRUE, TRUE, p->pool);
  if (err && APR_STATUS_IS_EAGAIN(err->apr_err))
    {
      svn_error_clear(err);
      return being_written(lock->name, FALSE);
    }
  SVN_ERR(err);
  SVN_ERR(svn_io_file_open(&p->file,
                           svn_fs_fs__txn_protorev_path(p->fs, &p->txn_id,
                                                        scratch_pool),
                           APR_READ | APR_WRITE | APR_BUFFERED,
                           APR_OS_DEFAULT, p->pool));
  return svn_error_trace(svn_io_file_seek(p->file, APR_END, &end,
                                          scratch_pool));
}

svn_error_t *
svn_fs_fs__protorev_open(svn_fs_fs__protorev_t **protorev, svn_fs_t *fs,
                         const svn_fs_fs__txn_id_t *txn_id,
                         apr_pool_t *result_pool, apr_pool_t *scratch_pool)
{
  apr_pool_t *pool = svn_pool_create(result_pool);
  svn_fs_fs__protorev_t *p = apr_pcalloc(pool, sizeof(*p));
  protorev_lock_t *lock = apr_pcalloc(pool, sizeof(*lock));
  svn_error_t *err;

  p->fs = fs;
  p->txn_id = *txn_id;
  p->pool = pool;
  p->priv = lock;
  lock->shared = SVN_FS_FS__DATA(fs)->shared;
  lock->name = svn_fs_fs__txn_name(txn_id, pool);
  SVN_ERR(svn_fs_fs__txn_check_exists(fs, txn_id, scratch_pool));
  err = claim_in_process(lock, p);
  if (err)
    {
      svn_pool_destroy(pool);
      return svn_error_trace(err);
    }
  /* Registered after the claim: runs before the pool's memory (and the
     key string) is freed. */
  apr_pool_cleanup_register(pool, lock, protorev_cleanup,
                            apr_pool_cleanup_null);
  err = lock_and_open(p, lock, scratch_pool);
  if (err)
    {
      svn_pool_destroy(pool);
      return svn_error_trace(err);
    }
  *protorev = p;
  return SVN_NO_ERROR;
}

svn_error_t *
svn_fs_fs__protorev_close(svn_fs_fs__protorev_t *protorev)
{
  protorev_lock_t *lock = protorev->priv;
  svn_error_t *err = SVN_NO_ERROR;

  if (lock->closed)
    return SVN_NO_ERROR;
  if (protorev->file)
    err = svn_io_file_close(protorev->file, protorev->pool);
  protorev->file = NULL;
  err = svn_error_compose_create(err, drop_index_state(lock,
                                                       protorev->pool));
  /* Unlocking also drops the pool cleanup svn_io_lock_open_file set. */
  if (lock->lock_file)
    {
      err = svn_error_compose_create(
              err, svn_io_unlock_open_file(lock->lock_file, protorev->pool));
      err = svn_error_compose_create(
              err, svn_io_file_close(lock->lock_file, protorev->pool));
    }
  lock->lock_file = NULL;
  err = svn_error_compose_create(err, release_claim(lock));
  lock->closed = TRUE;
  return svn_error_trace(err);
}

svn_error_t *
svn_fs_fs__protorev_offset(apr_off_t *offset, svn_fs_fs__protorev_t *protorev,
                           apr_pool_t *scratch_pool)
{
  return svn_error_trace(svn_io_file_get_offset(offset, protorev->file,
                                                scratch_pool));
}

svn_error_t *
svn_fs_fs__protorev_truncate(svn_fs_fs__protorev_t *protorev,
                             apr_off_t offset, apr_pool_t *scratch_pool)
{
  apr_off_t at = offset;

  SVN_ERR(svn_io_file_flush(protorev->file, scratch_pool));
  SVN_ERR(svn_io_file_trunc(protorev->file, offset, scratch_pool));
  return svn_error_trace(svn_io_file_seek(protorev->file, APR_SET, &at,
                                          scratch_pool));
}

/* ------------------------------------------------------------------ */
/* Items and proto indexes                                             */

svn_error_t *
svn_fs_fs__txn_itemidx_parse(apr_uint64_t *next_item, const char *data,
                             apr_size_t len, const char *where)
{
  apr_uint64_t v = 0;
  apr_size_t i;

  if (len == 0 || len > 19)
    return svn_fs_fs__corrupt("TXN-4", where, "Invalid itemidx contents");
  for (i = 0; i < len; i++)
    {
      if (data[i] < '0' || data[i] > '9')
        return svn_fs_fs__corrupt("TXN-4", where,
                                  "Invalid itemidx contents");
      v = v * 10 + (apr_uint64_t)(data[i] - '0');
    }
  if (v < SVN_FS_FS__ITEM_INDEX_FIRST_USER)
    return svn_fs_fs__corrupt("TXN-4", where, "itemidx %" APR_UINT64_T_FMT
                              " is below the first user item", v);
  *next_item = v;
  return SVN_NO_ERROR;
}

/* Read the next user item index of PROTOREV's transaction from
   "itemidx" into the handle, unless it is there already. */
static svn_error_t *
load_item_index(svn_fs_fs__protorev_t *protorev, apr_pool_t *scratch_pool)
{
  protorev_lock_t *lock = protorev->priv;
  const char *path;
  svn_stringbuf_t *text;

  if (lock->next_item)
    return SVN_NO_ERROR;
  path = svn_fs_fs__txn_path(protorev->fs, &protorev->txn_id, "itemidx",
                             scratch_pool);
  SVN_ERR(svn_fs_fs__txn_file_read(&text, path, scratch_pool));
  if (text)
    SVN_ERR(svn_fs_fs__txn_itemidx_parse(&lock->next_item, text->data,
                                         text->len, path));
  else
    lock->next_item = SVN_FS_FS__ITEM_INDEX_FIRST_USER;
  lock->itemidx_exists = (text != NULL);
  lock->itemidx_len = text ? text->len : 0;
  return SVN_NO_ERROR;
}

/* Take the next user item index of PROTOREV's transaction.  "itemidx" is
   read once per handle (the proto-rev lock keeps everybody else from
   taking indexes, TXN-13) but still rewritten every time, so that the
   next holder, maybe the stock module, continues from it. */
static svn_error_t *
take_item_index(apr_uint64_t *item, svn_fs_fs__protorev_t *protorev,
                apr_pool_t *scratch_pool)
{
  protorev_lock_t *lock = protorev->priv;
  const char *next;

  SVN_ERR(load_item_index(protorev, scratch_pool));
  *item = lock->next_item;
  next = apr_psprintf(scratch_pool, "%" APR_UINT64_T_FMT, *item + 1);
  SVN_ERR(svn_fs_fs__txn_file_overwrite(
            svn_fs_fs__txn_path(protorev->fs, &protorev->txn_id, "itemidx",
                                scratch_pool),
            next, strlen(next), lock->itemidx_len, scratch_pool));
  lock->next_item = *item + 1;
  lock->itemidx_exists = TRUE;
  lock->itemidx_len = strlen(next);
  return SVN_NO_ERROR;
}

svn_error_t *
svn_fs_fs__protorev_reserve_item(apr_uint64_t *item_index,
                                 svn_fs_fs__protorev_t *protorev,
                                 apr_pool_t *scratch_pool)
{
  return svn_error_trace(take_item_index(item_index, protorev,
                                         scratch_pool));
}

/* Append the LEN bytes at DATA to proto index NAME of PROTOREV through
   the handle kept in *FILE (opened on first use, in the handle's pool). */
static svn_error_t *
append_index(apr_file_t **file, svn_fs_fs__protorev_t *protorev,
             const char *name, const void *data, apr_size_t len,
             apr_pool_t *scratch_pool)
{
  if (*file == NULL)
    {
      const char *path = svn_fs_fs__txn_path(protorev->fs, &protorev->txn_id,
                                             name, scratch_pool);

      SVN_ERR(svn_fs_fs__txn_file_prepare(path, scratch_pool));
      SVN_ERR(svn_io_file_open(file, path,
                               APR_WRITE | APR_APPEND | APR_CREATE,
                               APR_OS_DEFAULT, protorev->pool));
    }
  return svn_error_trace(svn_io_file_write_full(*file, data, len, NULL,
                                                scratch_pool));
}


/* Read N bytes at offset AT of the descriptor FD into BUF; a short file
   is an error (the item was just written there). */
static svn_error_t *
pread_full(int fd, char *buf, apr_size_t n, apr_off_t at,
           svn_fs_fs__protorev_t *protorev, apr_pool_t *scratch_pool)
{
  const char *path;

  while (n > 0)
    {
      ssize_t got = pread(fd, buf, n, (off_t)at);
      int error = errno;

      if (got < 0 && error == EINTR)
        continue;
      if (got > 0)
        {
          buf += got;
          n -= (apr_size_t)got;
          at += got;
          continue;
        }
      path = svn_fs_fs__txn_protorev_path(protorev->fs, &protorev->txn_id,
                                          scratch_pool);
      if (got < 0)
        return svn_error_wrap_apr(APR_FROM_OS_ERROR(error),
                                  "Can't read file '%s'",
                                  svn_dirent_local_style(path,
                                                         scratch_pool));
      return svn_error_createf(SVN_ERR_STREAM_UNEXPECTED_EOF, NULL,
                               "Unexpected end of file '%s'",
                               svn_dirent_local_style(path, scratch_pool));
    }
  return SVN_NO_ERROR;
}

/* Modified FNV-1a (P2L-7) of [OFFSET, OFFSET+SIZE) of PROTOREV, read
   back from disk.  Read with pread through the handle's own descriptor
   (after flushing its buffer): opening the file again per item cost an
   open, a seek and a close each time, and pread leaves the handle's
   position alone. */
static svn_error_t *
item_checksum(apr_uint32_t *fnv, svn_fs_fs__protorev_t *protorev,
              apr_off_t offset, apr_off_t size, apr_pool_t *scratch_pool)
{
  apr_os_file_t fd;
  apr_status_t status;
  svn_stream_t *sum = svn_checksum__wrap_write_stream_fnv1a_32x4(
                        fnv, svn_stream_empty(scratch_pool), scratch_pool);
  apr_size_t chunk = size < 64 * 1024 ? (apr_size_t)size : 64 * 1024;
  char *buf = apr_palloc(scratch_pool, chunk + 1);

  SVN_ERR(svn_io_file_flush(protorev->file, scratch_pool));
  status = apr_os_file_get(&fd, protorev->file);
  if (status)
    return svn_error_wrap_apr(status, "Can't get the descriptor of the "
                              "proto-revision file");
  while (size > 0)
    {
      apr_size_t n = size < (apr_off_t)chunk ? (apr_size_t)size : chunk;

      SVN_ERR(pread_full(fd, buf, n, offset, protorev, scratch_pool));
      SVN_ERR(svn_stream_write(sum, buf, &n));
      size -= (apr_off_t)n;
      offset += (apr_off_t)n;
    }
  return svn_error_trace(svn_stream_close(sum));
}

svn_error_t *
svn_fs_fs__protorev_add_item(apr_uint64_t *item_index,
                             svn_fs_fs__protorev_t *protorev,
                             apr_off_t offset, apr_off_t size,
                             svn_fs_fs__item_type_t type,
                             apr_uint64_t want_index,
                             apr_pool_t *scratch_pool)
{
  svn_fs_t *fs = protorev->fs;
  protorev_lock_t *lock = protorev->priv;
  svn_fs_fs__p2l_entry_t entry;
  unsigned char l2p[SVN_FS_FS__PROTO_L2P_RECORD];
  unsigned char p2l[SVN_FS_FS__PROTO_P2L_RECORD];

  if (!svn_fs_fs__use_log_addressing(fs))
    {
      *item_index = (apr_uint64_t)offset;
      return SVN_NO_ERROR;
    }
  if (want_index != SVN_FS_FS__ITEM_INDEX_UNUSED)
    *item_index = want_index;
  else
    SVN_ERR(take_item_index(item_index, protorev, scratch_pool));
  entry.offset = offset;
  entry.size = size;
  entry.type = type;
  entry.revision = SVN_INVALID_REVNUM;
  entry.item_index = *item_index;
  SVN_ERR(item_checksum(&entry.fnv1_checksum, protorev, offset, size,
                        scratch_pool));
  svn_fs_fs__proto_l2p_unparse(l2p, offset, *item_index);
  svn_fs_fs__proto_p2l_unparse(p2l, &entry);
  SVN_ERR(append_index(&lock->l2p, protorev, "index.l2p", l2p, sizeof(l2p),
                       scratch_pool));
  return svn_error_trace(append_index(&lock->p2l, protorev, "index.p2l",
                                      p2l, sizeof(p2l), scratch_pool));
}

/* Records of a proto-P2L file read at a time (about 64 kB). */
#define P2L_READ_RECORDS 1365

/* Open proto index NAME of TXN_ID into *FILE (NULL when it is missing),
   named *PATH, and set *SIZE to its size. */
static svn_error_t *
open_proto_index(apr_file_t **file, apr_off_t *size, const char **path,
                 svn_fs_t *fs, const svn_fs_fs__txn_id_t *txn_id,
                 const char *name, apr_pool_t *scratch_pool)
{
  apr_finfo_t finfo;
  svn_error_t *err;

  *path = svn_fs_fs__txn_path(fs, txn_id, name, scratch_pool);
  err = svn_io_file_open(file, *path, APR_READ, APR_OS_DEFAULT,
                         scratch_pool);

  if (err && APR_STATUS_IS_ENOENT(err->apr_err))
    {
      svn_error_clear(err);
      *file = NULL;
      *size = 0;
      return SVN_NO_ERROR;
    }
  SVN_ERR(err);
  SVN_ERR(svn_io_file_info_get(&finfo, APR_FINFO_SIZE, *file, scratch_pool));
  *size = finfo.size;
  return SVN_NO_ERROR;
}

/* What read_in_chunks hands each piece to: the LEN bytes at DATA, which
   start at offset DONE of the file. */
typedef svn_error_t *(*chunk_parser_t)(void *baton, const unsigned char *data,
                                       apr_size_t len, apr_size_t done);

/* Feed FILE to PARSER (with BATON) CHUNK bytes at a time, then close
   it. */
static svn_error_t *
read_in_chunks(apr_file_t *file, apr_size_t chunk, chunk_parser_t parser,
               void *baton, apr_pool_t *scratch_pool)
{
  unsigned char *buf = apr_palloc(scratch_pool, chunk);
  svn_boolean_t eof = FALSE;
  apr_size_t done = 0;
  svn_error_t *err = SVN_NO_ERROR;

  while (!eof && !err)
    {
      apr_size_t got;

      err = svn_io_file_read_full2(file, buf, chunk, &got, &eof,
                                   scratch_pool);
      if (!err)
        err = parser(baton, buf, got, done);
      done += got;
    }
  return svn_error_compose_create(err, svn_io_file_close(file,
                                                         scratch_pool));
}

/* Parsing state of the two proto index readers below. */
typedef struct proto_parse_t
{
  apr_array_header_t *result;
  const char *path;
  apr_size_t size;
  apr_pool_t *result_pool;
} proto_parse_t;

static svn_error_t *
parse_p2l_chunk(void *baton, const unsigned char *data, apr_size_t len,
                apr_size_t done)
{
  proto_parse_t *p = baton;

  return svn_error_trace(svn_fs_fs__proto_p2l_parse_more(p->result, data,
                                                         len, p->path));
}

static svn_error_t *
parse_l2p_chunk(void *baton, const unsigned char *data, apr_size_t len,
                apr_size_t done)
{
  proto_parse_t *p = baton;

  return svn_error_trace(svn_fs_fs__proto_l2p_parse_more(
                           p->result, done, data, len, p->size, p->path,
                           p->result_pool));
}

/* The proto-P2L entries of TXN_ID (none when the file is missing), read
   a chunk at a time into an array sized once from the file, with room
   for two more entries (the gaps svn_fs_fs__txn_proto_indexes' callers
   add).  The file of a 12,805-file commit is 1.5 MB: read whole, it sat
   beside its parsed entries, and the array grown by doubling left its
   smaller copies behind. */
static svn_error_t *
read_proto_p2l(apr_array_header_t **entries, svn_fs_t *fs,
               const svn_fs_fs__txn_id_t *txn_id, apr_pool_t *result_pool,
               apr_pool_t *scratch_pool)
{
  proto_parse_t p;
  apr_file_t *file;
  apr_off_t size;

  SVN_ERR(open_proto_index(&file, &size, &p.path, fs, txn_id, "index.p2l",
                           scratch_pool));
  p.result = apr_array_make(result_pool,
                            (int)(size / SVN_FS_FS__PROTO_P2L_RECORD) + 2,
                            sizeof(svn_fs_fs__p2l_entry_t));
  if (file)
    SVN_ERR(read_in_chunks(file,
                           P2L_READ_RECORDS * SVN_FS_FS__PROTO_P2L_RECORD,
                           parse_p2l_chunk, &p, scratch_pool));
  *entries = p.result;
  return SVN_NO_ERROR;
}

/* The proto-L2P index of TXN_ID as svn_fs_fs__proto_l2p_parse gives it
   (one empty revision when the file is missing), read 64 kB at a time;
   the first revision's item array is sized once from the file (item
   numbers are dense), where one grown item by item left its smaller
   copies behind: with the file read whole, 0.9 MB for a 12,805-file
   commit. */
static svn_error_t *
read_proto_l2p(apr_array_header_t **revisions, svn_fs_t *fs,
               const svn_fs_fs__txn_id_t *txn_id, apr_pool_t *result_pool,
               apr_pool_t *scratch_pool)
{
  proto_parse_t p;
  apr_file_t *file;
  apr_off_t size;

  p.result_pool = result_pool;
  SVN_ERR(open_proto_index(&file, &size, &p.path, fs, txn_id, "index.l2p",
                           scratch_pool));
  p.size = (apr_size_t)size;
  p.result = apr_array_make(result_pool, 1, sizeof(apr_array_header_t *));
  APR_ARRAY_PUSH(p.result, apr_array_header_t *)
    = apr_array_make(result_pool,
                     (int)(size / SVN_FS_FS__PROTO_L2P_RECORD) + 1,
                     sizeof(apr_off_t));
  if (file)
    SVN_ERR(read_in_chunks(file, 4096 * SVN_FS_FS__PROTO_L2P_RECORD,
                           parse_l2p_chunk, &p, scratch_pool));
  *revisions = p.result;
  return SVN_NO_ERROR;
}

/* Keep in L2P only the items that have an entry in P2L (whose entries
   all end within the file): an L2P record whose item was cut off with
   the end of the file (a crash between append and truncate) goes. */
static void
drop_unbacked_items(apr_array_header_t *l2p, const apr_array_header_t *p2l,
                    apr_pool_t *scratch_pool)
{
  svn_boolean_t *backed = apr_pcalloc(scratch_pool,
                                      sizeof(*backed) * (l2p->nelts + 1));
  int i;

  for (i = 0; i < p2l->nelts; i++)
    {
      apr_uint64_t item = APR_ARRAY_IDX(p2l, i, svn_fs_fs__p2l_entry_t)
                            .item_index;
      if (item < (apr_uint64_t)l2p->nelts)
        backed[item] = TRUE;
    }
  for (i = 0; i < l2p->nelts; i++)
    if (!backed[i])
      APR_ARRAY_IDX(l2p, i, apr_off_t) = -1;
}

svn_error_t *
svn_fs_fs__txn_proto_indexes(apr_array_header_t **l2p,
                             apr_array_header_t **p2l, svn_fs_t *fs,
                             const svn_fs_fs__txn_id_t *txn_id,
                             apr_off_t file_size, apr_pool_t *result_pool,
                             apr_pool_t *scratch_pool)
{
  apr_array_header_t *revs, *entries;
  int i;

  SVN_ERR(read_proto_p2l(&entries, fs, txn_id, result_pool, scratch_pool));
  /* Entries are in offset order: keep the prefix that fits (TXN-12). */
  for (i = 0; i < entries->nelts; i++)
    {
      const svn_fs_fs__p2l_entry_t *e
        = &APR_ARRAY_IDX(entries, i, svn_fs_fs__p2l_entry_t);
      if (e->offset + e->size > file_size)
        break;
    }
  entries->nelts = i;
  *p2l = entries;

  SVN_ERR(read_proto_l2p(&revs, fs, txn_id, result_pool, scratch_pool));
  *l2p = APR_ARRAY_IDX(revs, 0, apr_array_header_t *);
  drop_unbacked_items(*l2p, entries, scratch_pool);
  return SVN_NO_ERROR;
}

svn_error_t *
svn_fs_fs__txn_item_offset(apr_off_t *offset, svn_fs_t *fs,
                           const svn_fs_fs__txn_id_t *txn_id,
                           apr_uint64_t item_index,
                           apr_pool_t *scratch_pool)
{
  apr_array_header_t *revs, *items;

  if (!svn_fs_fs__use_log_addressing(fs))
    {
      *offset = (apr_off_t)item_index;
      return SVN_NO_ERROR;
    }
  SVN_ERR(read_proto_l2p(&revs, fs, txn_id, scratch_pool, scratch_pool));
  items = APR_ARRAY_IDX(revs, 0, apr_array_header_t *);
  if (item_index >= (apr_uint64_t)items->nelts
      || APR_ARRAY_IDX(items, item_index, apr_off_t) < 0)
    return svn_fs_fs__corrupt_code(SVN_ERR_FS_INDEX_OVERFLOW, "TXN-12",
             svn_fs_fs__txn_path(fs, txn_id, "index.l2p", scratch_pool),
             "Item index %" APR_UINT64_T_FMT " not found in the proto-L2P "
             "index of transaction '%s'", item_index,
             svn_fs_fs__txn_name(txn_id, scratch_pool));
  *offset = APR_ARRAY_IDX(items, item_index, apr_off_t);
  return SVN_NO_ERROR;
}

/* ------------------------------------------------------------------ */
/* Representations                                                     */

struct svn_fs_fs__protorev_rep_t
{
  svn_fs_fs__protorev_t *protorev;
  svn_fs_fs__rep_writer_t *writer;
  apr_off_t start;                 /* of the rep in the proto-rev file */

  /* What rep_abort restores after a finished rep (-1 / NULL: absent). */
  apr_off_t l2p_size, p2l_size;
  svn_stringbuf_t *itemidx;
  svn_boolean_t finished;
  apr_pool_t *pool;
};

/* Size of PATH, -1 if it does not exist. */
static svn_error_t *
size_or_missing(apr_off_t *size, const char *path, apr_pool_t *pool)
{
  apr_finfo_t finfo;
  svn_error_t *err = svn_io_stat(&finfo, path, APR_FINFO_SIZE, pool);

  if (err && APR_STATUS_IS_ENOENT(err->apr_err))
    {
      svn_error_clear(err);
      *size = -1;
      return SVN_NO_ERROR;
    }
  SVN_ERR(err);
  *size = finfo.size;
  return SVN_NO_ERROR;
}

/* Remember the proto index state so that rep_abort can restore it. */
static svn_error_t *
save_index_state(svn_fs_fs__protorev_rep_t *w, apr_pool_t *scratch_pool)
{
  svn_fs_t *fs = w->protorev->fs;
  const svn_fs_fs__txn_id_t *txn_id = &w->protorev->txn_id;
  protorev_lock_t *lock = w->protorev->priv;

  if (!svn_fs_fs__use_log_addressing(fs))
    return SVN_NO_ERROR;
  SVN_ERR(size_or_missing(&w->l2p_size, svn_fs_fs__txn_path(
                            fs, txn_id, "index.l2p", scratch_pool),
                          scratch_pool));
  SVN_ERR(size_or_missing(&w->p2l_size, svn_fs_fs__txn_path(
                            fs, txn_id, "index.p2l", scratch_pool),
                          scratch_pool));
  SVN_ERR(load_item_index(w->protorev, scratch_pool));
  if (lock->itemidx_exists)
    w->itemidx = svn_stringbuf_createf(w->pool, "%" APR_UINT64_T_FMT,
                                       lock->next_item);
  return SVN_NO_ERROR;
}

svn_error_t *
svn_fs_fs__protorev_rep_begin(svn_fs_fs__protorev_rep_t **rep_writer,
                              svn_stream_t **stream,
                              svn_fs_fs__protorev_t *protorev,
                              const svn_fs_fs__rep_write_base_t *base,
                              const svn_fs_fs__rep_write_options_t *options,
                              apr_pool_t *result_pool,
                              apr_pool_t *scratch_pool)
{
  svn_fs_fs__protorev_rep_t *w = apr_pcalloc(result_pool, sizeof(*w));
  svn_error_t *err;

  w->protorev = protorev;
  w->pool = result_pool;
  w->l2p_size = w->p2l_size = -1;
  SVN_ERR(svn_fs_fs__protorev_offset(&w->start, protorev, scratch_pool));
  SVN_ERR(save_index_state(w, scratch_pool));
  err = svn_fs_fs__rep_writer_open(&w->writer, protorev->file, base, options,
                                   svn_fs_fs__rep_write_space_get(
                                     protorev->fs),
                                   result_pool, scratch_pool);
  if (err)
    return svn_error_compose_create(
             err, svn_fs_fs__protorev_truncate(protorev, w->start,
                                               scratch_pool));
  *stream = svn_fs_fs__rep_writer_stream(w->writer, result_pool);
  *rep_writer = w;
  return SVN_NO_ERROR;
}

/* Restore proto index PATH to SIZE bytes (-1: remove it). */
static svn_error_t *
restore_size(const char *path, apr_off_t size, apr_pool_t *pool)
{
  apr_file_t *file;

  if (size < 0)
    return svn_error_trace(svn_io_remove_file2(path, TRUE, pool));
  SVN_ERR(svn_io_file_open(&file, path, APR_WRITE, APR_OS_DEFAULT, pool));
  SVN_ERR(svn_io_file_trunc(file, size, pool));
  return svn_error_trace(svn_io_file_close(file, pool));
}

svn_error_t *
svn_fs_fs__protorev_rep_abort(svn_fs_fs__protorev_rep_t *rep_writer,
                              apr_pool_t *scratch_pool)
{
  svn_fs_fs__protorev_t *p = rep_writer->protorev;
  const char *itemidx;

  SVN_ERR(svn_fs_fs__protorev_truncate(p, rep_writer->start, scratch_pool));
  if (!rep_writer->finished || !svn_fs_fs__use_log_addressing(p->fs))
    return SVN_NO_ERROR;
  rep_writer->finished = FALSE;
  SVN_ERR(drop_index_state(p->priv, scratch_pool));
  /* Read "itemidx" again after restoring it below (a rare path). */
  ((protorev_lock_t *)p->priv)->next_item = 0;
  SVN_ERR(restore_size(svn_fs_fs__txn_path(p->fs, &p->txn_id, "index.l2p",
                                           scratch_pool),
                       rep_writer->l2p_size, scratch_pool));
  SVN_ERR(restore_size(svn_fs_fs__txn_path(p->fs, &p->txn_id, "index.p2l",
                                           scratch_pool),
                       rep_writer->p2l_size, scratch_pool));
  itemidx = svn_fs_fs__txn_path(p->fs, &p->txn_id, "itemidx", scratch_pool);
  if (!rep_writer->itemidx)
    return svn_error_trace(svn_io_remove_file2(itemidx, TRUE, scratch_pool));
  return svn_error_trace(svn_fs_fs__txn_file_write(
           itemidx, rep_writer->itemidx->data, rep_writer->itemidx->len,
           FALSE, scratch_pool));
}

/* rep_finish after the writer succeeded: register and describe. */
static svn_error_t *
describe_rep(svn_fs_fs__rep_t **rep, svn_fs_fs__protorev_rep_t *w,
             const svn_fs_fs__rep_write_result_t *result,
             svn_fs_fs__item_type_t type, apr_pool_t *result_pool,
             apr_pool_t *scratch_pool)
{
  svn_fs_fs__protorev_t *p = w->protorev;
  svn_fs_fs__rep_t *r = apr_pcalloc(result_pool, sizeof(*r));

  w->finished = TRUE;
  SVN_ERR(svn_fs_fs__protorev_add_item(&r->item_index, p, result->offset,
                                       result->total_len, type,
                                       SVN_FS_FS__ITEM_INDEX_UNUSED,
                                       scratch_pool));
  svn_fs_fs__rep_write_result_to_rep(r, result);
  r->revision = SVN_INVALID_REVNUM;
  r->has_sha1 = TRUE;
  r->in_txn = TRUE;
  r->txn_id = p->txn_id;
  SVN_ERR(svn_fs_fs__txn_new_uniquifier(&r->uniquifier, p->fs, &p->txn_id,
                                        result_pool, scratch_pool));
  *rep = r;
  return SVN_NO_ERROR;
}

svn_error_t *
svn_fs_fs__protorev_rep_finish(svn_fs_fs__rep_t **rep,
                               svn_fs_fs__protorev_rep_t *rep_writer,
                               svn_fs_fs__item_type_t type,
                               apr_pool_t *result_pool,
                               apr_pool_t *scratch_pool)
{
  svn_fs_fs__rep_write_result_t result;
  svn_error_t *err;

  err = svn_fs_fs__rep_writer_finish(&result, rep_writer->writer,
                                     scratch_pool);
  if (!err)
    err = describe_rep(rep, rep_writer, &result, type, result_pool,
                       scratch_pool);
  if (err)
    return svn_error_compose_create(
             err, svn_fs_fs__protorev_rep_abort(rep_writer, scratch_pool));
  return SVN_NO_ERROR;
}

svn_error_t *
svn_fs_fs__protorev_write_rep(svn_fs_fs__rep_t **rep,
                              svn_fs_fs__protorev_t *protorev,
                              svn_stream_t *contents,
                              const svn_fs_fs__rep_write_base_t *base,
                              const svn_fs_fs__rep_write_options_t *options,
                              svn_fs_fs__item_type_t type,
                              apr_pool_t *result_pool,
                              apr_pool_t *scratch_pool)
{
  svn_fs_fs__protorev_rep_t *w;
  svn_stream_t *stream;
  svn_error_t *err;

  SVN_ERR(svn_fs_fs__protorev_rep_begin(&w, &stream, protorev, base, options,
                                        scratch_pool, scratch_pool));
  err = svn_stream_copy3(svn_stream_disown(contents, scratch_pool),
                         svn_stream_disown(stream, scratch_pool),
                         NULL, NULL, scratch_pool);
  if (err)
    return svn_error_compose_create(
             err, svn_fs_fs__protorev_rep_abort(w, scratch_pool));
  return svn_error_trace(svn_fs_fs__protorev_rep_finish(rep, w, type,
                                                        result_pool,
                                                        scratch_pool));
}
