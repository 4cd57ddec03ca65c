/* commit.c --- turning a transaction into a revision (commit.h;
 * the protocol is doc/format/commit.md, steps COMMIT-0 .. COMMIT-9).
 *
 * Call tree:
 *   svn_fs_fs__commit_txn            COMMIT-0 merge loop (merge.h), then
 *     svn_fs_fs__with_write_lock(commit_body)
 *       check_up_to_date             COMMIT-1
 *       check_locks                  COMMIT-2
 *       write_final_rev              COMMIT-3, into the proto-rev file
 *         write_node (recursive)     reps of dirs / props, node-revs
 *         write_changes              changed-path list
 *         write_indexes | trailer    L2P + P2L + footer, or trailer
 *       move_rev_into_place          COMMIT-4 chmod + rename + dir sync
 *       verify_new_rev               COMMIT-4a (fsfs.conf verify-before-commit)
 *       write_revprops               COMMIT-5
 *       write_current                COMMIT-6 the commit point
 *       svn_fs_fs__txn_purge         COMMIT-7
 *     svn_fs_fs__rep_cache_add       COMMIT-8 (error after the commit)
 *
 * Everything before COMMIT-6 is invisible to readers: they find revisions
 * through db/current only.  A crash before it leaves at most an orphan
 * revision file that the next commit overwrites (doc/format/commit.md).
 */
#include <string.h>

#include "svn_hash.h"
#include "svn_io.h"
#include "svn_pools.h"
#include "svn_dirent_uri.h"
#include "svn_props.h"
#include "svn_time.h"
#include "svn_sorts.h"
#include "private/svn_sorts_private.h"
#include "private/svn_fspath.h"
#include "private/svn_subr_private.h"
#include "private/svn_string_private.h"

#include "commit.h"
#include "pack.h"
#include "deltify.h"
#include "rep_cache.h"
#include "rep_write.h"
#include "txn_store.h"
#include "txn.h"
#include "merge.h"
#include "node.h"
#include "id.h"
#include "noderev_codec.h"
#include "changes_codec.h"
#include "dirent_codec.h"
#include "hashdump.h"
#include "index_codec.h"
#include "footer.h"
#include "paths.h"
#include "repo.h"
#include "locks_read.h"
#include "index.h"
#include "rep_read.h"
#include "durable.h"

/* State of one commit while the final revision is being written. */
typedef struct commit_ctx_t
{
  svn_fs_t *fs;
  svn_fs_fs__data_t *ffd;
  svn_fs_fs__txn_id_t txn_id;
  svn_revnum_t new_rev;
  const svn_fs_fs__id_t *root_txn_id;  /* node.0.0 of the transaction */
  svn_fs_fs__protorev_t *protorev;
  svn_boolean_t flush;            /* FALSE: SVN_FS_CONFIG_NO_FLUSH_TO_DISK */
  apr_array_header_t *reps_to_cache;  /* svn_fs_fs__rep_t *, new, SHA1 */
  apr_hash_t *reps_by_sha1;       /* sha1 (binary) -> rep of this commit */
  apr_off_t root_offset;          /* physical addressing trailer */
  apr_off_t changes_offset;
  apr_fileperms_t ro_perms;       /* the previous rev file's */
  svn_boolean_t old_ids;          /* OLD-3: format 1/2 global id counters */
  apr_uint64_t node_id_base;      /* with OLD_IDS: db/current's next ids */
  apr_uint64_t copy_id_base;
  apr_pool_t *pool;               /* lives as long as the commit */
} commit_ctx_t;

/* ------------------------------------------------------------------ */
/* Final ids and reps                                                  */

/* A transaction-local node or copy id "_<n>" becomes "<n>-<REV>", or in
   formats 1 and 2 "<BASE + n>" (OLD-3; BASE from db/current). */
static void
finalize_id_part(svn_fs_fs__id_part_t *part, const commit_ctx_t *ctx,
                 apr_uint64_t base)
{
  if (SVN_IS_VALID_REVNUM(part->revision))
    return;
  if (ctx->old_ids)
    {
      part->revision = 0;
      part->number += base;
    }
  else
    part->revision = ctx->new_rev;
}

/* Make a rep written in this transaction a rep of revision REV.  Its item
   index (offset, physical addressing) stays: the proto-rev file becomes
   the revision file unchanged. */
static void
finalize_rep(svn_fs_fs__rep_t *rep, svn_revnum_t rev)
{
  if (rep && rep->in_txn)
    {
      rep->revision = rev;
      rep->in_txn = FALSE;
    }
}

/* A rep with the same fulltext as NEW_REP that is already stored (this
   commit, or rep-cache.db), or NULL.  Property reps only (RCACHE-2). */
static svn_error_t *
find_shared_rep(svn_fs_fs__rep_t **shared, commit_ctx_t *ctx,
                const svn_fs_fs__rep_t *new_rep, apr_pool_t *scratch_pool)
{
  svn_fs_fs__rep_t *found;
  svn_boolean_t match;

  *shared = NULL;
  if (!ctx->ffd->rep_sharing_allowed)
    return SVN_NO_ERROR;
  found = apr_hash_get(ctx->reps_by_sha1, new_rep->sha1_digest,
                       APR_SHA1_DIGESTSIZE);
  if (found && found->expanded_size == new_rep->expanded_size
      && !memcmp(found->md5_digest, new_rep->md5_digest, APR_MD5_DIGESTSIZE))
    {
      *shared = found;
      return SVN_NO_ERROR;
    }
  SVN_ERR(svn_fs_fs__rep_cache_get(&found, ctx->fs, new_rep->sha1_digest,
                                   ctx->pool, scratch_pool));
  if (!found)
    return SVN_NO_ERROR;
  SVN_ERR(svn_fs_fs__rep_cache_match(&match, ctx->fs, found, new_rep,
                                     scratch_pool));
  *shared = match ? found : NULL;
  return SVN_NO_ERROR;
}

/* Stream CONTENTS into the proto-rev file as a rep of NODEREV (PROPS: its
   property list) against the base deltify.h chooses; *RESULT. */
