/* lookup.c --- path lookup in revision and transaction roots (semantics
 * layer).
 *
 * Owns: turning "/a/b/c" into the node-rev reached by following directory
 * entries from the root node-rev of a revision or transaction, the
 * per-root lookup cache (revision roots only), the process-wide cache of
 * node-revs by revision and path behind it, and the exact errors the
 * stock module reports for missing paths.
 * The directory and node-rev reads themselves are the nodes layer's
 * (node.h).  Rules: doc/format/tree.md (TREE-2).
 */
#include <string.h>
#include <apr_strings.h>

#include "svn_pools.h"
/* svn_fs_util.h's error macros expect gettext's _(); our messages are
   not translated. */
#ifndef _
#define _(text) (text)
#endif
#include "private/svn_fs_util.h"

#include "private/svn_string_private.h"

#include "cache_admit.h"
#include "caching.h"
#include "corrupt.h"
#include "id.h"
#include "lookup.h"
#include "node.h"
#include "node_cache.h"

/* Entries per cache generation (see svn_fs_fs__root_data_t).  An entry
   (path, node-rev, hash slot) takes ~600 bytes of pool, so the two
   generations hold up to ~300 kB; with 4096 they held ~4.8 MB, the
   largest part of a full-maven export's peak RSS above stock's (whose
   DAG cache keeps a few hundred nodes too).  Readers look a path up a
   few times in a row (check_path, proplist, contents, created_rev), so
   small generations still answer those: export and list CPU did not
   change (1024: -3.2 MB, 512: -4.2 MB, 256: -4.5 MB of peak RSS). */
#define TREE_CACHE_GENERATION 256

/* Odd 64-bit multiplier (2^64 / golden ratio) for path_hash. */
#define PATH_HASH_MUL APR_UINT64_C(0x9E3779B97F4A7C15)

/* apr_hashfunc_t for svn_fs_fs__path_hash_make: eight bytes per step,
   each step multiplied through and folded so that the low bits (APR picks
   the bucket with them) depend on every byte.  Values only ever meet
   other values of this process, so the byte order of the words does not
   matter. */
static unsigned int
path_hash(const char *key, apr_ssize_t *klen)
{
  apr_size_t len, i;
  apr_uint64_t h, w;

  if (*klen == APR_HASH_KEY_STRING)
    *klen = (apr_ssize_t)strlen(key);
  len = (apr_size_t)*klen;
  h = (apr_uint64_t)len * PATH_HASH_MUL;
  for (i = 0; i + sizeof(w) <= len; i += sizeof(w))
    {
      memcpy(&w, key + i, sizeof(w));
      h = (h ^ w) * PATH_HASH_MUL;
      h ^= h >> 29;
    }
  w = 0;
  memcpy(&w, key + i, len - i);
  h = (h ^ w) * PATH_HASH_MUL;
  return (unsigned int)(h ^ (h >> 32));
}

apr_hash_t *
svn_fs_fs__path_hash_make(apr_pool_t *pool)
{
  return apr_hash_make_custom(pool, path_hash);
}

/* Revision roots of one revision share a path cache: replay and verify
   open a root of the previous revision for nearly every changed path
   they compare (svn_repos_replay2: ~7 roots per revision of the full
   maven), and each fresh cache walked every path from the root again.
   An svn_fs_t keeps the caches of up to SHARED_PATH_CACHES revisions;
   one no root uses is dropped for a new revision when all are taken, the
   least recently used first.  With none to drop (more revisions' roots
   open at once) a root gets a cache of its own, as before. */
#define SHARED_PATH_CACHES 3

struct svn_fs_fs__path_cache_t
{
  svn_revnum_t rev;
  apr_pool_t *pool;              /* own; parent of NODES_POOL[]; NULL:
                                    an unused slot */
  apr_hash_t *nodes[2];
  apr_pool_t *nodes_pool[2];
  struct cache_user_t *users;    /* roots attached (shared caches only) */
  apr_uint64_t last_use;         /* when the last user let go */
  struct cache_set_t *set;       /* NULL: the cache of one root */

  /* The directory (not the root) whose entry a kind-only lookup last
     resolved: its canonical path in PARENT_BUF (PARENT_LEN bytes, a
     buffer of PARENT_CAP in POOL) and its node-rev, which is one of this
     cache's; NULL again when a new generation starts.  The
     next kind-only lookup of an entry of the same directory (svn_repos
     verify asks about each entry of a directory in turn) starts there:
     no path hashing at all. */
  char *parent_buf;
  apr_size_t parent_len, parent_cap;
  const svn_fs_fs__noderev_t *parent_node;
};

