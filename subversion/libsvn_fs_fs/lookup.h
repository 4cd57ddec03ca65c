/* lookup.h --- revision roots' private data and path lookup (semantics
 * layer, internal to tree.c, history.c, mergeinfo.c, tree_verify.c).
 *
 * A revision root remembers its filesystem, revision and root node-rev
 * and keeps a small per-root map from canonical path to node-rev, so that
 * the many queries a client makes about the same paths (check_path, then
 * node_id, then proplist, ...) walk the directory tree only once.
 * Rules cited here are in doc/format/tree.md.  Owner: the tree layer.
 */
#ifndef FSFS7_LOOKUP_H
#define FSFS7_LOOKUP_H

#include "fsfs7.h"

/* Recursive tree walks (verification, descendant mergeinfo) refuse to go
   deeper than this, so that a directory listing naming one of its own
   ancestors (damaged data) cannot recurse without end (TREE-2). */
#define SVN_FS_FS__MAX_TREE_DEPTH 1024

/* A path cache of revision roots (lookup.c). */
typedef struct svn_fs_fs__path_cache_t svn_fs_fs__path_cache_t;

/* svn_fs_root_t->fsap_data of our revision and transaction roots. */
typedef struct svn_fs_fs__root_data_t
{
  svn_fs_t *fs;
  svn_revnum_t rev;

  /* Transaction roots: IN_TXN is set and TXN_ID names the transaction.
     Their node-revs change with every mutation (by this svn_fs_t or any
     other), so nothing of theirs is cached here: each lookup rereads the
     root node-rev "node.0.0" and walks down from it. */
  svn_boolean_t in_txn;
  svn_fs_fs__txn_id_t txn_id;

  /* Root directory node-rev of REV, allocated in the root's pool when
     first needed (svn_fs_fs__root_noderev); NULL until then and for
     transaction roots.  Opening a root reads nothing of it: 'svn log -v'
     opens roots only to read changed-path lists. */
  const svn_fs_fs__noderev_t *root_noderev;

  /* Path -> svn_fs_fs__noderev_t * lookup cache of revision roots (NULL
     for transaction roots, and until the first lookup), shared by the
     revision roots of one revision (lookup.c).  It keeps two
     generations: when a lookup starts and the current one holds
     TREE_CACHE_GENERATION entries, it becomes the old one and the
     previous old one (with its pool) is dropped.  Hits in the old one
     are re-read into the current one.  A node-rev handed out therefore
     stays valid until two more rotations, i.e. for hundreds of further
     lookups through any root of the revision: longer than any vtable
     call needs (none holds a looked-up node-rev across more than a
     handful of lookups), and vtable calls never return cache-owned
     memory.  A shared cache outlives its roots for a while (the next
     root of the revision starts warm); its memory is the svn_fs_t's. */
  svn_fs_fs__path_cache_t *cache;
} svn_fs_fs__root_data_t;

/* One node on a looked-up path.  The chain runs from the node up to the
   root (PARENT is NULL for the root). */
typedef struct svn_fs_fs__path_step_t
{
  /* Canonical absolute path of the node and its entry name ("" for /). */
  const char *path;
  const char *name;
  const svn_fs_fs__noderev_t *noderev;
  struct svn_fs_fs__path_step_t *parent;
} svn_fs_fs__path_step_t;

/* Our private data of ROOT. */
#define SVN_FS_FS__ROOT_DATA(root) \
  ((svn_fs_fs__root_data_t *)(root)->fsap_data)

/* The root directory node-rev of revision root ROOT in *NODEREV: read
   and checked (TREE-1) on first use, kept in ROOT's pool from then on.
   A failed read is not kept: the next call reports it again. */
svn_error_t *
svn_fs_fs__root_noderev(const svn_fs_fs__noderev_t **noderev,
                        svn_fs_root_t *root);

