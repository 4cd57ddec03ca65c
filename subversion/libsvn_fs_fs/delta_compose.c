/* delta_compose.c --- decoded delta windows and their composition
 * (delta_compose.h).
 *
 * Composition walks the ops of the upper window in target order.  New
 * data and target copies keep their meaning (the composite produces the
 * same target).  A source copy names a range of the base window's
 * target; that range is resolved through the base window's ops:
 *
 *   - bytes made by a base source copy become a source copy of the base
 *     window's own source view (the composite's source view);
 *   - bytes made by base new data become new data of the composite;
 *   - bytes made by a base target copy are the bytes of an earlier range
 *     of the base target, resolved in turn.  A target copy that overlaps
 *     its own output repeats the P bytes before it (P = its distance), so
 *     only the first period is resolved and the rest becomes a target copy
 *     of the composite's own output.
 *
 * Resolution uses an explicit stack (nested target copies may go as deep
 * as the base window has ops) and a bounded amount of work: a window
 * crafted to make it quadratic is simply not composed, and the caller
 * decodes it the plain way.
 */
#include <stdlib.h>
#include <string.h>

#include "delta_compose.h"

/* A range of the base window's target still to resolve, or (REPEAT) a
   target copy of LEN bytes from POS of the composite to emit once the
   ranges pushed after it are done. */
struct svn_fs_fs__dwork_t
{
  apr_size_t pos;
  apr_size_t len;
  svn_boolean_t repeat;
};

/* Work units a composition may spend per op of its inputs before it
   gives up (see above); real windows need one or two. */
#define WORK_PER_OP 64

void
svn_fs_fs__dwin_reset(svn_fs_fs__dwin_t *w, svn_filesize_t sview_offset,
                      apr_size_t sview_len, apr_size_t tview_len)
{
  w->sview_offset = sview_offset;
  w->sview_len = sview_len;
  w->tview_len = tview_len;
  w->num_ops = 0;
  w->src_ops = 0;
  w->new_data.len = 0;
}

/* Round N up to a power of two, at least MIN. */
static apr_size_t
size_class(apr_size_t n, apr_size_t min)
{
  apr_size_t c = min;

  while (c < n)
    c *= 2;
  return c;
}

void
svn_fs_fs__dwin_reserve(svn_fs_fs__dwin_t *w, apr_size_t ops,
                        apr_size_t new_bytes)
{
  if (w->num_ops == 0 && ops > w->ops_cap)
    {
      free(w->ops);
      w->ops_cap = size_class(ops, 64);
      w->ops = svn_fs_fs__heap_alloc(w->ops_cap * sizeof(*w->ops));
    }
  if (w->new_data.len == 0 && new_bytes > w->new_data.capacity)
    {
      svn_fs_fs__heapbuf_free(&w->new_data);
      svn_fs_fs__heapbuf_reserve(&w->new_data, size_class(new_bytes, 4096));
    }
}

apr_size_t
svn_fs_fs__dwin_produced(const svn_fs_fs__dwin_t *w)
{
  const svn_fs_fs__dop_t *last;

  if (w->num_ops == 0)
    return 0;
  last = &w->ops[w->num_ops - 1];
  return last->tpos + last->length;
}

/* ARRAY (*CAP elements of ELT_SIZE bytes, all in use) doubled on the
   heap, or made with FIRST elements; *CAP is updated. */
static void *
grow_array(void *array, apr_size_t *cap, apr_size_t first,
           apr_size_t elt_size)
{
  *cap = *cap ? *cap * 2 : first;
  return svn_fs_fs__heap_realloc(array, *cap * elt_size);
}

/* Can an op of KIND at OFFSET continue LAST (same bytes as two ops)?
   New data is appended in order, so new ops always can. */
static svn_boolean_t
continues(const svn_fs_fs__dop_t *last, int kind, apr_size_t offset)
{
  if (last->kind != kind)
    return FALSE;
  return kind == svn_fs_fs__dop_new || last->offset + last->length == offset;
}

void
svn_fs_fs__dwin_push(svn_fs_fs__dwin_t *w, int kind, apr_size_t offset,
                     apr_size_t length, const char *data)
{
  svn_fs_fs__dop_t *op;

  if (length == 0)
    return;
  if (kind == svn_fs_fs__dop_new)
    {
      offset = w->new_data.len;
      svn_fs_fs__heapbuf_append(&w->new_data, data, length);
    }
  if (w->num_ops && continues(&w->ops[w->num_ops - 1], kind, offset))
    {
      w->ops[w->num_ops - 1].length += length;
      return;
    }
  if (w->num_ops == w->ops_cap)
    w->ops = grow_array(w->ops, &w->ops_cap, 16, sizeof(*w->ops));
  op = &w->ops[w->num_ops];
  op->tpos = svn_fs_fs__dwin_produced(w);
  op->offset = offset;
  op->length = length;
  op->kind = kind;
  w->num_ops++;
  if (kind == svn_fs_fs__dop_source)
    w->src_ops++;
}

