/* pack.h --- 'svnadmin pack' (storage layer; doc/format/pack.md).
 *
 * Owner: the pack files (pack.c, pack_order.c).
 */
#ifndef FSFS7_PACK_H
#define FSFS7_PACK_H

#include "svn_fs.h"
#include "fsfs7.h"
#include "footer.h"

/* Pack every complete, not yet packed shard of FS (opened) in order
   (PACK-1..PACK-7): revisions into revs/<S>.pack/, revprops into
   revprops/<S>.pack/, then min-unpacked-rev, then the unpacked files go.
   Holds the pack lock (format 7+; commits go on) or the write lock
   (format 6, as stock).  NOTIFY_FUNC (may be NULL) hears start and end of
   each shard, or svn_fs_pack_notify_noop (shard -1 for a linear
   repository).  CANCEL_FUNC may be NULL; a cancelled or interrupted pack
   leaves a repository both modules read, and the next pack finishes. */
svn_error_t *
svn_fs_fs__pack(svn_fs_t *fs, svn_fs_pack_notify_t notify_func,
                void *notify_baton, svn_cancel_func_t cancel_func,
                void *cancel_baton, apr_pool_t *scratch_pool);

/* Pack the revprops of complete shard SHARD of FS (RPPACK-8) into a new
   revprops/<SHARD>.pack and make it durable before returning: every file
   in it, the directory and the directory's entry in db/revprops are
   fsynced (PACK-4).  Only then may the plain files it replaces go
   (PACK-6; OLD-9 for upgrades).  CANCEL_FUNC may be NULL.  The caller
   holds the write lock. */
svn_error_t *
svn_fs_fs__pack_revprops_durably(svn_fs_t *fs, svn_revnum_t shard,
                                 svn_cancel_func_t cancel_func,
                                 void *cancel_baton,
                                 apr_pool_t *scratch_pool);

/* Index helpers, also usable by other writers of logical files. */

/* The footer and all P2L entries (svn_fs_fs__p2l_entry_t, in offset
   order, the final filler included) of the logically addressed rev or
   pack file open as FILE; WHERE names it in errors.  Checks FOOTER-1..3
   and P2L-1..6.  *ENTRIES in RESULT_POOL. */
svn_error_t *
svn_fs_fs__pack_read_p2l(apr_array_header_t **entries,
                         svn_fs_fs__footer_t *footer, apr_file_t *file,
                         const char *where, apr_pool_t *result_pool,
                         apr_pool_t *scratch_pool);

/* Append to FILE, whose first COVERED bytes are item data, the L2P
   section built from L2P (one array of apr_off_t per revision from
   START, -1 = unused), the P2L section from P2L (entries tiling
   [0, COVERED)) and the footer, with FS's page sizes. */
svn_error_t *
svn_fs_fs__pack_write_indexes(apr_file_t *file, svn_fs_t *fs,
                              svn_revnum_t start, apr_off_t covered,
                              const apr_array_header_t *l2p,
                              const apr_array_header_t *p2l,
                              apr_pool_t *scratch_pool);

#endif
