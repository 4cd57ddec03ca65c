/* repo_stats.c --- the statistics ioctl behind `svnfsfs stats` (repo.h;
 * storage layer, admin part; dispatched by fs_vtable.c's fs_ioctl).
 *
 * What is counted and why is in doc/ioctls.md.  In short: with logical
 * addressing every item of every rev / pack file, in file order (the P2L
 * index); with physical addressing the node-revs each revision created,
 * found by walking its tree from the root into entries of the same
 * revision.  Each node-rev counts once; each representation counts once,
 * when first named, and gets one reference per naming node-rev.
 *
 * The result crosses the module boundary: its layout is the one svnfsfs
 * was compiled with (upstream's private header svn_fs_fs_private.h, part
 * of our ABI), mirrored by the abi_* structs below.  Numbers follow what
 * the stock module reports on the same repository, quirks included
 * (compared by tests/integration/test_svnfsfs.py).  The "unused reps"
 * histogram, which the tool does not print, stays empty.
 */
#include <string.h>
#include <apr_strings.h>

#include "svn_dirent_uri.h"
#include "svn_fs.h"
#include "svn_path.h"
#include "svn_pools.h"

#include "corrupt.h"
#include "index.h"
#include "node.h"
#include "noderev_codec.h"
#include "rep_header.h"
#include "repo.h"
#include "revfile.h"

/* ---- the ABI (svn_fs_fs_private.h) ------------------------------------ */

typedef struct abi_large_change_t
{
  apr_uint64_t size;
  svn_revnum_t revision;
  svn_stringbuf_t *path;
} abi_large_change_t;

typedef struct abi_largest_changes_t
{
  apr_size_t count;
  apr_uint64_t min_size;
  abi_large_change_t **changes;
} abi_largest_changes_t;

typedef struct abi_histogram_line_t
{
  apr_uint64_t count;
  apr_uint64_t sum;
} abi_histogram_line_t;

typedef struct abi_histogram_t
{
  abi_histogram_line_t total;
  abi_histogram_line_t lines[64];
} abi_histogram_t;

typedef struct abi_extension_info_t
{
  const char *extension;
  abi_histogram_t rep_histogram;
  abi_histogram_t node_histogram;
} abi_extension_info_t;

typedef struct abi_rep_pack_stats_t
{
  apr_uint64_t count;
  apr_uint64_t packed_size;
  apr_uint64_t expanded_size;
  apr_uint64_t overhead_size;
} abi_rep_pack_stats_t;

typedef struct abi_rep_stats_t
{
  abi_rep_pack_stats_t total;
  abi_rep_pack_stats_t uniques;
  abi_rep_pack_stats_t shared;
  apr_uint64_t references;
  apr_uint64_t expanded_size;
  apr_uint64_t chain_len;
} abi_rep_stats_t;

typedef struct abi_node_stats_t
{
  apr_uint64_t count;
  apr_uint64_t size;
} abi_node_stats_t;

typedef struct abi_stats_t
{
  apr_uint64_t total_size;
  apr_uint64_t revision_count;
  apr_uint64_t change_count;
  apr_uint64_t change_len;
  abi_rep_stats_t total_rep_stats;
  abi_rep_stats_t file_rep_stats;
  abi_rep_stats_t dir_rep_stats;
  abi_rep_stats_t file_prop_rep_stats;
  abi_rep_stats_t dir_prop_rep_stats;
  abi_node_stats_t total_node_stats;
  abi_node_stats_t file_node_stats;
  abi_node_stats_t dir_node_stats;
  abi_largest_changes_t *largest_changes;
  abi_histogram_t rep_size_histogram;
  abi_histogram_t node_size_histogram;
  abi_histogram_t added_rep_size_histogram;
  abi_histogram_t added_node_size_histogram;
  abi_histogram_t unused_rep_histogram;
  abi_histogram_t file_histogram;
  abi_histogram_t file_rep_histogram;
  abi_histogram_t file_prop_histogram;
  abi_histogram_t file_prop_rep_histogram;
  abi_histogram_t dir_histogram;
  abi_histogram_t dir_rep_histogram;
  abi_histogram_t dir_prop_histogram;
  abi_histogram_t dir_prop_rep_histogram;
  apr_hash_t *by_extension;
} abi_stats_t;

