/* repo_rev_size.h --- the revision-size ioctl behind `svnadmin rev-size`
 * (storage layer, admin part; doc/ioctls.md, "1003").  Owner: the admin
 * layer (repo_rev_size.c, dispatched by fs_vtable.c's fs_ioctl).
 */
#ifndef FSFS7_REPO_REV_SIZE_H
#define FSFS7_REPO_REV_SIZE_H

#include "fsfs7.h"

/* How many bytes revision REV of FS takes on disk, as `svnadmin rev-size`
   reports it: its data in its rev or pack file (indexes excluded) plus
   its revision properties.  Reads only the indexes (logical addressing),
   the pack manifest (physical, packed) or file sizes, never the data.
   Errors: SVN_ERR_FS_NO_SUCH_REVISION for a revision FS does not have;
   what the index or revprop readers report for damaged files. */
svn_error_t *
svn_fs_fs__revision_size(apr_off_t *rev_size, svn_fs_t *fs, svn_revnum_t rev,
                         apr_pool_t *scratch_pool);

/* fs_ioctl's revision-size code (fsfs:1003): INPUT and *OUTPUT_P (in
   RESULT_POOL) in the layout of upstream's svn_fs_fs_private.h.
   *HANDLED is FALSE for any other code (nothing done). */
svn_error_t *
svn_fs_fs__rev_size_ioctl(svn_boolean_t *handled, svn_fs_t *fs,
                          svn_fs_ioctl_code_t ctlcode, void *input,
                          void **output_p, apr_pool_t *result_pool,
                          apr_pool_t *scratch_pool);

#endif