static svn_error_t *
write_rep_bytes(svn_fs_fs__rep_write_result_t *result, commit_ctx_t *ctx,
                const svn_fs_fs__noderev_t *noderev, svn_boolean_t props,
                const svn_stringbuf_t *contents, apr_pool_t *scratch_pool)
{
  svn_fs_fs__rep_write_options_t options;
  svn_fs_fs__rep_t *base_rep;
  const svn_fs_fs__rep_write_base_t *base;
  svn_fs_fs__rep_writer_t *writer;

  svn_fs_fs__rep_write_options_init(&options, ctx->ffd);
  /* OLD-6: formats 1 to 3 store listings and property lists PLAIN. */
  options.plain = ctx->ffd->format < SVN_FS_FS__MIN_REP_SHARING_FORMAT;
  if (options.plain)
    base_rep = NULL;
  else
    SVN_ERR(svn_fs_fs__choose_delta_base(&base_rep, ctx->fs, noderev, props,
                                         scratch_pool, scratch_pool));
  SVN_ERR(svn_fs_fs__delta_base_open(&base, ctx->fs, base_rep, scratch_pool,
                                     scratch_pool));
  SVN_ERR(svn_fs_fs__rep_writer_open(&writer, ctx->protorev->file, base,
                                     &options,
                                     svn_fs_fs__rep_write_space_get(ctx->fs),
                                     scratch_pool, scratch_pool));
  return svn_error_trace(svn_fs_fs__rep_writer_write_all(
                           result, writer, contents->data, contents->len,
                           scratch_pool));
}

/* Write CONTENTS (a directory listing, or with PROPS a property list) of
   NODEREV as a new rep of the new revision; *REP in CTX->pool.  Property
   reps carry a SHA-1 and may be shared; listings carry neither, as with
   the stock module. */
static svn_error_t *
write_container_rep(svn_fs_fs__rep_t **rep, commit_ctx_t *ctx,
                    const svn_fs_fs__noderev_t *noderev, svn_boolean_t props,
                    const svn_stringbuf_t *contents, apr_pool_t *scratch_pool)
{
  svn_fs_fs__rep_write_result_t result;
  svn_fs_fs__rep_t *r = apr_pcalloc(ctx->pool, sizeof(*r));
  svn_fs_fs__rep_t *shared;
  svn_fs_fs__item_type_t type;

  SVN_ERR(write_rep_bytes(&result, ctx, noderev, props, contents,
                          scratch_pool));
  svn_fs_fs__rep_write_result_to_rep(r, &result);
  r->revision = ctx->new_rev;
  r->has_sha1 = props;
  if (props)
    SVN_ERR(find_shared_rep(&shared, ctx, r, scratch_pool));
  else
    shared = NULL;
  if (shared)
    {
      /* Drop the bytes just written; the new node-rev points at the old
         rep but keeps its own checksums and a fresh uniquifier. */
      SVN_ERR(svn_fs_fs__protorev_truncate(ctx->protorev, result.offset,
                                           scratch_pool));
      r->revision = shared->revision;
      r->item_index = shared->item_index;
      r->size = shared->size;
    }
  else
    {
      type = props ? (noderev->kind == svn_node_dir
                      ? SVN_FS_FS__ITEM_TYPE_DIR_PROPS
                      : SVN_FS_FS__ITEM_TYPE_FILE_PROPS)
                   : SVN_FS_FS__ITEM_TYPE_DIR_REP;
      SVN_ERR(svn_fs_fs__protorev_add_item(&r->item_index, ctx->protorev,
                                           result.offset, result.total_len,
                                           type, SVN_FS_FS__ITEM_INDEX_UNUSED,
                                           scratch_pool));
    }
  if (props)
    SVN_ERR(svn_fs_fs__txn_new_uniquifier(&r->uniquifier, ctx->fs,
                                          &ctx->txn_id, ctx->pool,
                                          scratch_pool));
  if (props && !shared)
    {
      apr_hash_set(ctx->reps_by_sha1, r->sha1_digest, APR_SHA1_DIGESTSIZE, r);
      APR_ARRAY_PUSH(ctx->reps_to_cache, svn_fs_fs__rep_t *) = r;
    }
  /* Format 8 node-revs do not record the SHA-1 of property reps (stock
     writes "-"); rep-cache.db still gets it. */
  if (props && ctx->ffd->format >= 8)
    {
      r = apr_pmemdup(ctx->pool, r, sizeof(*r));
      r->has_sha1 = FALSE;
    }
  *rep = r;
  return SVN_NO_ERROR;
}

/* ------------------------------------------------------------------ */
/* The tree                                                            */

static svn_error_t *
write_node(const svn_fs_fs__id_t **new_id, commit_ctx_t *ctx,
           const svn_fs_fs__id_t *id, apr_pool_t *result_pool,
           apr_pool_t *scratch_pool);

/* Write the mutable children of directory NODEREV (depth first, in name
   order) and then its listing with their final ids. */
static svn_error_t *
write_dir_listing(commit_ctx_t *ctx, svn_fs_fs__noderev_t *noderev,
                  apr_pool_t *scratch_pool)
{
  apr_array_header_t *entries;
  apr_pool_t *iterpool = svn_pool_create(scratch_pool);
  svn_stringbuf_t *listing;
  int i;

  SVN_ERR(svn_fs_fs__dir_entries(&entries, ctx->fs, noderev, scratch_pool,
                                 scratch_pool));
  for (i = 0; i < entries->nelts; i++)
    {
      svn_fs_dirent_t *dirent = APR_ARRAY_IDX(entries, i, svn_fs_dirent_t *);
      const svn_fs_fs__id_t *new_id;

      svn_pool_clear(iterpool);
      SVN_ERR(write_node(&new_id, ctx, SVN_FS_FS__ID(dirent->id),
                         scratch_pool, iterpool));
      dirent->id = SVN_FS_FS__PUBLIC_ID(new_id);
    }
  svn_pool_destroy(iterpool);
  if (!noderev->data_rep || !noderev->data_rep->in_txn)
    return SVN_NO_ERROR;
  listing = svn_stringbuf_create_empty(scratch_pool);
  svn_fs_fs__dirents_unparse(listing, entries);
  return svn_error_trace(write_container_rep(&noderev->data_rep, ctx, noderev,
                                             FALSE, listing, scratch_pool));
}

/* Write the property list of NODEREV if it is mutable. */
static svn_error_t *
write_node_props(commit_ctx_t *ctx, svn_fs_fs__noderev_t *noderev,
                 apr_pool_t *scratch_pool)
{
  apr_hash_t *props;
  svn_stringbuf_t *dump;

  if (!noderev->prop_rep || !noderev->prop_rep->in_txn)
    return SVN_NO_ERROR;
  SVN_ERR(svn_fs_fs__node_proplist(&props, ctx->fs, noderev, scratch_pool,
                                   scratch_pool));
  dump = svn_stringbuf_create_empty(scratch_pool);
  svn_fs_fs__hashdump_unparse(dump, props, scratch_pool);
  return svn_error_trace(write_container_rep(&noderev->prop_rep, ctx,
                                             noderev, TRUE, dump,
                                             scratch_pool));
}

