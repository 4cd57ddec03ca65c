/* repo_rev_size.c --- the revision-size ioctl behind `svnadmin rev-size`
 * (repo_rev_size.h; storage layer, admin part; doc/ioctls.md, "1003").
 *
 *   svn_fs_fs__revision_size
 *     svn_fs_fs__revfile_open      SVN_ERR_FS_NO_SUCH_REVISION if absent
 *     logical_data_size            P2L entries owned by REV, up to the end
 *                                  of the item data (index pages only)
 *     svn_fs_fs__rev_bounds        physical: the rev file's size, or REV's
 *                                  span of the pack file (its manifest)
 *     revprops_size
 *       plain_revprops_size        size of revprops/<shard>/<rev>
 *       packed_revprops_size       the size REV's pack header records
 *
 * The number is what the stock module reports, which is not always "the
 * bytes this revision added": in a logically addressed pack file the
 * padding between items belongs to the file's first revision (see
 * owner_of), and a packed revision's revprops count as the size of their
 * dump inside the pack, not of any file.  `svnadmin rev-size` exists to
 * compare revisions, so we keep the stock numbers.
 *
 * The ioctl input and output cross the module boundary: their layout is
 * the one svnadmin was compiled with (upstream's private header
 * svn_fs_fs_private.h, part of our ABI), mirrored by the abi_* structs.
 */
#include <string.h>
#include <apr_strings.h>

#include "svn_dirent_uri.h"
#include "svn_io.h"
#include "svn_pools.h"
#include "svn_fs.h"

#include "corrupt.h"
#include "index.h"
#include "paths.h"
#include "repo_rev_size.h"
#include "revfile.h"
#include "revprops_codec.h"

/* Input of ioctl fsfs:1003. */
typedef struct abi_rev_size_input_t
{
  svn_revnum_t revision;
} abi_rev_size_input_t;

/* Output of ioctl fsfs:1003. */
typedef struct abi_rev_size_output_t
{
  apr_off_t rev_size;
} abi_rev_size_output_t;

#define IOCTL_REVISION_SIZE 1003

/* P2L pages expanded per lookup: bounds the memory a big pack file's
   index costs while it is summed. */
#define PAGES_PER_LOOKUP 16

/* How many times the manifest and the pack it names are read while that
   pack keeps vanishing (each concurrent revprop change replaces it). */
#define PACK_ATTEMPTS 3

/* ---- the revision's data --------------------------------------------- */

/* The revision E belongs to.  Our P2L reader keeps no revision for
   unused ranges; the stock writers record the first revision of the file
   for the padding inside the data, and stock's answer counts it there
   (so the first revision of a logical pack file includes the padding of
   the whole pack). */
static svn_revnum_t
owner_of(const svn_fs_fs__p2l_entry_t *e, const svn_fs_fs__revfile_t *file)
{
  return SVN_IS_VALID_REVNUM(e->revision) ? e->revision
                                          : file->start_revision;
}

/* Logical addressing: the sum of the sizes of the P2L entries of FILE
   that REV owns and that start before the end of the item data (the
   filler after it pads the last index page and is not data).  Each entry
   is counted in the lookup window its start lies in. */
static svn_error_t *
logical_data_size(apr_off_t *size, svn_fs_t *fs, svn_fs_fs__revfile_t *file,
                  svn_revnum_t rev, apr_pool_t *scratch_pool)
{
  apr_int64_t page_size = SVN_FS_FS__DATA(fs)->p2l_page_size;
  apr_pool_t *iterpool = svn_pool_create(scratch_pool);
  apr_off_t data_end, start, end, window;

  SVN_ERR(svn_fs_fs__p2l_get_max_offset(&data_end, fs, file, rev,
                                        scratch_pool));
  window = page_size > 0 && page_size <= APR_INT64_MAX / PAGES_PER_LOOKUP
           ? (apr_off_t)page_size * PAGES_PER_LOOKUP : data_end;
  *size = 0;
  for (start = 0; start < data_end; start = end)
    {
      apr_array_header_t *entries;
      int i;

      end = data_end - start > window ? start + window : data_end;
      svn_pool_clear(iterpool);
      SVN_ERR(svn_fs_fs__p2l_index_lookup(&entries, fs, file, rev, start,
                                          end - start, iterpool, iterpool));
      for (i = 0; i < entries->nelts; i++)
        {
          const svn_fs_fs__p2l_entry_t *e
            = &APR_ARRAY_IDX(entries, i, svn_fs_fs__p2l_entry_t);

          if (e->offset >= start && e->offset < end
              && owner_of(e, file) == rev)
            *size += e->size;
        }
    }
  svn_pool_destroy(iterpool);
  return SVN_NO_ERROR;
}

/* The bytes of REV's data: the items it owns (logical addressing) or its
   part of its rev or pack file (physical addressing, where a revision is
   contiguous and its span is all its own). */