/* Push a work item onto RESULT's stack (*DEPTH items deep). */
static void
push_work(svn_fs_fs__dwin_t *result, apr_size_t *depth, apr_size_t pos,
          apr_size_t len, svn_boolean_t repeat)
{
  if (len == 0)
    return;
  if (*depth == result->work_cap)
    result->work = grow_array(result->work, &result->work_cap, 32,
                              sizeof(*result->work));
  result->work[*depth].pos = pos;
  result->work[*depth].len = len;
  result->work[*depth].repeat = repeat;
  ++*depth;
}

/* Does op I of W produce target byte POS? */
#define HOLDS(w, i, pos) ((w)->ops[i].tpos <= (pos) \
                          && (pos) - (w)->ops[i].tpos < (w)->ops[i].length)

/* Index of the op of W that produces target byte POS (< W->tview_len).
   *HINT is the last answer: ranges are mostly resolved in order, so the
   search gallops from there (cost: log of the distance) before it
   bisects. */
static apr_size_t
find_op(const svn_fs_fs__dwin_t *w, apr_size_t pos, apr_size_t *hint)
{
  apr_size_t lo, hi, step = 1, h = *hint < w->num_ops ? *hint : 0;

  if (HOLDS(w, h, pos))
    return h;
  if (w->ops[h].tpos < pos)
    {
      /* Forward: find HI > H whose op starts after POS. */
      lo = h;
      hi = h + 1;
      while (hi < w->num_ops && w->ops[hi].tpos <= pos)
        {
          lo = hi;
          hi = (w->num_ops - hi > step) ? hi + step : w->num_ops;
          step *= 2;
        }
    }
  else
    {
      /* Backward: find LO < H whose op starts at or before POS. */
      hi = h;
      lo = h;
      while (lo > 0)
        {
          lo = lo > step ? lo - step : 0;
          step *= 2;
          if (w->ops[lo].tpos <= pos)
            break;
          hi = lo;
        }
    }
  /* Largest index in [LO, HI) whose op starts at or before POS. */
  while (hi - lo > 1)
    {
      apr_size_t mid = lo + (hi - lo) / 2;
      if (w->ops[mid].tpos <= pos)
        lo = mid;
      else
        hi = mid;
    }
  return *hint = lo;
}

/* Resolve the piece [POS, POS + LEN) of BASE's target that lies inside
   op OP, a target copy, pushing the work onto RESULT's stack. */
static void
resolve_target_piece(svn_fs_fs__dwin_t *result, apr_size_t *depth,
                     const svn_fs_fs__dop_t *op, apr_size_t pos,
                     apr_size_t len)
{
  /* Byte TPOS + i of the op is byte OFFSET + (i mod PERIOD). */
  apr_size_t period = op->tpos - op->offset;
  apr_size_t r = (pos - op->tpos) % period;
  apr_size_t span = len < period ? len : period;
  apr_size_t first = span < period - r ? span : period - r;

  if (len > span)
    push_work(result, depth, svn_fs_fs__dwin_produced(result), len - span,
              TRUE);
  push_work(result, depth, op->offset, span - first, FALSE);
  push_work(result, depth, op->offset + r, first, FALSE);
}

/* Append to RESULT the ops that make bytes [POS, POS + LEN) of BASE's
   target.  FALSE if that took more than *BUDGET work units.  Source and
   new-data ops of BASE are walked in a row; target copies go through
   the stack. */
static svn_boolean_t
resolve(svn_fs_fs__dwin_t *result, const svn_fs_fs__dwin_t *base,
        apr_size_t pos, apr_size_t len, apr_size_t *hint, apr_size_t *budget)
{
  apr_size_t depth = 0;

  push_work(result, &depth, pos, len, FALSE);
  while (depth)
    {
      svn_fs_fs__dwork_t item = result->work[--depth];
      apr_size_t i;

      if (item.repeat)
        {
          svn_fs_fs__dwin_push(result, svn_fs_fs__dop_target, item.pos,
                               item.len, NULL);
          continue;
        }
      for (i = find_op(base, item.pos, hint); item.len; i++)
        {
          const svn_fs_fs__dop_t *op = &base->ops[i];
          apr_size_t d = item.pos - op->tpos;
          apr_size_t piece = op->length - d;

          if (*budget == 0)
            return FALSE;
          --*budget;
          if (piece > item.len)
            piece = item.len;
          if (op->kind == svn_fs_fs__dop_target)
            {
              push_work(result, &depth, item.pos + piece, item.len - piece,
                        FALSE);
              resolve_target_piece(result, &depth, op, item.pos, piece);
              break;
            }
          svn_fs_fs__dwin_push(result, op->kind, op->offset + d, piece,
                               op->kind == svn_fs_fs__dop_new
                               ? base->new_data.data + op->offset + d
                               : NULL);
          item.pos += piece;
          item.len -= piece;
          *hint = i;
        }
    }
  return TRUE;
}

