/* pack.c --- 'svnadmin pack' (pack.h; doc/format/pack.md PACK-*).
 *
 *   svn_fs_fs__pack
 *     (pack lock, or write lock on format 6)
 *     remove_leftovers       unpacked copies of packed shards (PACK-6)
 *     pack_shard             for each complete shard past min-unpacked-rev
 *       write_physical_pack  revs/S.pack/{pack,manifest}     PACK-2
 *       write_logical_pack   revs/S.pack/pack with indexes   PACK-3
 *         read_rev_items       each revision's P2L, its L2P item count,
 *                              node-revs, rep headers
 *         svn_fs_fs__pack_order
 *         copy_items           item by item, checksums verified
 *       (write lock) finish_shard
 *         revprops/S.pack    unless already packed           PACK-4
 *         min-unpacked-rev   atomic, durable                 PACK-5
 *         remove revs/S, plain revprops                      PACK-6
 *           (handed to a thread, pack_remove.h, while the next shard is
 *            packed; the pack returns once they are gone)
 *
 * Crash states (PACK-7): before min-unpacked-rev moves, readers use the
 * unpacked files and ignore any half-written .pack directory, which the
 * next pack replaces; after it moves, the pack files are already on disk
 * (fsynced), and leftover unpacked files are merely unused.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <apr_strings.h>
#include <apr_portable.h>

#include "svn_dirent_uri.h"
#include "svn_io.h"
#include "svn_pools.h"
#include "svn_checksum.h"
#include "private/svn_subr_private.h"

#include "corrupt.h"
#include "footer.h"
#include "index_codec.h"
#include "noderev_codec.h"
#include "pack.h"
#include "pack_order.h"
#include "pack_remove.h"
#include "paths.h"
#include "rep_header.h"
#include "repo.h"
#include "revprops.h"

/* Bytes copied per read when whole files or large items are moved. */
#define COPY_CHUNK (256 * 1024)

/* Buffer of the pack files we write. */
#define WRITE_BUFFER (256 * 1024)

/* Revision files kept open while items are copied out of order. */
#define OPEN_SOURCES 16

/* Revision files are read whole, once, and their items copied from
   memory while the shard's kept bytes stay within this budget (most
   shards: the item order jumps between revisions, and re-reading each
   item from its file cost ~16 opens and ~75 preads per revision on
   maven).  Beyond it, items are read from the files one by one. */
#define KEEP_BUDGET (16 * 1024 * 1024)

typedef struct pack_ctx_t
{
  svn_fs_t *fs;
  svn_fs_fs__data_t *ffd;
  svn_fs_pack_notify_t notify_func;
  void *notify_baton;
  svn_cancel_func_t cancel_func;
  void *cancel_baton;
  svn_revnum_t shard;              /* being packed */
  apr_uint64_t kept;               /* bytes of the shard held in memory */
  apr_uint64_t keep_budget;        /* KEEP_BUDGET, or FSFS7_PACK_KEEP */
  int items_hint;                  /* items of the last shard packed */

  /* Where the kept bytes go: KEEP_BUDGET bytes allocated once per pack
     and reused by every shard.  One pool allocation per revision file
     cost an mmap and a munmap each (APR maps every allocator node) plus
     fresh pages for every shard; 12,000 of each on maven. */
  char *arena;
  apr_pool_t *arena_pool;
  svn_fs_fs__remover_t *remover;   /* PACK-6, in the background */
} pack_ctx_t;

/* A revision file open for reading items (logical packs). */
typedef struct source_t
{
  svn_revnum_t revision;
  apr_file_t *file;
  apr_pool_t *pool;
} source_t;

/* ------------------------------------------------------------------ */
/* Small file helpers                                                  */

static svn_error_t *
check_cancel(pack_ctx_t *ctx)
{
  return ctx->cancel_func ? ctx->cancel_func(ctx->cancel_baton)
                          : SVN_NO_ERROR;
}

static svn_error_t *
notify(pack_ctx_t *ctx, apr_int64_t shard, svn_fs_pack_notify_action_t action,
       apr_pool_t *scratch_pool)
{
  return ctx->notify_func
         ? ctx->notify_func(ctx->notify_baton, shard, action, scratch_pool)
         : SVN_NO_ERROR;
}

/* fsync PATH (a file or a directory). */
static svn_error_t *
sync_path(const char *path, apr_pool_t *scratch_pool)
{
  apr_file_t *file;

  SVN_ERR(svn_io_file_open(&file, path, APR_READ, APR_OS_DEFAULT,
                           scratch_pool));
  SVN_ERR(svn_io_file_flush_to_disk(file, scratch_pool));
  return svn_error_trace(svn_io_file_close(file, scratch_pool));
}

/* Read exactly LEN bytes at OFFSET of FILE into BUF. */
static svn_error_t *
read_at(char *buf, apr_size_t len, apr_file_t *file, apr_off_t offset,
        const char *where)
{
  apr_os_file_t fd;
  apr_size_t done = 0;

  apr_os_file_get(&fd, file);
  while (done < len)
    {
      ssize_t n = pread(fd, buf + done, len - done, offset + done);

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        return svn_error_wrap_apr(apr_get_os_error(), "Can't read '%s'",
                                  where);
      if (n == 0)
        return svn_fs_fs__corrupt("PACK-3", where,
                                  "File ends before offset %" APR_OFF_T_FMT,
                                  offset + (apr_off_t)len);
      done += (apr_size_t)n;
    }
  return SVN_NO_ERROR;
}

static svn_error_t *
file_size(apr_off_t *size, apr_file_t *file, apr_pool_t *scratch_pool)
{
  apr_finfo_t finfo;

  SVN_ERR(svn_io_file_info_get(&finfo, APR_FINFO_SIZE, file, scratch_pool));
  *size = finfo.size;
  return SVN_NO_ERROR;
}

/* A new file for writing at PATH (an existing one is an error: the
   shard's .pack directory was emptied before). */