static svn_error_t *
data_size(apr_off_t *size, svn_fs_t *fs, svn_revnum_t rev,
          apr_pool_t *scratch_pool)
{
  svn_fs_fs__revfile_t *file;
  apr_off_t start, end;

  SVN_ERR(svn_fs_fs__revfile_open(&file, fs, rev, scratch_pool,
                                  scratch_pool));
  if (svn_fs_fs__use_log_addressing(fs))
    SVN_ERR(logical_data_size(size, fs, file, rev, scratch_pool));
  else
    {
      SVN_ERR(svn_fs_fs__rev_bounds(&start, &end, fs, file, rev,
                                    scratch_pool));
      *size = end - start;
    }
  return svn_error_trace(svn_fs_fs__revfile_close(file));
}

/* ---- its revision properties ------------------------------------------- */

/* TRUE if REV's revprops live in a pack (RPPACK-0: never r0; OLD-8:
   formats before 6 pack revisions only), by the cached min-unpacked-rev. */
static svn_boolean_t
revprops_packed(svn_fs_t *fs, svn_revnum_t rev)
{
  svn_fs_fs__data_t *ffd = SVN_FS_FS__DATA(fs);

  return rev > 0 && ffd->max_files_per_dir > 0
         && rev < ffd->min_unpacked_rev
         && ffd->format >= SVN_FS_FS__MIN_PACKED_REVPROPS_FORMAT;
}

/* The size of REV's own revprop file (REVPROP-1).  *MISSING (and *SIZE
   0) if it does not exist and the format packs revprops, so that it may
   have been packed meanwhile; before format 6 a missing file is the
   open error, since nothing else could hold the revprops. */
static svn_error_t *
plain_revprops_size(apr_off_t *size, svn_boolean_t *missing, svn_fs_t *fs,
                    svn_revnum_t rev, apr_pool_t *scratch_pool)
{
  const char *path = svn_fs_fs__path_revprops(fs, rev, scratch_pool);
  apr_file_t *file;
  svn_filesize_t file_size;
  svn_error_t *err;

  *size = 0;
  *missing = FALSE;
  err = svn_io_file_open(&file, path, APR_READ, APR_OS_DEFAULT, scratch_pool);
  if (err && APR_STATUS_IS_ENOENT(err->apr_err)
      && SVN_FS_FS__DATA(fs)->format >= SVN_FS_FS__MIN_PACKED_REVPROPS_FORMAT)
    {
      svn_error_clear(err);
      *missing = TRUE;
      return SVN_NO_ERROR;
    }
  SVN_ERR(err);
  SVN_ERR(svn_io_file_size_get(&file_size, file, scratch_pool));
  *size = (apr_off_t)file_size;
  return svn_error_trace(svn_io_file_close(file, scratch_pool));
}

/* The entry of REV in the manifest of its packed shard (RPPACK-1,
   RPPACK-2), read from disk in SCRATCH_POOL. */
static svn_error_t *
read_manifest_entry(svn_fs_fs__revprop_manifest_entry_t *entry,
                    svn_fs_t *fs, svn_revnum_t rev, apr_pool_t *scratch_pool)
{
  const char *dir = svn_fs_fs__path_revprops_pack_shard(fs, rev,
                                                        scratch_pool);
  const char *path = svn_dirent_join(dir, "manifest", scratch_pool);
  svn_revnum_t shard_start = svn_fs_fs__shard_start(fs, rev);
  svn_fs_fs__revprop_manifest_t manifest;
  svn_stringbuf_t *text;

  SVN_ERR(svn_stringbuf_from_file2(&text, path, scratch_pool));
  /* The manifest of shard 0 starts at r1 (RPPACK-0). */
  svn_fs_fs__revprop_manifest_index(&manifest, text->data, text->len,
                                    shard_start == 0 ? 1 : shard_start,
                                    scratch_pool);
  return svn_error_trace(svn_fs_fs__revprop_manifest_get(
           entry, &manifest, rev, svn_dirent_local_style(path,
                                                         scratch_pool)));
}

/* Size of the dump of REV inside the pack file ENTRY names, unwrapped
   and parsed (RPPACK-4..6).  *GONE if that file does not exist and
   MAY_BE_GONE; without MAY_BE_GONE that is the error of opening it. */
