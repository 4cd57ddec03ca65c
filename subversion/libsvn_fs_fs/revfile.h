/* revfile.h --- access to revision and pack files (storage layer).
 *
 * The only code that opens db/revs/ files.  A handle covers the rev or pack
 * file holding one revision; for logical addressing it knows the footer
 * (doc/format/addressing.md), for physical addressing it reads the pack
 * manifest (the offset of each revision in the pack file).  Owner: the addressing layer (revfile.c).
 */
#ifndef FSFS7_REVFILE_H
#define FSFS7_REVFILE_H

#include <apr_file_io.h>
#include "fsfs7.h"

typedef struct svn_fs_fs__revfile_t
{
  svn_fs_t *fs;

  /* First revision in the file (shard start when packed) and whether it
     is a pack file. */
  svn_revnum_t start_revision;
  svn_boolean_t is_packed;

  apr_file_t *file;
  apr_off_t file_size;

  /* Logical addressing: index locations and checksums from the footer;
     valid once FOOTER_READ. */
  svn_boolean_t footer_read;
  apr_off_t l2p_offset;
  apr_off_t p2l_offset;
  apr_off_t footer_offset;
  svn_checksum_t *l2p_checksum;
  svn_checksum_t *p2l_checksum;

  /* Block-read: blocks that reads through this handle fetch from disk
     are handed to the block hook (svn_fs_fs__revfile_set_block_hook).
     FALSE after opening; the owner of the hook sets it on the handles
     of the item lookups it wants to follow, so that bulk reads (file
     texts, indexes, pack copies) cost nothing extra. */
  svn_boolean_t block_hook;

  /* Pool the handle and its buffers live in. */
  apr_pool_t *pool;

  /* Private to revfile.c (read buffer, reuse bookkeeping). */
  void *priv;
} svn_fs_fs__revfile_t;

/* Open the rev or pack file that holds REV of FS.  Retries once after
   refreshing min-unpacked-rev, so a concurrent 'svnadmin pack' is no
   error.  The handle lives until svn_fs_fs__revfile_close() or until
   RESULT_POOL is cleared.  SVN_ERR_FS_NO_SUCH_REVISION if REV is not
   there. */
svn_error_t *
svn_fs_fs__revfile_open(svn_fs_fs__revfile_t **file, svn_fs_t *fs,
                        svn_revnum_t rev, apr_pool_t *result_pool,
                        apr_pool_t *scratch_pool);

/* Open PATH, a file that may still grow (a transaction's proto-revision
   file), as a private read handle: never kept in or shared through the
   open-file set, its size taken now, START_REVISION SVN_INVALID_REVNUM.
   Closed like any handle.  (Added for rep_read.c's reps in transactions.) */
svn_error_t *
svn_fs_fs__revfile_open_path(svn_fs_fs__revfile_t **file, svn_fs_t *fs,
                             const char *path, apr_pool_t *result_pool);

/* Read exactly LEN bytes at absolute OFFSET of FILE into BUF.  Reading
   past the end is SVN_ERR_FS_CORRUPT. */
svn_error_t *
svn_fs_fs__revfile_read(void *buf, apr_size_t len,
                        svn_fs_fs__revfile_t *file, apr_off_t offset);

/* *LEN = how many of the MAX_LEN bytes at OFFSET of FILE exist (fewer
   near its end), for a caller that brings its own buffer; an OFFSET
   outside the file is the error svn_fs_fs__revfile_read() gives. */
svn_error_t *
svn_fs_fs__revfile_available(apr_size_t *len, svn_fs_fs__revfile_t *file,
                             apr_off_t offset, apr_size_t max_len);

/* Read up to MAX_LEN bytes at OFFSET (fewer at EOF) into a buffer
   allocated in RESULT_POOL; *LEN receives the count. */
svn_error_t *
svn_fs_fs__revfile_read_some(const char **data, apr_size_t *len,
                             svn_fs_fs__revfile_t *file, apr_off_t offset,
                             apr_size_t max_len, apr_pool_t *result_pool);

/* Zero-copy access to the aligned read block of FILE that contains
   OFFSET (the building block of block-reads: fetch a block, ask the P2L
   index which items it holds, parse and cache them all).  *DATA points at
   the byte at OFFSET, *LEN bytes follow it up to the block end or EOF,
   *BLOCK_START is the block's first offset.  The memory belongs to the
   open files of the svn_fs_t and stays valid until the next read of any
   revision or pack file through it; copy what must live longer. */