/* The node-rev at PATH (any form svn_fs__canonicalize_abspath accepts)
   in ROOT.  Errors are those of the stock module: SVN_ERR_FS_NOT_FOUND
   naming the canonical path when an entry is missing, and
   SVN_ERR_FS_NOT_DIRECTORY ("Failure opening ...") when a path component
   is a file.  *NODEREV is owned by ROOT's lookup cache (see above); copy
   what must outlive the current call.  Temporary data in SCRATCH_POOL.
   Transaction roots have no cache: there *NODEREV lives in SCRATCH_POOL
   (and in RESULT_POOL for svn_fs_fs__root_walk). */
svn_error_t *
svn_fs_fs__root_lookup(const svn_fs_fs__noderev_t **noderev,
                       svn_fs_root_t *root, const char *path,
                       apr_pool_t *scratch_pool);

/* Like svn_fs_fs__root_lookup but return the whole chain from PATH's node
   up to the root; the step structs live in RESULT_POOL, the node-revs
   are cache-owned as above. */
svn_error_t *
svn_fs_fs__root_walk(svn_fs_fs__path_step_t **leaf, svn_fs_root_t *root,
                     const char *path, apr_pool_t *result_pool,
                     apr_pool_t *scratch_pool);

/* Like svn_fs_fs__root_lookup, but a missing node (either error above)
   yields *NODEREV = NULL instead of an error. */
svn_error_t *
svn_fs_fs__root_lookup_maybe(const svn_fs_fs__noderev_t **noderev,
                             svn_fs_root_t *root, const char *path,
                             apr_pool_t *scratch_pool);

/* The kind of the node at PATH in ROOT (svn_node_none if there is none),
   as svn_fs_fs__root_lookup_maybe would find it, with the same errors,
   but without caching or handing out its node-rev: check_path is often
   the only question asked about a path (svn_repos verify asks it of
   every entry of every changed directory). */
svn_error_t *
svn_fs_fs__root_kind(svn_node_kind_t *kind, svn_fs_root_t *root,
                     const char *path, apr_pool_t *scratch_pool);

/* Seeding ROOT's path cache from a walk of the caller's own (verify_root
   walks the revision's changed subtrees): the pool to read the node-rev
   of a path into, or NULL if the cache's current generation is full;
   then svn_fs_fs__root_cache_offer() with the node-rev read there and its
   canonical path, before any lookup in a root of the revision.  The
   lookups of the revision's changed paths that follow (replay) find them
   cached. */
apr_pool_t *
svn_fs_fs__root_cache_room(svn_fs_root_t *root);
void
svn_fs_fs__root_cache_offer(svn_fs_root_t *root, const char *path,
                            const svn_fs_fs__noderev_t *noderev,
                            apr_pool_t *pool);

/* TRUE if ROOT is one of our revision roots (not a transaction root). */
svn_boolean_t
svn_fs_fs__is_revision_root(svn_fs_root_t *root);

/* TRUE if ROOT is one of our transaction roots. */
svn_boolean_t
svn_fs_fs__is_txn_root(svn_fs_root_t *root);

/* A root object for transaction TXN_ID (named TXN_NAME, based on
   BASE_REV, with svn_fs_txn_t flags FLAGS) of FS, in its own subpool of
   POOL.  Nothing is read until the first lookup (tree.c). */
svn_error_t *
svn_fs_fs__txn_root_create(svn_fs_root_t **root_p, svn_fs_t *fs,
                           const svn_fs_fs__txn_id_t *txn_id,
                           const char *txn_name, svn_revnum_t base_rev,
                           apr_uint32_t flags, apr_pool_t *pool);

/* Create FS's process-wide cache of node-revs by revision and path in
   MEMBUFFER (none when MEMBUFFER is NULL), under the repository's key
   PREFIX (caching.h). */
svn_error_t *
svn_fs_fs__lookup_init_caches(svn_fs_t *fs, svn_membuffer_t *membuffer,
                              const char *prefix, apr_pool_t *result_pool,
                              apr_pool_t *scratch_pool);

/* An empty path -> value hash in POOL, for the lookup cache: hashes its
   keys a machine word at a time.  APR's default function takes a byte at
   a time, and a lookup hashes every prefix of its path, mostly twice
   (both generations miss), so on long paths that was 8 % of a whole
   `svnadmin verify`. */
apr_hash_t *
svn_fs_fs__path_hash_make(apr_pool_t *pool);

#endif
