/* index_tools.c --- svnfsfs dump-index and load-index (index_tools.h;
 * doc/format/pack.md §5, INDEX-TOOL-*).
 *
 *   svn_fs_fs__ioctl
 *     dump_index   every P2L entry of the file holding a revision
 *     load_index   rewrite that file's L2P, P2L and footer from a list
 *                  of entries (checksums recomputed from the data)
 *
 * The ioctl structs come from upstream's private header, whose entry and
 * id types share their names with ours; they are renamed while it is
 * included, and converted field by field here.
 */
#define svn_fs_fs__p2l_entry_t svn_fs_fs__ioctl_p2l_entry_t
#define svn_fs_fs__id_part_t svn_fs_fs__ioctl_id_part_t
#include "private/svn_fs_fs_private.h"
#undef svn_fs_fs__p2l_entry_t
#undef svn_fs_fs__id_part_t

#include <stdlib.h>
#include <string.h>

#include "svn_dirent_uri.h"
#include "svn_io.h"
#include "svn_pools.h"
#include "private/svn_subr_private.h"

#include "corrupt.h"
#include "index.h"
#include "index_tools.h"
#include "pack.h"
#include "paths.h"
#include "repo.h"
#include "revfile.h"

/* The rev or pack file holding REV: *PATH, its first revision *START and
   how many revisions it holds (*COUNT).  Logical addressing only. */
static svn_error_t *
locate_file(const char **path, svn_revnum_t *start, int *count,
            svn_fs_t *fs, svn_revnum_t rev, apr_pool_t *result_pool,
            apr_pool_t *scratch_pool)
{
  svn_fs_fs__revfile_t *file;

  if (!svn_fs_fs__use_log_addressing(fs))
    return svn_error_create(SVN_ERR_FS_UNSUPPORTED_FORMAT, NULL,
                            "Unsupported FS format");
  SVN_ERR(svn_fs_fs__ensure_revision_exists(rev, fs, scratch_pool));
  SVN_ERR(svn_fs_fs__revfile_open(&file, fs, rev, scratch_pool,
                                  scratch_pool));
  *start = file->start_revision;
  *count = file->is_packed ? SVN_FS_FS__DATA(fs)->max_files_per_dir : 1;
  *path = file->is_packed
          ? svn_fs_fs__path_rev_packed(fs, rev, "pack", result_pool)
          : svn_fs_fs__path_rev(fs, rev, result_pool);
  return svn_error_trace(svn_fs_fs__revfile_close(file));
}

/* INDEX-TOOL-1: the entries up to the end of the item data, in offset
   order (the filler after it is not reported). */
static svn_error_t *
dump_index(svn_fs_t *fs, const svn_fs_fs__ioctl_dump_index_input_t *in,
           svn_cancel_func_t cancel_func, void *cancel_baton,
           apr_pool_t *scratch_pool)
{
  apr_pool_t *iterpool = svn_pool_create(scratch_pool);
  apr_array_header_t *entries;
  svn_fs_fs__footer_t footer;
  const char *path;
  svn_revnum_t start;
  apr_file_t *file;
  int count, i;

  SVN_ERR(locate_file(&path, &start, &count, fs, in->revision, scratch_pool,
                      scratch_pool));
  SVN_ERR(svn_io_file_open(&file, path, APR_READ, APR_OS_DEFAULT,
                           scratch_pool));
  SVN_ERR(svn_fs_fs__pack_read_p2l(&entries, &footer, file,
                                   svn_dirent_local_style(path, scratch_pool),
                                   scratch_pool, scratch_pool));
  SVN_ERR(svn_io_file_close(file, scratch_pool));
  for (i = 0; i < entries->nelts; i++)
    {
      const svn_fs_fs__p2l_entry_t *e
        = &APR_ARRAY_IDX(entries, i, svn_fs_fs__p2l_entry_t);
      svn_fs_fs__ioctl_p2l_entry_t out;

      if (e->offset >= footer.l2p_offset)
        break;
      svn_pool_clear(iterpool);
      if (cancel_func)
        SVN_ERR(cancel_func(cancel_baton));
      memset(&out, 0, sizeof(out));
      out.offset = e->offset;
      out.size = e->size;
      out.type = e->type;
      out.fnv1_checksum = e->fnv1_checksum;
      /* Unused ranges show the file's first revision, which is what
         writers store for padding (addressing.md §6). */
      out.item.revision = e->type == SVN_FS_FS__ITEM_TYPE_UNUSED
                          ? start : e->revision;
      out.item.number = e->item_index;
      SVN_ERR(in->callback_func(&out, in->callback_baton, iterpool));
    }
  svn_pool_destroy(iterpool);
  return SVN_NO_ERROR;
}

