/* fsconf.c --- reading db/fsfs.conf and the text of a fresh one
 * (fsconf.h, doc/format/fsfs-conf.md).
 *
 * The file is an svn_config INI file.  Every option is optional; the
 * defaults are those the stock module applies (FSCONF-2), including the
 * format-dependent ones (default compression, revprop pack size when
 * packs are compressed).
 */
#include <apr_strings.h>

#include "svn_config.h"
#include "svn_delta.h"
#include "svn_io.h"
#include "svn_dirent_uri.h"

#include "fsconf.h"

/* Section and option names (FSCONF-3 lists them). */
#define SECT_CACHES        "caches"
#define SECT_REP_SHARING   "rep-sharing"
#define SECT_DELTIFICATION "deltification"
#define SECT_PACKED_REVPROPS "packed-revprops"
#define SECT_IO            "io"
#define SECT_DEBUG         "debug"

#define KIBI 1024

void
svn_fs_fs__fsconf_defaults(svn_fs_fs__data_t *ffd)
{
  ffd->rep_sharing_allowed = TRUE;
  ffd->max_deltification_walk = 1023;
  ffd->max_linear_deltification = 16;
  ffd->deltify_directories = TRUE;
  ffd->deltify_properties = TRUE;
  ffd->compress_packed_revprops = FALSE;
  ffd->revprop_pack_size = 16 * KIBI;
  ffd->block_size = 64 * KIBI;
  ffd->block_read = TRUE;
  ffd->l2p_page_size = 8192;
  ffd->p2l_page_size = 1024 * KIBI;
  ffd->pack_after_commit = FALSE;
  ffd->delta_compression_level = ffd->format >= 8
                               ? SVN_FS_FS__COMPRESSION_LZ4
                               : SVN_DELTA_COMPRESSION_LEVEL_DEFAULT;
  ffd->fail_stop = FALSE;
  ffd->verify_before_commit = FALSE;
}

/* Read an integer option that is given in KiB and store it in bytes. */
static svn_error_t *
get_kib(apr_int64_t *bytes, svn_config_t *cfg, const char *section,
        const char *option, apr_int64_t default_bytes)
{
  apr_int64_t kib;

  SVN_ERR(svn_config_get_int64(cfg, &kib, section, option,
                               default_bytes / KIBI));
  if (kib <= 0 || kib > APR_INT32_MAX)
    return svn_error_createf(SVN_ERR_BAD_CONFIG_VALUE, NULL,
                             "fsfs.conf: '%s' must be a positive number "
                             "(rule FSCONF-4)", option);
  *bytes = kib * KIBI;
  return SVN_NO_ERROR;
}

/* Read a plain non-negative integer option into an int. */
static svn_error_t *
get_int(int *value, svn_config_t *cfg, const char *section,
        const char *option, int default_value)
{
  apr_int64_t v;

  SVN_ERR(svn_config_get_int64(cfg, &v, section, option, default_value));
  if (v < 0 || v > APR_INT32_MAX)
    return svn_error_createf(SVN_ERR_BAD_CONFIG_VALUE, NULL,
                             "fsfs.conf: '%s' is out of range "
                             "(rule FSCONF-4)", option);
  *value = (int)v;
  return SVN_NO_ERROR;
}

/* The [deltification] compression choice (FSCONF-5): "compression" wins;
   else the older numeric "compression-level"; else the format default. */