typedef struct abi_stats_input_t
{
  svn_fs_progress_notify_func_t progress_func;
  void *progress_baton;
} abi_stats_input_t;

typedef struct abi_stats_output_t
{
  abi_stats_t *stats;
} abi_stats_output_t;

#define IOCTL_GET_STATS 1000

/* Longest node-rev item read (as node.c allows for a record). */
#define NODEREV_ITEM_MAX (16 * 1024 * 1024)

/* How many of the largest reps the result lists. */
#define LARGEST_COUNT 64

/* ---- collection ------------------------------------------------------- */

/* One representation, as first named. */
typedef struct rep_info_t
{
  svn_revnum_t revision;
  apr_uint64_t item_index;
  apr_uint64_t size;           /* data length on disk */
  apr_uint64_t expanded_size;
  apr_uint64_t overhead;       /* header line + trailer */
  apr_uint64_t chain_len;
  apr_uint64_t ref_count;
  abi_rep_stats_t *kind_stats; /* the per-kind rep statistics it adds to */
} rep_info_t;

typedef struct walk_t
{
  svn_fs_t *fs;
  abi_stats_t *stats;
  apr_hash_t *reps;            /* "rev/item" -> rep_info_t * */
  apr_hash_t *chains;          /* "rev/item" -> apr_uint64_t chain length */
  apr_pool_t *chain_pool;      /* for CHAINS */
  apr_array_header_t *rep_list;  /* rep_info_t *, first-seen order */
  apr_pool_t *pool;            /* for REPS, REP_LIST, STATS */
  svn_cancel_func_t cancel_func;
  void *cancel_baton;
} walk_t;

/* Add VALUE to HISTOGRAM: line i holds 2^(i-1) <= value < 2^i, line 0
   the zeros. */
static void
histogram_add(abi_histogram_t *histogram, apr_uint64_t value)
{
  int line = 0;

  while (line < 63 && (value >> line) != 0)
    line++;
  histogram->lines[line].count++;
  histogram->lines[line].sum += value;
  histogram->total.count++;
  histogram->total.sum += value;
}

/* Record a rep of SIZE at REVISION / PATH among the largest. */
static void
largest_add(abi_largest_changes_t *largest, apr_uint64_t size,
            svn_revnum_t revision, const char *path)
{
  abi_large_change_t *slot;
  apr_size_t i;

  if (size < largest->min_size)
    return;
  /* The last slot is the smallest: overwrite it and bubble it up. */
  slot = largest->changes[largest->count - 1];
  slot->size = size;
  slot->revision = revision;
  svn_stringbuf_set(slot->path, path);
  for (i = largest->count - 1;
       i > 0 && largest->changes[i - 1]->size < size; i--)
    largest->changes[i] = largest->changes[i - 1];
  largest->changes[i] = slot;
  largest->min_size = largest->changes[largest->count - 1]->size;
}

static abi_stats_t *
stats_create(apr_pool_t *pool)
{
  abi_stats_t *stats = apr_pcalloc(pool, sizeof(*stats));
  abi_largest_changes_t *largest = apr_pcalloc(pool, sizeof(*largest));
  int i;

  largest->count = LARGEST_COUNT;
  largest->changes = apr_pcalloc(pool, LARGEST_COUNT
                                       * sizeof(*largest->changes));
  for (i = 0; i < LARGEST_COUNT; i++)
    {
      largest->changes[i] = apr_pcalloc(pool, sizeof(abi_large_change_t));
      largest->changes[i]->revision = SVN_INVALID_REVNUM;
      largest->changes[i]->path = svn_stringbuf_create_empty(pool);
    }
  stats->largest_changes = largest;
  stats->by_extension = apr_hash_make(pool);
  return stats;
}