/* One root attached to a shared cache; lives in the root's pool, whose
   cleanup detaches it. */
typedef struct cache_user_t
{
  svn_fs_fs__path_cache_t *cache;
  apr_pool_t *root_pool;
  struct cache_user_t *prev, *next;
} cache_user_t;

/* The shared caches of one svn_fs_t (its root_caches), in POOL, a
   subpool of the svn_fs_t's.  The slots themselves (with their lists of
   users) stay for the set's lifetime; a slot's nodes live in its own
   subpool, which a new revision replaces. */
typedef struct cache_set_t
{
  svn_fs_fs__path_cache_t slots[SHARED_PATH_CACHES];
  apr_uint64_t clock;
  apr_pool_t *pool;
} cache_set_t;

/* Make CACHE an empty cache of REV, its nodes in a fresh subpool of
   PARENT. */
static void
cache_init(svn_fs_fs__path_cache_t *cache, svn_revnum_t rev,
           cache_set_t *set, apr_pool_t *parent)
{
  int i;

  cache->rev = rev;
  cache->pool = svn_pool_create(parent);
  cache->set = set;
  cache->parent_buf = NULL;
  cache->parent_len = cache->parent_cap = 0;
  cache->parent_node = NULL;
  for (i = 0; i < 2; i++)
    {
      cache->nodes_pool[i] = svn_pool_create(cache->pool);
      cache->nodes[i] = svn_fs_fs__path_hash_make(cache->nodes_pool[i]);
    }
}

/* Root pool cleanup: detach the cache_user_t BATON from its cache. */
static apr_status_t
cache_detach(void *baton)
{
  cache_user_t *user = baton;
  svn_fs_fs__path_cache_t *cache = user->cache;

  if (user->prev)
    user->prev->next = user->next;
  else
    cache->users = user->next;
  if (user->next)
    user->next->prev = user->prev;
  cache->last_use = ++cache->set->clock;
  return APR_SUCCESS;
}

/* Cleanup of a cache set's pool (the svn_fs_t goes; the slots, in that
   pool, are still there, their nodes' subpools are not): roots that
   outlive the set must not detach from it later. */
static apr_status_t
cache_set_cleanup(void *baton)
{
  cache_set_t *set = baton;
  int i;

  for (i = 0; i < SHARED_PATH_CACHES; i++)
    {
      cache_user_t *user;

      for (user = set->slots[i].users; user; user = user->next)
        apr_pool_cleanup_kill(user->root_pool, user, cache_detach);
    }
  return APR_SUCCESS;
}

/* The slot of SET for a new revision's cache: an unused one, else the
   least recently used one no root uses (its nodes dropped); NULL if all
   are in use. */
static svn_fs_fs__path_cache_t *
cache_slot_free(cache_set_t *set)
{
  svn_fs_fs__path_cache_t *best = NULL;
  int i;

  for (i = 0; i < SHARED_PATH_CACHES; i++)
    {
      svn_fs_fs__path_cache_t *slot = &set->slots[i];

      if (!slot->pool)
        return slot;
      if (!slot->users && (!best || slot->last_use < best->last_use))
        best = slot;
    }
  if (best)
    {
      svn_pool_destroy(best->pool);
      best->pool = NULL;
    }
  return best;
}

/* The path cache of revision ROOT: attached on first use, shared with
   the other roots of its revision when a slot is free. */
static svn_fs_fs__path_cache_t *
root_cache(svn_fs_root_t *root)
{
  svn_fs_fs__root_data_t *rd = SVN_FS_FS__ROOT_DATA(root);
  svn_fs_fs__data_t *ffd = SVN_FS_FS__DATA(rd->fs);
  cache_set_t *set = ffd->root_caches;
  svn_fs_fs__path_cache_t *cache = NULL;
  cache_user_t *user;
  int i;

  if (rd->cache)
    return rd->cache;
  if (!set)
    {
      apr_pool_t *pool = svn_pool_create(rd->fs->pool);

      set = apr_pcalloc(pool, sizeof(*set));
      set->pool = pool;
      apr_pool_cleanup_register(pool, set, cache_set_cleanup,
                                apr_pool_cleanup_null);
      ffd->root_caches = set;
    }
  for (i = 0; i < SHARED_PATH_CACHES && !cache; i++)
    if (set->slots[i].pool && set->slots[i].rev == rd->rev)
      cache = &set->slots[i];
  if (!cache)
    {
      cache = cache_slot_free(set);
      if (!cache)
        {
          rd->cache = apr_pcalloc(root->pool, sizeof(*rd->cache));
          cache_init(rd->cache, rd->rev, NULL, root->pool);
          return rd->cache;
        }
      cache_init(cache, rd->rev, set, set->pool);
    }
  user = apr_pcalloc(root->pool, sizeof(*user));
  user->cache = cache;
  user->root_pool = root->pool;
  user->next = cache->users;
  if (user->next)
    user->next->prev = user;
  cache->users = user;
  apr_pool_cleanup_register(root->pool, user, cache_detach,
                            apr_pool_cleanup_null);
  rd->cache = cache;
  return cache;
}

