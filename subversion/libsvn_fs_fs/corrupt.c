/* corrupt.c --- building errors for rejected on-disk data (corrupt.h). */
#include <stdarg.h>
#include <apr_strings.h>

#include "corrupt.h"

/* Format FMT/AP and append the location and rule.  Allocation happens in a
   private pool that the error then owns, like svn_error_createf does. */
static svn_error_t *
make_error(apr_status_t code, const char *rule, const char *where,
           const char *fmt, va_list ap)
{
  apr_pool_t *pool;
  const char *what;
  svn_error_t *err;

  apr_pool_create(&pool, NULL);
  what = apr_pvsprintf(pool, fmt, ap);
  if (where && rule)
    what = apr_psprintf(pool, "%s (%s, rule %s)", what, where, rule);
  else if (rule)
    what = apr_psprintf(pool, "%s (rule %s)", what, rule);
  else if (where)
    what = apr_psprintf(pool, "%s (%s)", what, where);
  err = svn_error_create(code, NULL, what);
  apr_pool_destroy(pool);
  return err;
}

svn_error_t *
svn_fs_fs__corrupt(const char *rule, const char *where, const char *fmt, ...)
{
  va_list ap;
  svn_error_t *err;

  va_start(ap, fmt);
  err = make_error(SVN_ERR_FS_CORRUPT, rule, where, fmt, ap);
  va_end(ap);
  return err;
}

svn_error_t *
svn_fs_fs__index_corrupt(const char *rule, const char *where,
                         const char *fmt, ...)
{
  va_list ap;
  svn_error_t *err;

  va_start(ap, fmt);
  err = make_error(SVN_ERR_FS_INDEX_CORRUPTION, rule, where, fmt, ap);
  va_end(ap);
  return err;
}

svn_error_t *
svn_fs_fs__corrupt_code(apr_status_t code, const char *rule, const char *where,
                        const char *fmt, ...)
{
  va_list ap;
  svn_error_t *err;

  va_start(ap, fmt);
  err = make_error(code, rule, where, fmt, ap);
  va_end(ap);
  return err;
}

svn_error_t *
svn_fs_fs__unsupported(const char *operation)
{
  return svn_error_createf(SVN_ERR_UNSUPPORTED_FEATURE, NULL,
                           "fsfs7 does not implement '%s' yet", operation);
}
