/* delta_match.h --- choosing the instructions of one delta window
 * (codec layer).
 *
 * Given the source view and the target bytes of one svndiff window, finds
 * a sequence of copy instructions (from the source view, from earlier
 * target bytes) and literal runs that rebuilds the target.  This is the
 * "what to say" half of the svndiff writer; svndiff_enc.c is the "how to
 * spell it" half.  The strategy and its reasons are in doc/format/svndiff.md
 * §7.  Pure computation: bytes in, instruction list out; no I/O.
 * Owner: the reps layer (write path).
 */
#ifndef FSFS7_DELTA_MATCH_H
#define FSFS7_DELTA_MATCH_H

#include <apr_pools.h>
#include <apr_tables.h>
#include "svn_types.h"
#include "heapbuf.h"

/* The three svndiff actions, numbered as on the wire (SVNDIFF-9). */
typedef enum svn_fs_fs__delta_action_t
{
  svn_fs_fs__delta_source = 0,   /* copy from the source view */
  svn_fs_fs__delta_target = 1,   /* copy from earlier target bytes */
  svn_fs_fs__delta_new = 2       /* literal bytes */
} svn_fs_fs__delta_action_t;

/* One instruction.  OFFSET is an offset into the source view (source
   copies) or into the window's target (target copies, OFFSET < the
   target position the instruction starts at).  For literal runs OFFSET
   is the target position of the bytes, so the caller can take them from
   the target it passed in.  LENGTH is never 0.  32 bits each: windows
   are far smaller (100 kB), and a busy window has thousands of these. */
typedef struct svn_fs_fs__delta_op_t
{
  svn_fs_fs__delta_action_t action;
  apr_uint32_t offset;
  apr_uint32_t length;
} svn_fs_fs__delta_op_t;

/* Reusable matcher state: hash tables sized for the largest window seen
   so far and the instruction array.  Not thread-safe; one writer at a
   time (a matcher may serve many writers one after the other, see
   svn_fs_fs__delta_matcher_reset). */
typedef struct svn_fs_fs__delta_matcher_t svn_fs_fs__delta_matcher_t;

/* A new matcher in RESULT_POOL.  Its tables are heap memory that grows to
   fit the largest window and is reused after that (growing through the
   pool would leave every smaller table behind in a long-lived matcher).
   They live in WORKSPACE, which the caller owns and may use for anything
   else between calls of svn_fs_fs__delta_match (nothing in it survives
   from one call to the next); if WORKSPACE is NULL, in memory of the
   matcher's own, freed when RESULT_POOL is cleared.  Copies from the source view
   shorter than MIN_SOURCE_MATCH bytes and copies from the target shorter
   than MIN_TARGET_MATCH are left as literals (values below 8, the hashed
   key length, count as 8): a short copy can cost more than the literal
   bytes once the new data is compressed (svndiff.md §7). */
svn_fs_fs__delta_matcher_t *
svn_fs_fs__delta_matcher_create(apr_size_t min_source_match,
                                apr_size_t min_target_match,
                                svn_fs_fs__heapbuf_t *workspace,
                                apr_pool_t *result_pool);

/* Make MATCHER start a new delta stream with the given minimum copy
   lengths (as for svn_fs_fs__delta_matcher_create): it forgets the hint
   it carries from window to window, so that its output for the new
   stream is what a fresh matcher would produce.  Its memory is kept. */
void
svn_fs_fs__delta_matcher_reset(svn_fs_fs__delta_matcher_t *matcher,
                               apr_size_t min_source_match,
                               apr_size_t min_target_match);

/* Find instructions that turn SOURCE (SOURCE_LEN bytes, may be NULL when
   SOURCE_LEN is 0) into TARGET (TARGET_LEN bytes).  *OPS is set to an
   array of svn_fs_fs__delta_op_t owned by MATCHER and valid until its
   next call; executed in order, byte by byte, the instructions produce
   exactly TARGET.  Windows longer than 4 GB are a caller bug. */
void
svn_fs_fs__delta_match(const apr_array_header_t **ops,
                       svn_fs_fs__delta_matcher_t *matcher,
                       const char *source, apr_size_t source_len,
                       const char *target, apr_size_t target_len);

#endif
