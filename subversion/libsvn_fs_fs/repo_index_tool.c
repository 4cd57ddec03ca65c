/* repo_index_tool.c --- the index ioctls of `svnfsfs dump-index` and
 * `svnfsfs load-index` (repo.h; storage layer, admin part; dispatched by
 * fs_vtable.c's fs_ioctl; doc/format/addressing.md).
 *
 *   dump: the P2L entries of the rev / pack file holding a revision, in
 *         offset order, up to the end of the item data (the filler that
 *         pads the last index page is not an item and is not reported).
 *   load: replace the L2P and P2L indexes (and the footer) of that file
 *         by ones built from the given entries.  The item data is kept;
 *         the entries must tile it from offset 0, and where they end is
 *         where the data ends (anything after it, the old indexes, is
 *         dropped).  Checksums are computed from the data, so a caller
 *         need not know them.  Upstream's tests use this to repair the
 *         index after editing a rev file by hand.
 *
 * Caches: index headers and pages of the rewritten file that other
 * svn_fs_t of the same process hold stay as they were (the keys name the
 * revision, not the file's bytes).  svnfsfs opens the repository for
 * this one call, so nothing reads them; a long-lived process that loads
 * an index should reopen the repository afterwards.
 *
 * The ioctl input and the entries cross the module boundary: their
 * layout is the one svnfsfs was compiled with (upstream's private
 * header svn_fs_fs_private.h, part of our ABI), mirrored by the abi_*
 * structs below, never by our own svn_fs_fs__p2l_entry_t.
 */
#include <stdlib.h>
#include <apr_md5.h>
#include <apr_strings.h>

#include "svn_dirent_uri.h"
#include "svn_io.h"
#include "svn_pools.h"
#include "svn_fs.h"

#include "corrupt.h"
#include "footer.h"
#include "index.h"
#include "index_codec.h"
#include "paths.h"
#include "repo.h"
#include "revfile.h"

/* The ABI's P2L entry (svn_fs_fs__p2l_entry_t of svn_fs_fs_private.h). */
typedef struct abi_p2l_entry_t
{
  apr_off_t offset;
  apr_off_t size;
  apr_uint32_t type;
  apr_uint32_t fnv1_checksum;
  svn_revnum_t item_revision;
  apr_uint64_t item_number;
} abi_p2l_entry_t;

typedef svn_error_t *(*abi_dump_index_func_t)(const abi_p2l_entry_t *entry,
                                               void *baton,
                                               apr_pool_t *scratch_pool);

/* Input of ioctl fsfs:1001 (dump index). */
typedef struct abi_dump_index_input_t
{
  svn_revnum_t revision;
  abi_dump_index_func_t callback_func;
  void *callback_baton;
} abi_dump_index_input_t;

/* Input of ioctl fsfs:1002 (load index); ENTRIES holds abi_p2l_entry_t *. */
typedef struct abi_load_index_input_t
{
  svn_revnum_t revision;
  apr_array_header_t *entries;
} abi_load_index_input_t;

#define IOCTL_DUMP_INDEX 1001
#define IOCTL_LOAD_INDEX 1002

/* Both ioctls exist for logical addressing only. */
static svn_error_t *
require_logical(svn_fs_t *fs)
{
  if (!svn_fs_fs__use_log_addressing(fs))
    return svn_error_create(SVN_ERR_FS_UNSUPPORTED_FORMAT, NULL,
                            "Repository does not use logical addressing; "
                            "it has no index to dump or load");
  return SVN_NO_ERROR;
}