/* Narrow W's source view to the bytes its source copies use. */
static void
narrow_source(svn_fs_fs__dwin_t *w)
{
  apr_size_t lo = w->sview_len, hi = 0, i;

  if (w->src_ops == 0)
    {
      w->sview_len = 0;
      return;
    }
  for (i = 0; i < w->num_ops; i++)
    if (w->ops[i].kind == svn_fs_fs__dop_source)
      {
        if (w->ops[i].offset < lo)
          lo = w->ops[i].offset;
        if (w->ops[i].offset + w->ops[i].length > hi)
          hi = w->ops[i].offset + w->ops[i].length;
      }
  for (i = 0; i < w->num_ops; i++)
    if (w->ops[i].kind == svn_fs_fs__dop_source)
      w->ops[i].offset -= lo;
  w->sview_offset += lo;
  w->sview_len = hi - lo;
}

svn_boolean_t
svn_fs_fs__dwin_compose(svn_fs_fs__dwin_t *result,
                        const svn_fs_fs__dwin_t *upper,
                        const svn_fs_fs__dwin_t *base,
                        svn_filesize_t base_tpos)
{
  apr_size_t i, hint = 0, delta;
  apr_size_t budget = WORK_PER_OP * (upper->num_ops + base->num_ops + 1);

  if (upper->sview_offset < base_tpos
      || upper->sview_offset - base_tpos > (svn_filesize_t)base->tview_len
      || upper->sview_len > base->tview_len
                            - (apr_size_t)(upper->sview_offset - base_tpos))
    return FALSE;
  delta = (apr_size_t)(upper->sview_offset - base_tpos);

  svn_fs_fs__dwin_reset(result, base->sview_offset, base->sview_len,
                        upper->tview_len);
  svn_fs_fs__dwin_reserve(result, upper->num_ops + base->num_ops,
                          upper->new_data.len + base->new_data.len);
  for (i = 0; i < upper->num_ops; i++)
    {
      const svn_fs_fs__dop_t *op = &upper->ops[i];

      if (op->kind == svn_fs_fs__dop_new)
        svn_fs_fs__dwin_push(result, op->kind, 0, op->length,
                             upper->new_data.data + op->offset);
      else if (op->kind == svn_fs_fs__dop_target)
        svn_fs_fs__dwin_push(result, op->kind, op->offset, op->length, NULL);
      else if (!resolve(result, base, delta + op->offset, op->length, &hint,
                        &budget))
        return FALSE;
    }
  narrow_source(result);
  return TRUE;
}

void
svn_fs_fs__copy_within_target(char *tbuf, apr_size_t from, apr_size_t to,
                              apr_size_t len)
{
  apr_size_t distance = to - from, done = 0;

  if (distance == 1)
    {
      memset(tbuf + to, tbuf[from], len);
      return;
    }
  while (done < len)
    {
      apr_size_t chunk = len - done < distance ? len - done : distance;
      memcpy(tbuf + to + done, tbuf + from + done, chunk);
      done += chunk;
    }
}

svn_boolean_t
svn_fs_fs__dwin_apply(char *target, const svn_fs_fs__dwin_t *w,
                      const char *source)
{
  apr_size_t i, tpos = 0;

  for (i = 0; i < w->num_ops; i++)
    {
      const svn_fs_fs__dop_t *op = &w->ops[i];

      if (op->tpos != tpos || op->length > w->tview_len - tpos)
        return FALSE;
      if (op->kind == svn_fs_fs__dop_source)
        {
          if (op->offset > w->sview_len
              || op->length > w->sview_len - op->offset)
            return FALSE;
          memcpy(target + tpos, source + op->offset, op->length);
        }
      else if (op->kind == svn_fs_fs__dop_new)
        {
          if (op->offset > w->new_data.len
              || op->length > w->new_data.len - op->offset)
            return FALSE;
          memcpy(target + tpos, w->new_data.data + op->offset, op->length);
        }
      else
        {
          if (op->offset >= tpos)
            return FALSE;
          svn_fs_fs__copy_within_target(target, op->offset, tpos, op->length);
        }
      tpos += op->length;
    }
  return tpos == w->tview_len;
}

apr_size_t
svn_fs_fs__dwin_memory(const svn_fs_fs__dwin_t *w)
{
  return w->ops_cap * sizeof(*w->ops) + w->work_cap * sizeof(*w->work)
         + w->new_data.capacity;
}

void
svn_fs_fs__dwin_free(svn_fs_fs__dwin_t *w)
{
  free(w->ops);
  free(w->work);
  svn_fs_fs__heapbuf_free(&w->new_data);
  memset(w, 0, sizeof(*w));
}
