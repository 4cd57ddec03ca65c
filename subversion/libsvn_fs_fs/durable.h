/* durable.h --- putting finished files where readers and recover look
 * (storage layer; doc/format/commit.md COMMIT-INV, COMMIT-4, COMMIT-5).
 *
 * The one rule every caller keeps: no file is reachable under a name that
 * a reader or `svnadmin recover` uses until its bytes are complete and,
 * with FLUSH, on disk.  So a file is written and synced under a private
 * name first and only then moved to its public one.
 */
#ifndef FSFS7_DURABLE_H
#define FSFS7_DURABLE_H

#include <apr_pools.h>
#include "svn_error.h"
#include "svn_types.h"
#include "svn_fs.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Should FS's writes be flushed to disk?  FALSE only when its opener
   passed SVN_FS_CONFIG_NO_FLUSH_TO_DISK (svnadmin load
   --no-flush-to-disk): the admin accepted that a power cut during the
   operation may damage the repository, so no fsync is worth its cost. */
svn_boolean_t
svn_fs_fs__flush_wanted(svn_fs_t *fs);

/* Make the entries of directory DIR durable (a create, rename or unlink
   in it survives a power cut only once the directory is synced). */
svn_error_t *
svn_fs_fs__sync_dir(const char *dir, apr_pool_t *scratch_pool);

/* Move FROM, a complete file (synced already when FLUSH), to TO,
   replacing any file there.  When both lie on one file system this is
   one rename.  When they do not (EXDEV: db/revs or db/txn-protorevs
   symlinked to another disk, a tmpfs for transactions), FROM's bytes are
   copied to a private temporary file in TO's directory, which gets FROM's
   permission bits, is synced with FLUSH and then renamed to TO; FROM is
   removed afterwards.  Either way TO names complete bytes only.  With
   FLUSH, TO's directory is synced at the end. */
svn_error_t *
svn_fs_fs__move_into_place(const char *from, const char *to,
                           svn_boolean_t flush, apr_pool_t *scratch_pool);

/* Copy FROM's bytes and permission bits to TO, replacing any file
   there: through a temporary file beside TO, synced with FLUSH, then
   renamed.  TO's directory is not synced: a caller copying many files
   syncs each directory once, before anything names the copies. */
svn_error_t *
svn_fs_fs__copy_into_place(const char *from, const char *to,
                           svn_boolean_t flush, apr_pool_t *scratch_pool);

#ifdef __cplusplus
}
#endif

#endif /* FSFS7_DURABLE_H */