static svn_error_t *
create_file(apr_file_t **file, const char *path, apr_pool_t *result_pool)
{
  SVN_ERR(svn_io_file_open(file, path,
                           APR_WRITE | APR_CREATE | APR_EXCL | APR_BUFFERED,
                           APR_OS_DEFAULT, result_pool));
  /* APR's 4 kB buffer made a pack of maven 29,000 write calls. */
  apr_file_buffer_set(*file, apr_palloc(result_pool, WRITE_BUFFER),
                      WRITE_BUFFER);
  return SVN_NO_ERROR;
}

/* Flush FILE (at PATH) to disk, close it and make it read-only. */
static svn_error_t *
seal_file(apr_file_t *file, const char *path, apr_pool_t *scratch_pool)
{
  SVN_ERR(svn_io_file_flush_to_disk(file, scratch_pool));
  SVN_ERR(svn_io_file_close(file, scratch_pool));
  return svn_error_trace(svn_io_set_file_read_only(path, FALSE,
                                                   scratch_pool));
}

/* Append the whole file at SRC_PATH to DST; *SIZE gets its length. */
static svn_error_t *
append_file(apr_off_t *size, apr_file_t *dst, const char *src_path,
            char *buf, apr_pool_t *scratch_pool)
{
  apr_file_t *src;
  svn_boolean_t eof = FALSE;

  *size = 0;
  SVN_ERR(svn_io_file_open(&src, src_path, APR_READ, APR_OS_DEFAULT,
                           scratch_pool));
  while (!eof)
    {
      apr_size_t n;

      SVN_ERR(svn_io_file_read_full2(src, buf, COPY_CHUNK, &n, &eof,
                                     scratch_pool));
      SVN_ERR(svn_io_file_write_full(dst, buf, n, NULL, scratch_pool));
      *size += (apr_off_t)n;
    }
  return svn_error_trace(svn_io_file_close(src, scratch_pool));
}

/* ------------------------------------------------------------------ */
/* Physical addressing: concatenation plus manifest (PACK-2)           */

static svn_error_t *
write_physical_pack(pack_ctx_t *ctx, svn_revnum_t start,
                    apr_pool_t *scratch_pool)
{
  const char *pack_path = svn_fs_fs__path_rev_packed(ctx->fs, start, "pack",
                                                     scratch_pool);
  const char *manifest_path = svn_fs_fs__path_rev_packed(
                                ctx->fs, start, "manifest", scratch_pool);
  svn_stringbuf_t *manifest = svn_stringbuf_create_empty(scratch_pool);
  apr_pool_t *iterpool = svn_pool_create(scratch_pool);
  char *buf = apr_palloc(scratch_pool, COPY_CHUNK);
  apr_file_t *pack, *mf;
  apr_off_t offset = 0;
  svn_revnum_t rev;

  SVN_ERR(create_file(&pack, pack_path, scratch_pool));
  for (rev = start; rev < start + ctx->ffd->max_files_per_dir; rev++)
    {
      apr_off_t size;

      svn_pool_clear(iterpool);
      SVN_ERR(check_cancel(ctx));
      svn_stringbuf_appendcstr(manifest, apr_psprintf(
                                 iterpool, "%" APR_OFF_T_FMT "\n", offset));
      SVN_ERR(append_file(&size, pack, svn_fs_fs__path_rev(ctx->fs, rev,
                                                           iterpool),
                          buf, iterpool));
      offset += size;
    }
  svn_pool_destroy(iterpool);
  SVN_ERR(create_file(&mf, manifest_path, scratch_pool));
  SVN_ERR(svn_io_file_write_full(mf, manifest->data, manifest->len, NULL,
                                 scratch_pool));
  SVN_ERR(seal_file(mf, manifest_path, scratch_pool));
  return svn_error_trace(seal_file(pack, pack_path, scratch_pool));
}

/* ------------------------------------------------------------------ */
/* Logical addressing: reading what the revision files hold            */

/* The first LEN bytes of ITEM (at most its size), NUL-terminated: from
   memory when its file was kept, else read from FILE. */
static svn_error_t *
item_head(const char **head, apr_size_t len,
          const svn_fs_fs__pack_item_t *item, apr_file_t *file,
          const char *where, apr_pool_t *scratch_pool)
{
  char *buf = apr_palloc(scratch_pool, len + 1);

  if (item->data)
    memcpy(buf, item->data, len);
  else
    SVN_ERR(read_at(buf, len, file, item->entry.offset, where));
  buf[len] = '\0';
  *head = buf;
  return SVN_NO_ERROR;
}

/* Fill ITEM's node-rev fields from its bytes (NODEREV-*). */
static svn_error_t *
describe_noderev(svn_fs_fs__pack_item_t *item, apr_file_t *file,
                 const char *where, apr_pool_t *result_pool,
                 apr_pool_t *scratch_pool)
{
  apr_size_t len = (apr_size_t)item->entry.size;
  const char *buf;
  svn_fs_fs__noderev_t *noderev;

  SVN_ERR(item_head(&buf, len, item, file, where, scratch_pool));
  SVN_ERR(svn_fs_fs__noderev_parse(&noderev, buf, len, where, scratch_pool,
                                   scratch_pool));
  item->path = noderev->created_path
               ? apr_pstrdup(result_pool, noderev->created_path) : NULL;
  if (noderev->data_rep && !noderev->data_rep->in_txn)
    {
      item->data_rev = noderev->data_rep->revision;
      item->data_item = noderev->data_rep->item_index;
    }
  if (noderev->prop_rep && !noderev->prop_rep->in_txn)
    {
      item->prop_rev = noderev->prop_rep->revision;
      item->prop_item = noderev->prop_rep->item_index;
    }
  return SVN_NO_ERROR;
}

/* Fill ITEM's delta base from its representation header (REP-*). */
static svn_error_t *
describe_rep(svn_fs_fs__pack_item_t *item, apr_file_t *file,
             const char *where, apr_pool_t *scratch_pool)
{
  apr_size_t len = item->entry.size < SVN_FS_FS__REP_HEADER_MAX
                   ? (apr_size_t)item->entry.size : SVN_FS_FS__REP_HEADER_MAX;
  const char *buf;
  svn_fs_fs__rep_header_t header;

  SVN_ERR(item_head(&buf, len, item, file, where, scratch_pool));
  SVN_ERR(svn_fs_fs__rep_header_parse(&header, buf, len, where));
  if (header.kind == svn_fs_fs__rep_delta)
    {
      item->base_rev = header.base_revision;
      item->base_item = header.base_item_index;
    }
  return SVN_NO_ERROR;
}