/* Give NODEREV (mutable, reps already final) its final id and append it
   to the proto-rev file as an item (the root gets item 2, ADDR-2). */
static svn_error_t *
write_noderev_item(commit_ctx_t *ctx, svn_fs_fs__noderev_t *noderev,
                   svn_boolean_t is_root, apr_pool_t *result_pool,
                   apr_pool_t *scratch_pool)
{
  svn_fs_fs__id_part_t node_id = noderev->id->node_id;
  svn_fs_fs__id_part_t copy_id = noderev->id->copy_id;
  svn_stringbuf_t *text = svn_stringbuf_create_empty(scratch_pool);
  apr_uint64_t item;
  apr_off_t offset;

  finalize_id_part(&node_id, ctx, ctx->node_id_base);
  finalize_id_part(&copy_id, ctx, ctx->copy_id_base);
  SVN_ERR(svn_fs_fs__protorev_offset(&offset, ctx->protorev, scratch_pool));
  if (!ctx->ffd->use_log_addressing)
    item = (apr_uint64_t)offset;
  else if (is_root)
    item = SVN_FS_FS__ITEM_INDEX_ROOT_NODE;
  else
    SVN_ERR(svn_fs_fs__protorev_reserve_item(&item, ctx->protorev,
                                             scratch_pool));
  noderev->id = svn_fs_fs__id_create_rev(&node_id, &copy_id, ctx->new_rev,
                                         item, result_pool);
  if (!SVN_IS_VALID_REVNUM(noderev->copyroot_rev))
    noderev->copyroot_rev = ctx->new_rev;
  noderev->is_fresh_txn_root = FALSE;
  svn_fs_fs__noderev_unparse(text, noderev, ctx->ffd->format, scratch_pool);
  SVN_ERR(svn_io_file_write_full(ctx->protorev->file, text->data, text->len,
                                 NULL, scratch_pool));
  if (is_root)
    ctx->root_offset = offset;
  return svn_error_trace(svn_fs_fs__protorev_add_item(
           &item, ctx->protorev, offset, (apr_off_t)text->len,
           SVN_FS_FS__ITEM_TYPE_NODEREV, item, scratch_pool));
}

/* Write node ID and, for mutable directories, everything mutable below
   it; *NEW_ID (RESULT_POOL) is its id in the new revision.  Committed
   nodes are left as they are. */
static svn_error_t *
write_node(const svn_fs_fs__id_t **new_id, commit_ctx_t *ctx,
           const svn_fs_fs__id_t *id, apr_pool_t *result_pool,
           apr_pool_t *scratch_pool)
{
  svn_fs_fs__noderev_t *noderev;
  svn_boolean_t is_root;

  if (!svn_fs_fs__id_is_txn(id))
    {
      *new_id = id;
      return SVN_NO_ERROR;
    }
  SVN_ERR(svn_fs_fs__get_noderev(&noderev, ctx->fs, id, scratch_pool,
                                 scratch_pool));
  is_root = svn_fs_fs__id_eq(id, ctx->root_txn_id);
  if (noderev->kind == svn_node_dir)
    SVN_ERR(write_dir_listing(ctx, noderev, scratch_pool));
  else
    finalize_rep(noderev->data_rep, ctx->new_rev);
  SVN_ERR(write_node_props(ctx, noderev, scratch_pool));
  if (noderev->kind == svn_node_file && noderev->data_rep
      && noderev->data_rep->has_sha1
      && noderev->data_rep->revision == ctx->new_rev)
    APR_ARRAY_PUSH(ctx->reps_to_cache, svn_fs_fs__rep_t *)
      = apr_pmemdup(ctx->pool, noderev->data_rep, sizeof(svn_fs_fs__rep_t));
  SVN_ERR(write_noderev_item(ctx, noderev, is_root, result_pool,
                             scratch_pool));
  *new_id = noderev->id;
  return SVN_NO_ERROR;
}

/* ------------------------------------------------------------------ */
/* Changed paths, indexes, trailer                                     */

/* Bytes of changes text gathered before they are written out. */
#define CHANGES_CHUNK (64 * 1024)

/* Append TEXT to the proto-rev file of CTX, add its length to *WRITTEN
   and empty it. */
static svn_error_t *
write_text(apr_off_t *written, commit_ctx_t *ctx, svn_stringbuf_t *text,
           apr_pool_t *scratch_pool)
{
  SVN_ERR(svn_io_file_write_full(ctx->protorev->file, text->data, text->len,
                                 NULL, scratch_pool));
  *written += (apr_off_t)text->len;
  svn_stringbuf_setempty(text);
  return SVN_NO_ERROR;
}

/* Append the folded changed-path list of the transaction, sorted by
   path, as item 1 (CHANGES-6). */
static svn_error_t *
write_changes(commit_ctx_t *ctx, apr_pool_t *scratch_pool)
{
  apr_hash_t *changes;
  apr_array_header_t *sorted;
  svn_stringbuf_t *text = svn_stringbuf_create_ensure(CHANGES_CHUNK + 4096,
                                                      scratch_pool);
  apr_off_t written = 0;
  apr_uint64_t item;
  int i;

  SVN_ERR(svn_fs_fs__txn_changes(&changes, ctx->fs, &ctx->txn_id,
                                 scratch_pool, scratch_pool));
  sorted = svn_sort__hash(changes, svn_sort_compare_items_lexically,
                          scratch_pool);
  SVN_ERR(svn_fs_fs__protorev_offset(&ctx->changes_offset, ctx->protorev,
                                     scratch_pool));
  for (i = 0; i < sorted->nelts; i++)
    {
      svn_sort__item_t *it = &APR_ARRAY_IDX(sorted, i, svn_sort__item_t);
      svn_fs_fs__change_t *change = it->value;

      /* OLD-7: formats 1 to 3 do not record the node kind. */
      if (ctx->ffd->format < SVN_FS_FS__MIN_KIND_IN_CHANGES_FORMAT)
        {
          change = apr_pmemdup(scratch_pool, change, sizeof(*change));
          change->node_kind = svn_node_unknown;
        }
      svn_fs_fs__change_unparse(text, change, ctx->ffd->format);
      /* Out in chunks: the whole list of a 12,805-file commit, built in
         a buffer growing by doubling, took 4 MB. */
      if (text->len >= CHANGES_CHUNK)
        SVN_ERR(write_text(&written, ctx, text, scratch_pool));
    }
  svn_stringbuf_appendbyte(text, '\n');
  SVN_ERR(write_text(&written, ctx, text, scratch_pool));
  return svn_error_trace(svn_fs_fs__protorev_add_item(
           &item, ctx->protorev, ctx->changes_offset, written,
           SVN_FS_FS__ITEM_TYPE_CHANGES, SVN_FS_FS__ITEM_INDEX_CHANGES,
           scratch_pool));
}

