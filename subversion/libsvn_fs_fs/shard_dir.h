/* shard_dir.h --- opening files by name within their shard directory
 * (addressing layer).
 *
 * A whole-history read opens a revision file and a revprops file for
 * every unpacked revision, each by a path of half a dozen components or
 * more that the kernel walks again for every open; the walk was a fifth
 * of the cost of an open.  An svn_fs_t keeps, for each kind of file, a
 * descriptor of the directory it last opened one in, and opens the next
 * file of that directory relative to it.  Nothing here parses paths
 * beyond the last '/': the callers' paths (paths.h) are the truth.
 */
#ifndef FSFS7_SHARD_DIR_H
#define FSFS7_SHARD_DIR_H

#include "fsfs7.h"

/* The kinds of files that keep a directory each. */
typedef enum svn_fs_fs__dir_kind_t
{
  svn_fs_fs__dir_revs,
  svn_fs_fs__dir_revprops,
  svn_fs_fs__dir_kinds
} svn_fs_fs__dir_kind_t;

/* Open the existing file PATH read-only and close-on-exec into *FD, as
   open(2) would: relative to FS's descriptor of KIND's directory when
   that is PATH's directory, otherwise after taking a descriptor of
   PATH's directory for the next call.  A file the held directory lacks
   is looked up by PATH once more: the directory may have been removed
   since (a pack removes the shard it packed) or made anew under its
   name.  (A directory renamed away, files and all, goes on serving them
   through the descriptor, as a revision file held open does; FSFS never
   does that to a shard.)  The process keeps at most 128 directory
   descriptors, and no more than a sixteenth of RLIMIT_NOFILE; past that
   PATH is opened as it is.  Returns 0, or the errno value of the failed
   open (ENOENT for a missing file). */
int
svn_fs_fs__shard_dir_open(int *fd, svn_fs_t *fs, svn_fs_fs__dir_kind_t kind,
                          const char *path);

#endif
