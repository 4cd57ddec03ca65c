/* md5.h --- MD5 message digests (RFC 1321), for REP-7 verification.
 *
 * apr_md5 is the textbook code, byte-by-byte word assembly and all: in
 * a dump or export of a long history it was half the CPU.  This one
 * gives the same digests (RFC 1321's test suite, test_md5) at a higher
 * rate.  Owner: codecs layer.
 */
#ifndef FSFS7_MD5_H
#define FSFS7_MD5_H

#include <apr.h>

typedef struct svn_fs_fs__md5_t
{
  apr_uint32_t state[4];
  apr_uint64_t length;            /* bytes hashed so far */
  unsigned char pending[64];      /* the first LENGTH % 64 are valid */
} svn_fs_fs__md5_t;

void
svn_fs_fs__md5_init(svn_fs_fs__md5_t *ctx);

void
svn_fs_fs__md5_update(svn_fs_fs__md5_t *ctx, const void *data,
                      apr_size_t len);

/* Write the digest of everything hashed into DIGEST; CTX is then
   spent. */
void
svn_fs_fs__md5_final(unsigned char digest[16], svn_fs_fs__md5_t *ctx);

#endif