static svn_error_t *
dump_index(svn_fs_t *fs, const abi_dump_index_input_t *input,
           svn_cancel_func_t cancel_func, void *cancel_baton,
           apr_pool_t *scratch_pool)
{
  apr_pool_t *iterpool = svn_pool_create(scratch_pool);
  svn_fs_fs__revfile_t *file;
  apr_array_header_t *entries;
  int i;

  SVN_ERR(require_logical(fs));
  SVN_ERR(svn_fs_fs__ensure_revision_exists(input->revision, fs,
                                            scratch_pool));
  SVN_ERR(svn_fs_fs__revfile_open(&file, fs, input->revision, scratch_pool,
                                  scratch_pool));
  SVN_ERR(svn_fs_fs__revfile_read_footer(file, scratch_pool));
  SVN_ERR(svn_fs_fs__p2l_index_lookup(&entries, fs, file, input->revision,
                                      0, file->l2p_offset, scratch_pool,
                                      scratch_pool));
  for (i = 0; i < entries->nelts; i++)
    {
      const svn_fs_fs__p2l_entry_t *e
        = &APR_ARRAY_IDX(entries, i, svn_fs_fs__p2l_entry_t);
      abi_p2l_entry_t out;

      svn_pool_clear(iterpool);
      if (cancel_func)
        SVN_ERR(cancel_func(cancel_baton));
      if (e->offset >= file->l2p_offset)
        break;
      out.offset = e->offset;
      out.size = e->size;
      out.type = (apr_uint32_t)e->type;
      out.fnv1_checksum = e->fnv1_checksum;
      out.item_revision = SVN_IS_VALID_REVNUM(e->revision)
                          ? e->revision : file->start_revision;
      out.item_number = e->item_index;
      SVN_ERR(input->callback_func(&out, input->callback_baton, iterpool));
    }
  svn_pool_destroy(iterpool);
  return svn_error_trace(svn_fs_fs__revfile_close(file));
}