/* Append to ENTRIES an unused range of SIZE bytes at OFFSET. */
static void
push_p2l_gap(apr_array_header_t *entries, apr_off_t offset, apr_off_t size)
{
  svn_fs_fs__p2l_entry_t *gap = apr_array_push(entries);

  memset(gap, 0, sizeof(*gap));
  gap->offset = offset;
  gap->size = size;
  gap->type = SVN_FS_FS__ITEM_TYPE_UNUSED;
  gap->revision = SVN_INVALID_REVNUM;
}

/* Where the proto P2L ENTRIES end if they cover the file from offset 0
   without a gap, else -1. */
static apr_off_t
p2l_contiguous_end(const apr_array_header_t *entries)
{
  apr_off_t at = 0;
  int i;

  for (i = 0; i < entries->nelts; i++)
    {
      const svn_fs_fs__p2l_entry_t *e
        = &APR_ARRAY_IDX(entries, i, svn_fs_fs__p2l_entry_t);

      if (e->offset != at)
        return -1;
      at += e->size;
    }
  return at;
}

/* The proto P2L entries of the new revision with every gap before
   COVERED filled by unused ranges (P2L covers every byte, P2L-6).
   Proto entries follow each other (PROTO-3), so usually only the tail
   needs filling and ENTRIES is completed in place: a copy of the entries
   of a 12,805-file commit took 1 MB at the peak of the full maven load. */
static apr_array_header_t *
complete_p2l(apr_array_header_t *entries, svn_revnum_t rev,
             apr_off_t covered, apr_pool_t *result_pool)
{
  apr_off_t end = p2l_contiguous_end(entries);
  apr_array_header_t *out;
  apr_off_t at = 0;
  int i;

  if (end >= 0)
    {
      for (i = 0; i < entries->nelts; i++)
        APR_ARRAY_IDX(entries, i, svn_fs_fs__p2l_entry_t).revision = rev;
      if (covered > end)
        push_p2l_gap(entries, end, covered - end);
      return entries;
    }
  out = apr_array_make(result_pool, entries->nelts + 4,
                       sizeof(svn_fs_fs__p2l_entry_t));
  for (i = 0; i <= entries->nelts; i++)
    {
      const svn_fs_fs__p2l_entry_t *e
        = i < entries->nelts
          ? &APR_ARRAY_IDX(entries, i, svn_fs_fs__p2l_entry_t) : NULL;
      apr_off_t next = e ? e->offset : covered;

      if (next > at)
        push_p2l_gap(out, at, next - at);
      if (e && e->offset >= at)
        {
          svn_fs_fs__p2l_entry_t *copy = apr_array_push(out);
          *copy = *e;
          copy->revision = rev;
          at = e->offset + e->size;
        }
    }
  return out;
}

/* Append SECTION to the proto-rev file; *OFFSET where it starts, MD5 its
   digest. */
static svn_error_t *
append_section(apr_off_t *offset, unsigned char *md5, commit_ctx_t *ctx,
               const svn_stringbuf_t *section, apr_pool_t *scratch_pool)
{
  svn_checksum_t *sum;

  SVN_ERR(svn_fs_fs__protorev_offset(offset, ctx->protorev, scratch_pool));
  SVN_ERR(svn_io_file_write_full(ctx->protorev->file, section->data,
                                 section->len, NULL, scratch_pool));
  SVN_ERR(svn_checksum(&sum, svn_checksum_md5, section->data, section->len,
                       scratch_pool));
  memcpy(md5, sum->digest, APR_MD5_DIGESTSIZE);
  return SVN_NO_ERROR;
}

/* Format 7+: L2P and P2L sections from the proto indexes, then the
   footer (L2P-1, P2L-1, FOOTER-1..FOOTER-4). */
static svn_error_t *
write_indexes(commit_ctx_t *ctx, apr_pool_t *scratch_pool)
{
  apr_array_header_t *l2p, *p2l, *revs;
  svn_stringbuf_t *l2p_section, *p2l_section;
  svn_fs_fs__footer_t footer;
  char buf[SVN_FS_FS__FOOTER_MAX_LEN];
  apr_off_t covered;
  apr_size_t len;

  SVN_ERR(svn_fs_fs__protorev_offset(&covered, ctx->protorev, scratch_pool));
  SVN_ERR(svn_fs_fs__txn_proto_indexes(&l2p, &p2l, ctx->fs, &ctx->txn_id,
                                       covered, scratch_pool, scratch_pool));
  revs = apr_array_make(scratch_pool, 1, sizeof(apr_array_header_t *));
  APR_ARRAY_PUSH(revs, apr_array_header_t *) = l2p;
  SVN_ERR(svn_fs_fs__l2p_section_build(&l2p_section, ctx->new_rev, revs,
                                       ctx->ffd->l2p_page_size,
                                       scratch_pool));
  SVN_ERR(svn_fs_fs__p2l_section_build(
            &p2l_section, ctx->new_rev, covered, ctx->ffd->p2l_page_size,
            complete_p2l(p2l, ctx->new_rev, covered, scratch_pool),
            scratch_pool));
  memset(&footer, 0, sizeof(footer));
  SVN_ERR(append_section(&footer.l2p_offset, footer.l2p_md5, ctx,
                         l2p_section, scratch_pool));
  SVN_ERR(append_section(&footer.p2l_offset, footer.p2l_md5, ctx,
                         p2l_section, scratch_pool));
  len = svn_fs_fs__footer_unparse(buf, &footer);
  return svn_error_trace(svn_io_file_write_full(ctx->protorev->file, buf,
                                                len, NULL, scratch_pool));
}

/* Format 6 / physical addressing: "<root offset> <changes offset>\n". */
static svn_error_t *
write_trailer(commit_ctx_t *ctx, apr_pool_t *scratch_pool)
{
  const char *trailer = apr_psprintf(scratch_pool,
                                     "%" APR_OFF_T_FMT " %" APR_OFF_T_FMT "\n",
                                     ctx->root_offset, ctx->changes_offset);

  return svn_error_trace(svn_io_file_write_full(ctx->protorev->file, trailer,
                                                strlen(trailer), NULL,
                                                scratch_pool));
}

