/* pack_remove.h --- removing the unpacked files of packed shards on a
 * thread of their own, while 'svnadmin pack' goes on with the next shard
 * (doc/format/pack.md PACK-6).
 *
 * Removing a shard's files is what the pack spends most of its system
 * time on (on ext4 an unlink of a small file costs about as much as
 * writing it); none of it has to happen before the next shard is
 * packed: once min-unpacked-rev has moved, nobody reads those files
 * (PACK-5), and a removal that never ends is finished by the next pack
 * (PACK-6).  So the packer hands each directory to a remover and only
 * waits for it at the very end.
 *
 * The remover's threads touch nothing but the paths they are given: no
 * svn_fs_t, no pool of the caller's.
 */
#ifndef FSFS7_PACK_REMOVE_H
#define FSFS7_PACK_REMOVE_H

#include <apr_pools.h>
#include "svn_error.h"

typedef struct svn_fs_fs__remover_t svn_fs_fs__remover_t;

/* A remover in *REMOVER, allocated in POOL, which must outlive
   svn_fs_fs__remover_finish.  Without threads (or if one cannot be
   started) it removes each directory at once, in the caller's thread. */
svn_error_t *
svn_fs_fs__remover_create(svn_fs_fs__remover_t **remover, apr_pool_t *pool);

/* Remove every entry of directory DIR except the one named KEEP, then DIR
   itself if KEEP is NULL.  A DIR that does not exist is fine.  Returns at
   once; errors come from _finish (or from here when the remover works
   synchronously). */
svn_error_t *
svn_fs_fs__remover_add(svn_fs_fs__remover_t *remover, const char *dir,
                       const char *keep, apr_pool_t *scratch_pool);

/* Wait until everything added is removed and stop the threads.  Returns
   the first failure (naming its path); parts of directories that no
   thread had started by then are not touched.  Safe to call more than
   once. */
svn_error_t *
svn_fs_fs__remover_finish(svn_fs_fs__remover_t *remover);

#endif