/* qsort order of abi_p2l_entry_t * by offset. */
static int
compare_offsets(const void *a, const void *b)
{
  const abi_p2l_entry_t *x = *(const abi_p2l_entry_t *const *)a;
  const abi_p2l_entry_t *y = *(const abi_p2l_entry_t *const *)b;

  return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/* Our entries for the file FILE from the caller's ENTRIES: sorted,
   checked to tile [0, *COVERED) with revisions of FILE, checksums
   computed from the data; *L2P gets the L2P builder's input (one array
   of offsets per revision of FILE, FILE_REVS revisions). */
static svn_error_t *
convert_entries(apr_array_header_t **p2l, apr_array_header_t **l2p,
                apr_off_t *covered, svn_fs_fs__revfile_t *file,
                int file_revs, const apr_array_header_t *entries,
                apr_pool_t *result_pool, apr_pool_t *scratch_pool)
{
  apr_array_header_t *sorted = apr_array_copy(scratch_pool, entries);
  const char *where = svn_fs_fs__revfile_describe(file, scratch_pool);
  apr_off_t at = 0;
  int i;

  qsort(sorted->elts, sorted->nelts, sorted->elt_size, compare_offsets);
  *p2l = apr_array_make(result_pool, sorted->nelts,
                        sizeof(svn_fs_fs__p2l_entry_t));
  *l2p = apr_array_make(result_pool, file_revs, sizeof(apr_array_header_t *));
  for (i = 0; i < file_revs; i++)
    APR_ARRAY_PUSH(*l2p, apr_array_header_t *)
      = apr_array_make(result_pool, 8, sizeof(apr_off_t));

  for (i = 0; i < sorted->nelts; i++)
    {
      const abi_p2l_entry_t *in = APR_ARRAY_IDX(sorted, i,
                                                const abi_p2l_entry_t *);
      svn_fs_fs__p2l_entry_t *e = apr_array_push(*p2l);
      apr_array_header_t *offsets;
      svn_revnum_t rel;

      if (in->offset != at || in->size < 0)
        return svn_fs_fs__index_corrupt("P2L-6", where,
                 "New index entries leave a gap or overlap at offset %"
                 APR_OFF_T_FMT, at);
      if (in->type > SVN_FS_FS__ITEM_TYPE_CHANGES)
        return svn_fs_fs__index_corrupt("P2L-4", where,
                 "New index entry at offset %" APR_OFF_T_FMT " has item "
                 "type %u", in->offset, (unsigned)in->type);
      e->offset = in->offset;
      e->size = in->size;
      e->type = (svn_fs_fs__item_type_t)in->type;
      e->fnv1_checksum = 0;
      e->revision = SVN_INVALID_REVNUM;
      e->item_index = 0;
      at = in->offset + in->size;
      if (e->type == SVN_FS_FS__ITEM_TYPE_UNUSED)
        continue;

      rel = in->item_revision - file->start_revision;
      if (rel < 0 || rel >= file_revs)
        return svn_fs_fs__index_corrupt("P2L-8", where,
                 "New index entry at offset %" APR_OFF_T_FMT " names r%ld, "
                 "which is not in this file", in->offset,
                 in->item_revision);
      e->revision = in->item_revision;
      e->item_index = in->item_number;
      SVN_ERR(svn_fs_fs__item_fnv(&e->fnv1_checksum, file, e->offset,
                                  e->size, scratch_pool));

      /* L2P: offsets by item index, -1 where unused. */
      offsets = APR_ARRAY_IDX(*l2p, rel, apr_array_header_t *);
      while ((apr_uint64_t)offsets->nelts <= in->item_number)
        APR_ARRAY_PUSH(offsets, apr_off_t) = -1;
      if (APR_ARRAY_IDX(offsets, in->item_number, apr_off_t) != -1)
        return svn_fs_fs__index_corrupt("P2L-8", where,
                 "New index entries give item r%ld/%" APR_UINT64_T_FMT
                 " twice", in->item_revision, in->item_number);
      APR_ARRAY_IDX(offsets, in->item_number, apr_off_t) = in->offset;
    }
  *covered = at;
  return SVN_NO_ERROR;
}

/* Append the first LEN bytes of the file at PATH to TO. */
static svn_error_t *
copy_prefix(apr_file_t *to, const char *path, apr_off_t len,
            apr_pool_t *scratch_pool)
{
  apr_size_t chunk = 64 * 1024;
  char *buf = apr_palloc(scratch_pool, chunk);
  apr_file_t *from;

  SVN_ERR(svn_io_file_open(&from, path, APR_READ | APR_BUFFERED,
                           APR_OS_DEFAULT, scratch_pool));
  while (len > 0)
    {
      apr_size_t n = len < (apr_off_t)chunk ? (apr_size_t)len : chunk;

      SVN_ERR(svn_io_file_read_full2(from, buf, n, NULL, NULL,
                                     scratch_pool));
      SVN_ERR(svn_io_file_write_full(to, buf, n, NULL, scratch_pool));
      len -= (apr_off_t)n;
    }
  return svn_error_trace(svn_io_file_close(from, scratch_pool));
}

/* Baton of load_index_locked. */
typedef struct load_baton_t
{
  svn_fs_t *fs;
  const abi_load_index_input_t *input;
} load_baton_t;

/* Rewrite the file holding the revision of BATON's input: its first
   COVERED bytes, then the new indexes and footer, into a temporary file
   renamed over it (with its permissions). */
static svn_error_t *
load_index_locked(void *baton, apr_pool_t *scratch_pool)
{
  load_baton_t *b = baton;
  svn_fs_t *fs = b->fs;
  svn_fs_fs__data_t *ffd = SVN_FS_FS__DATA(fs);
  svn_revnum_t rev = b->input->revision;
  svn_fs_fs__revfile_t *file;
  apr_array_header_t *p2l, *l2p;
  svn_stringbuf_t *l2p_section, *p2l_section;
  svn_fs_fs__footer_t footer;
  char footer_buf[SVN_FS_FS__FOOTER_MAX_LEN];
  const char *path, *tmp_path;
  apr_file_t *tmp;
  apr_off_t covered = 0;
  apr_size_t len;
  int file_revs;

  SVN_ERR(svn_fs_fs__ensure_revision_exists(rev, fs, scratch_pool));
  SVN_ERR(svn_fs_fs__update_min_unpacked_rev(fs, scratch_pool));
  SVN_ERR(svn_fs_fs__revfile_open(&file, fs, rev, scratch_pool,
                                  scratch_pool));
  file_revs = file->is_packed ? ffd->max_files_per_dir : 1;
  path = file->is_packed
         ? svn_fs_fs__path_rev_packed(fs, rev, "pack", scratch_pool)
         : svn_fs_fs__path_rev(fs, rev, scratch_pool);
  SVN_ERR(convert_entries(&p2l, &l2p, &covered, file, file_revs,
                          b->input->entries, scratch_pool, scratch_pool));
  if (covered > file->file_size)
    return svn_fs_fs__index_corrupt("P2L-6",
             svn_fs_fs__revfile_describe(file, scratch_pool),
             "New index entries reach offset %" APR_OFF_T_FMT ", beyond "
             "the file's %" APR_OFF_T_FMT " bytes", covered,
             file->file_size);
  SVN_ERR(svn_fs_fs__l2p_section_build(&l2p_section, file->start_revision,
                                       l2p, ffd->l2p_page_size,
                                       scratch_pool));
  SVN_ERR(svn_fs_fs__p2l_section_build(&p2l_section, file->start_revision,
                                       covered, ffd->p2l_page_size, p2l,
                                       scratch_pool));
  SVN_ERR(svn_fs_fs__revfile_close(file));

  SVN_ERR(svn_io_open_unique_file3(&tmp, &tmp_path,
                                   svn_dirent_dirname(path, scratch_pool),
                                   svn_io_file_del_none, scratch_pool,
                                   scratch_pool));
  SVN_ERR(copy_prefix(tmp, path, covered, scratch_pool));
  memset(&footer, 0, sizeof(footer));
  footer.l2p_offset = covered;
  footer.p2l_offset = covered + (apr_off_t)l2p_section->len;
  apr_md5(footer.l2p_md5, l2p_section->data, l2p_section->len);
  apr_md5(footer.p2l_md5, p2l_section->data, p2l_section->len);
  len = svn_fs_fs__footer_unparse(footer_buf, &footer);
  SVN_ERR(svn_io_file_write_full(tmp, l2p_section->data, l2p_section->len,
                                 NULL, scratch_pool));
  SVN_ERR(svn_io_file_write_full(tmp, p2l_section->data, p2l_section->len,
                                 NULL, scratch_pool));
  SVN_ERR(svn_io_file_write_full(tmp, footer_buf, len, NULL, scratch_pool));
  SVN_ERR(svn_io_file_flush_to_disk(tmp, scratch_pool));
  SVN_ERR(svn_io_file_close(tmp, scratch_pool));
  SVN_ERR(svn_io_copy_perms(path, tmp_path, scratch_pool));
  return svn_error_trace(svn_io_file_rename2(tmp_path, path, TRUE,
                                             scratch_pool));
}

static svn_error_t *
load_index(svn_fs_t *fs, const abi_load_index_input_t *input,
           apr_pool_t *scratch_pool)
{
  load_baton_t b;

  SVN_ERR(require_logical(fs));
  b.fs = fs;
  b.input = input;
  return svn_error_trace(svn_fs_fs__with_write_lock(fs, load_index_locked,
                                                    &b, scratch_pool));
}

svn_error_t *
svn_fs_fs__index_ioctl(svn_boolean_t *handled, svn_fs_t *fs,
                       svn_fs_ioctl_code_t ctlcode, void *input,
                       svn_cancel_func_t cancel_func, void *cancel_baton,
                       apr_pool_t *scratch_pool)
{
  *handled = FALSE;
  if (strcmp(ctlcode.fs_type, SVN_FS_TYPE_FSFS) != 0)
    return SVN_NO_ERROR;
  if (ctlcode.code == IOCTL_DUMP_INDEX)
    {
      *handled = TRUE;
      return svn_error_trace(dump_index(fs, input, cancel_func, cancel_baton,
                                        scratch_pool));
    }
  if (ctlcode.code == IOCTL_LOAD_INDEX)
    {
      *handled = TRUE;
      return svn_error_trace(load_index(fs, input, scratch_pool));
    }
  return SVN_NO_ERROR;
}
