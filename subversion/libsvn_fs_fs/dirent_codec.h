/* dirent_codec.h --- directory listings as hash dumps (codec layer;
 * doc/format/directories.md).
 *
 * A directory representation's fulltext maps entry names to
 * "<file|dir> <id>".  Parsed listings are arrays of svn_fs_dirent_t *
 * sorted by name with strcmp, ready for binary search.  No I/O.  Owner:
 * the nodes layer.
 */
#ifndef FSFS7_DIRENT_CODEC_H
#define FSFS7_DIRENT_CODEC_H

#include "fsfs7.h"

/* Parse the listing in the LEN bytes at DATA.  With INCREMENTAL (a
   transaction's "children" file, DIRENT-5) the "END" line may be followed
   by entries that add / replace ("K ... V ...") or remove ("D ...") names.
   *ENTRIES gets svn_fs_dirent_t * elements sorted by name; all memory is
   in RESULT_POOL.  Bad input: SVN_ERR_FS_CORRUPT citing DIRENT-n. */
svn_error_t *
svn_fs_fs__dirents_parse(apr_array_header_t **entries, const char *data,
                         apr_size_t len, svn_boolean_t incremental,
                         const char *where, apr_pool_t *result_pool,
                         apr_pool_t *scratch_pool);

/* Append the hash dump of ENTRIES (svn_fs_dirent_t *, written in array
   order; pass them sorted to match stock) and "END\n" to OUT. */
void
svn_fs_fs__dirents_unparse(svn_stringbuf_t *out,
                           const apr_array_header_t *entries);

/* Append one incremental change to OUT: set NAME to KIND / ID, or remove
   NAME when ID is NULL (DIRENT-5). */
void
svn_fs_fs__dirent_unparse_change(svn_stringbuf_t *out, const char *name,
                                 svn_node_kind_t kind,
                                 const svn_fs_fs__id_t *id);

/* Index of NAME in the sorted ENTRIES, or -1. */
int
svn_fs_fs__dirent_find(const apr_array_header_t *entries, const char *name);

/* strcmp order of two svn_fs_dirent_t ** (for qsort / bsearch users). */
int
svn_fs_fs__dirent_compare(const void *a, const void *b);

#endif
