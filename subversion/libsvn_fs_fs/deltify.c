/* deltify.c --- which rep a new rep is a delta against (deltify.h;
 * doc/format/commit.md "Delta bases", DELTA-1 .. DELTA-4).
 *
 * The choice only affects size and read speed, never correctness: any
 * committed rep with a fulltext is a valid base.  We follow the stock
 * module's choice so that repositories written by either have about the
 * same size and delta chains of the same (logarithmic) length.
 */
#include "svn_io.h"
#include "svn_pools.h"

#include "deltify.h"
#include "node.h"
#include "rep_read.h"

/* Bases whose fulltext is shorter than this are not worth a delta: the
   new rep is written against the empty text (DELTA-4; observed with the
   stock module: 63 bytes -> no base, 64 -> base). */
#define MIN_BASE_EXPANDED_SIZE 64

/* How many predecessors back from a node-rev with COUNT predecessors the
   base lies (DELTA-2): the skip-delta distance to COUNT & (COUNT-1), or
   1 while that distance is below MAX_LINEAR. */
static int
base_distance(int count, int max_linear)
{
  int walk = count - (count & (count - 1));

  return walk < max_linear ? 1 : walk;
}

/* Is deltification of this kind of rep enabled (DELTA-1)? */
static svn_boolean_t
kind_enabled(const svn_fs_fs__data_t *ffd,
             const svn_fs_fs__noderev_t *noderev, svn_boolean_t props)
{
  if (props)
    return ffd->deltify_properties;
  if (noderev->kind == svn_node_dir)
    return ffd->deltify_directories;
  return TRUE;
}

svn_error_t *
svn_fs_fs__choose_delta_base(svn_fs_fs__rep_t **base_rep, svn_fs_t *fs,
                             const svn_fs_fs__noderev_t *noderev,
                             svn_boolean_t props, apr_pool_t *result_pool,
                             apr_pool_t *scratch_pool)
{
  svn_fs_fs__data_t *ffd = SVN_FS_FS__DATA(fs);
  apr_pool_t *iterpool;
  const svn_fs_fs__id_t *pred_id = noderev->predecessor_id;
  svn_fs_fs__noderev_t *pred = NULL;
  svn_fs_fs__rep_t *rep;
  int walk, i;

  *base_rep = NULL;
  if (!kind_enabled(ffd, noderev, props) || !pred_id
      || noderev->predecessor_count <= 0)
    return SVN_NO_ERROR;
  walk = base_distance(noderev->predecessor_count,
                       ffd->max_linear_deltification);
  if (walk > ffd->max_deltification_walk)
    return SVN_NO_ERROR;

  /* Two pools alternate so that the node-rev we hold survives the read
     of its predecessor. */
  iterpool = svn_pool_create(scratch_pool);
  for (i = 0; i < walk && pred_id; i++)
    {
      apr_pool_t *next = svn_pool_create(scratch_pool);
      SVN_ERR(svn_fs_fs__get_noderev(&pred, fs, pred_id, next, next));
      svn_pool_destroy(iterpool);
      iterpool = next;
      pred_id = pred->predecessor_id;
    }
  rep = pred ? (props ? pred->prop_rep : pred->data_rep) : NULL;
  if (rep && !rep->in_txn && rep->expanded_size >= MIN_BASE_EXPANDED_SIZE)
    {
      *base_rep = apr_pmemdup(result_pool, rep, sizeof(*rep));
      if (rep->uniquifier)
        (*base_rep)->uniquifier = apr_pstrdup(result_pool, rep->uniquifier);
    }
  svn_pool_destroy(iterpool);
  return SVN_NO_ERROR;
}

svn_error_t *
svn_fs_fs__delta_base_open(const svn_fs_fs__rep_write_base_t **base,
                           svn_fs_t *fs, const svn_fs_fs__rep_t *base_rep,
                           apr_pool_t *result_pool,
                           apr_pool_t *scratch_pool)
{
  svn_fs_fs__rep_write_base_t *b;

  *base = NULL;
  if (!base_rep)
    return SVN_NO_ERROR;
  b = apr_pcalloc(result_pool, sizeof(*b));
  b->revision = base_rep->revision;
  b->item_index = base_rep->item_index;
  b->size = base_rep->size;
  SVN_ERR(svn_fs_fs__rep_contents_stream(&b->fulltext, fs, base_rep,
                                         result_pool));
  *base = b;
  return SVN_NO_ERROR;
}