/* COMMIT-3: the whole new revision, into the proto-rev file. */
static svn_error_t *
write_final_rev(commit_ctx_t *ctx, apr_pool_t *scratch_pool)
{
  const svn_fs_fs__id_t *new_root;
  apr_pool_t *step_pool = svn_pool_create(scratch_pool);

  /* Each step gets memory of its own, returned before the next: the
     tree walk's listings, the folded changes and the indexes of a
     12,805-file commit were all alive at once at the peak of the full
     maven load. */
  SVN_ERR(write_node(&new_root, ctx, ctx->root_txn_id, scratch_pool,
                     step_pool));
  if (svn_fs_fs__id_is_txn(new_root) || new_root == ctx->root_txn_id)
    return svn_error_create(SVN_ERR_FS_CORRUPT, NULL,
                            "Transaction root is not mutable");
  svn_pool_clear(step_pool);
  SVN_ERR(write_changes(ctx, step_pool));
  svn_pool_clear(step_pool);
  if (ctx->ffd->use_log_addressing)
    SVN_ERR(write_indexes(ctx, step_pool));
  else
    SVN_ERR(write_trailer(ctx, step_pool));
  svn_pool_destroy(step_pool);
  SVN_ERR(svn_io_file_flush(ctx->protorev->file, scratch_pool));
  if (ctx->flush)
    SVN_ERR(svn_io_file_flush_to_disk(ctx->protorev->file, scratch_pool));
  return SVN_NO_ERROR;
}

/* ------------------------------------------------------------------ */
/* Making the revision visible                                         */

/* Create directory PATH (a new shard) unless it exists, and give it the
   permissions of PERMS_FROM, its parent, as stock does: in a repository
   shared by a group, db/revs and db/revprops are group-writable and
   set-gid, and a shard made with this process's umask would lock the
   other users out of it.  A directory that exists already is left
   alone (chmod would fail on one another user made). */
static svn_error_t *
ensure_dir(const char *path, const char *perms_from, svn_boolean_t flush,
           apr_pool_t *scratch_pool)
{
  svn_error_t *err = svn_io_dir_make(path, APR_OS_DEFAULT, scratch_pool);

  if (err && APR_STATUS_IS_EEXIST(err->apr_err))
    {
      svn_error_clear(err);
      return SVN_NO_ERROR;
    }
  SVN_ERR(err);
  SVN_ERR(svn_io_copy_perms(perms_from, path, scratch_pool));
  /* The new directory's own name lives in its parent: without this sync
     a power cut could drop the shard, and the revision synced into it
     with it, after the commit reported success. */
  return svn_error_trace(flush ? svn_fs_fs__sync_dir(
                                   svn_dirent_dirname(path, scratch_pool),
                                   scratch_pool)
                               : SVN_NO_ERROR);
}

/* The permissions the new revision's rev and revprops files get: those
   of the previous revision's rev file (its pack file once packed), as
   stock does.  A repository made world-writable by its admin (or by a
   test harness that damages rev files on purpose) thereby stays so;
   a fresh one keeps r0's read-only mode.  One stat per commit. */
static svn_error_t *
new_rev_perms(apr_fileperms_t *perms, commit_ctx_t *ctx,
              apr_pool_t *scratch_pool)
{
  svn_fs_t *fs = ctx->fs;
  svn_revnum_t prev = ctx->new_rev - 1;
  apr_finfo_t finfo;
  svn_error_t *err;

  /* The plain file first: a packed predecessor is the rare case (the
     first commit after a pack of the full shards), and only then is
     db/min-unpacked-rev worth reading. */
  err = svn_io_stat(&finfo, svn_fs_fs__path_rev(fs, prev, scratch_pool),
                    APR_FINFO_PROT, scratch_pool);
  if (err && APR_STATUS_IS_ENOENT(err->apr_err))
    {
      svn_error_clear(err);
      SVN_ERR(svn_fs_fs__update_min_unpacked_rev(fs, scratch_pool));
      err = svn_io_stat(&finfo,
                        svn_fs_fs__is_packed_rev(fs, prev)
                        ? svn_fs_fs__path_rev_packed(fs, prev, "pack",
                                                     scratch_pool)
                        : svn_fs_fs__path_rev(fs, prev, scratch_pool),
                        APR_FINFO_PROT, scratch_pool);
    }
  SVN_ERR(err);
  *perms = finfo.protection;
  return SVN_NO_ERROR;
}

/* chmod PATH to PERMS. */
static svn_error_t *
set_perms(const char *path, apr_fileperms_t perms, apr_pool_t *scratch_pool)
{
  apr_status_t status = apr_file_perms_set(path, perms);

  if (status)
    return svn_error_wrap_apr(status, "Can't change perms of file '%s'",
                              svn_dirent_local_style(path, scratch_pool));
  return SVN_NO_ERROR;
}

/* Create the shard directories of CTX->new_rev if they are missing.  Only
   called when a file could not be put into one: they normally exist,
   and probing them on every commit costs two system calls. */
static svn_error_t *
ensure_shards(commit_ctx_t *ctx, apr_pool_t *scratch_pool)
{
  if (!ctx->ffd->max_files_per_dir)
    return SVN_NO_ERROR;
  SVN_ERR(ensure_dir(svn_fs_fs__path_rev_shard(ctx->fs, ctx->new_rev,
                                               scratch_pool),
                     svn_fs_fs__path_db(ctx->fs, "revs", scratch_pool),
                     ctx->flush, scratch_pool));
  return svn_error_trace(ensure_dir(
           svn_fs_fs__path_revprops_shard(ctx->fs, ctx->new_rev,
                                          scratch_pool),
           svn_fs_fs__path_db(ctx->fs, "revprops", scratch_pool),
           ctx->flush, scratch_pool));
}

/* COMMIT-4: move the (already durable) proto-rev file to its final
   name, with the permissions of the previous rev file.  The mode is set
   before the move so that the move's own directory sync is the only one
   needed.  db/txn-protorevs and db/revs may lie on different file
   systems: then the move copies (durable.h). */
static svn_error_t *
move_rev_into_place(commit_ctx_t *ctx, apr_pool_t *scratch_pool)
{
  svn_fs_t *fs = ctx->fs;
  const char *from = svn_fs_fs__txn_protorev_path(fs, &ctx->txn_id,
                                                  scratch_pool);
  const char *to = svn_fs_fs__path_rev(fs, ctx->new_rev, scratch_pool);
  svn_error_t *err;

  if (ctx->ffd->max_files_per_dir
      && ctx->new_rev % ctx->ffd->max_files_per_dir == 0)
    SVN_ERR(ensure_shards(ctx, scratch_pool));
  SVN_ERR(svn_fs_fs__protorev_close(ctx->protorev));
  SVN_ERR(new_rev_perms(&ctx->ro_perms, ctx, scratch_pool));
  SVN_ERR(set_perms(from, ctx->ro_perms, scratch_pool));
  err = svn_fs_fs__move_into_place(from, to, ctx->flush, scratch_pool);
  if (err && APR_STATUS_IS_ENOENT(err->apr_err))
    {
      /* A shard directory went missing: make it and try again. */
      svn_error_clear(err);
      SVN_ERR(ensure_shards(ctx, scratch_pool));
      err = svn_fs_fs__move_into_place(from, to, ctx->flush, scratch_pool);
    }
  return svn_error_trace(err);
}

