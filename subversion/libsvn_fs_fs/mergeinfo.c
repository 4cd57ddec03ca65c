/* mergeinfo.c --- svn:mergeinfo queries on revision roots (semantics
 * layer; root vtable get_mergeinfo).
 *
 * Owns: finding the mergeinfo that applies to a path (its own, or the
 * nearest ancestor's, re-targeted to the path) and the mergeinfo set on
 * its descendants.  Every node-rev records whether it has svn:mergeinfo
 * and how many nodes in its subtree do (including itself), so ancestors
 * are found without reading property lists and descendant searches skip
 * subtrees without any.  Parsing and range arithmetic are libsvn_subr's
 * svn_mergeinfo_* functions.  Rules: doc/format/tree.md (TREE-5, TREE-6).
 */
#include <apr_strings.h>

#include "svn_pools.h"
#include "svn_hash.h"
#include "svn_props.h"
#include "svn_mergeinfo.h"
/* svn_fs_util.h's error macros expect gettext's _(); our messages are
   not translated. */
#ifndef _
#define _(text) (text)
#endif
#include "private/svn_fs_util.h"
#include "private/svn_fspath.h"

#include "corrupt.h"
#include "history.h"
#include "lookup.h"
#include "node.h"

/* Parse the svn:mergeinfo property of NODEREV (at PATH, which must have
   the has-mergeinfo flag) into *MERGEINFO.  Unparsable mergeinfo is
   treated as absent (*MERGEINFO = NULL), as stock does: clients can set
   anything with old servers, and one bad value must not break every
   merge below it. */
static svn_error_t *
read_mergeinfo(svn_mergeinfo_t *mergeinfo, svn_fs_t *fs,
               const svn_fs_fs__noderev_t *noderev, const char *path,
               apr_pool_t *result_pool, apr_pool_t *scratch_pool)
{
  apr_hash_t *props;
  const svn_string_t *value;
  svn_error_t *err;

  *mergeinfo = NULL;
  SVN_ERR(svn_fs_fs__node_proplist(&props, fs, noderev, scratch_pool,
                                   scratch_pool));
  value = svn_hash_gets(props, SVN_PROP_MERGEINFO);
  if (!value)
    return svn_fs_fs__corrupt("TREE-5", path,
                              "Node-revision claims to have mergeinfo but "
                              "has no " SVN_PROP_MERGEINFO " property");
  err = svn_mergeinfo_parse(mergeinfo, value->data, result_pool);
  if (err && err->apr_err == SVN_ERR_MERGEINFO_PARSE_ERROR)
    {
      svn_error_clear(err);
      *mergeinfo = NULL;
      return SVN_NO_ERROR;
    }
  return svn_error_trace(err);
}

/* The mergeinfo of canonical PATH in ROOT per INHERIT, or NULL. */
static svn_error_t *
path_mergeinfo(svn_mergeinfo_t *mergeinfo, svn_fs_root_t *root,
               const char *path, svn_mergeinfo_inheritance_t inherit,
               svn_boolean_t adjust_inherited_mergeinfo,
               apr_pool_t *result_pool, apr_pool_t *scratch_pool)
{
  svn_fs_fs__path_step_t *leaf, *step;
  svn_mergeinfo_t raw;

  *mergeinfo = NULL;
  SVN_ERR(svn_fs_fs__root_walk(&leaf, root, path, scratch_pool,
                               scratch_pool));
  step = inherit == svn_mergeinfo_nearest_ancestor ? leaf->parent : leaf;
  while (step && !step->noderev->has_mergeinfo)
    {
      if (inherit == svn_mergeinfo_explicit)
        return SVN_NO_ERROR;
      step = step->parent;
    }
  if (!step)
    return SVN_NO_ERROR;

  SVN_ERR(read_mergeinfo(&raw, root->fs, step->noderev, step->path,
                         result_pool, scratch_pool));
  if (!raw || step == leaf || !adjust_inherited_mergeinfo)
    {
      *mergeinfo = raw;
      return SVN_NO_ERROR;
    }

  /* Inherited: only inheritable ranges apply below the ancestor, and
     each merge source is re-targeted to the corresponding child. */
  SVN_ERR(svn_mergeinfo_inheritable2(&raw, raw, NULL, SVN_INVALID_REVNUM,
                                     SVN_INVALID_REVNUM, TRUE, scratch_pool,
                                     scratch_pool));
  return svn_error_trace(svn_fs__append_to_merged_froms(
                           mergeinfo, raw,
                           svn_fspath__skip_ancestor(step->path, path),
                           result_pool));
}