/* Get ROOT's cache ready for a lookup (revision roots; transaction roots
   have none): attached, and with a fresh generation when the current one
   is full.  Called only when a lookup starts, never in the middle of
   one, so that a path's whole chain of node-revs lives in one
   generation. */
static void
cache_prepare(svn_fs_root_t *root)
{
  svn_fs_fs__path_cache_t *cache;

  if (SVN_FS_FS__ROOT_DATA(root)->in_txn)
    return;
  cache = root_cache(root);
  if (apr_hash_count(cache->nodes[0]) < TREE_CACHE_GENERATION)
    return;
  svn_pool_destroy(cache->nodes_pool[1]);
  cache->parent_node = NULL;
  cache->nodes_pool[1] = cache->nodes_pool[0];
  cache->nodes[1] = cache->nodes[0];
  cache->nodes_pool[0] = svn_pool_create(cache->pool);
  cache->nodes[0] = svn_fs_fs__path_hash_make(cache->nodes_pool[0]);
}

/* Remember NODEREV (allocated in the current generation's pool) as the
   node at canonical PATH. */
static void
cache_put(svn_fs_fs__root_data_t *rd, const char *path,
          const svn_fs_fs__noderev_t *noderev)
{
  if (!rd->cache)
    return;
  apr_hash_set(rd->cache->nodes[0], apr_pstrdup(rd->cache->nodes_pool[0],
                                                path),
               APR_HASH_KEY_STRING, noderev);
}

/* The cached node-rev of canonical PATH, or NULL.  A hit in the older
   generation is re-read into the current one (the nodes layer's own
   cache makes that cheap), so everything handed out since the last
   rotation stays valid until the next-but-one rotation. */
static svn_error_t *
cache_get(const svn_fs_fs__noderev_t **noderev, svn_fs_fs__root_data_t *rd,
          const char *path, apr_pool_t *scratch_pool)
{
  svn_fs_fs__path_cache_t *cache = rd->cache;
  const svn_fs_fs__noderev_t *old;
  svn_fs_fs__noderev_t *fresh;

  *noderev = NULL;
  if (!cache)
    return SVN_NO_ERROR;
  *noderev = apr_hash_get(cache->nodes[0], path, APR_HASH_KEY_STRING);
  if (*noderev)
    return SVN_NO_ERROR;
  old = apr_hash_get(cache->nodes[1], path, APR_HASH_KEY_STRING);
  if (!old)
    return SVN_NO_ERROR;
  SVN_ERR(svn_fs_fs__get_noderev(&fresh, rd->fs, old->id,
                                 cache->nodes_pool[0], scratch_pool));
  cache_put(rd, path, fresh);
  *noderev = fresh;
  return SVN_NO_ERROR;
}

/* The process-wide cache of node-revs by (revision, path): the membuffer
   behind the per-root caches, shared by every svn_fs_t of the process.
   mod_dav_svn opens an svn_fs_t per connection and serf fetches each
   file of an export over one of four connections, at
   /!svn/rvr/CREATED-REV/PATH, after the update report's connection
   looked the same (CREATED-REV, PATH) up for the file's checked-in
   link (dav_svn__get_safe_cr).  Without this cache every such GET
   walked from the root of a revision its svn_fs_t had never seen: an
   export of a 4,000-file trunk asked the membuffer 75,370 times in
   all, 20,863 times with this cache (stock: 27,177).
   Values are stored through the admission table (cache_admit.h): a
   path walked once (a dump's, a verify's) stores nothing. */

/* Lookups answered by the shared cache (a counter for tests, added to
   atomically: a threaded server's requests share it). */
apr_uint64_t svn_fs_fs__shared_path_hits = 0;

