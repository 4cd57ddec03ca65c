/* hashdump.h --- the "hash dump" property list serialisation used by
 * revprop files and packed revprop containers
 * (codec layer; doc/format/revprops.md section "Hash dump", HASH-*).
 * Owner: the admin layer.  Bytes in, hash out; no I/O.
 */
#ifndef FSFS7_HASHDUMP_H
#define FSFS7_HASHDUMP_H

#include "fsfs7.h"

/* Parse a hash dump at the start of the LEN bytes at DATA into *PROPS
   (const char * -> svn_string_t *, keys and values NUL-terminated copies
   in RESULT_POOL).  If CONSUMED is NULL the dump must fill DATA exactly;
   otherwise trailing bytes are allowed and *CONSUMED is set to the length
   of the dump including its "END\n".  WHERE names the source in errors.
   Errors: SVN_ERR_FS_CORRUPT citing the HASH-* rule broken. */
svn_error_t *
svn_fs_fs__hashdump_parse(apr_hash_t **props, apr_size_t *consumed,
                          const char *data, apr_size_t len,
                          const char *where, apr_pool_t *result_pool);

/* Serialise PROPS (const char * -> svn_string_t *) with keys in the
   stock order (byte-wise, shorter first on a common prefix), appending
   to OUT.  SCRATCH_POOL for temporaries. */
void
svn_fs_fs__hashdump_unparse(svn_stringbuf_t *out, apr_hash_t *props,
                            apr_pool_t *scratch_pool);

#endif
