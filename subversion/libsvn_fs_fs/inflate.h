/* inflate.h --- decompressing zlib streams of a known size (codec layer).
 *
 * svndiff1 sections (doc/format/svndiff.md, SVNDIFF-7) and the other
 * zlib-compressed pieces of a repository carry the length of what they
 * expand to, so they can be inflated in one call into a buffer of
 * exactly that size.  zlib's uncompress() does that at ~600-900 MB/s;
 * libdeflate does the same job about twice as fast, and inflating is a
 * quarter of the CPU of an export.  libdeflate is not a dependency: it is
 * loaded at run time when the process can find libdeflate.so.0 (Debian
 * package libdeflate0), and zlib serves otherwise.  Both check the
 * stream's Adler-32 checksum and accept the same streams.
 */
#ifndef FSFS7_INFLATE_H
#define FSFS7_INFLATE_H

#include <apr.h>
#include "svn_types.h"

/* Inflate the zlib stream at IN (IN_LEN bytes; bytes after the end of
   the stream are ignored, as zlib's uncompress() does) into OUT, which
   it must fill exactly: OUT_LEN bytes.  Returns FALSE if the stream is
   damaged or does not expand to exactly OUT_LEN bytes. */
svn_boolean_t
svn_fs_fs__inflate(unsigned char *out, apr_size_t out_len,
                   const unsigned char *in, apr_size_t in_len);

/* Which implementation svn_fs_fs__inflate uses in this process:
   "libdeflate" or "zlib".  Setting FSFS7_INFLATE=zlib in the environment
   before the first call forces zlib (tests compare the two). */
const char *
svn_fs_fs__inflate_implementation(void);

#endif /* FSFS7_INFLATE_H */