static int
compare_offsets(const void *a, const void *b)
{
  const svn_fs_fs__p2l_entry_t *x = a, *y = b;

  return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/* INDEX-TOOL-2: IN's entries as ours, sorted by offset, checked to tile
   [0, *COVERED) with revisions of [START, START + COUNT). */
static svn_error_t *
convert_entries(apr_array_header_t **entries, apr_off_t *covered,
                const apr_array_header_t *in, svn_revnum_t start, int count,
                apr_pool_t *result_pool)
{
  apr_array_header_t *out = apr_array_make(result_pool, in->nelts,
                                           sizeof(svn_fs_fs__p2l_entry_t));
  apr_off_t at = 0;
  int i;

  for (i = 0; i < in->nelts; i++)
    {
      const svn_fs_fs__ioctl_p2l_entry_t *e
        = APR_ARRAY_IDX(in, i, const svn_fs_fs__ioctl_p2l_entry_t *);
      svn_fs_fs__p2l_entry_t *o = apr_array_push(out);

      memset(o, 0, sizeof(*o));
      o->offset = e->offset;
      o->size = e->size;
      o->type = (svn_fs_fs__item_type_t)e->type;
      o->revision = e->item.revision;
      o->item_index = e->item.number;
      if (e->type > SVN_FS_FS__ITEM_TYPE_CHANGES || e->offset < 0
          || e->size < 0)
        return svn_fs_fs__index_corrupt("P2L-4", "load-index",
                                        "Invalid entry at offset %"
                                        APR_OFF_T_FMT, e->offset);
      if (o->type != SVN_FS_FS__ITEM_TYPE_UNUSED
          && (o->revision < start || o->revision >= start + count))
        return svn_error_createf(SVN_ERR_FS_INDEX_REVISION, NULL,
                                 "Revision r%ld of the entry at offset %"
                                 APR_OFF_T_FMT " is not in the file",
                                 o->revision, o->offset);
    }
  qsort(out->elts, out->nelts, sizeof(svn_fs_fs__p2l_entry_t),
        compare_offsets);
  for (i = 0; i < out->nelts; i++)
    {
      svn_fs_fs__p2l_entry_t *o = &APR_ARRAY_IDX(out, i,
                                                 svn_fs_fs__p2l_entry_t);

      if (o->offset != at)
        return svn_fs_fs__index_corrupt("P2L-6", "load-index",
                                        "Entries leave a gap or overlap at "
                                        "offset %" APR_OFF_T_FMT, at);
      at += o->size;
    }
  *entries = out;
  *covered = at;
  return SVN_NO_ERROR;
}

/* Copy the COVERED bytes of item data from SRC to DST, setting the FNV-1a
   checksum of every used entry of ENTRIES from them (P2L-7) and filling
   L2P (one offsets array per revision of the file). */
static svn_error_t *
copy_data(apr_file_t *dst, apr_file_t *src, apr_array_header_t *entries,
          apr_array_header_t *l2p, svn_revnum_t start,
          apr_pool_t *scratch_pool)
{
  apr_pool_t *iterpool = svn_pool_create(scratch_pool);
  int i;

  for (i = 0; i < entries->nelts; i++)
    {
      svn_fs_fs__p2l_entry_t *e = &APR_ARRAY_IDX(entries, i,
                                                 svn_fs_fs__p2l_entry_t);
      apr_array_header_t *offsets;
      char *buf;

      svn_pool_clear(iterpool);
      buf = apr_palloc(iterpool, (apr_size_t)e->size + 1);
      SVN_ERR(svn_io_file_read_full2(src, buf, (apr_size_t)e->size, NULL,
                                     NULL, iterpool));
      SVN_ERR(svn_io_file_write_full(dst, buf, (apr_size_t)e->size, NULL,
                                     iterpool));
      if (e->type == SVN_FS_FS__ITEM_TYPE_UNUSED)
        {
          e->fnv1_checksum = 0;
          continue;
        }
      e->fnv1_checksum = svn__fnv1a_32x4(buf, (apr_size_t)e->size);
      offsets = APR_ARRAY_IDX(l2p, e->revision - start, apr_array_header_t *);
      while ((apr_uint64_t)offsets->nelts <= e->item_index)
        APR_ARRAY_PUSH(offsets, apr_off_t) = -1;
      APR_ARRAY_IDX(offsets, e->item_index, apr_off_t) = e->offset;
    }
  svn_pool_destroy(iterpool);
  return SVN_NO_ERROR;
}

typedef struct load_baton_t
{
  svn_fs_t *fs;
  const svn_fs_fs__ioctl_load_index_input_t *in;
} load_baton_t;

/* INDEX-TOOL-3: the new file is written beside the old one, fsynced and
   renamed over it (read-only, as rev and pack files are). */
static svn_error_t *
load_index_locked(void *baton, apr_pool_t *scratch_pool)
{
  load_baton_t *b = baton;
  apr_array_header_t *entries = NULL, *l2p;
  const char *path, *tmp_path;
  apr_file_t *src, *dst;
  svn_fs_fs__footer_t footer;
  apr_array_header_t *old;
  svn_revnum_t start;
  apr_off_t covered = 0;
  int count, i;

  SVN_ERR(locate_file(&path, &start, &count, b->fs, b->in->revision,
                      scratch_pool, scratch_pool));
  SVN_ERR(convert_entries(&entries, &covered, b->in->entries, start, count,
                          scratch_pool));
  SVN_ERR(svn_io_file_open(&src, path, APR_READ | APR_BUFFERED,
                           APR_OS_DEFAULT, scratch_pool));
  SVN_ERR(svn_fs_fs__pack_read_p2l(&old, &footer, src, path, scratch_pool,
                                   scratch_pool));
  if (covered > footer.l2p_offset)
    return svn_fs_fs__index_corrupt("P2L-2", path, "Entries reach beyond "
                                    "the item data (%" APR_OFF_T_FMT ")",
                                    footer.l2p_offset);
  l2p = apr_array_make(scratch_pool, count, sizeof(apr_array_header_t *));
  for (i = 0; i < count; i++)
    APR_ARRAY_PUSH(l2p, apr_array_header_t *)
      = apr_array_make(scratch_pool, 16, sizeof(apr_off_t));
  SVN_ERR(svn_io_open_unique_file3(&dst, &tmp_path,
                                   svn_dirent_dirname(path, scratch_pool),
                                   svn_io_file_del_none, scratch_pool,
                                   scratch_pool));
  SVN_ERR(copy_data(dst, src, entries, l2p, start, scratch_pool));
  SVN_ERR(svn_io_file_close(src, scratch_pool));
  SVN_ERR(svn_fs_fs__pack_write_indexes(dst, b->fs, start, covered, l2p,
                                        entries, scratch_pool));
  SVN_ERR(svn_io_file_flush_to_disk(dst, scratch_pool));
  SVN_ERR(svn_io_file_close(dst, scratch_pool));
  SVN_ERR(svn_io_copy_perms(path, tmp_path, scratch_pool));
  return svn_error_trace(svn_io_file_rename2(tmp_path, path, TRUE,
                                             scratch_pool));
}

svn_error_t *
svn_fs_fs__ioctl(svn_fs_t *fs, svn_fs_ioctl_code_t ctlcode, void *input,
                 void **output_p, svn_cancel_func_t cancel_func,
                 void *cancel_baton, apr_pool_t *result_pool,
                 apr_pool_t *scratch_pool)
{
  if (strcmp(ctlcode.fs_type, SVN_FS_TYPE_FSFS) == 0
      && ctlcode.code == SVN_FS_FS__IOCTL_DUMP_INDEX.code)
    return svn_error_trace(dump_index(fs, input, cancel_func, cancel_baton,
                                      scratch_pool));
  if (strcmp(ctlcode.fs_type, SVN_FS_TYPE_FSFS) == 0
      && ctlcode.code == SVN_FS_FS__IOCTL_LOAD_INDEX.code)
    {
      load_baton_t b;

      b.fs = fs;
      b.in = input;
      return svn_error_trace(svn_fs_fs__with_all_locks(
                               fs, load_index_locked, &b, scratch_pool));
    }
  return svn_error_createf(SVN_ERR_FS_UNRECOGNIZED_IOCTL_CODE, NULL,
                           "fsfs7 does not implement ioctl code %s:%d",
                           ctlcode.fs_type, ctlcode.code);
}