svn_error_t *
svn_fs_fs__pack_read_p2l(apr_array_header_t **entries, svn_fs_fs__footer_t *footer,
         apr_file_t *file, const char *where, apr_pool_t *result_pool,
         apr_pool_t *scratch_pool)
{
  unsigned char tail[SVN_FS_FS__FOOTER_MAX_LEN];
  svn_fs_fs__p2l_header_t *header;
  apr_off_t size;
  apr_size_t len, section_len;
  char *section;

  SVN_ERR(file_size(&size, file, scratch_pool));
  len = size < SVN_FS_FS__FOOTER_MAX_LEN ? (apr_size_t)size
                                          : SVN_FS_FS__FOOTER_MAX_LEN;
  SVN_ERR(read_at((char *)tail, len, file, size - (apr_off_t)len, where));
  SVN_ERR(svn_fs_fs__footer_parse(footer, tail, len, size, where));
  section_len = (apr_size_t)(footer->footer_offset - footer->p2l_offset);
  section = apr_palloc(scratch_pool, section_len + 1);
  SVN_ERR(read_at(section, section_len, file, footer->p2l_offset, where));
  return svn_error_trace(svn_fs_fs__p2l_check_section(
           &header, entries, (const unsigned char *)section, section_len,
           footer->p2l_offset, where, result_pool));
}

/* The P2L entries and footer of a revision file held whole in memory:
   its SIZE bytes at BYTES (read from WHERE). */
static svn_error_t *
p2l_from_bytes(apr_array_header_t **entries, svn_fs_fs__footer_t *footer,
               const char *bytes, apr_off_t size, const char *where,
               apr_pool_t *result_pool)
{
  svn_fs_fs__p2l_header_t *header;
  apr_size_t len = size < SVN_FS_FS__FOOTER_MAX_LEN
                   ? (apr_size_t)size : SVN_FS_FS__FOOTER_MAX_LEN;

  SVN_ERR(svn_fs_fs__footer_parse(footer, (const unsigned char *)bytes
                                          + (size - (apr_off_t)len),
                                  len, size, where));
  return svn_error_trace(svn_fs_fs__p2l_check_section(
           &header, entries, (const unsigned char *)bytes + footer->p2l_offset,
           (apr_size_t)(footer->footer_offset - footer->p2l_offset),
           footer->p2l_offset, where, result_pool));
}

/* LEN more bytes of CTX's arena for the current shard, or NULL when the
   budget does not allow. */
static char *
take_from_arena(pack_ctx_t *ctx, apr_off_t len)
{
  char *buf;

  if (len <= 0 || (apr_uint64_t)len > ctx->keep_budget
      || ctx->kept + (apr_uint64_t)len > ctx->keep_budget)
    return NULL;
  if (ctx->arena == NULL)
    ctx->arena = apr_palloc(ctx->arena_pool, (apr_size_t)ctx->keep_budget);
  buf = ctx->arena + ctx->kept;
  ctx->kept += (apr_uint64_t)len;
  return buf;
}

/* Read all of revision file FILE, SIZE bytes, into *BYTES (CTX's arena)
   if CTX's budget allows, with its P2L entries and footer: one read
   instead of three (footer, index, data; most revision files are a few
   kB).  *BYTES is NULL if the budget does not allow. */
static svn_error_t *
read_whole(const char **bytes, apr_array_header_t **entries,
           svn_fs_fs__footer_t *footer, pack_ctx_t *ctx, apr_file_t *file,
           apr_off_t size, const char *where, apr_pool_t *scratch_pool)
{
  char *buf = take_from_arena(ctx, size);

  *bytes = NULL;
  if (buf == NULL)
    return SVN_NO_ERROR;
  SVN_ERR(read_at(buf, (apr_size_t)size, file, 0, where));
  SVN_ERR(p2l_from_bytes(entries, footer, buf, size, where, scratch_pool));
  *bytes = buf;
  return SVN_NO_ERROR;
}

/* The data part of revision file FILE (its first DATA_LEN bytes) in
   CTX's arena if its budget allows, else NULL. */
static svn_error_t *
keep_data(const char **data, pack_ctx_t *ctx, apr_file_t *file,
          apr_off_t data_len, const char *where)
{
  char *buf = take_from_arena(ctx, data_len);

  *data = NULL;
  if (buf == NULL)
    return SVN_NO_ERROR;
  SVN_ERR(read_at(buf, (apr_size_t)data_len, file, 0, where));
  *data = buf;
  return SVN_NO_ERROR;
}

/* How many item indexes revision REV has: the entries of its L2P pages
   (in FILE, or in BYTES when it is held whole; FOOTER locates the
   section).  The whole section is decoded and checked (L2P-1..6), so the
   count is backed by at least one byte of the file per entry (L2P-5).
   Each item of the P2L index must be one of them (P2L-8): this bounds
   what pack allocates per item index by the size of the file, not by the
   2^56 an index entry may hold. */
static svn_error_t *
l2p_item_count(apr_uint64_t *count, const char *bytes, apr_file_t *file,
               const svn_fs_fs__footer_t *footer, svn_revnum_t rev,
               const char *where, apr_pool_t *scratch_pool)
{
  apr_size_t len = (apr_size_t)(footer->p2l_offset - footer->l2p_offset);
  const char *section = bytes ? bytes + footer->l2p_offset : NULL;
  svn_fs_fs__l2p_header_t *header;
  apr_uint64_t k;

  if (section == NULL)
    {
      char *buf = apr_palloc(scratch_pool, len);

      SVN_ERR(read_at(buf, len, file, footer->l2p_offset, where));
      section = buf;
    }
  SVN_ERR(svn_fs_fs__l2p_check_section(&header,
                                       (const unsigned char *)section, len,
                                       footer->l2p_offset, where,
                                       scratch_pool));
  if (header->first_revision != rev || header->revision_count != 1)
    return svn_fs_fs__index_corrupt("L2P-2", where,
             "L2P index covers r%ld and %" APR_UINT64_T_FMT " revisions, "
             "not r%ld alone", header->first_revision,
             header->revision_count, rev);
  *count = 0;
  for (k = 0; k < header->page_count; k++)
    *count += header->page_table[k].entry_count;
  return SVN_NO_ERROR;
}

