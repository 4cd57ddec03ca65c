/* mut_driver.c --- drive tree mutations of one transaction through the
 * public FS API, for comparing the stock module with ours.
 *
 * Linked against libsvn_fs only: which FSFS module it talks to is decided
 * by LD_LIBRARY_PATH (tools/fsfs7-run for ours, nothing for stock), so the
 * same binary and the same script yield two transactions to diff.
 *
 *   mut_driver REPO OP...     OPs, applied in order to one transaction:
 *     begin[:ood] REV         begin a txn on REV (first op; :ood adds
 *                             SVN_FS_TXN_CHECK_OOD)
 *     open NAME               continue transaction NAME instead
 *     mkdir PATH | mkfile PATH | rm PATH
 *     cp REV FROM TO          copy FROM@REV to TO
 *     link REV PATH           svn_fs_revision_link from revision REV
 *     prop PATH NAME VALUE    set a node property ("-" as VALUE deletes)
 *     text PATH TEXT          svn_fs_apply_text
 *     delta PATH BASEMD5 TEXT svn_fs_apply_textdelta ("-": no base check)
 *     commit                  commit; prints "r<N>" or the conflict
 *
 * Each failing op prints "E<code> <message>" and the script goes on; at
 * the end the transaction's name is printed ("txn <name>") and the txn is
 * left open for svnlook / svnadmin to inspect.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <apr_general.h>
#include "svn_pools.h"
#include "svn_fs.h"
#include "svn_checksum.h"
#include "svn_delta.h"
#include "svn_repos.h"

typedef struct state_t
{
  svn_fs_t *fs;
  svn_fs_txn_t *txn;
  svn_fs_root_t *root;
  apr_pool_t *pool;
} state_t;

static svn_error_t *
op_begin(state_t *s, const char *op, const char *rev)
{
  apr_uint32_t flags = strstr(op, ":ood") ? SVN_FS_TXN_CHECK_OOD : 0;

  SVN_ERR(svn_fs_begin_txn2(&s->txn, s->fs, atol(rev), flags, s->pool));
  return svn_fs_txn_root(&s->root, s->txn, s->pool);
}

static svn_error_t *
op_open(state_t *s, const char *name)
{
  SVN_ERR(svn_fs_open_txn(&s->txn, s->fs, name, s->pool));
  return svn_fs_txn_root(&s->root, s->txn, s->pool);
}

static svn_error_t *
op_copy(state_t *s, const char *rev, const char *from, const char *to,
        apr_pool_t *pool)
{
  svn_fs_root_t *from_root;

  SVN_ERR(svn_fs_revision_root(&from_root, s->fs, atol(rev), pool));
  return svn_fs_copy(from_root, from, s->root, to, pool);
}

static svn_error_t *
op_link(state_t *s, const char *rev, const char *path, apr_pool_t *pool)
{
  svn_fs_root_t *from_root;

  SVN_ERR(svn_fs_revision_root(&from_root, s->fs, atol(rev), pool));
  return svn_fs_revision_link(from_root, s->root, path, pool);
}

static svn_error_t *
op_prop(state_t *s, const char *path, const char *name, const char *value,
        apr_pool_t *pool)
{
  return svn_fs_change_node_prop(s->root, path, name,
                                 strcmp(value, "-") == 0
                                   ? NULL : svn_string_create(value, pool),
                                 pool);
}

static svn_error_t *
op_text(state_t *s, const char *path, const char *text, apr_pool_t *pool)
{
  svn_stream_t *stream;

  SVN_ERR(svn_fs_apply_text(&stream, s->root, path, NULL, pool));
  SVN_ERR(svn_stream_puts(stream, text));
  return svn_stream_close(stream);
}

static svn_error_t *
op_delta(state_t *s, const char *path, const char *base_md5,
         const char *text, apr_pool_t *pool)
{
  svn_txdelta_window_handler_t handler;
  void *baton;
  svn_checksum_t *base = NULL;

  if (strcmp(base_md5, "-") != 0)
    SVN_ERR(svn_checksum_parse_hex(&base, svn_checksum_md5, base_md5, pool));
  SVN_ERR(svn_fs_apply_textdelta(&handler, &baton, s->root, path,
                                 base ? svn_checksum_to_cstring(base, pool)
                                      : NULL, NULL, pool));
  return svn_txdelta_send_string(svn_string_create(text, pool), handler,
                                 baton, pool);
}

static svn_error_t *
op_commit(state_t *s, apr_pool_t *pool)
{
  const char *conflict = NULL;
  svn_revnum_t rev = SVN_INVALID_REVNUM;

  SVN_ERR(svn_fs_commit_txn(&conflict, &rev, s->txn, pool));
  printf("r%ld\n", rev);
  return SVN_NO_ERROR;
}

/* Run the op at ARGV[*I], advancing *I past its arguments. */
static svn_error_t *
run_op(state_t *s, int argc, char **argv, int *i, apr_pool_t *pool)
{
  const char *op = argv[(*i)++];
  int need = 0;

  if (!strncmp(op, "begin", 5) || !strcmp(op, "open") || !strcmp(op, "mkdir")
      || !strcmp(op, "mkfile") || !strcmp(op, "rm"))
    need = 1;
  else if (!strcmp(op, "text") || !strcmp(op, "link"))
    need = 2;
  else if (!strcmp(op, "cp") || !strcmp(op, "prop") || !strcmp(op, "delta"))
    need = 3;
  if (*i + need > argc)
    return svn_error_createf(SVN_ERR_CL_ARG_PARSING_ERROR, NULL,
                             "'%s' needs %d arguments", op, need);
  argv += *i;
  *i += need;
  if (!strncmp(op, "begin", 5)) return op_begin(s, op, argv[0]);
  if (!strcmp(op, "open")) return op_open(s, argv[0]);
  if (!strcmp(op, "mkdir")) return svn_fs_make_dir(s->root, argv[0], pool);
  if (!strcmp(op, "mkfile")) return svn_fs_make_file(s->root, argv[0], pool);
  if (!strcmp(op, "rm")) return svn_fs_delete(s->root, argv[0], pool);
  if (!strcmp(op, "link")) return op_link(s, argv[0], argv[1], pool);
  if (!strcmp(op, "cp")) return op_copy(s, argv[0], argv[1], argv[2], pool);
  if (!strcmp(op, "prop"))
    return op_prop(s, argv[0], argv[1], argv[2], pool);
  if (!strcmp(op, "text")) return op_text(s, argv[0], argv[1], pool);
  if (!strcmp(op, "delta"))
    return op_delta(s, argv[0], argv[1], argv[2], pool);
  if (!strcmp(op, "commit")) return op_commit(s, pool);
  return svn_error_createf(SVN_ERR_CL_ARG_PARSING_ERROR, NULL,
                           "unknown op '%s'", op);
}

