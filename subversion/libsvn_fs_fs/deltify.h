/* deltify.h --- choosing the delta base of a new representation (storage
 * layer).
 *
 * Owns the stock module's skip-delta rule: a new text (or, when
 * fsfs.conf allows it, property or directory) rep of a node-rev with N
 * predecessors is a delta against the rep of the predecessor N & (N-1)
 * (or a linear walk while short, see fsfs.conf max-linear-deltification),
 * never walking more than max-deltification-walk, and the options it is
 * written with (svndiff version, compression).
 */
#ifndef FSFS7_DELTIFY_H
#define FSFS7_DELTIFY_H

#include "fsfs7.h"
#include "rep_write.h"

/* The rep the new contents of NODEREV (PROPS: its properties, else its
   text / listing) should be a delta against, or NULL for a delta against
   the empty text; *BASE_REP in RESULT_POOL. */
svn_error_t *
svn_fs_fs__choose_delta_base(svn_fs_fs__rep_t **base_rep, svn_fs_t *fs,
                             const svn_fs_fs__noderev_t *noderev,
                             svn_boolean_t props, apr_pool_t *result_pool,
                             apr_pool_t *scratch_pool);

/* Fill *BASE (with a fulltext stream of BASE_REP opened in RESULT_POOL)
   for svn_fs_fs__rep_writer_open; BASE_REP NULL leaves *BASE NULL. */
svn_error_t *
svn_fs_fs__delta_base_open(const svn_fs_fs__rep_write_base_t **base,
                           svn_fs_t *fs, const svn_fs_fs__rep_t *base_rep,
                           apr_pool_t *result_pool,
                           apr_pool_t *scratch_pool);

#endif