/* The key of canonical PATH in revision REV: the decimal revision, then
   the path, which starts with '/', so no two pairs share a key. */
static const char *
shared_key(apr_size_t *klen, svn_revnum_t rev, const char *path,
           apr_pool_t *pool)
{
  apr_size_t len = strlen(path);
  char *key = apr_palloc(pool, SVN_INT64_BUFFER_SIZE + len + 1);
  apr_size_t digits = svn__i64toa(key, rev);

  memcpy(key + digits, path, len + 1);
  *klen = digits + len;
  return key;
}

/* Whether revision ROOT's lookups of canonical PATH go through the
   shared cache: never the root directory (its node-rev is the root's own
   and costs no walk) nor transaction roots (mutable). */
static svn_boolean_t
shared_applies(svn_fs_fs__root_data_t *rd, const char *path)
{
  return rd->cache && !rd->in_txn && path[1] != '\0'
         && SVN_FS_FS__DATA(rd->fs)->path_node_cache;
}

/* The node-rev of canonical PATH in revision root RD from the shared
   cache into RD's path cache (current generation), or NULL. */
static svn_error_t *
shared_get(const svn_fs_fs__noderev_t **noderev, svn_fs_fs__root_data_t *rd,
           const char *path, apr_pool_t *scratch_pool)
{
  svn_fs_fs__data_t *ffd = SVN_FS_FS__DATA(rd->fs);
  svn_fs_fs__noderev_t *found_node;
  svn_boolean_t found;
  apr_size_t klen;
  const char *key;

  *noderev = NULL;
  if (!shared_applies(rd, path))
    return SVN_NO_ERROR;
  key = shared_key(&klen, rd->rev, path, scratch_pool);
  SVN_ERR(svn_fs_fs__admit_get((void **)&found_node, &found,
                               ffd->path_node_cache, ffd->admit_salt,
                               svn_fs_fs__admit_path, key, klen,
                               rd->cache->nodes_pool[0]));
  if (!found)
    return SVN_NO_ERROR;
  __atomic_fetch_add(&svn_fs_fs__shared_path_hits, 1, __ATOMIC_RELAXED);
  cache_put(rd, path, found_node);
  *noderev = found_node;
  return SVN_NO_ERROR;
}

/* Offer NODEREV, just walked to at canonical PATH in revision root RD,
   to the shared cache. */
static svn_error_t *
shared_offer(svn_fs_fs__root_data_t *rd, const char *path,
             const svn_fs_fs__noderev_t *noderev, apr_pool_t *scratch_pool)
{
  svn_fs_fs__data_t *ffd = SVN_FS_FS__DATA(rd->fs);
  apr_size_t klen;
  const char *key;

  if (!shared_applies(rd, path))
    return SVN_NO_ERROR;
  key = shared_key(&klen, rd->rev, path, scratch_pool);
  return svn_error_trace(svn_fs_fs__admit_store(
           ffd->path_node_cache, ffd->admit_salt, svn_fs_fs__admit_path,
           key, klen, FALSE, (void *)noderev, scratch_pool));
}

svn_error_t *
svn_fs_fs__lookup_init_caches(svn_fs_t *fs, svn_membuffer_t *membuffer,
                              const char *prefix, apr_pool_t *result_pool,
                              apr_pool_t *scratch_pool)
{
  svn_fs_fs__data_t *ffd = SVN_FS_FS__DATA(fs);

  /* Low priority, as stock's DAG nodes: a hit saves a walk through
     node-revs and listings that have caches of their own, so under
     pressure these go first.  (With no pressure the priority changes
     nothing: lp through Apache with a 1 GB cache, 2,610 stores per hot
     export at the default priority, 2,656 at the low one.) */
  return svn_error_trace(svn_fs_fs__make_cache(
           &ffd->path_node_cache, membuffer, svn_fs_fs__noderev_serialize,
           svn_fs_fs__noderev_deserialize, APR_HASH_KEY_STRING, prefix,
           "lookup:path", SVN_CACHE__MEMBUFFER_LOW_PRIORITY,
           result_pool, scratch_pool));
}

/* TREE-2: an entry at CHILD_PATH is a file or a directory, nothing
   else (KIND). */
static svn_error_t *
check_child_kind(const char *child_path, svn_node_kind_t kind)
{
  if (kind != svn_node_file && kind != svn_node_dir)
    return svn_fs_fs__corrupt("TREE-2", child_path,
                              "Node of unknown kind %d", (int)kind);
  return SVN_NO_ERROR;
}