static svn_error_t *
read_compression(svn_fs_fs__data_t *ffd, svn_config_t *cfg)
{
  const char *method, *level_text;
  int level = 0;

  svn_config_get(cfg, &method, SECT_DELTIFICATION, "compression", NULL);
  svn_config_get(cfg, &level_text, SECT_DELTIFICATION, "compression-level",
                 NULL);
  if (method == NULL && level_text != NULL)
    {
      SVN_ERR(get_int(&level, cfg, SECT_DELTIFICATION, "compression-level",
                      0));
      ffd->delta_compression_level = level > 9 ? 9 : level;
      return SVN_NO_ERROR;
    }
  if (method == NULL)
    return SVN_NO_ERROR;
  if (strcmp(method, "none") == 0)
    ffd->delta_compression_level = SVN_DELTA_COMPRESSION_LEVEL_NONE;
  else if (strcmp(method, "lz4") == 0)
    ffd->delta_compression_level = SVN_FS_FS__COMPRESSION_LZ4;
  else if (strcmp(method, "zlib") == 0)
    ffd->delta_compression_level = SVN_DELTA_COMPRESSION_LEVEL_DEFAULT;
  /* Levels 1..9 only: the stock module refuses "zlib-0" (no compression
     is spelled "none"), so a repository we accept it opens too. */
  else if (strncmp(method, "zlib-", 5) == 0 && method[5] >= '1'
           && method[5] <= '9' && method[6] == '\0')
    ffd->delta_compression_level = method[5] - '0';
  else
    return svn_error_createf(SVN_ERR_BAD_CONFIG_VALUE, NULL,
                             "fsfs.conf: unknown compression '%s' "
                             "(rule FSCONF-5)", method);
  if (ffd->delta_compression_level == SVN_FS_FS__COMPRESSION_LZ4
      && ffd->format < 8)
    return svn_error_create(SVN_ERR_BAD_CONFIG_VALUE, NULL,
                            "fsfs.conf: LZ4 compression needs format 8 "
                            "(rule FSCONF-5)");
  return SVN_NO_ERROR;
}

/* Options of the [deltification] and [rep-sharing] sections. */
static svn_error_t *
read_delta_options(svn_fs_fs__data_t *ffd, svn_config_t *cfg)
{
  SVN_ERR(svn_config_get_bool(cfg, &ffd->rep_sharing_allowed,
                              SECT_REP_SHARING, "enable-rep-sharing", TRUE));
  SVN_ERR(svn_config_get_bool(cfg, &ffd->deltify_directories,
                              SECT_DELTIFICATION, "enable-dir-deltification",
                              TRUE));
  SVN_ERR(svn_config_get_bool(cfg, &ffd->deltify_properties,
                              SECT_DELTIFICATION,
                              "enable-props-deltification", TRUE));
  SVN_ERR(get_int(&ffd->max_deltification_walk, cfg, SECT_DELTIFICATION,
                  "max-deltification-walk", 1023));
  SVN_ERR(get_int(&ffd->max_linear_deltification, cfg, SECT_DELTIFICATION,
                  "max-linear-deltification", 16));
  return read_compression(ffd, cfg);
}

/* [packed-revprops]: compressed packs default to a 4x larger limit. */
static svn_error_t *
read_revprop_options(svn_fs_fs__data_t *ffd, svn_config_t *cfg)
{
  SVN_ERR(svn_config_get_bool(cfg, &ffd->compress_packed_revprops,
                              SECT_PACKED_REVPROPS,
                              "compress-packed-revprops", FALSE));
  return get_kib(&ffd->revprop_pack_size, cfg, SECT_PACKED_REVPROPS,
                 "revprop-pack-size",
                 (ffd->compress_packed_revprops ? 64 : 16) * KIBI);
}

/* [io] only matters with logical addressing (format 7+). */
static svn_error_t *
read_io_options(svn_fs_fs__data_t *ffd, svn_config_t *cfg)
{
  apr_int64_t entries;

  if (ffd->format < SVN_FS_FS__MIN_LOGICAL_ADDRESSING_FORMAT)
    return SVN_NO_ERROR;
  SVN_ERR(get_kib(&ffd->block_size, cfg, SECT_IO, "block-size", 64 * KIBI));
  SVN_ERR(svn_config_get_bool(cfg, &ffd->block_read, SECT_IO, "block-read",
                              TRUE));
  SVN_ERR(get_kib(&ffd->p2l_page_size, cfg, SECT_IO, "p2l-page-size",
                  1024 * KIBI));
  SVN_ERR(svn_config_get_int64(cfg, &entries, SECT_IO, "l2p-page-size",
                               8192));
  if (entries <= 0 || entries > APR_INT32_MAX)
    return svn_error_create(SVN_ERR_BAD_CONFIG_VALUE, NULL,
                            "fsfs.conf: 'l2p-page-size' must be a positive "
                            "number (rule FSCONF-4)");
  ffd->l2p_page_size = entries;
  return SVN_NO_ERROR;
}