/* TRUE if a node below NODEREV (not NODEREV itself) has mergeinfo. */
static svn_boolean_t
has_mergeinfo_below(const svn_fs_fs__noderev_t *noderev)
{
  return noderev->kind == svn_node_dir
         && noderev->mergeinfo_count > (noderev->has_mergeinfo ? 1 : 0);
}

/* Report the explicit mergeinfo of every node below directory DIR (at
   canonical DIR_PATH) to RECEIVER, in name order, depth first. */
static svn_error_t *
crawl_mergeinfo(svn_fs_t *fs, const svn_fs_fs__noderev_t *dir,
                const char *dir_path, int depth,
                svn_fs_mergeinfo_receiver_t receiver, void *baton,
                apr_pool_t *scratch_pool)
{
  apr_array_header_t *entries;
  apr_pool_t *iterpool;
  int i;

  if (depth > SVN_FS_FS__MAX_TREE_DEPTH)
    return svn_fs_fs__corrupt("TREE-2", dir_path, "Directory nesting deeper "
                              "than %d (cycle?)", SVN_FS_FS__MAX_TREE_DEPTH);
  iterpool = svn_pool_create(scratch_pool);
  SVN_ERR(svn_fs_fs__dir_entries(&entries, fs, dir, scratch_pool,
                                 scratch_pool));
  for (i = 0; i < entries->nelts; i++)
    {
      const svn_fs_dirent_t *dirent = APR_ARRAY_IDX(entries, i,
                                                    svn_fs_dirent_t *);
      const char *kid_path;
      svn_fs_fs__noderev_t *kid;

      svn_pool_clear(iterpool);
      kid_path = svn_fspath__join(dir_path, dirent->name, iterpool);
      SVN_ERR(svn_fs_fs__get_noderev(&kid, fs,
                                     (const svn_fs_fs__id_t *)dirent->id,
                                     iterpool, iterpool));
      if (kid->has_mergeinfo)
        {
          svn_mergeinfo_t mergeinfo;

          SVN_ERR(read_mergeinfo(&mergeinfo, fs, kid, kid_path, iterpool,
                                 iterpool));
          if (mergeinfo)
            SVN_ERR(receiver(kid_path, mergeinfo, baton, iterpool));
        }
      if (has_mergeinfo_below(kid))
        SVN_ERR(crawl_mergeinfo(fs, kid, kid_path, depth + 1, receiver,
                                baton, iterpool));
    }
  svn_pool_destroy(iterpool);
  return SVN_NO_ERROR;
}

svn_error_t *
svn_fs_fs__root_mergeinfo(svn_fs_root_t *root, const apr_array_header_t *paths,
                          svn_mergeinfo_inheritance_t how, svn_boolean_t deep,
                          svn_boolean_t adjust, svn_fs_mergeinfo_receiver_t
                          receiver, void *baton, apr_pool_t *scratch_pool)
{
  apr_pool_t *iterpool;
  int i;

  /* OLD-5: formats 1 and 2 do not track mergeinfo, so they cannot answer
     (svn_repos_capabilities relies on this error). */
  if (SVN_FS_FS__DATA(root->fs)->format < SVN_FS_FS__MIN_MERGEINFO_FORMAT)
    return svn_error_createf(SVN_ERR_UNSUPPORTED_FEATURE, NULL,
                             "Querying mergeinfo requires FSFS format %d; "
                             "this filesystem has format %d",
                             SVN_FS_FS__MIN_MERGEINFO_FORMAT,
                             SVN_FS_FS__DATA(root->fs)->format);
  iterpool = svn_pool_create(scratch_pool);
  for (i = 0; i < paths->nelts; i++)
    {
      /* The receiver gets the caller's spelling of the path, as from
         stock; descendants are named from the canonical form. */
      const char *given = APR_ARRAY_IDX(paths, i, const char *);
      const char *path;
      svn_mergeinfo_t mergeinfo;

      svn_pool_clear(iterpool);
      path = svn_fs__canonicalize_abspath(given, iterpool);
      SVN_ERR(path_mergeinfo(&mergeinfo, root, path, how, adjust, iterpool,
                             iterpool));
      if (mergeinfo)
        SVN_ERR(receiver(given, mergeinfo, baton, iterpool));
      if (deep)
        {
          const svn_fs_fs__noderev_t *noderev;

          SVN_ERR(svn_fs_fs__root_lookup(&noderev, root, path, iterpool));
          if (has_mergeinfo_below(noderev))
            SVN_ERR(crawl_mergeinfo(root->fs, noderev, path, 0, receiver,
                                    baton, iterpool));
        }
    }
  svn_pool_destroy(iterpool);
  return SVN_NO_ERROR;
}