svn_error_t *
svn_fs_fs__revfile_block(const unsigned char **data, apr_size_t *len,
                         apr_off_t *block_start, svn_fs_fs__revfile_t *file,
                         apr_off_t offset);

/* Block-read (doc/architecture.md).  Called with FILE (a handle with
   BLOCK_HOOK set that a copying read went through) after that read of
   READ_AT got its bytes, for each aligned block of FILE the read touched
   that the hook has not had since the block was last read from disk:
   the block starts at BLOCK_START and DATA holds its LEN bytes (a copy
   in SCRATCH_POOL).  Only files of committed revisions are reported; reads
   the hook makes itself are not.  Its errors are ignored. */
typedef svn_error_t *(*svn_fs_fs__revfile_block_hook_t)(
  svn_fs_fs__revfile_t *file, apr_off_t block_start,
  const unsigned char *data, apr_size_t len, apr_off_t read_at,
  apr_pool_t *scratch_pool);

/* Register HOOK (NULL: none) for the reads through FS's open files. */
void
svn_fs_fs__revfile_set_block_hook(svn_fs_t *fs,
                                  svn_fs_fs__revfile_block_hook_t hook);

/* Size of FILE's read blocks (fsfs.conf block-size, 64 KiB default). */
apr_size_t
svn_fs_fs__revfile_block_size(svn_fs_fs__revfile_t *file);

/* Make sure FILE's footer fields are filled (logical addressing). */
svn_error_t *
svn_fs_fs__revfile_read_footer(svn_fs_fs__revfile_t *file,
                               apr_pool_t *scratch_pool);

/* "rev file r<N>" / "pack file of r<N>", for error messages.  Valid at
   least as long as FILE stays open (RESULT_POOL is used only for closed
   handles). */
const char *
svn_fs_fs__revfile_describe(svn_fs_fs__revfile_t *file,
                            apr_pool_t *result_pool);

/* Memo slots shared by all handles on the same open file: the index layer
   keeps values derived from the file's immutable bytes there (parsed
   index headers), so repeated lookups skip the parse
   even with caches disabled.  *POOL receives the pool such values must
   be allocated in; it lives as long as the underlying open file. */
#define SVN_FS_FS__REVFILE_MEMO_SLOTS 6
void **
svn_fs_fs__revfile_memo(apr_pool_t **pool, svn_fs_fs__revfile_t *file);

/* Pack file FILE with physical addressing: the start offsets of its
   *COUNT revisions (MANIFEST-1, MANIFEST-2), followed by the pack size
   as element *COUNT.  Read once per open file (and kept in the
   membuffer); valid as long as FILE stays open. */
svn_error_t *
svn_fs_fs__revfile_manifest(const apr_off_t **offsets, int *count,
                            svn_fs_fs__revfile_t *file,
                            apr_pool_t *scratch_pool);

/* Create this layer's caches (pack manifests, images of small revision
   files) in MEMBUFFER under PREFIX (caching.h). */
svn_error_t *
svn_fs_fs__revfile_init_caches(svn_fs_t *fs, svn_membuffer_t *membuffer,
                               const char *prefix, apr_pool_t *result_pool,
                               apr_pool_t *scratch_pool);

/* How many times FS has opened a rev or pack file from disk so far (the
   open-file set's misses; for tests and measurements). */
apr_uint64_t
svn_fs_fs__revfile_os_opens(svn_fs_t *fs);

/* How many times FS has reopened a rev or pack file from a parked
   descriptor instead of the disk (for tests and measurements). */
apr_uint64_t
svn_fs_fs__revfile_unparks(svn_fs_t *fs);

/* How many times FS has made a rev file's slot from its image in the
   membuffer instead of opening the file (for tests and measurements). */
apr_uint64_t
svn_fs_fs__revfile_image_hits(svn_fs_t *fs);

/* Bytes of read-block buffers FS's open-file set has allocated so far
   (they are reused, never freed before the svn_fs_t; for tests). */
apr_size_t
svn_fs_fs__revfile_set_block_bytes(svn_fs_t *fs);

/* Close FILE (idempotent). */
svn_error_t *
svn_fs_fs__revfile_close(svn_fs_fs__revfile_t *file);

#endif
