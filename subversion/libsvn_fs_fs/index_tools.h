/* index_tools.h --- the module's ioctls behind svnfsfs dump-index and
 * load-index (storage layer; doc/format/pack.md §5, INDEX-TOOL-*).
 *
 * Owner: the pack files (index_tools.c shares pack.c's index writer).
 */
#ifndef FSFS7_INDEX_TOOLS_H
#define FSFS7_INDEX_TOOLS_H

#include "svn_fs.h"
#include "private/svn_fs_private.h"

/* Run the FSFS ioctl CTLCODE on FS (the fs vtable's ioctl entry).
   Implemented: SVN_FS_FS__IOCTL_DUMP_INDEX and _LOAD_INDEX, whose INPUT
   structs are those of private/svn_fs_fs_private.h.  Other codes are
   SVN_ERR_FS_UNRECOGNIZED_IOCTL_CODE. */
svn_error_t *
svn_fs_fs__ioctl(svn_fs_t *fs, svn_fs_ioctl_code_t ctlcode, void *input,
                 void **output_p, svn_cancel_func_t cancel_func,
                 void *cancel_baton, apr_pool_t *result_pool,
                 apr_pool_t *scratch_pool);

#endif