int
main(int argc, char **argv)
{
  state_t s = { 0 };
  apr_pool_t *iterpool;
  svn_error_t *err;
  int i = 2;

  if (argc < 3 || apr_initialize() != APR_SUCCESS)
    return 2;
  setvbuf(stdout, NULL, _IOLBF, 0);
  s.pool = svn_pool_create(NULL);
  iterpool = svn_pool_create(s.pool);
  err = svn_fs_initialize(s.pool);
  if (!err)
    err = svn_fs_open2(&s.fs, argv[1], NULL, s.pool, s.pool);
  if (err)
    {
      svn_handle_error2(err, stderr, FALSE, "mut_driver: ");
      return 1;
    }
  while (i < argc)
    {
      svn_pool_clear(iterpool);
      err = run_op(&s, argc, argv, &i, iterpool);
      if (err)
        {
          svn_error_t *root_cause = svn_error_root_cause(err);
          printf("E%d %s\n", err->apr_err, err->message ? err->message : "");
          if (root_cause != err)
            printf("  root E%d %s\n", root_cause->apr_err,
                   root_cause->message ? root_cause->message : "");
          svn_error_clear(err);
        }
    }
  if (s.txn)
    {
      const char *name;
      if (!svn_fs_txn_name(&name, s.txn, s.pool))
        printf("txn %s\n", name);
    }
  svn_pool_destroy(s.pool);
  apr_terminate();
  return 0;
}
