/* delta_compose.h --- decoded delta windows and their composition (codec
 * layer).
 *
 * A delta window (doc/format/svndiff.md) turns a source view of a base
 * text into a range of a target text.  When the base is itself the
 * target of a delta window, the two can be combined into one window that
 * produces the same bytes straight from the base's own source view:
 *
 *     apply(compose(A, B), S) == apply(A, apply(B, S))
 *
 * where A's source view lies inside the range of the base text that B
 * produces.  rep_read.c uses this to read a delta chain by combining one
 * window of every link into a window against the deepest base and
 * running only that one, instead of decoding every link into a buffer of
 * fulltext (doc/format/representations.md, "Reading a chain").
 *
 * Windows here are decoded and checked already (svndiff.c makes them
 * from stored windows and enforces SVNDIFF-9 .. SVNDIFF-12), so every op
 * stays inside its window's views.  All memory is on the heap (heapbuf.h)
 * and is reused from window to window; svn_fs_fs__dwin_free() returns it.
 * Pure code: no I/O, no pools, no errors.  Owner: the reps layer.
 */
#ifndef FSFS7_DELTA_COMPOSE_H
#define FSFS7_DELTA_COMPOSE_H

#include "svn_types.h"
#include "heapbuf.h"

/* Kinds of instruction, numbered as in svndiff (SVNDIFF-9). */
typedef enum svn_fs_fs__dop_kind_t
{
  svn_fs_fs__dop_source = 0,    /* copy from the source view */
  svn_fs_fs__dop_target = 1,    /* copy from earlier in the target */
  svn_fs_fs__dop_new = 2        /* copy from the new data */
} svn_fs_fs__dop_kind_t;

/* One instruction: LENGTH (> 0) bytes at target offset TPOS, copied from
   OFFSET of the source view, the target (OFFSET < TPOS; the copy may
   overlap its own output and then repeats a pattern) or the new data. */
typedef struct svn_fs_fs__dop_t
{
  apr_size_t tpos;
  apr_size_t offset;
  apr_size_t length;
  int kind;
} svn_fs_fs__dop_t;

/* Pending work of a composition (private to delta_compose.c). */
typedef struct svn_fs_fs__dwork_t svn_fs_fs__dwork_t;

/* A decoded window.  OPS[0 .. NUM_OPS) cover [0, TVIEW_LEN) in order,
   without gaps and without empty ops. */
typedef struct svn_fs_fs__dwin_t
{
  svn_filesize_t sview_offset;
  apr_size_t sview_len;
  apr_size_t tview_len;

  svn_fs_fs__dop_t *ops;
  apr_size_t num_ops, ops_cap;
  apr_size_t src_ops;           /* how many ops are source copies */

  svn_fs_fs__heapbuf_t new_data;

  /* Scratch of svn_fs_fs__dwin_compose() when this is its result. */
  svn_fs_fs__dwork_t *work;
  apr_size_t work_cap;
} svn_fs_fs__dwin_t;

/* Empty W (keeping its memory) for a window with the given views. */
void
svn_fs_fs__dwin_reset(svn_fs_fs__dwin_t *w, svn_filesize_t sview_offset,
                      apr_size_t sview_len, apr_size_t tview_len);

/* Make room in W, which must be empty (just reset), for OPS ops and
   NEW_BYTES bytes of new data, in a few size classes (powers of two) so
   that the memory of one window fits the next ones. */
void
svn_fs_fs__dwin_reserve(svn_fs_fs__dwin_t *w, apr_size_t ops,
                        apr_size_t new_bytes);

/* Append an op of KIND (OFFSET, LENGTH) at the current end of W's
   target; for svn_fs_fs__dop_new, OFFSET is ignored and LENGTH bytes at
   DATA are appended to W's new data.  Joins it to the previous op where
   the result is the same.  Empty ops are dropped.  The caller keeps the
   op inside W's views. */
void
svn_fs_fs__dwin_push(svn_fs_fs__dwin_t *w, int kind, apr_size_t offset,
                     apr_size_t length, const char *data);

/* Bytes of target the ops of W produce so far. */
apr_size_t
svn_fs_fs__dwin_produced(const svn_fs_fs__dwin_t *w);

/* Compose UPPER, a window whose source view is a range of some text X,
   with BASE, a window that produces bytes [BASE_TPOS, BASE_TPOS +
   BASE->tview_len) of X, into RESULT: a window producing UPPER's target
   from BASE's source view.  RESULT's source view is narrowed to the
   bytes its ops use (empty if none).  Returns FALSE, leaving RESULT
   unspecified, when UPPER's source view is not inside BASE's range.
   RESULT must be neither UPPER nor BASE. */
svn_boolean_t
svn_fs_fs__dwin_compose(svn_fs_fs__dwin_t *result,
                        const svn_fs_fs__dwin_t *upper,
                        const svn_fs_fs__dwin_t *base,
                        svn_filesize_t base_tpos);

/* Write W's TVIEW_LEN bytes of target to TARGET, reading source copies
   from SOURCE (W->sview_len bytes; NULL if that is 0).  W's ops must lie
   inside its views (as built by the functions above from checked
   windows); returns FALSE without writing further if one does not. */
svn_boolean_t
svn_fs_fs__dwin_apply(char *target, const svn_fs_fs__dwin_t *w,
                      const char *source);

/* Copy LEN bytes from TBUF + FROM to TBUF + TO (FROM < TO) with svndiff's
   byte-by-byte semantics: a copy whose source overlaps its destination
   repeats the pattern (SVNDIFF-11).  Shared with svndiff.c's applier. */
void
svn_fs_fs__copy_within_target(char *tbuf, apr_size_t from, apr_size_t to,
                              apr_size_t len);

/* Bytes of heap memory W holds (for measurements). */
apr_size_t
svn_fs_fs__dwin_memory(const svn_fs_fs__dwin_t *w);

/* Free W's memory; W is then empty and can be used again. */
void
svn_fs_fs__dwin_free(svn_fs_fs__dwin_t *w);

#endif /* FSFS7_DELTA_COMPOSE_H */