/* The revision properties of the new revision: the transaction's minus
   the internal ones, svn:date now unless the client may set it
   (COMMIT-5). */
static svn_error_t *
final_revprops(apr_hash_t **props, commit_ctx_t *ctx,
               apr_pool_t *result_pool, apr_pool_t *scratch_pool)
{
  const svn_string_t *flag;
  svn_boolean_t client_date;

  SVN_ERR(svn_fs_fs__txn_get_props(props, ctx->fs, &ctx->txn_id, FALSE,
                                   result_pool, scratch_pool));
  /* "1" only once the client changed svn:date of a transaction begun
     with SVN_FS_TXN_CLIENT_DATE; "0" means the begin-time date, which
     the commit time replaces.  A client that deleted svn:date gets a
     revision without one. */
  flag = svn_hash_gets(*props, SVN_FS__PROP_TXN_CLIENT_DATE);
  client_date = flag && strcmp(flag->data, "1") == 0;
  svn_hash_sets(*props, SVN_FS__PROP_TXN_CHECK_LOCKS, NULL);
  svn_hash_sets(*props, SVN_FS__PROP_TXN_CHECK_OOD, NULL);
  svn_hash_sets(*props, SVN_FS__PROP_TXN_CLIENT_DATE, NULL);
  if (!client_date)
    svn_hash_sets(*props, SVN_PROP_REVISION_DATE,
                  svn_string_create(svn_time_to_cstring(apr_time_now(),
                                                        result_pool),
                                    result_pool));
  return SVN_NO_ERROR;
}

/* Open PRIVATE, the transaction's own file for the new revprops, for
   writing from scratch: a spare of the transaction when there is one
   (txn_spare.c; *TOOK, its old bytes to be overwritten and cut off),
   else a new file.  A read-only leftover of an attempt that failed after
   its chmod is removed first. */
static svn_error_t *
open_private(apr_file_t **file, svn_boolean_t *took, const char *private,
             commit_ctx_t *ctx, apr_pool_t *scratch_pool)
{
  const apr_int32_t flags = APR_WRITE | APR_CREATE | APR_TRUNCATE;
  svn_error_t *err;

  SVN_ERR(svn_fs_fs__txn_spare_take(took, svn_fs_fs__txn_path(
                                             ctx->fs, &ctx->txn_id, NULL,
                                             scratch_pool),
                                    private, scratch_pool));
  if (*took)
    return svn_error_trace(svn_io_file_open(file, private, APR_WRITE,
                                            APR_OS_DEFAULT, scratch_pool));
  err = svn_io_file_open(file, private, flags, APR_OS_DEFAULT, scratch_pool);
  if (!err || !APR_STATUS_IS_EACCES(err->apr_err))
    return svn_error_trace(err);
  svn_error_clear(err);
  SVN_ERR(svn_io_remove_file2(private, TRUE, scratch_pool));
  return svn_error_trace(svn_io_file_open(file, private, flags,
                                          APR_OS_DEFAULT, scratch_pool));
}

/* COMMIT-5: write the revprops file.  The bytes go to a file of the
   transaction ("props-final") first, are synced and given the rev file's
   permissions; only then does the file move to revprops/<shard>/<N>
   (durable.h), which syncs that directory.  So the public name never
   holds a half-written file, nor a recycled file of an earlier
   transaction whose bytes are still the old ones: `svnadmin recover`
   after a crash may adopt revision N (its rev file is complete), and
   must then find its own revprops or none. */
static svn_error_t *
write_revprops(commit_ctx_t *ctx, apr_pool_t *scratch_pool)
{
  apr_hash_t *props;
  apr_file_t *file;
  svn_stringbuf_t *dump = svn_stringbuf_create_empty(scratch_pool);
  const char *path = svn_fs_fs__path_revprops(ctx->fs, ctx->new_rev,
                                              scratch_pool);
  const char *private = svn_fs_fs__txn_path(ctx->fs, &ctx->txn_id,
                                            "props-final", scratch_pool);
  svn_boolean_t took;
  svn_error_t *err;

  SVN_ERR(final_revprops(&props, ctx, scratch_pool, scratch_pool));
  svn_fs_fs__hashdump_unparse(dump, props, scratch_pool);
  SVN_ERR(open_private(&file, &took, private, ctx, scratch_pool));
  SVN_ERR(svn_io_file_write_full(file, dump->data, dump->len, NULL,
                                 scratch_pool));
  if (took)
    SVN_ERR(svn_io_file_trunc(file, dump->len, scratch_pool));
  if (ctx->flush)
    SVN_ERR(svn_io_file_flush_to_disk(file, scratch_pool));
  SVN_ERR(svn_io_file_close(file, scratch_pool));
  SVN_ERR(set_perms(private, ctx->ro_perms, scratch_pool));
  err = svn_fs_fs__move_into_place(private, path, ctx->flush, scratch_pool);
  if (err && APR_STATUS_IS_ENOENT(err->apr_err))
    {
      /* The revprops shard directory went missing: make it, retry. */
      svn_error_clear(err);
      SVN_ERR(ensure_shards(ctx, scratch_pool));
      err = svn_fs_fs__move_into_place(private, path, ctx->flush,
                                       scratch_pool);
    }
  return svn_error_trace(err);
}

/* fsfs.conf verify-before-commit (COMMIT-4a): check the new revision,
   already at its final name but not yet visible, before db/current
   names it: its indexes, its root node-rev and every rep it added.  On
   failure the file is removed again and the commit fails. */
static svn_error_t *
verify_new_rev(commit_ctx_t *ctx, apr_pool_t *scratch_pool)
{
  svn_revnum_t visible = ctx->ffd->youngest_rev_cache;
  const svn_fs_fs__id_t *root_id;
  svn_fs_fs__noderev_t *root;
  svn_error_t *err;
  int i;

  /* Our own readers check revisions against the youngest we know; let
     them see the new one for the check only. */
  ctx->ffd->youngest_rev_cache = ctx->new_rev;
  err = svn_fs_fs__verify_indexes(ctx->fs, ctx->new_rev, ctx->new_rev,
                                  NULL, NULL, scratch_pool);
  if (!err)
    err = svn_fs_fs__rev_root_id(&root_id, ctx->fs, ctx->new_rev,
                                 scratch_pool, scratch_pool);
  if (!err)
    err = svn_fs_fs__get_noderev(&root, ctx->fs, root_id, scratch_pool,
                                 scratch_pool);
  for (i = 0; !err && i < ctx->reps_to_cache->nelts; i++)
    err = svn_fs_fs__rep_verify(ctx->fs,
                                APR_ARRAY_IDX(ctx->reps_to_cache, i,
                                              svn_fs_fs__rep_t *),
                                NULL, NULL, scratch_pool);
  ctx->ffd->youngest_rev_cache = visible;
  if (err)
    return svn_error_compose_create(
             err, svn_io_remove_file2(svn_fs_fs__path_rev(ctx->fs,
                                                          ctx->new_rev,
                                                          scratch_pool),
                                      TRUE, scratch_pool));
  return SVN_NO_ERROR;
}