/* Read the node-rev of directory entry NAME of PARENT (at canonical
   PARENT_PATH) into ROOT's cache as CHILD_PATH (transaction roots: into
   TXN_POOL, uncached).  *NODEREV is NULL if the entry does not exist. */
static svn_error_t *
read_child(const svn_fs_fs__noderev_t **noderev, svn_fs_root_t *root,
           const svn_fs_fs__noderev_t *parent, const char *child_path,
           const char *name, apr_pool_t *txn_pool, apr_pool_t *scratch_pool)
{
  svn_fs_fs__root_data_t *rd = SVN_FS_FS__ROOT_DATA(root);
  svn_fs_dirent_t *dirent;
  svn_fs_fs__noderev_t *child;
  apr_pool_t *pool;

  SVN_ERR(svn_fs_fs__dir_entry(&dirent, rd->fs, parent, name,
                               scratch_pool, scratch_pool));
  if (!dirent)
    {
      *noderev = NULL;
      return SVN_NO_ERROR;
    }
  pool = rd->cache ? rd->cache->nodes_pool[0] : txn_pool;
  SVN_ERR(svn_fs_fs__get_noderev(&child, rd->fs,
                                 (const svn_fs_fs__id_t *)dirent->id,
                                 pool, scratch_pool));
  SVN_ERR(check_child_kind(child_path, child->kind));
  cache_put(rd, child_path, child);
  *noderev = child;
  return SVN_NO_ERROR;
}

/* Remember PARENT, the directory node-rev of CACHE at the path of
   CHILD_PATH without its last component NAME, as the directory of the
   last kind-only lookup (see svn_fs_fs__path_cache_t).  The root is not
   remembered: its node-rev belongs to a root, not to the cache. */
static void
remember_parent(svn_fs_fs__path_cache_t *cache, const char *child_path,
                const char *name, const svn_fs_fs__noderev_t *parent)
{
  apr_size_t len = strlen(child_path) - strlen(name) - 1;

  if (!cache || len == 0
      || (parent == cache->parent_node && len == cache->parent_len))
    return;
  if (len + 1 > cache->parent_cap)
    {
      cache->parent_cap = 2 * (len + 1);
      cache->parent_buf = apr_palloc(cache->pool, cache->parent_cap);
    }
  memcpy(cache->parent_buf, child_path, len);
  cache->parent_buf[len] = '\0';
  cache->parent_len = len;
  cache->parent_node = parent;
}

/* The kind of directory entry NAME of PARENT (at canonical CHILD_PATH)
   in *KIND, svn_node_none if there is no such entry: the node-rev is
   read as read_child would (same errors), but neither copied out of the
   nodes layer's cache nor added to ROOT's.  svn_repos verify asks the
   kind of every entry of every changed directory, once each (1.4
   million questions on the full maven), and nothing else of them. */
static svn_error_t *
read_child_kind(svn_node_kind_t *kind, svn_fs_root_t *root,
                const svn_fs_fs__noderev_t *parent, const char *child_path,
                const char *name, apr_pool_t *scratch_pool)
{
  svn_fs_fs__root_data_t *rd = SVN_FS_FS__ROOT_DATA(root);
  svn_fs_dirent_t *dirent;

  SVN_ERR(svn_fs_fs__dir_entry(&dirent, rd->fs, parent, name,
                               scratch_pool, scratch_pool));
  remember_parent(rd->cache, child_path, name, parent);
  if (!dirent)
    {
      *kind = svn_node_none;
      return SVN_NO_ERROR;
    }
  SVN_ERR(svn_fs_fs__get_noderev_kind(kind, rd->fs,
                                      (const svn_fs_fs__id_t *)dirent->id,
                                      scratch_pool));
  return svn_error_trace(check_child_kind(child_path, *kind));
}

/* The error stock reports when a path component FILE_PATH is a file. */
static svn_error_t *
not_a_directory(svn_fs_root_t *root, const char *file_path)
{
  if (root->is_txn_root)
    return svn_error_createf(SVN_ERR_FS_NOT_DIRECTORY,
                             SVN_FS__ERR_NOT_DIRECTORY(root->fs, file_path),
                             "Failure opening '%s' in transaction '%s'",
                             file_path, root->txn);
  return svn_error_createf(SVN_ERR_FS_NOT_DIRECTORY,
                           SVN_FS__ERR_NOT_DIRECTORY(root->fs, file_path),
                           "Failure opening '%s' in revision %ld",
                           file_path, root->rev);
}

