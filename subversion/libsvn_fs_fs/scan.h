/* scan.h --- digit scanning shared by the codecs (codec layer).
 *
 * The on-disk formats spell numbers as bare ASCII digits: no sign, no
 * blanks, leading zeros allowed.  Every codec that reads a decimal number
 * or a hex digest goes through these helpers, so that the digit test and
 * the overflow check live in one place.  What stays with the caller is
 * what differs per field: the largest value, where the number must end
 * and what may follow it.  No I/O, no allocation.
 */
#ifndef FSFS7_SCAN_H
#define FSFS7_SCAN_H

#include <apr.h>
#include "svn_types.h"

/* Parse the run of decimal digits that starts at *P (and ends at the first
   non-digit or at END) into *VALUE and advance *P past it.
   FALSE if *P holds no digit or the value exceeds MAX; *P and *VALUE are
   then left alone.  A caller that allows at most N digits passes
   END = *P + N. */
svn_boolean_t
svn_fs_fs__scan_decimal_prefix(apr_uint64_t *value, const char **p,
                               const char *end, apr_uint64_t max);

/* Parse all LEN bytes at S as one decimal number into *VALUE.
   FALSE if LEN is 0, a byte is not a digit or the value exceeds MAX;
   *VALUE is then left alone. */
svn_boolean_t
svn_fs_fs__scan_decimal(apr_uint64_t *value, const char *s, apr_size_t len,
                        apr_uint64_t max);

/* Decode the LEN hex digits at S (either case) into the LEN / 2 bytes at
   BYTES.  FALSE if LEN is odd or a byte is not a hex digit; BYTES may then
   be partly written. */
svn_boolean_t
svn_fs_fs__scan_hex(unsigned char *bytes, const char *s, apr_size_t len);

#endif