static svn_error_t *
size_in_pack(apr_off_t *size, svn_boolean_t *gone, svn_fs_t *fs,
             svn_revnum_t rev,
             const svn_fs_fs__revprop_manifest_entry_t *entry,
             svn_boolean_t may_be_gone, apr_pool_t *scratch_pool)
{
  const char *path = svn_dirent_join(
    svn_fs_fs__path_revprops_pack_shard(fs, rev, scratch_pool),
    svn_fs_fs__revprop_pack_name(entry, scratch_pool), scratch_pool);
  const char *where = svn_dirent_local_style(path, scratch_pool);
  svn_stringbuf_t *wrapped, *plain;
  svn_fs_fs__revprop_pack_t pack;
  svn_error_t *err;

  *gone = FALSE;
  err = svn_stringbuf_from_file2(&wrapped, path, scratch_pool);
  if (err && may_be_gone && APR_STATUS_IS_ENOENT(err->apr_err))
    {
      svn_error_clear(err);
      *gone = TRUE;
      return SVN_NO_ERROR;
    }
  SVN_ERR(err);
  SVN_ERR(svn_fs_fs__revprop_pack_unwrap(&plain, wrapped->data, wrapped->len,
                                         where, scratch_pool));
  SVN_ERR(svn_fs_fs__revprop_pack_parse(&pack, plain->data, plain->len,
                                        where, scratch_pool));
  if (pack.start_rev != entry->start_rev)
    return svn_fs_fs__corrupt("RPPACK-5", where,
                              "Revprop pack starts at r%ld, not r%ld",
                              pack.start_rev, entry->start_rev);
  if (rev < pack.start_rev || rev - pack.start_rev >= pack.count)
    return svn_fs_fs__corrupt("RPPACK-2", where,
                              "Revprop pack r%ld+%d does not hold r%ld",
                              pack.start_rev, pack.count, rev);
  *size = (apr_off_t)pack.sizes[rev - pack.start_rev];
  return SVN_NO_ERROR;
}

/* The size recorded for REV in its revprop pack.  The manifest is read
   again when the pack it named has gone (REVPROP-4: a concurrent change
   wrote a new one); after the last attempt that is the open error, as
   with stock.  Damage is SVN_ERR_FS_CORRUPT naming REV, around the
   reader's own error, the code stock gives it. */
static svn_error_t *
packed_revprops_size(apr_off_t *size, svn_fs_t *fs, svn_revnum_t rev,
                     apr_pool_t *scratch_pool)
{
  apr_pool_t *iterpool = svn_pool_create(scratch_pool);
  svn_boolean_t gone = TRUE;
  int attempt;

  for (attempt = 1; gone; attempt++)
    {
      svn_fs_fs__revprop_manifest_entry_t entry;
      svn_error_t *err;

      svn_pool_clear(iterpool);
      err = read_manifest_entry(&entry, fs, rev, iterpool);
      if (!err)
        err = size_in_pack(size, &gone, fs, rev, &entry,
                           attempt < PACK_ATTEMPTS, iterpool);
      if (err && err->apr_err == SVN_ERR_FS_CORRUPT)
        return svn_error_createf(SVN_ERR_FS_CORRUPT, err,
                                 "The revprop pack of r%ld is damaged", rev);
      SVN_ERR(err);
    }
  svn_pool_destroy(iterpool);
  return SVN_NO_ERROR;
}

/* The bytes of REV's revprops: its file, or its dump in its pack. */
static svn_error_t *
revprops_size(apr_off_t *size, svn_fs_t *fs, svn_revnum_t rev,
              apr_pool_t *scratch_pool)
{
  svn_boolean_t missing;

  SVN_ERR(svn_fs_fs__ensure_revision_exists(rev, fs, scratch_pool));
  if (!revprops_packed(fs, rev))
    {
      SVN_ERR(plain_revprops_size(size, &missing, fs, rev, scratch_pool));
      if (!missing)
        return SVN_NO_ERROR;
      /* Packed since we last looked?  (REVPROP-4) */
      SVN_ERR(svn_fs_fs__update_min_unpacked_rev(fs, scratch_pool));
      if (!revprops_packed(fs, rev))
        return svn_error_createf(SVN_ERR_FS_NO_SUCH_REVISION, NULL,
                                 "No such packed revision %ld", rev);
    }
  return svn_error_trace(packed_revprops_size(size, fs, rev, scratch_pool));
}

/* ---- the ioctl ------------------------------------------------------------ */

svn_error_t *
svn_fs_fs__revision_size(apr_off_t *rev_size, svn_fs_t *fs, svn_revnum_t rev,
                         apr_pool_t *scratch_pool)
{
  apr_off_t data, props;

  SVN_ERR(data_size(&data, fs, rev, scratch_pool));
  SVN_ERR(revprops_size(&props, fs, rev, scratch_pool));
  *rev_size = data + props;
  return SVN_NO_ERROR;
}

svn_error_t *
svn_fs_fs__rev_size_ioctl(svn_boolean_t *handled, svn_fs_t *fs,
                          svn_fs_ioctl_code_t ctlcode, void *input,
                          void **output_p, apr_pool_t *result_pool,
                          apr_pool_t *scratch_pool)
{
  const abi_rev_size_input_t *in = input;
  abi_rev_size_output_t *out;

  *handled = FALSE;
  if (strcmp(ctlcode.fs_type, SVN_FS_TYPE_FSFS) != 0
      || ctlcode.code != IOCTL_REVISION_SIZE)
    return SVN_NO_ERROR;
  *handled = TRUE;
  out = apr_pcalloc(result_pool, sizeof(*out));
  SVN_ERR(svn_fs_fs__revision_size(&out->rev_size, fs, in->revision,
                                   scratch_pool));
  *output_p = out;
  return SVN_NO_ERROR;
}