/* A new step for NODEREV at PATH (entry NAME) below PARENT, in POOL. */
static svn_fs_fs__path_step_t *
push_step(svn_fs_fs__path_step_t *parent, const char *path, const char *name,
          const svn_fs_fs__noderev_t *noderev, apr_pool_t *pool)
{
  svn_fs_fs__path_step_t *step = apr_pcalloc(pool, sizeof(*step));

  step->path = apr_pstrdup(pool, path);
  step->name = apr_pstrdup(pool, name);
  step->noderev = noderev;
  step->parent = parent;
  return step;
}

svn_error_t *
svn_fs_fs__root_noderev(const svn_fs_fs__noderev_t **noderev,
                        svn_fs_root_t *root)
{
  svn_fs_fs__root_data_t *rd = SVN_FS_FS__ROOT_DATA(root);
  const svn_fs_fs__id_t *root_id;
  svn_fs_fs__noderev_t *read;
  apr_pool_t *scratch_pool;
  svn_error_t *err;

  if (rd->root_noderev)
    {
      *noderev = rd->root_noderev;
      return SVN_NO_ERROR;
    }
  /* The ID and node-rev go to ROOT's pool; a failure leaves only what
     the scratch pool holds behind. */
  scratch_pool = svn_pool_create(root->pool);
  err = svn_fs_fs__rev_root_id(&root_id, rd->fs, rd->rev, scratch_pool,
                               scratch_pool);
  if (!err)
    err = svn_fs_fs__get_noderev(&read, rd->fs, root_id, root->pool,
                                 scratch_pool);
  if (!err && read->kind != svn_node_dir)
    err = svn_fs_fs__corrupt("TREE-1", apr_psprintf(scratch_pool, "r%ld",
                                                    rd->rev),
                             "Root node is not a directory");
  svn_pool_destroy(scratch_pool);
  SVN_ERR(err);
  rd->root_noderev = read;
  *noderev = read;
  return SVN_NO_ERROR;
}

/* The root directory node-rev of ROOT.  A transaction's root is reread
   on every lookup (into POOL): another svn_fs_t may have made it mutable
   or merged it since the last one. */
static svn_error_t *
root_node(const svn_fs_fs__noderev_t **noderev, svn_fs_root_t *root,
          apr_pool_t *pool)
{
  svn_fs_fs__root_data_t *rd = SVN_FS_FS__ROOT_DATA(root);
  svn_fs_fs__id_part_t zero = { 0, 0 };
  svn_fs_fs__noderev_t *fresh;

  if (!rd->in_txn)
    return svn_error_trace(svn_fs_fs__root_noderev(noderev, root));
  SVN_ERR(svn_fs_fs__get_noderev(&fresh, rd->fs,
                                 svn_fs_fs__id_create_txn(&zero, &zero,
                                                          &rd->txn_id, pool),
                                 pool, pool));
  if (fresh->kind != svn_node_dir)
    return svn_fs_fs__corrupt("TREE-1", root->txn,
                              "Root node is not a directory");
  *noderev = fresh;
  return SVN_NO_ERROR;
}

/* The deepest proper ancestor of canonical PATH (not "/") that ROOT's
   lookup cache holds: its node-rev in *NODE and the length of its path
   in *DONE; *NODE is NULL if none is cached.  Trying the parent first
   makes the common lookup, a new entry of a directory that was just
   looked up (svn_repos verify's check of every entry of every changed
   directory, 1.4 million lookups on the full maven), hash one path
   instead of every prefix of it. */
static svn_error_t *
deepest_cached(const svn_fs_fs__noderev_t **node, apr_size_t *done,
               svn_fs_fs__root_data_t *rd, const char *path,
               apr_pool_t *scratch_pool)
{
  apr_size_t len = strlen(path);

  *node = NULL;
  while (len > 1)
    {
      while (path[--len] != '/')
        ;
      if (len == 0)
        break;
      SVN_ERR(cache_get(node, rd, apr_pstrmemdup(scratch_pool, path, len),
                        scratch_pool));
      if (*node)
        break;
    }
  *done = len;
  return SVN_NO_ERROR;
}

/* Walk canonical PATH in ROOT.  If CHAIN_POOL is not NULL, build the
   step chain there and return it in *LEAF, starting at the root and
   using cached node-revs on the way; else start at the deepest cached
   ancestor (no prefix below it is cached, so none is looked up).  Always
   return the node-rev in *NODEREV.  With TOLERANT, a missing node gives
   *NODEREV = NULL.  With KIND_P (revision roots, no CHAIN_POOL), a last
   component that is not cached may be resolved to its kind alone: then
   *NODEREV is NULL and *KIND_P the kind (svn_node_none if missing);
   KIND_P is left alone otherwise. */