/* A shard's items, in an array grown by hand.  apr_array_push doubles
   an array inside its pool and leaves every smaller copy there until the
   pool goes: full maven's last shard has 13.6 MB of items and kept
   27 MB, all of it still held while the pack file was written.  Here
   each larger copy gets a subpool of its own and the previous one is
   destroyed; and the array starts at the size of the last shard packed,
   so that it seldom grows at all. */
typedef struct item_list_t
{
  apr_array_header_t *array;
  apr_pool_t *pool;                /* holds ARRAY and its elements */
  apr_pool_t *parent;
} item_list_t;

/* An empty array of CAPACITY items in a fresh subpool *POOL of PARENT,
   its elements not cleared: every pushed item is initialised, and
   apr_array_make's clearing would touch the unused half of a doubled
   array too. */
static apr_array_header_t *
item_array_make(apr_pool_t **pool, apr_pool_t *parent, int capacity)
{
  apr_array_header_t *array;

  *pool = svn_pool_create(parent);
  array = apr_pcalloc(*pool, sizeof(*array));
  array->pool = *pool;
  array->elt_size = (int)sizeof(svn_fs_fs__pack_item_t);
  array->nalloc = capacity;
  array->elts = apr_palloc(*pool, (apr_size_t)capacity
                                  * sizeof(svn_fs_fs__pack_item_t));
  return array;
}

static void
item_list_init(item_list_t *list, int capacity, apr_pool_t *parent)
{
  list->parent = parent;
  list->array = item_array_make(&list->pool, parent,
                                capacity > 64 ? capacity : 64);
}

/* Room for one more item at the end of LIST. */
static svn_fs_fs__pack_item_t *
item_list_push(item_list_t *list)
{
  apr_array_header_t *array = list->array;

  if (array->nelts == array->nalloc)
    {
      apr_pool_t *pool;
      apr_array_header_t *bigger = item_array_make(&pool, list->parent,
                                                   2 * array->nalloc);

      memcpy(bigger->elts, array->elts,
             (apr_size_t)array->nelts * sizeof(svn_fs_fs__pack_item_t));
      bigger->nelts = array->nelts;
      svn_pool_destroy(list->pool);
      list->pool = pool;
      list->array = array = bigger;
    }
  return &APR_ARRAY_IDX(array, array->nelts++, svn_fs_fs__pack_item_t);
}

/* Append the items of revision REV (in its file at PATH) to ITEMS, what
   they point to (node-rev paths) in RESULT_POOL; their bytes stay in
   CTX's arena when its budget allows. */
static svn_error_t *
read_rev_items(item_list_t *items, pack_ctx_t *ctx, svn_revnum_t rev,
               const char *path, apr_pool_t *result_pool,
               apr_pool_t *scratch_pool)
{
  const char *where = svn_dirent_local_style(path, scratch_pool);
  apr_pool_t *iterpool = svn_pool_create(scratch_pool);
  apr_array_header_t *entries;
  svn_fs_fs__footer_t footer;
  apr_file_t *file;
  apr_off_t size;
  const char *data;
  apr_uint64_t item_count;
  int i;

  SVN_ERR(svn_io_file_open(&file, path, APR_READ, APR_OS_DEFAULT,
                           scratch_pool));
  SVN_ERR(file_size(&size, file, scratch_pool));
  SVN_ERR(read_whole(&data, &entries, &footer, ctx, file, size, where,
                     scratch_pool));
  if (data == NULL)
    {
      SVN_ERR(svn_fs_fs__pack_read_p2l(&entries, &footer, file, where,
                                       scratch_pool, scratch_pool));
      SVN_ERR(l2p_item_count(&item_count, NULL, file, &footer, rev, where,
                             scratch_pool));
      SVN_ERR(keep_data(&data, ctx, file, footer.l2p_offset, where));
    }
  else
    SVN_ERR(l2p_item_count(&item_count, data, file, &footer, rev, where,
                           scratch_pool));
  for (i = 0; i < entries->nelts; i++)
    {
      const svn_fs_fs__p2l_entry_t *e
        = &APR_ARRAY_IDX(entries, i, svn_fs_fs__p2l_entry_t);
      svn_fs_fs__pack_item_t *item;

      if (e->type == SVN_FS_FS__ITEM_TYPE_UNUSED
          || e->offset >= footer.l2p_offset)
        continue;
      if (e->revision != rev || e->offset + e->size > footer.l2p_offset)
        return svn_fs_fs__index_corrupt(
                 "P2L-6", where, "Item at offset %" APR_OFF_T_FMT
                 " does not belong to r%ld's data", e->offset, rev);
      /* copy_items makes room for every index up to this one. */
      if (e->item_index >= item_count)
        return svn_fs_fs__index_corrupt(
                 "P2L-8", where, "Item %" APR_UINT64_T_FMT " at offset %"
                 APR_OFF_T_FMT " is not in r%ld's L2P index, which has %"
                 APR_UINT64_T_FMT " item indexes", e->item_index, e->offset,
                 rev, item_count);
      svn_pool_clear(iterpool);
      item = item_list_push(items);
      svn_fs_fs__pack_item_init(item, e);
      if (data)
        item->data = data + e->offset;
      if (e->type == SVN_FS_FS__ITEM_TYPE_NODEREV)
        SVN_ERR(describe_noderev(item, file, where, result_pool, iterpool));
      else if (e->type != SVN_FS_FS__ITEM_TYPE_CHANGES)
        SVN_ERR(describe_rep(item, file, where, iterpool));
    }
  svn_pool_destroy(iterpool);
  return svn_error_trace(svn_io_file_close(file, scratch_pool));
}

/* ------------------------------------------------------------------ */
/* Logical addressing: copying the items (PACK-3)                      */

/* The open revision file of REV among SOURCES (OPEN_SOURCES slots, used
   round robin through *NEXT). */