/* OLD-3: "<rev> <next-node-id> <next-copy-id>\n": the bases moved past
   the ids this transaction handed out (its next-ids file). */
static svn_error_t *
old_current_text(const char **text, commit_ctx_t *ctx,
                 apr_pool_t *scratch_pool)
{
  const char *path = svn_fs_fs__txn_path(ctx->fs, &ctx->txn_id, "next-ids",
                                         scratch_pool);
  svn_stringbuf_t *ids;
  apr_uint64_t node_ids, copy_ids;
  char node_buf[SVN_INT64_BUFFER_SIZE], copy_buf[SVN_INT64_BUFFER_SIZE];

  SVN_ERR(svn_stringbuf_from_file2(&ids, path, scratch_pool));
  SVN_ERR(svn_fs_fs__txn_next_ids_parse(&node_ids, &copy_ids, ids->data,
                                        ids->len, path));
  svn__ui64tobase36(node_buf, ctx->node_id_base + node_ids);
  svn__ui64tobase36(copy_buf, ctx->copy_id_base + copy_ids);
  *text = apr_psprintf(scratch_pool, "%ld %s %s\n", ctx->new_rev, node_buf,
                       copy_buf);
  return SVN_NO_ERROR;
}

/* COMMIT-6, the commit point: db/current names the new revision. */
static svn_error_t *
write_current(commit_ctx_t *ctx, apr_pool_t *scratch_pool)
{
  const char *text = apr_psprintf(scratch_pool, "%ld\n", ctx->new_rev);
  const char *path = svn_fs_fs__path_db(ctx->fs, "current", scratch_pool);

  if (ctx->old_ids)
    SVN_ERR(old_current_text(&text, ctx, scratch_pool));

  /* With FLUSH, db/ is also synced after the rename.  The temp file is
     a spare of the transaction when there is one (txn_spare.c). */
  SVN_ERR(svn_fs_fs__txn_spare_write_atomic(
            path, text, strlen(text), path, ctx->flush,
            svn_fs_fs__txn_path(ctx->fs, &ctx->txn_id, NULL, scratch_pool),
            scratch_pool));
  ctx->ffd->youngest_rev_cache = ctx->new_rev;
  return SVN_NO_ERROR;
}

/* ------------------------------------------------------------------ */
/* Checks under the write lock                                         */

/* COMMIT-2: every changed path (and, for anything but a modification,
   everything below it) that is locked must be locked by the user with a
   token the user gave us. */
static svn_error_t *
check_locks(commit_ctx_t *ctx, apr_pool_t *scratch_pool)
{
  apr_hash_t *changes;
  apr_array_header_t *sorted;
  apr_pool_t *iterpool = svn_pool_create(scratch_pool);
  const char *last_recursed = NULL;
  int i;

  SVN_ERR(svn_fs_fs__txn_changes(&changes, ctx->fs, &ctx->txn_id,
                                 scratch_pool, scratch_pool));
  sorted = svn_sort__hash(changes, svn_sort_compare_items_as_paths,
                          scratch_pool);
  for (i = 0; i < sorted->nelts; i++)
    {
      svn_sort__item_t *it = &APR_ARRAY_IDX(sorted, i, svn_sort__item_t);
      const svn_fs_fs__change_t *change = it->value;
      const char *path = it->key;
      svn_boolean_t recurse
        = change->change_kind != svn_fs_path_change_modify;

      svn_pool_clear(iterpool);
      if (last_recursed
          && svn_fspath__skip_ancestor(last_recursed, path) != NULL)
        continue;
      SVN_ERR(svn_fs_fs__allow_locked_operation(ctx->fs, path, recurse,
                                                iterpool));
      if (recurse)
        last_recursed = path;
    }
  svn_pool_destroy(iterpool);
  return SVN_NO_ERROR;
}

/* COMMIT-1: the transaction must be based on the youngest revision (its
   root a successor of the youngest root); else stock's out-of-date
   error, on which the caller merges again. */
static svn_error_t *
check_up_to_date(commit_ctx_t *ctx, svn_revnum_t base_rev,
                 apr_pool_t *scratch_pool)
{
  svn_revnum_t youngest;
  svn_fs_fs__noderev_t *root;

  SVN_ERR(svn_fs_fs__youngest_rev(&youngest, ctx->fs, scratch_pool));
  if (base_rev != youngest)
    return svn_error_create(SVN_ERR_FS_TXN_OUT_OF_DATE, NULL,
                            "Transaction out of date");
  SVN_ERR(svn_fs_fs__get_noderev(&root, ctx->fs, ctx->root_txn_id,
                                 scratch_pool, scratch_pool));
  if (!root->predecessor_id
      || svn_fs_fs__id_rev(root->predecessor_id) != youngest)
    return svn_error_create(SVN_ERR_FS_TXN_OUT_OF_DATE, NULL,
                            "Transaction out of date");
  ctx->new_rev = youngest + 1;

  /* A new revision that db/min-unpacked-rev already counts as packed
     would be written where no reader looks: every read of it would go
     to the pack file, which holds another repository's revision (an
     incremental hotcopy cut short copies packs before db/current).
     Refuse rather than acknowledge a revision that reads differently. */
  SVN_ERR(svn_fs_fs__update_min_unpacked_rev(ctx->fs, scratch_pool));
  if (svn_fs_fs__is_packed_rev(ctx->fs, ctx->new_rev))
    return svn_error_createf(
             SVN_ERR_FS_CORRUPT, NULL,
             "Can't commit r%ld: db/min-unpacked-rev (%ld) says it is "
             "already packed but db/current says r%ld is the youngest; "
             "was a hotcopy into this repository interrupted? Run it again",
             ctx->new_rev, ctx->ffd->min_unpacked_rev, youngest);
  return SVN_NO_ERROR;
}

/* ------------------------------------------------------------------ */
/* The commit                                                          */