static svn_error_t *
walk(const svn_fs_fs__noderev_t **noderev, svn_node_kind_t *kind_p,
     svn_fs_fs__path_step_t **leaf, svn_fs_root_t *root, const char *path,
     svn_boolean_t tolerant, apr_pool_t *chain_pool,
     apr_pool_t *scratch_pool)
{
  apr_pool_t *txn_pool = chain_pool ? chain_pool : scratch_pool;
  const svn_fs_fs__noderev_t *node = NULL;
  svn_fs_fs__path_step_t *step = NULL;
  const char *rest;
  apr_size_t done = 0;
  svn_boolean_t use_cache = chain_pool != NULL;

  if (!chain_pool && SVN_FS_FS__ROOT_DATA(root)->cache)
    SVN_ERR(deepest_cached(&node, &done, SVN_FS_FS__ROOT_DATA(root), path,
                           scratch_pool));
  if (!node)
    {
      SVN_ERR(root_node(&node, root, txn_pool));
      done = 0;
    }
  if (chain_pool)
    step = push_step(NULL, "/", "", node, chain_pool);
  rest = path + done + 1;
  while (*rest)
    {
      const char *slash = strchr(rest, '/');
      apr_size_t len = slash ? (apr_size_t)(slash - rest) : strlen(rest);
      const char *prefix = apr_pstrmemdup(scratch_pool, path,
                                          done + 1 + len);
      const char *name = apr_pstrmemdup(scratch_pool, rest, len);
      const svn_fs_fs__noderev_t *child = NULL;

      if (use_cache)
        SVN_ERR(cache_get(&child, SVN_FS_FS__ROOT_DATA(root), prefix,
                          scratch_pool));
      if (!child)
        {
          if (node->kind != svn_node_dir)
            {
              *noderev = NULL;
              return tolerant ? SVN_NO_ERROR : not_a_directory(
                       root, done ? apr_pstrmemdup(scratch_pool, path, done)
                                  : "/");
            }
          if (kind_p && !slash && !use_cache
              && !SVN_FS_FS__ROOT_DATA(root)->in_txn)
            {
              *noderev = NULL;
              return svn_error_trace(read_child_kind(kind_p, root, node,
                                                     prefix, name,
                                                     scratch_pool));
            }
          SVN_ERR(read_child(&child, root, node, prefix, name, txn_pool,
                             scratch_pool));
          if (!child)
            {
              *noderev = NULL;
              return tolerant ? SVN_NO_ERROR : SVN_FS__NOT_FOUND(root, path);
            }
        }
      node = child;
      if (chain_pool)
        step = push_step(step, prefix, name, node, chain_pool);
      done += 1 + len;
      rest = slash ? slash + 1 : rest + len;
    }
  *noderev = node;
  if (leaf)
    *leaf = step;
  return SVN_NO_ERROR;
}

/* PATH as svn_fs__canonicalize_abspath makes it (a leading slash, runs
   of slashes collapsed, no trailing slash; "." and ".." are left alone),
   without a copy when it is canonical already and with one concatenation
   when only its leading slash is missing: svn_repos verify asks about
   millions of relative paths.  Anything else goes to the real thing. */
static const char *
canonical_path(const char *path, apr_pool_t *pool)
{
  const char *slash;
  apr_size_t len;
  char *result;

  if (path == NULL)
    return svn_fs__canonicalize_abspath(path, pool);
  len = strlen(path);
  if (len > 1 && path[len - 1] == '/')
    return svn_fs__canonicalize_abspath(path, pool);
  /* memchr, not a loop over every byte: paths are long, slashes few. */
  for (slash = memchr(path, '/', len); slash;
       slash = memchr(slash + 1, '/', len - (slash + 1 - path)))
    if (slash[1] == '/')
      return svn_fs__canonicalize_abspath(path, pool);
  if (*path == '/')
    return path;
  result = apr_palloc(pool, len + 2);
  result[0] = '/';
  memcpy(result + 1, path, len + 1);
  return result;
}