/* The header of the rep at REVISION / ITEM_INDEX in *HEADER. */
static svn_error_t *
read_rep_header(svn_fs_fs__rep_header_t *header, svn_fs_t *fs,
                svn_revnum_t revision, apr_uint64_t item_index,
                apr_pool_t *scratch_pool)
{
  svn_fs_fs__revfile_t *file;
  apr_off_t offset;
  const char *data;
  apr_size_t len;

  SVN_ERR(svn_fs_fs__revfile_open(&file, fs, revision, scratch_pool,
                                  scratch_pool));
  SVN_ERR(svn_fs_fs__item_offset(&offset, fs, file, revision, item_index,
                                 scratch_pool));
  SVN_ERR(svn_fs_fs__revfile_read_some(&data, &len, file, offset,
                                       SVN_FS_FS__REP_HEADER_MAX,
                                       scratch_pool));
  return svn_error_trace(svn_fs_fs__rep_header_parse(header, data, len,
                                                     NULL));
}

/* The key of the rep at REVISION / ITEM_INDEX in walk_t's hashes. */
static const char *
rep_key(svn_revnum_t revision, apr_uint64_t item_index, apr_pool_t *pool)
{
  return apr_psprintf(pool, "%ld/%" APR_UINT64_T_FMT, revision, item_index);
}

/* Length of the delta chain of the rep at REVISION / ITEM_INDEX: 1 for a
   rep that needs no base, one more per base.  Chains share their tails,
   so lengths found are remembered in W->chains. */
static svn_error_t *
chain_length(apr_uint64_t *len, walk_t *w, svn_revnum_t revision,
             apr_uint64_t item_index, apr_pool_t *scratch_pool)
{
  apr_array_header_t *path = apr_array_make(scratch_pool, 16,
                                            sizeof(const char *));
  apr_pool_t *iterpool = svn_pool_create(scratch_pool);
  svn_fs_fs__rep_header_t header;
  const char *key = rep_key(revision, item_index, scratch_pool);
  apr_uint64_t *known;
  apr_uint64_t n = 0;
  int i;

  /* Down the chain to its end or to a rep whose length is known. */
  while (!(known = apr_hash_get(w->chains, key, APR_HASH_KEY_STRING)))
    {
      APR_ARRAY_PUSH(path, const char *) = key;
      svn_pool_clear(iterpool);
      SVN_ERR(read_rep_header(&header, w->fs, revision, item_index,
                              iterpool));
      if (header.kind != svn_fs_fs__rep_delta)
        break;
      revision = header.base_revision;
      item_index = header.base_item_index;
      key = rep_key(revision, item_index, scratch_pool);
    }
  svn_pool_destroy(iterpool);
  if (known)
    n = *known;
  /* Back up, remembering every length on the way. */
  for (i = path->nelts - 1; i >= 0; i--)
    {
      apr_uint64_t *value = apr_palloc(w->chain_pool, sizeof(*value));

      *value = ++n;
      apr_hash_set(w->chains,
                   apr_pstrdup(w->chain_pool,
                               APR_ARRAY_IDX(path, i, const char *)),
                   APR_HASH_KEY_STRING, value);
    }
  *len = n;
  return SVN_NO_ERROR;
}

/* The extension of PATH's basename, with its dot, or "(none)".  A name
   whose only dot leads it (".cvsignore") is a hidden file without an
   extension, as stock reports it; ".a.b" still has ".b". */
static const char *
extension_of(const char *path)
{
  const char *name = svn_relpath_basename(path[0] == '/' ? path + 1 : path,
                                          NULL);
  const char *dot = strrchr(name, '.');

  return dot && dot != name ? dot : "(none)";
}

/* The per-extension record of PATH's extension. */
static abi_extension_info_t *
extension_info(walk_t *w, const char *path)
{
  const char *ext = extension_of(path);
  abi_extension_info_t *info = apr_hash_get(w->stats->by_extension, ext,
                                            APR_HASH_KEY_STRING);

  if (!info)
    {
      info = apr_pcalloc(w->pool, sizeof(*info));
      info->extension = apr_pstrdup(w->pool, ext);
      apr_hash_set(w->stats->by_extension, info->extension,
                   APR_HASH_KEY_STRING, info);
    }
  return info;
}