/* Baton of commit_body. */
typedef struct commit_baton_t
{
  commit_ctx_t *ctx;
  svn_revnum_t base_rev;
  svn_boolean_t check_locks;
} commit_baton_t;

/* Everything under the write lock (svn_fs_fs__with_write_lock). */
static svn_error_t *
commit_body(void *baton, apr_pool_t *pool)
{
  commit_baton_t *cb = baton;
  commit_ctx_t *ctx = cb->ctx;
  svn_error_t *err;

  SVN_ERR(check_up_to_date(ctx, cb->base_rev, pool));
  if (ctx->ffd->format < SVN_FS_FS__MIN_NEW_IDS_FORMAT)
    {
      svn_revnum_t youngest;

      ctx->old_ids = TRUE;
      SVN_ERR(svn_fs_fs__read_current(&youngest, &ctx->node_id_base,
                                      &ctx->copy_id_base, ctx->fs, pool));
    }
  if (cb->check_locks)
    SVN_ERR(check_locks(ctx, pool));
  SVN_ERR(svn_fs_fs__protorev_open(&ctx->protorev, ctx->fs, &ctx->txn_id,
                                   ctx->pool, pool));
  err = write_final_rev(ctx, pool);
  if (err)
    return svn_error_compose_create(
             err, svn_fs_fs__protorev_close(ctx->protorev));
  SVN_ERR(move_rev_into_place(ctx, pool));
  if (ctx->ffd->verify_before_commit)
    SVN_ERR(verify_new_rev(ctx, pool));
  SVN_ERR(write_revprops(ctx, pool));
  SVN_ERR(write_current(ctx, pool));
  /* The revision is committed; a purge failure only leaves litter that
     'svnadmin rmtxns' removes. */
  svn_error_clear(svn_fs_fs__txn_purge(ctx->fs, &ctx->txn_id, pool));
  return SVN_NO_ERROR;
}

/* Set up CTX for committing transaction TXN_ID of FS. */
static void
init_ctx(commit_ctx_t *ctx, svn_fs_t *fs, const svn_fs_fs__txn_id_t *txn_id,
         apr_pool_t *pool)
{
  svn_fs_fs__id_part_t zero = { 0, 0 };

  memset(ctx, 0, sizeof(*ctx));
  ctx->fs = fs;
  ctx->ffd = SVN_FS_FS__DATA(fs);
  ctx->txn_id = *txn_id;
  ctx->root_txn_id = svn_fs_fs__id_create_txn(&zero, &zero, txn_id, pool);
  ctx->flush = svn_fs_fs__flush_wanted(fs);
  ctx->reps_to_cache = apr_array_make(pool, 16, sizeof(svn_fs_fs__rep_t *));
  ctx->reps_by_sha1 = apr_hash_make(pool);
  ctx->pool = pool;
}

/* Does the transaction ask for lock checks (svn:check-locks)? */
static svn_error_t *
wants_lock_check(svn_boolean_t *check, svn_fs_t *fs,
                 const svn_fs_fs__txn_id_t *txn_id, apr_pool_t *scratch_pool)
{
  apr_hash_t *props;

  SVN_ERR(svn_fs_fs__txn_get_props(&props, fs, txn_id, FALSE, scratch_pool,
                                   scratch_pool));
  *check = svn_hash_gets(props, SVN_FS__PROP_TXN_CHECK_LOCKS) != NULL;
  return SVN_NO_ERROR;
}

/* One attempt: merge the youngest revision into TXN if it moved past
   *BASE_REV, then commit under the write lock. */
static svn_error_t *
try_commit(const char **conflict_p, svn_revnum_t *new_rev,
           svn_revnum_t *base_rev, svn_fs_txn_t *txn,
           apr_pool_t *result_pool, apr_pool_t *pool)
{
  const svn_fs_fs__txn_data_t *data = txn->fsap_data;
  commit_baton_t cb;
  commit_ctx_t ctx;
  svn_revnum_t youngest;
  svn_fs_root_t *txn_root;

  SVN_ERR(svn_fs_fs__youngest_rev(&youngest, txn->fs, pool));
  if (youngest != *base_rev)
    {
      SVN_ERR(svn_fs_fs__txn_root(&txn_root, txn, pool));
      SVN_ERR(svn_fs_fs__merge_into_txn(conflict_p, txn_root, *base_rev,
                                        youngest, result_pool, pool));
      *base_rev = youngest;
    }
  init_ctx(&ctx, txn->fs, &data->txn_id, pool);
  cb.ctx = &ctx;
  cb.base_rev = *base_rev;
  SVN_ERR(wants_lock_check(&cb.check_locks, txn->fs, &data->txn_id, pool));
  SVN_ERR(svn_fs_fs__with_write_lock(txn->fs, commit_body, &cb, pool));
  *new_rev = ctx.new_rev;
  /* COMMIT-8: the revision is visible; a rep-cache failure is returned
     with *NEW_REV set, as the stock module does: callers
     (svn_repos_fs_commit_txn, svnadmin load) take that as a problem after
     a successful commit. */
  return svn_error_trace(svn_fs_fs__rep_cache_add(txn->fs,
                                                  ctx.reps_to_cache, pool));
}

svn_error_t *
svn_fs_fs__commit_txn(const char **conflict_p, svn_revnum_t *new_rev,
                      svn_fs_txn_t *txn, apr_pool_t *pool)
{
  apr_pool_t *iterpool = svn_pool_create(pool);
  svn_revnum_t base_rev = txn->base_rev;
  svn_error_t *err;

  *new_rev = SVN_INVALID_REVNUM;
  if (conflict_p)
    *conflict_p = NULL;
  while (TRUE)
    {
      svn_revnum_t youngest;

      svn_pool_clear(iterpool);
      err = try_commit(conflict_p, new_rev, &base_rev, txn, pool, iterpool);
      if (!err || err->apr_err != SVN_ERR_FS_TXN_OUT_OF_DATE)
        break;
      /* Someone committed between our merge and our lock: merge again,
         unless nothing moved (then the error is real). */
      SVN_ERR(svn_fs_fs__youngest_rev(&youngest, txn->fs, iterpool));
      if (youngest == base_rev)
        break;
      svn_error_clear(err);
    }
  if (SVN_IS_VALID_REVNUM(*new_rev))
    txn->base_rev = *new_rev - 1;
  svn_pool_destroy(iterpool);
  /* [debug] pack-after-commit: pack as soon as a shard is complete
     (after the write lock is released; pack.md PACK-1). */
  if (!err && SVN_FS_FS__DATA(txn->fs)->pack_after_commit)
    err = svn_fs_fs__pack(txn->fs, NULL, NULL, NULL, NULL, pool);
  return svn_error_trace(err);
}
