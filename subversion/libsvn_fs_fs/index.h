/* index.h --- item address translation (indexes layer).
 *
 * Maps (revision, item index) to an absolute offset in the rev / pack file:
 * through the L2P index for logical addressing, by offset arithmetic (plus
 * the pack manifest, which revfile.h reads) for physical addressing.  The
 * P2L index answers the reverse question.  Formats:
 * doc/format/addressing.md.  Owner: the addressing layer (index.c,
 * index_codec.c, footer.c).
 */
#ifndef FSFS7_INDEX_H
#define FSFS7_INDEX_H

#include "fsfs7.h"
#include "revfile.h"

/* One P2L entry: the item occupying [OFFSET, OFFSET+SIZE). */
typedef struct svn_fs_fs__p2l_entry_t
{
  apr_off_t offset;
  apr_off_t size;
  svn_fs_fs__item_type_t type;
  apr_uint32_t fnv1_checksum;
  svn_revnum_t revision;       /* SVN_INVALID_REVNUM for unused ranges */
  apr_uint64_t item_index;
} svn_fs_fs__p2l_entry_t;

/* Absolute position in REV_FILE of item ITEM_INDEX of REVISION.
   REV_FILE must be the file that holds REVISION. */
svn_error_t *
svn_fs_fs__item_offset(apr_off_t *absolute_position, svn_fs_t *fs,
                       svn_fs_fs__revfile_t *rev_file, svn_revnum_t revision,
                       apr_uint64_t item_index, apr_pool_t *scratch_pool);

/* Physical addressing only: the root noderev and changes offsets from the
   trailer line at the end of REVISION ("<root> <changes>\n"), relative to
   the revision's start, and made absolute here; *TRAILER_OFFSET, if not
   NULL, receives the absolute offset of that line. */
svn_error_t *
svn_fs_fs__rev_trailer(apr_off_t *root_offset, apr_off_t *changes_offset,
                       apr_off_t *trailer_offset, svn_fs_t *fs,
                       svn_fs_fs__revfile_t *rev_file,
                       svn_revnum_t revision, apr_pool_t *scratch_pool);

/* Physical addressing: first and one-past-last absolute offsets of
   REVISION's data in REV_FILE (a pack or single rev file). */
svn_error_t *
svn_fs_fs__rev_bounds(apr_off_t *start, apr_off_t *end, svn_fs_t *fs,
                      svn_fs_fs__revfile_t *rev_file, svn_revnum_t revision,
                      apr_pool_t *scratch_pool);

/* Logical addressing: all P2L entries overlapping
   [BLOCK_START, BLOCK_START+BLOCK_SIZE) of the file holding REVISION,
   as svn_fs_fs__p2l_entry_t values in offset order. */
svn_error_t *
svn_fs_fs__p2l_index_lookup(apr_array_header_t **entries, svn_fs_t *fs,
                            svn_fs_fs__revfile_t *rev_file,
                            svn_revnum_t revision, apr_off_t block_start,
                            apr_off_t block_size, apr_pool_t *result_pool,
                            apr_pool_t *scratch_pool);

/* Logical addressing: the entry starting exactly at OFFSET, or NULL. */
svn_error_t *
svn_fs_fs__p2l_entry_lookup(svn_fs_fs__p2l_entry_t **entry, svn_fs_t *fs,
                            svn_fs_fs__revfile_t *rev_file,
                            svn_revnum_t revision, apr_off_t offset,
                            apr_pool_t *result_pool,
                            apr_pool_t *scratch_pool);

/* The same, but only if the index page holding OFFSET is at hand (this
   file's memo or the cache): otherwise *ENTRY is NULL and *AT_HAND
   FALSE, and nothing is read.  Expanding a page of a pack file costs
   ~100 us; a caller that can do without the entry asks this way. */
svn_error_t *
svn_fs_fs__p2l_entry_peek(svn_fs_fs__p2l_entry_t **entry,
                          svn_boolean_t *at_hand, svn_fs_t *fs,
                          svn_fs_fs__revfile_t *rev_file,
                          svn_revnum_t revision, apr_off_t offset,
                          apr_pool_t *result_pool,
                          apr_pool_t *scratch_pool);

/* Logical addressing: end of the data covered by the P2L index. */
svn_error_t *
svn_fs_fs__p2l_get_max_offset(apr_off_t *offset, svn_fs_t *fs,
                              svn_fs_fs__revfile_t *rev_file,
                              svn_revnum_t revision,
                              apr_pool_t *scratch_pool);

/* The modified FNV-1a checksum (P2L-7) of the SIZE bytes at OFFSET of
   REV_FILE, in *FNV. */
svn_error_t *
svn_fs_fs__item_fnv(apr_uint32_t *fnv, svn_fs_fs__revfile_t *rev_file,
                    apr_off_t offset, apr_off_t size,
                    apr_pool_t *scratch_pool);

/* Logical addressing: check the index data of the rev or pack file
   holding REV (as svn_fs_fs__verify_indexes does, the L2P side only for
   revisions in [START, END]); *NEXT gets the first revision after that
   file.  One step of svn_fs_verify (repo_verify.c). */
svn_error_t *
svn_fs_fs__verify_file_indexes(svn_revnum_t *next, svn_fs_t *fs,
                               svn_revnum_t rev, svn_revnum_t start,
                               svn_revnum_t end, apr_pool_t *scratch_pool);

/* Check the index data of all revisions in [START, END]: footer checksums,
   L2P and P2L agree, FNV checksums of every item.  Used by verify_fs. */
svn_error_t *
svn_fs_fs__verify_indexes(svn_fs_t *fs, svn_revnum_t start, svn_revnum_t end,
                          svn_cancel_func_t cancel_func, void *cancel_baton,
                          apr_pool_t *scratch_pool);

/* Create this layer's caches in MEMBUFFER (see caching.h). */
svn_error_t *
svn_fs_fs__index_init_caches(svn_fs_t *fs, svn_membuffer_t *membuffer,
                             const char *prefix, apr_pool_t *result_pool,
                             apr_pool_t *scratch_pool);

#endif