/* Fast path: the whole canonical PATH is cached. */
static svn_error_t *
lookup(const svn_fs_fs__noderev_t **noderev, svn_fs_root_t *root,
       const char *path, svn_boolean_t tolerant, apr_pool_t *scratch_pool)
{
  svn_fs_fs__root_data_t *rd = SVN_FS_FS__ROOT_DATA(root);
  const char *canon = canonical_path(path, scratch_pool);

  cache_prepare(root);
  SVN_ERR(cache_get(noderev, rd, canon, scratch_pool));
  if (!*noderev)
    SVN_ERR(shared_get(noderev, rd, canon, scratch_pool));
  if (*noderev)
    return SVN_NO_ERROR;
  SVN_ERR(walk(noderev, NULL, NULL, root, canon, tolerant, NULL,
               scratch_pool));
  if (*noderev)
    SVN_ERR(shared_offer(rd, canon, *noderev, scratch_pool));
  return SVN_NO_ERROR;
}

svn_error_t *
svn_fs_fs__root_lookup(const svn_fs_fs__noderev_t **noderev,
                       svn_fs_root_t *root, const char *path,
                       apr_pool_t *scratch_pool)
{
  return svn_error_trace(lookup(noderev, root, path, FALSE, scratch_pool));
}

svn_error_t *
svn_fs_fs__root_lookup_maybe(const svn_fs_fs__noderev_t **noderev,
                             svn_fs_root_t *root, const char *path,
                             apr_pool_t *scratch_pool)
{
  return svn_error_trace(lookup(noderev, root, path, TRUE, scratch_pool));
}

svn_error_t *
svn_fs_fs__root_kind(svn_node_kind_t *kind, svn_fs_root_t *root,
                     const char *path, apr_pool_t *scratch_pool)
{
  svn_fs_fs__root_data_t *rd = SVN_FS_FS__ROOT_DATA(root);
  const char *canon = canonical_path(path, scratch_pool);
  const svn_fs_fs__noderev_t *noderev;

  cache_prepare(root);
  if (rd->cache && rd->cache->parent_node)
    {
      svn_fs_fs__path_cache_t *cache = rd->cache;
      const char *name = canon + cache->parent_len + 1;

      /* An entry of the directory asked about last: whether PATH itself
         is cached or not, its kind is that of the entry's node-rev. */
      if (strncmp(canon, cache->parent_buf, cache->parent_len) == 0
          && canon[cache->parent_len] == '/' && *name
          && !strchr(name, '/'))
        return svn_error_trace(read_child_kind(kind, root,
                                               cache->parent_node, canon,
                                               name, scratch_pool));
    }
  SVN_ERR(cache_get(&noderev, rd, canon, scratch_pool));
  if (!noderev)
    SVN_ERR(shared_get(&noderev, rd, canon, scratch_pool));
  *kind = svn_node_none;
  if (!noderev)
    {
      SVN_ERR(walk(&noderev, kind, NULL, root, canon, TRUE, NULL,
                   scratch_pool));
      if (noderev)
        SVN_ERR(shared_offer(rd, canon, noderev, scratch_pool));
    }
  if (noderev)
    *kind = noderev->kind;
  return SVN_NO_ERROR;
}

apr_pool_t *
svn_fs_fs__root_cache_room(svn_fs_root_t *root)
{
  svn_fs_fs__path_cache_t *cache;

  if (SVN_FS_FS__ROOT_DATA(root)->in_txn)
    return NULL;
  cache = root_cache(root);
  return apr_hash_count(cache->nodes[0]) < TREE_CACHE_GENERATION
         ? cache->nodes_pool[0] : NULL;
}

void
svn_fs_fs__root_cache_offer(svn_fs_root_t *root, const char *path,
                            const svn_fs_fs__noderev_t *noderev,
                            apr_pool_t *pool)
{
  svn_fs_fs__root_data_t *rd = SVN_FS_FS__ROOT_DATA(root);

  /* Only into the generation whose pool holds NODEREV (a lookup in
     between may have started a new one). */
  if (rd->cache && pool == rd->cache->nodes_pool[0]
      && apr_hash_count(rd->cache->nodes[0]) < TREE_CACHE_GENERATION)
    cache_put(rd, path, noderev);
}

svn_error_t *
svn_fs_fs__root_walk(svn_fs_fs__path_step_t **leaf, svn_fs_root_t *root,
                     const char *path, apr_pool_t *result_pool,
                     apr_pool_t *scratch_pool)
{
  const svn_fs_fs__noderev_t *noderev;
  const char *canon = canonical_path(path, scratch_pool);

  cache_prepare(root);
  return svn_error_trace(walk(&noderev, NULL, leaf, root, canon, FALSE,
                              result_pool, scratch_pool));
}