static svn_error_t *
source_file(apr_file_t **file, source_t *sources, int *next,
            pack_ctx_t *ctx, svn_revnum_t rev)
{
  source_t *slot;
  int i;

  for (i = 0; i < OPEN_SOURCES; i++)
    if (sources[i].file && sources[i].revision == rev)
      {
        *file = sources[i].file;
        return SVN_NO_ERROR;
      }
  slot = &sources[*next];
  *next = (*next + 1) % OPEN_SOURCES;
  svn_pool_clear(slot->pool);
  slot->revision = rev;
  SVN_ERR(svn_io_file_open(&slot->file,
                           svn_fs_fs__path_rev(ctx->fs, rev, slot->pool),
                           APR_READ, APR_OS_DEFAULT, slot->pool));
  *file = slot->file;
  return SVN_NO_ERROR;
}

static apr_uint32_t
big_endian_32(const unsigned char *p)
{
  return ((apr_uint32_t)p[0] << 24) | ((apr_uint32_t)p[1] << 16)
         | ((apr_uint32_t)p[2] << 8) | p[3];
}

/* Copy ITEM from FILE to PACK, checking its checksum on the way (P2L-7):
   a damaged revision must not be sealed into a pack. */
static svn_error_t *
copy_item(apr_file_t *pack, apr_file_t *file,
          const svn_fs_fs__pack_item_t *item, char *buf,
          apr_pool_t *scratch_pool)
{
  const svn_fs_fs__p2l_entry_t *e = &item->entry;
  const char *where = apr_psprintf(scratch_pool, "r%ld item %" APR_UINT64_T_FMT,
                                   e->revision, e->item_index);
  svn_checksum_ctx_t *sum = svn_checksum_ctx_create(svn_checksum_fnv1a_32x4,
                                                    scratch_pool);
  svn_checksum_t *digest;
  apr_off_t at;

  if (item->data)
    {
      SVN_ERR(svn_checksum_update(sum, item->data, (apr_size_t)e->size));
      SVN_ERR(svn_io_file_write_full(pack, item->data, (apr_size_t)e->size,
                                     NULL, scratch_pool));
    }
  else for (at = 0; at < e->size; at += COPY_CHUNK)
    {
      apr_size_t n = e->size - at < COPY_CHUNK ? (apr_size_t)(e->size - at)
                                               : COPY_CHUNK;

      SVN_ERR(read_at(buf, n, file, e->offset + at, where));
      SVN_ERR(svn_checksum_update(sum, buf, n));
      SVN_ERR(svn_io_file_write_full(pack, buf, n, NULL, scratch_pool));
    }
  SVN_ERR(svn_checksum_final(&digest, sum, scratch_pool));
  if (e->size > 0 && big_endian_32(digest->digest) != e->fnv1_checksum)
    return svn_fs_fs__corrupt("P2L-7", where,
                              "Checksum mismatch while packing");
  return SVN_NO_ERROR;
}

/* Copy ITEMS to PACK in ORDER; *P2L gets their new P2L entries and
   *L2P the new offsets per revision (input of the section builders). */
static svn_error_t *
copy_items(apr_array_header_t **p2l, apr_array_header_t **l2p,
           apr_off_t *covered, pack_ctx_t *ctx, apr_file_t *pack,
           svn_revnum_t start, const apr_array_header_t *items,
           const apr_array_header_t *order, apr_pool_t *result_pool,
           apr_pool_t *scratch_pool)
{
  source_t sources[OPEN_SOURCES];
  apr_pool_t *iterpool = svn_pool_create(scratch_pool);
  char *buf = apr_palloc(scratch_pool, COPY_CHUNK);
  int next = 0, i, shard_size = ctx->ffd->max_files_per_dir;

  *p2l = apr_array_make(result_pool, items->nelts,
                        sizeof(svn_fs_fs__p2l_entry_t));
  *l2p = apr_array_make(result_pool, shard_size, sizeof(apr_array_header_t *));
  for (i = 0; i < shard_size; i++)
    APR_ARRAY_PUSH(*l2p, apr_array_header_t *)
      = apr_array_make(result_pool, 16, sizeof(apr_off_t));
  memset(sources, 0, sizeof(sources));
  for (i = 0; i < OPEN_SOURCES; i++)
    sources[i].pool = svn_pool_create(scratch_pool);
  *covered = 0;
  for (i = 0; i < order->nelts; i++)
    {
      const svn_fs_fs__pack_item_t *item = &APR_ARRAY_IDX(
        items, APR_ARRAY_IDX(order, i, int), svn_fs_fs__pack_item_t);
      svn_fs_fs__p2l_entry_t *entry = apr_array_push(*p2l);
      apr_array_header_t *offsets = APR_ARRAY_IDX(
        *l2p, item->entry.revision - start, apr_array_header_t *);
      apr_file_t *file;

      svn_pool_clear(iterpool);
      if (i % 1000 == 0)
        SVN_ERR(check_cancel(ctx));
      file = NULL;
      if (!item->data)
        SVN_ERR(source_file(&file, sources, &next, ctx,
                            item->entry.revision));
      SVN_ERR(copy_item(pack, file, item, buf, iterpool));
      *entry = item->entry;
      entry->offset = *covered;
      /* Bounded by the revision's L2P entries (read_rev_items). */
      while ((apr_uint64_t)offsets->nelts <= item->entry.item_index)
        APR_ARRAY_PUSH(offsets, apr_off_t) = -1;
      if (APR_ARRAY_IDX(offsets, item->entry.item_index, apr_off_t) != -1)
        return svn_fs_fs__index_corrupt(
                 "P2L-8", svn_fs_fs__path_rev(ctx->fs, item->entry.revision,
                                              iterpool),
                 "Two items of r%ld have item index %" APR_UINT64_T_FMT,
                 item->entry.revision, item->entry.item_index);
      APR_ARRAY_IDX(offsets, item->entry.item_index, apr_off_t) = *covered;
      *covered += item->entry.size;
    }
  for (i = 0; i < OPEN_SOURCES; i++)
    svn_pool_destroy(sources[i].pool);
  svn_pool_destroy(iterpool);
  return SVN_NO_ERROR;
}