svn_error_t *
svn_fs_fs__fsconf_read(svn_fs_fs__data_t *ffd, const char *conf_path,
                       apr_pool_t *scratch_pool)
{
  svn_config_t *cfg;

  svn_fs_fs__fsconf_defaults(ffd);
  /* must_exist = FALSE: a repository without fsfs.conf uses defaults. */
  SVN_ERR(svn_config_read3(&cfg, conf_path, FALSE, FALSE, FALSE,
                           scratch_pool));
  SVN_ERR(read_delta_options(ffd, cfg));
  SVN_ERR(read_revprop_options(ffd, cfg));
  SVN_ERR(read_io_options(ffd, cfg));
  SVN_ERR(svn_config_get_bool(cfg, &ffd->fail_stop, SECT_CACHES,
                              "fail-stop", FALSE));
  SVN_ERR(svn_config_get_bool(cfg, &ffd->pack_after_commit, SECT_DEBUG,
                              "pack-after-commit", FALSE));
  SVN_ERR(svn_config_get_bool(cfg, &ffd->verify_before_commit, SECT_DEBUG,
                              "verify-before-commit", FALSE));
  /* Features the old formats cannot record, whatever the file says. */
  if (ffd->format < SVN_FS_FS__MIN_REP_SHARING_FORMAT)
    ffd->rep_sharing_allowed = FALSE;                       /* OLD-6 */
  if (ffd->format < SVN_FS_FS__MIN_SVNDIFF1_FORMAT)
    ffd->delta_compression_level = SVN_DELTA_COMPRESSION_LEVEL_NONE; /* OLD-2 */
  return SVN_NO_ERROR;
}

/* Our own explanatory text; option names and defaults follow the stock
   module so that either implementation reads the file the same way. */
static const char template_text[] =
"### fsfs.conf -- tuning knobs of this FSFS repository.\n"
"### Lines starting with '#' are inactive; remove the '#' and edit the\n"
"### value to change a setting.  The values shown are what applies when\n"
"### an option is absent.  See doc/format/fsfs-conf.md of fsfs7.\n"
"\n"
"[memcached-servers]\n"
"### One 'name = host:port' line per memcached instance to use as an\n"
"### extra cache shared between processes.  None are used by default.\n"
"# first-server = 127.0.0.1:11211\n"
"\n"
"[caches]\n"
"### Treat any failure of the cache back-ends as an error instead of\n"
"### silently working without them.\n"
"# fail-stop = false\n"
"\n"
"[rep-sharing]\n"
"### Store identical file contents only once (rep-cache.db).\n"
"# enable-rep-sharing = true\n"
"\n"
"[deltification]\n"
"### Store directory listings and property lists as deltas, too.\n"
"# enable-dir-deltification = true\n"
"# enable-props-deltification = true\n"
"### How far back a new representation may be deltified against\n"
"### (in predecessors), and how long a chain of linear deltas may grow\n"
"### before a skip-delta is forced.\n"
"# max-deltification-walk = 1023\n"
"# max-linear-deltification = 16\n"
"### How delta windows are compressed: none, lz4 (format 8 and later\n"
"### only), zlib or zlib-0 .. zlib-9.  Format 8 defaults to lz4,\n"
"### older formats to zlib-5.\n"
"# compression = lz4\n"
"\n"
"[packed-revprops]\n"
"### Upper bound, in KiB, for one file of packed revision properties;\n"
"### 64 when compression is on, else 16.\n"
"# revprop-pack-size = 16\n"
"### Compress the files of packed revision properties.\n"
"# compress-packed-revprops = false\n"
"\n"
"[io]\n"
"### Read granularity in KiB (formats 7 and later).\n"
"# block-size = 64\n"
"### Parse the changed-path lists found in each block read into the\n"
"### caches as well (fsfs7 only; formats 7 and later).\n"
"# block-read = true\n"
"### Entries per page of the log-to-phys index and KiB of revision\n"
"### data covered by one page of the phys-to-log index.\n"
"# l2p-page-size = 8192\n"
"# p2l-page-size = 1024\n"
"\n"
"[debug]\n"
"### Re-read and check every new revision before it becomes visible.\n"
"# verify-before-commit = false\n";

const char *
svn_fs_fs__fsconf_template(void)
{
  return template_text;
}