/* Count REP, named by NODEREV as its text (IS_PROPS FALSE) or property
   list. */
static svn_error_t *
add_rep(walk_t *w, const svn_fs_fs__noderev_t *noderev,
        const svn_fs_fs__rep_t *rep, svn_boolean_t is_props,
        apr_pool_t *scratch_pool)
{
  abi_stats_t *s = w->stats;
  svn_boolean_t is_dir = noderev->kind == svn_node_dir;
  const char *key = rep_key(rep->revision, rep->item_index, scratch_pool);
  rep_info_t *info = apr_hash_get(w->reps, key, APR_HASH_KEY_STRING);
  svn_fs_fs__rep_header_t header;
  abi_histogram_t *node_hist, *rep_hist;

  if (info)
    {
      info->ref_count++;
      return SVN_NO_ERROR;
    }
  info = apr_pcalloc(w->pool, sizeof(*info));
  info->revision = rep->revision;
  info->item_index = rep->item_index;
  info->size = rep->size;
  info->ref_count = 1;
  SVN_ERR(read_rep_header(&header, w->fs, rep->revision, rep->item_index,
                          scratch_pool));
  /* An expanded size of 0 stands for "the data length" only where the
     data is the fulltext; a delta of 0 expanded bytes is an empty file. */
  info->expanded_size = rep->expanded_size;
  if (!info->expanded_size && header.kind == svn_fs_fs__rep_plain)
    info->expanded_size = rep->size;
  info->overhead = header.header_size + SVN_FS_FS__REP_TRAILER_LEN;
  SVN_ERR(chain_length(&info->chain_len, w, rep->revision,
                       rep->item_index, scratch_pool));
  if (is_props)
    {
      info->kind_stats = is_dir ? &s->dir_prop_rep_stats
                                : &s->file_prop_rep_stats;
      node_hist = is_dir ? &s->dir_prop_histogram : &s->file_prop_histogram;
      rep_hist = is_dir ? &s->dir_prop_rep_histogram
                        : &s->file_prop_rep_histogram;
    }
  else
    {
      info->kind_stats = is_dir ? &s->dir_rep_stats : &s->file_rep_stats;
      node_hist = is_dir ? &s->dir_histogram : &s->file_histogram;
      rep_hist = is_dir ? &s->dir_rep_histogram : &s->file_rep_histogram;
    }
  apr_hash_set(w->reps, apr_pstrdup(w->pool, key), APR_HASH_KEY_STRING,
               info);
  APR_ARRAY_PUSH(w->rep_list, rep_info_t *) = info;

  histogram_add(&s->rep_size_histogram, info->size);
  histogram_add(&s->node_size_histogram, info->expanded_size);
  histogram_add(rep_hist, info->size);
  histogram_add(node_hist, info->expanded_size);
  if (noderev->predecessor_count == 0)
    {
      histogram_add(&s->added_rep_size_histogram, info->size);
      histogram_add(&s->added_node_size_histogram, info->expanded_size);
    }
  if (!is_dir && !is_props)
    {
      abi_extension_info_t *ext = extension_info(w, noderev->created_path);
      histogram_add(&ext->rep_histogram, info->size);
      histogram_add(&ext->node_histogram, info->expanded_size);
    }
  largest_add(s->largest_changes, info->size, rep->revision,
              noderev->created_path);
  return SVN_NO_ERROR;
}

/* On-disk length of the node-rev record of ID. */
static svn_error_t *
noderev_size(apr_uint64_t *size, svn_fs_t *fs, const svn_fs_fs__id_t *id,
             apr_pool_t *scratch_pool)
{
  svn_fs_fs__revfile_t *file;
  apr_off_t offset;
  const char *data;
  apr_size_t len, want = 4096;

  SVN_ERR(svn_fs_fs__revfile_open(&file, fs, id->rev_item.revision,
                                  scratch_pool, scratch_pool));
  SVN_ERR(svn_fs_fs__item_offset(&offset, fs, file, id->rev_item.revision,
                                 id->rev_item.number, scratch_pool));
  for (;;)
    {
      SVN_ERR(svn_fs_fs__revfile_read_some(&data, &len, file, offset, want,
                                           scratch_pool));
      *size = svn_fs_fs__noderev_record_len(data, len);
      if (*size || len < want)
        break;
      want *= 4;
    }
  /* A record cut off by the end of the file: count what is there. */
  if (!*size)
    *size = len;
  return SVN_NO_ERROR;
}