/* Append SECTION to PACK, which is at *OFFSET; the digest into MD5. */
static svn_error_t *
append_section(apr_off_t *offset, unsigned char *md5, apr_file_t *pack,
               const svn_stringbuf_t *section, apr_pool_t *scratch_pool)
{
  svn_checksum_t *sum;

  SVN_ERR(svn_io_file_write_full(pack, section->data, section->len, NULL,
                                 scratch_pool));
  SVN_ERR(svn_checksum(&sum, svn_checksum_md5, section->data, section->len,
                       scratch_pool));
  memcpy(md5, sum->digest, APR_MD5_DIGESTSIZE);
  *offset += (apr_off_t)section->len;
  return SVN_NO_ERROR;
}

svn_error_t *
svn_fs_fs__pack_write_indexes(apr_file_t *file, svn_fs_t *fs,
                              svn_revnum_t start, apr_off_t covered,
                              const apr_array_header_t *l2p,
                              const apr_array_header_t *p2l,
                              apr_pool_t *scratch_pool)
{
  svn_fs_fs__data_t *ffd = SVN_FS_FS__DATA(fs);
  svn_stringbuf_t *l2p_section, *p2l_section;
  svn_fs_fs__footer_t footer;
  char buf[SVN_FS_FS__FOOTER_MAX_LEN];
  apr_off_t at = covered;
  apr_size_t len;

  SVN_ERR(svn_fs_fs__l2p_section_build(&l2p_section, start, l2p,
                                       ffd->l2p_page_size, scratch_pool));
  SVN_ERR(svn_fs_fs__p2l_section_build(&p2l_section, start, covered,
                                       ffd->p2l_page_size, p2l,
                                       scratch_pool));
  memset(&footer, 0, sizeof(footer));
  footer.l2p_offset = at;
  SVN_ERR(append_section(&at, footer.l2p_md5, file, l2p_section,
                         scratch_pool));
  footer.p2l_offset = at;
  SVN_ERR(append_section(&at, footer.p2l_md5, file, p2l_section,
                         scratch_pool));
  len = svn_fs_fs__footer_unparse(buf, &footer);
  return svn_error_trace(svn_io_file_write_full(file, buf, len, NULL,
                                                scratch_pool));
}

/* FSFS7_PACK_KEEP=BYTES overrides KEEP_BUDGET: tests run the
   file-by-file path (0) on small shards; not a tuning knob. */
static apr_uint64_t
keep_budget(void)
{
  const char *keep = getenv("FSFS7_PACK_KEEP");

  return keep ? (apr_uint64_t)apr_atoi64(keep) : KEEP_BUDGET;
}

/* FSFS7_PACK_ORDER=concatenate|changes-first|grouped chooses the item
   order (pack.md §3): a switch for benchmarks comparing orders, not a
   tuning knob. */
static svn_fs_fs__pack_order_mode_t
order_mode(void)
{
  const char *order = getenv("FSFS7_PACK_ORDER");

  if (order && !strcmp(order, "concatenate"))
    return svn_fs_fs__pack_order_concatenate;
  if (order && !strcmp(order, "changes-first"))
    return svn_fs_fs__pack_order_changes_first;
  return svn_fs_fs__pack_order_grouped;
}

static svn_error_t *
write_logical_pack(pack_ctx_t *ctx, svn_revnum_t start,
                   apr_pool_t *scratch_pool)
{
  const char *pack_path = svn_fs_fs__path_rev_packed(ctx->fs, start, "pack",
                                                     scratch_pool);
  item_list_t list;
  apr_array_header_t *items, *order, *l2p, *p2l;
  apr_pool_t *iterpool = svn_pool_create(scratch_pool);
  apr_file_t *pack;
  apr_off_t covered;
  svn_revnum_t rev;

  /* An eighth more than the last shard's, so that a shard like it does
     not make the array grow. */
  item_list_init(&list, ctx->items_hint + ctx->items_hint / 8, scratch_pool);
  for (rev = start; rev < start + ctx->ffd->max_files_per_dir; rev++)
    {
      svn_pool_clear(iterpool);
      SVN_ERR(check_cancel(ctx));
      SVN_ERR(read_rev_items(&list, ctx, rev,
                             svn_fs_fs__path_rev(ctx->fs, rev, iterpool),
                             scratch_pool, iterpool));
    }
  svn_pool_destroy(iterpool);
  items = list.array;
  ctx->items_hint = items->nelts;
  svn_fs_fs__pack_order(&order, items, order_mode(), scratch_pool,
                        scratch_pool);
  SVN_ERR(create_file(&pack, pack_path, scratch_pool));
  SVN_ERR(copy_items(&p2l, &l2p, &covered, ctx, pack, start, items, order,
                     scratch_pool, scratch_pool));
  SVN_ERR(svn_fs_fs__pack_write_indexes(pack, ctx->fs, start, covered, l2p,
                                        p2l, scratch_pool));
  return svn_error_trace(seal_file(pack, pack_path, scratch_pool));
}

/* ------------------------------------------------------------------ */
/* Shards                                                              */

static svn_error_t *
path_exists(svn_boolean_t *exists, const char *path,
            apr_pool_t *scratch_pool)
{
  svn_node_kind_t kind;

  SVN_ERR(svn_io_check_path(path, &kind, scratch_pool));
  *exists = kind != svn_node_none;
  return SVN_NO_ERROR;
}

/* Make the directory DIR, made by this pack, durable: fsync every file
   in it (FILES), then DIR, then its parent, which holds DIR's own entry
   (a new directory's name is lost in a power cut until its parent is
   synced, and the unpacked files it replaces are about to go). */
static svn_error_t *
sync_new_dir(const char *dir, svn_boolean_t files, apr_pool_t *scratch_pool)
{
  apr_hash_t *dirents;
  apr_hash_index_t *hi;
  apr_pool_t *iterpool = svn_pool_create(scratch_pool);

  if (files)
    {
      SVN_ERR(svn_io_get_dirents3(&dirents, dir, TRUE, scratch_pool,
                                  scratch_pool));
      for (hi = apr_hash_first(scratch_pool, dirents); hi;
           hi = apr_hash_next(hi))
        {
          svn_pool_clear(iterpool);
          SVN_ERR(sync_path(svn_dirent_join(dir, apr_hash_this_key(hi),
                                            iterpool), iterpool));
        }
    }
  svn_pool_destroy(iterpool);
  SVN_ERR(sync_path(dir, scratch_pool));
  return svn_error_trace(sync_path(svn_dirent_dirname(dir, scratch_pool),
                                   scratch_pool));
}

