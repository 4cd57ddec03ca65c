/* pack.h --- 'svnadmin pack' (storage layer; doc/format/pack.md).
 *
 * Owner: the pack files (pack.c, pack_order.c).
 */
#ifndef FSFS7_PACK_H
#define FSFS7_PACK_H

#include "svn_fs.h"
#include "fsfs7.h"

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

#endif