/* Count NODEREV, whose record takes SIZE bytes on disk, and the reps it
   names. */
static svn_error_t *
count_noderev(walk_t *w, const svn_fs_fs__noderev_t *noderev,
              apr_uint64_t size, apr_pool_t *scratch_pool)
{
  abi_stats_t *s = w->stats;
  abi_node_stats_t *kind_stats = noderev->kind == svn_node_dir
                                 ? &s->dir_node_stats : &s->file_node_stats;

  if (w->cancel_func)
    SVN_ERR(w->cancel_func(w->cancel_baton));
  kind_stats->count++;
  kind_stats->size += size;
  s->total_node_stats.count++;
  s->total_node_stats.size += size;
  if (noderev->data_rep)
    SVN_ERR(add_rep(w, noderev, noderev->data_rep, FALSE, scratch_pool));
  if (noderev->prop_rep)
    SVN_ERR(add_rep(w, noderev, noderev->prop_rep, TRUE, scratch_pool));
  return SVN_NO_ERROR;
}

/* Physical addressing: count the node-rev ID of REV and, for a
   directory, the entries REV created below it (depth first, entries in
   name order). */
static svn_error_t *
walk_node(walk_t *w, svn_revnum_t rev, const svn_fs_fs__id_t *id,
          apr_pool_t *scratch_pool)
{
  svn_fs_fs__noderev_t *noderev;
  apr_uint64_t size;

  SVN_ERR(svn_fs_fs__get_noderev(&noderev, w->fs, id, scratch_pool,
                                 scratch_pool));
  SVN_ERR(noderev_size(&size, w->fs, id, scratch_pool));
  SVN_ERR(count_noderev(w, noderev, size, scratch_pool));

  if (noderev->kind == svn_node_dir)
    {
      apr_array_header_t *entries;
      apr_pool_t *iterpool = svn_pool_create(scratch_pool);
      int i;

      SVN_ERR(svn_fs_fs__dir_entries(&entries, w->fs, noderev, scratch_pool,
                                     scratch_pool));
      for (i = 0; i < entries->nelts; i++)
        {
          svn_fs_dirent_t *dirent = APR_ARRAY_IDX(entries, i,
                                                  svn_fs_dirent_t *);
          const svn_fs_fs__id_t *child = (const void *)dirent->id;

          if (child->rev_item.revision != rev)
            continue;
          svn_pool_clear(iterpool);
          SVN_ERR(walk_node(w, rev, child, iterpool));
        }
      svn_pool_destroy(iterpool);
    }
  return SVN_NO_ERROR;
}

/* How many of a revision's COUNT changed paths enter the change count.
   Stock, on a physically addressed repository, counts only the paths
   after the last full hundred (it keeps the size of the last block it
   read the list in: 238 paths count 38, 200 count 0).  The sizes are
   not affected.  Mirrored so that the outputs stay comparable. */
static apr_uint64_t
changes_counted(svn_fs_t *fs, int count)
{
  return svn_fs_fs__use_log_addressing(fs) ? count : count % 100;
}

/* Logical addressing: when REV starts its rev or pack file (each file is
   read once), count every item of that file in file order (which decides, for a rep several node-revs
   share, whose path and kind of change it is counted under, as with
   stock).  The file's size is what its items cover, unused ranges (a
   pack file's padding) included. */