/* Whether the plain revprop files of the shard starting at START are
   still there (the first one past r0 stands for all, RPPACK-0). */
static svn_error_t *
plain_revprops_exist(svn_boolean_t *exist, svn_fs_t *fs, svn_revnum_t start,
                     apr_pool_t *scratch_pool)
{
  return svn_error_trace(path_exists(
           exist, svn_fs_fs__path_revprops(fs, start == 0 ? 1 : start,
                                           scratch_pool), scratch_pool));
}

/* PACK-4: pack the shard's revprops unless that already happened (the
   plain files are gone and the manifest is there). */
static svn_error_t *
pack_revprops(pack_ctx_t *ctx, svn_revnum_t start, apr_pool_t *scratch_pool)
{
  const char *dir = svn_fs_fs__path_revprops_pack_shard(ctx->fs, start,
                                                        scratch_pool);
  svn_boolean_t plain;

  /* Format 4 and 5 pack revisions only (OLD-8). */
  if (ctx->ffd->format < SVN_FS_FS__MIN_PACKED_REVPROPS_FORMAT)
    return SVN_NO_ERROR;
  SVN_ERR(plain_revprops_exist(&plain, ctx->fs, start, scratch_pool));
  if (!plain)
    {
      svn_boolean_t packed;

      SVN_ERR(path_exists(&packed, svn_dirent_join(dir, "manifest",
                                                   scratch_pool),
                          scratch_pool));
      if (packed)
        return SVN_NO_ERROR;
    }
  return svn_error_trace(svn_fs_fs__pack_revprops_durably(
           ctx->fs, ctx->shard, ctx->cancel_func, ctx->cancel_baton,
           scratch_pool));
}

svn_error_t *
svn_fs_fs__pack_revprops_durably(svn_fs_t *fs, svn_revnum_t shard,
                                 svn_cancel_func_t cancel_func,
                                 void *cancel_baton,
                                 apr_pool_t *scratch_pool)
{
  svn_fs_fs__data_t *ffd = SVN_FS_FS__DATA(fs);

  SVN_ERR(svn_fs_fs__pack_revprops_shard(fs, shard, cancel_func,
                                         cancel_baton, scratch_pool));
  return svn_error_trace(sync_new_dir(
           svn_fs_fs__path_revprops_pack_shard(
             fs, shard * ffd->max_files_per_dir, scratch_pool),
           TRUE, scratch_pool));
}

/* PACK-5: db/min-unpacked-rev = NEXT, atomically and durably. */
static svn_error_t *
bump_min_unpacked_rev(pack_ctx_t *ctx, svn_revnum_t next,
                      apr_pool_t *scratch_pool)
{
  const char *path = svn_fs_fs__path_db(ctx->fs, "min-unpacked-rev",
                                        scratch_pool);
  const char *text = apr_psprintf(scratch_pool, "%ld\n", next);

  SVN_ERR(svn_io_write_atomic2(path, text, strlen(text), path, TRUE,
                               scratch_pool));
  ctx->ffd->min_unpacked_rev = next;
  return SVN_NO_ERROR;
}

/* PACK-6: the unpacked revision files of the packed shard starting at
   START, and its plain revprop files if REVPROPS, go to the remover. */
static svn_error_t *
remove_unpacked(pack_ctx_t *ctx, svn_revnum_t start, svn_boolean_t revs,
                svn_boolean_t revprops, apr_pool_t *scratch_pool)
{
  const char *dir, *keep;

  if (revs)
    SVN_ERR(svn_fs_fs__remover_add(ctx->remover,
                                   svn_fs_fs__path_rev_shard(ctx->fs, start,
                                                             scratch_pool),
                                   NULL, scratch_pool));
  if (!revprops || ctx->ffd->format < SVN_FS_FS__MIN_PACKED_REVPROPS_FORMAT)
    return SVN_NO_ERROR;                                        /* OLD-8 */
  svn_fs_fs__unpacked_revprops_dir(&dir, &keep, ctx->fs,
                                   svn_fs_fs__shard_of(ctx->fs, start),
                                   scratch_pool);
  return svn_error_trace(svn_fs_fs__remover_add(ctx->remover, dir, keep,
                                                scratch_pool));
}

/* Everything after the revision pack is durable; run under the write
   lock, which revprop changes take too (PACK-4, PACK-5, PACK-6). */
static svn_error_t *
finish_shard(void *baton, apr_pool_t *scratch_pool)
{
  pack_ctx_t *ctx = baton;
  svn_revnum_t start = ctx->shard * ctx->ffd->max_files_per_dir;

  SVN_ERR(pack_revprops(ctx, start, scratch_pool));
  SVN_ERR(bump_min_unpacked_rev(ctx, start + ctx->ffd->max_files_per_dir,
                                scratch_pool));
  return svn_error_trace(remove_unpacked(ctx, start, TRUE, TRUE,
                                         scratch_pool));
}

/* A fresh, empty revs/S.pack (a half-written one from an interrupted
   pack is replaced: nobody reads it before min-unpacked-rev moves). */
static svn_error_t *
make_pack_dir(pack_ctx_t *ctx, svn_revnum_t start, apr_pool_t *scratch_pool)
{
  const char *dir = svn_dirent_dirname(
    svn_fs_fs__path_rev_packed(ctx->fs, start, "pack", scratch_pool),
    scratch_pool);

  SVN_ERR(svn_io_remove_dir2(dir, TRUE, NULL, NULL, scratch_pool));
  SVN_ERR(svn_io_dir_make(dir, APR_OS_DEFAULT, scratch_pool));
  return svn_error_trace(svn_io_copy_perms(
           svn_fs_fs__path_rev_shard(ctx->fs, start, scratch_pool), dir,
           scratch_pool));
}

