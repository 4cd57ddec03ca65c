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
 *
 * Loading the library costs ~150 kB of resident memory (its mapped code
 * and a decompressor per thread), a good part of what 'svnadmin load' of
 * a small history is above stock's peak, while such a load inflates
 * under 2 MB in all (maven-small's 800 revisions; an export of maven's
 * trunk inflates 30 MB and more).  So a process inflates its first
 * LIBDEFLATE_AFTER bytes (4 MB) with zlib and only then loads
 * libdeflate: a few ms more for a large export.  A stream that expands
 * to a whole svndiff window (LIBDEFLATE_WINDOW) loads it at once: only
 * texts larger than a window have those, and reading them inflates
 * plenty.
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

/* Which implementation the next svn_fs_fs__inflate call of this thread
   uses: "libdeflate" or "zlib".  FSFS7_INFLATE in the environment (read
   at the first call) overrides the choice: "zlib" always uses zlib,
   "libdeflate" uses libdeflate from the first byte when it can be
   loaded (tests compare the two). */
const char *
svn_fs_fs__inflate_implementation(void);

#endif /* FSFS7_INFLATE_H */