static svn_error_t *
walk_file(walk_t *w, svn_revnum_t rev, apr_pool_t *scratch_pool)
{
  abi_stats_t *s = w->stats;
  apr_pool_t *iterpool = svn_pool_create(scratch_pool);
  svn_fs_fs__revfile_t *file;
  apr_array_header_t *entries, *changes;
  apr_off_t max;
  int i;

  SVN_ERR(svn_fs_fs__revfile_open(&file, w->fs, rev, scratch_pool,
                                  scratch_pool));
  if (file->start_revision != rev)
    return svn_error_trace(svn_fs_fs__revfile_close(file));
  SVN_ERR(svn_fs_fs__p2l_get_max_offset(&max, w->fs, file, rev,
                                        scratch_pool));
  SVN_ERR(svn_fs_fs__p2l_index_lookup(&entries, w->fs, file, rev, 0, max,
                                      scratch_pool, scratch_pool));
  for (i = 0; i < entries->nelts; i++)
    {
      svn_fs_fs__p2l_entry_t *e = &APR_ARRAY_IDX(entries, i,
                                                 svn_fs_fs__p2l_entry_t);
      svn_fs_fs__noderev_t *noderev;
      char *data;

      svn_pool_clear(iterpool);
      s->total_size += e->size;
      if (e->type == SVN_FS_FS__ITEM_TYPE_CHANGES)
        {
          s->change_len += e->size;
          SVN_ERR(svn_fs_fs__rev_changes(&changes, w->fs, e->revision,
                                         iterpool, iterpool));
          s->change_count += changes_counted(w->fs, changes->nelts);
        }
      else if (e->type == SVN_FS_FS__ITEM_TYPE_NODEREV)
        {
          const char *where = apr_psprintf(iterpool, "node-rev at offset %"
                                           APR_OFF_T_FMT " of r%ld's file",
                                           e->offset, rev);

          /* The index says how much to read: bound it before trusting
             it with an allocation. */
          if (e->size > NODEREV_ITEM_MAX)
            return svn_fs_fs__corrupt("NODEREV-1", where,
                                      "Node-rev item of %" APR_OFF_T_FMT
                                      " bytes", e->size);
          data = apr_palloc(iterpool, (apr_size_t)e->size);
          SVN_ERR(svn_fs_fs__revfile_read(data, (apr_size_t)e->size, file,
                                          e->offset));
          SVN_ERR(svn_fs_fs__noderev_parse(&noderev, data,
                                           (apr_size_t)e->size, where,
                                           iterpool, iterpool));
          SVN_ERR(count_noderev(w, noderev, e->size, iterpool));
        }
    }
  svn_pool_destroy(iterpool);
  return svn_error_trace(svn_fs_fs__revfile_close(file));
}

/* Physical addressing: bytes REV takes in its rev / pack file (its
   items and trailer line) and the length of its changed-path list. */
static svn_error_t *
rev_sizes(apr_uint64_t *total, apr_uint64_t *changes_len, svn_fs_t *fs,
          svn_revnum_t rev, apr_pool_t *scratch_pool)
{
  svn_fs_fs__revfile_t *file;
  apr_off_t start, end, root, changes;

  SVN_ERR(svn_fs_fs__revfile_open(&file, fs, rev, scratch_pool,
                                  scratch_pool));
  SVN_ERR(svn_fs_fs__rev_bounds(&start, &end, fs, file, rev, scratch_pool));
  SVN_ERR(svn_fs_fs__rev_trailer(&root, &changes, NULL, fs, file, rev,
                                 scratch_pool));
  /* The list runs up to the trailer line "<root> <changes>\n"; the empty
     line before that line counts as part of the list. */
  *total = end - start;
  *changes_len = end - changes
                 - strlen(apr_psprintf(scratch_pool, "%" APR_OFF_T_FMT
                                       " %" APR_OFF_T_FMT "\n",
                                       root - start, changes - start));
  return svn_error_trace(svn_fs_fs__revfile_close(file));
}