static svn_error_t *
pack_shard(pack_ctx_t *ctx, svn_revnum_t shard, svn_boolean_t write_locked,
           apr_pool_t *scratch_pool)
{
  svn_revnum_t start = shard * ctx->ffd->max_files_per_dir;

  ctx->shard = shard;
  ctx->kept = 0;
  SVN_ERR(notify(ctx, shard, svn_fs_pack_notify_start, scratch_pool));
  SVN_ERR(make_pack_dir(ctx, start, scratch_pool));
  if (ctx->ffd->use_log_addressing)
    SVN_ERR(write_logical_pack(ctx, start, scratch_pool));
  else
    SVN_ERR(write_physical_pack(ctx, start, scratch_pool));
  /* Both files were fsynced as they were sealed. */
  SVN_ERR(sync_new_dir(svn_dirent_dirname(svn_fs_fs__path_rev_packed(
                         ctx->fs, start, "pack", scratch_pool), scratch_pool),
                       FALSE, scratch_pool));
  if (write_locked)
    SVN_ERR(finish_shard(ctx, scratch_pool));
  else
    SVN_ERR(svn_fs_fs__with_write_lock(ctx->fs, finish_shard, ctx,
                                       scratch_pool));
  return svn_error_trace(notify(ctx, shard, svn_fs_pack_notify_end,
                                scratch_pool));
}

/* PACK-6 after a crash between PACK-5 and the removal: unpacked copies
   of shards below min-unpacked-rev go now. */
static svn_error_t *
remove_leftovers(pack_ctx_t *ctx, apr_pool_t *scratch_pool)
{
  apr_pool_t *iterpool = svn_pool_create(scratch_pool);
  svn_revnum_t start;

  for (start = 0; start < ctx->ffd->min_unpacked_rev;
       start += ctx->ffd->max_files_per_dir)
    {
      svn_boolean_t revs, props, manifest;

      svn_pool_clear(iterpool);
      SVN_ERR(path_exists(&revs, svn_fs_fs__path_rev_shard(ctx->fs, start,
                                                           iterpool),
                          iterpool));
      SVN_ERR(plain_revprops_exist(&props, ctx->fs, start, iterpool));
      if (!revs && !props)
        continue;
      SVN_ERR(path_exists(&manifest, svn_dirent_join(
                svn_fs_fs__path_revprops_pack_shard(ctx->fs, start, iterpool),
                "manifest", iterpool), iterpool));
      SVN_ERR(remove_unpacked(ctx, start, revs, props && manifest,
                              iterpool));
    }
  svn_pool_destroy(iterpool);
  return SVN_NO_ERROR;
}

typedef struct pack_baton_t
{
  pack_ctx_t *ctx;
  svn_boolean_t write_locked;      /* format 6: the whole pack */
} pack_baton_t;

static svn_error_t *
pack_shards(pack_ctx_t *ctx, svn_boolean_t write_locked,
            apr_pool_t *scratch_pool)
{
  apr_pool_t *iterpool = svn_pool_create(scratch_pool);
  svn_revnum_t youngest, shard, complete;

  SVN_ERR(svn_fs_fs__update_min_unpacked_rev(ctx->fs, scratch_pool));
  SVN_ERR(svn_fs_fs__youngest_rev(&youngest, ctx->fs, scratch_pool));
  SVN_ERR(remove_leftovers(ctx, scratch_pool));
  complete = (youngest + 1) / ctx->ffd->max_files_per_dir;
  shard = ctx->ffd->min_unpacked_rev / ctx->ffd->max_files_per_dir;
  if (shard >= complete)
    SVN_ERR(notify(ctx, shard, svn_fs_pack_notify_noop, scratch_pool));
  for (; shard < complete; shard++)
    {
      svn_pool_clear(iterpool);
      SVN_ERR(check_cancel(ctx));
      SVN_ERR(pack_shard(ctx, shard, write_locked, iterpool));
    }
  svn_pool_destroy(iterpool);
  return SVN_NO_ERROR;
}

static svn_error_t *
pack_locked(void *baton, apr_pool_t *scratch_pool)
{
  pack_baton_t *b = baton;
  svn_error_t *err = pack_shards(b->ctx, b->write_locked, scratch_pool);

  /* Wait for the removals still under the lock, failed or not: the next
     pack must not find shards of this one half-removed as "leftovers"
     while we are still removing them. */
  return svn_error_compose_create(
           err, svn_error_trace(svn_fs_fs__remover_finish(b->ctx->remover)));
}

svn_error_t *
svn_fs_fs__pack(svn_fs_t *fs, svn_fs_pack_notify_t notify_func,
                void *notify_baton, svn_cancel_func_t cancel_func,
                void *cancel_baton, apr_pool_t *scratch_pool)
{
  pack_ctx_t ctx;
  pack_baton_t b;

  memset(&ctx, 0, sizeof(ctx));
  ctx.keep_budget = keep_budget();
  ctx.arena_pool = scratch_pool;
  ctx.fs = fs;
  ctx.ffd = SVN_FS_FS__DATA(fs);
  ctx.notify_func = notify_func;
  ctx.notify_baton = notify_baton;
  ctx.cancel_func = cancel_func;
  ctx.cancel_baton = cancel_baton;
  /* Formats 1-3 have no min-unpacked-rev (OLD-8): stock refuses them
     with this error, before looking at the layout. */
  if (ctx.ffd->format < SVN_FS_FS__MIN_PACKING_FORMAT)
    return svn_error_createf(SVN_ERR_UNSUPPORTED_FEATURE, NULL,
                             "FSFS format (%d) too old to pack; please "
                             "upgrade the filesystem.", ctx.ffd->format);
  /* PACK-1: only sharded repositories are packed. */
  if (ctx.ffd->max_files_per_dir == 0)
    return svn_error_trace(notify(&ctx, -1, svn_fs_pack_notify_noop,
                                  scratch_pool));
  SVN_ERR(svn_fs_fs__remover_create(&ctx.remover, scratch_pool));
  b.ctx = &ctx;
  b.write_locked = ctx.ffd->format < 7;
  if (b.write_locked)
    return svn_error_trace(svn_fs_fs__with_write_lock(fs, pack_locked, &b,
                                                      scratch_pool));
  return svn_error_trace(svn_fs_fs__with_pack_lock(fs, pack_locked, &b,
                                                   scratch_pool));
}
