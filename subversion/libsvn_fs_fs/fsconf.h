/* fsconf.h --- db/fsfs.conf: the per-repository tuning knobs
 * (storage layer; doc/format/fsfs-conf.md).  Owner: the admin layer.
 */
#ifndef FSFS7_FSCONF_H
#define FSFS7_FSCONF_H

#include "fsfs7.h"

/* Value of svn_fs_fs__data_t.delta_compression_level meaning "LZ4"; the
   other values are 0 (no compression) and 1..9 (zlib level). */
#define SVN_FS_FS__COMPRESSION_LZ4 (-1)

/* File name inside db/. */
#define SVN_FS_FS__CONFIG_FILE "fsfs.conf"

/* Set the knobs of FFD to the stock defaults for FFD->format (FSCONF-2).
   FFD->format must be set. */
void
svn_fs_fs__fsconf_defaults(svn_fs_fs__data_t *ffd);

/* Read the fsfs.conf at CONF_PATH into FFD's knobs; a missing file leaves
   the defaults (FSCONF-1).  FFD->format must be set.  Malformed values
   give SVN_ERR_BAD_CONFIG_VALUE (as from svn_config_get_*). */
svn_error_t *
svn_fs_fs__fsconf_read(svn_fs_fs__data_t *ffd, const char *conf_path,
                       apr_pool_t *scratch_pool);

/* The text we write into a new repository's fsfs.conf: every option,
   commented out, at its default.  Static storage. */
const char *
svn_fs_fs__fsconf_template(void);

#endif