/* Per-kind totals from the collected reps. */
static void
sum_reps(walk_t *w)
{
  abi_stats_t *s = w->stats;
  int i;

  for (i = 0; i < w->rep_list->nelts; i++)
    {
      rep_info_t *info = APR_ARRAY_IDX(w->rep_list, i, rep_info_t *);
      abi_rep_stats_t *targets[2];
      int t;

      targets[0] = &s->total_rep_stats;
      targets[1] = info->kind_stats;
      for (t = 0; t < 2; t++)
        {
          abi_rep_stats_t *r = targets[t];
          abi_rep_pack_stats_t *part = info->ref_count > 1 ? &r->shared
                                                           : &r->uniques;
          abi_rep_pack_stats_t *parts[2];
          int p;

          parts[0] = &r->total;
          parts[1] = part;
          for (p = 0; p < 2; p++)
            {
              parts[p]->count++;
              parts[p]->packed_size += info->size;
              parts[p]->expanded_size += info->expanded_size;
              parts[p]->overhead_size += info->overhead;
            }
          r->references += info->ref_count;
          r->expanded_size += info->ref_count * info->expanded_size;
          r->chain_len += info->chain_len;
        }
    }
}

static svn_error_t *
get_stats(svn_fs_t *fs, const abi_stats_input_t *input,
          abi_stats_output_t *output, svn_cancel_func_t cancel_func,
          void *cancel_baton, apr_pool_t *result_pool,
          apr_pool_t *scratch_pool)
{
  apr_pool_t *iterpool = svn_pool_create(scratch_pool);
  svn_revnum_t youngest, rev;
  int progress_step;
  walk_t w;

  SVN_ERR(svn_fs_fs__youngest_rev(&youngest, fs, scratch_pool));
  /* Stock reports progress at every shard (every 1000th revision in a
     linear layout). */
  progress_step = SVN_FS_FS__DATA(fs)->max_files_per_dir;
  if (progress_step <= 0)
    progress_step = 1000;
  w.fs = fs;
  w.pool = result_pool;
  w.stats = stats_create(result_pool);
  w.reps = apr_hash_make(scratch_pool);
  w.chains = apr_hash_make(scratch_pool);
  w.chain_pool = scratch_pool;
  w.rep_list = apr_array_make(scratch_pool, 64, sizeof(rep_info_t *));
  w.cancel_func = cancel_func;
  w.cancel_baton = cancel_baton;
  for (rev = 0; rev <= youngest; rev++)
    {
      const svn_fs_fs__id_t *root;
      apr_array_header_t *changes;
      apr_uint64_t total, changes_len;

      svn_pool_clear(iterpool);
      if (input && input->progress_func && rev % progress_step == 0)
        input->progress_func(rev, input->progress_baton, iterpool);
      w.stats->revision_count++;
      if (svn_fs_fs__use_log_addressing(fs))
        {
          SVN_ERR(walk_file(&w, rev, iterpool));
          continue;
        }
      SVN_ERR(rev_sizes(&total, &changes_len, fs, rev, iterpool));
      w.stats->total_size += total;
      w.stats->change_len += changes_len;
      SVN_ERR(svn_fs_fs__rev_changes(&changes, fs, rev, iterpool, iterpool));
      w.stats->change_count += changes_counted(fs, changes->nelts);
      SVN_ERR(svn_fs_fs__rev_root_id(&root, fs, rev, iterpool, iterpool));
      SVN_ERR(walk_node(&w, rev, root, iterpool));
    }
  svn_pool_destroy(iterpool);
  sum_reps(&w);
  output->stats = w.stats;
  return SVN_NO_ERROR;
}

svn_error_t *
svn_fs_fs__stats_ioctl(svn_boolean_t *handled, svn_fs_t *fs,
                       svn_fs_ioctl_code_t ctlcode, void *input,
                       void **output_p, svn_cancel_func_t cancel_func,
                       void *cancel_baton, apr_pool_t *result_pool,
                       apr_pool_t *scratch_pool)
{
  abi_stats_output_t *output;

  *handled = FALSE;
  if (strcmp(ctlcode.fs_type, SVN_FS_TYPE_FSFS) != 0
      || ctlcode.code != IOCTL_GET_STATS)
    return SVN_NO_ERROR;
  *handled = TRUE;
  output = apr_pcalloc(result_pool, sizeof(*output));
  SVN_ERR(get_stats(fs, input, output, cancel_func, cancel_baton,
                    result_pool, scratch_pool));
  *output_p = output;
  return SVN_NO_ERROR;
}
