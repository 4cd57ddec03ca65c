/* revprops.c --- reading and writing revision properties, plain and
 * packed (revprops.h; doc/format/revprops.md).
 *
 * Read path:
 *
 *   svn_fs_fs__get_revprops
 *     ensure_revision_exists
 *     REFRESH: new generation (a read barrier, as svn_fs.h promises)
 *     else cache lookup             raw hash dump, parsed on the way out
 *     read_revprops_once            -- twice if a file vanished under us
 *       read_plain                  db/revprops/<shard>/<rev>, kept open
 *                                   and unparsed for the next REFRESH read
 *       read_packed                 db/revprops/<shard>.pack/manifest
 *         read_pack                   .../<start>.<counter>, unwrap, parse
 *         cache_pack_neighbours       (not under REFRESH)
 *     parse_dump                    hashdump_parse
 *
 * svn_fs_fs__verify_revprops: read_revprops + parse_dump, no cache, the
 * revision's manifest line sound and in order with the one before
 * (RPPACK-1..3), and svn:date must parse (REVPROP-5).
 *
 * A manifest is split into lines when read but each reader parses only
 * the line of its own revision, and does without it when a neighbour's
 * line leads to the same pack: one damaged line costs at most its own
 * revision, never the shard (doc/format/revprops.md, "What a reader
 * needs").
 *
 * Write path (caller holds the write lock):
 *
 *   svn_fs_fs__set_revprops
 *     write_plain                   temp file + rename (read-only, REVPROP-3)
 *     write_packed                  rewrite the pack in place if it still
 *                                   fits, else split it (RPPACK-7)
 *
 * Revision 0 is never packed (RPPACK-0).  The stock module keeps no
 * on-disk generation counter in this release, so neither do we; each
 * svn_fs_t has its own cache key space and REFRESH moves it to a new one.
 *
 * The cache holds the hash dump bytes as they are on disk, so filling
 * it with every revision of a pack just read costs a copy per revision,
 * not a parse and a re-serialisation.  A damaged dump is therefore only
 * noticed when it is asked for: a cached dump that does not parse sends
 * the reader to the disk, which reports the damage with its location.
 */
#include <errno.h>
#include <unistd.h>
#include <apr_strings.h>
#include <apr_portable.h>

#include "svn_dirent_uri.h"
#include "svn_hash.h"
#include "svn_io.h"
#include "svn_props.h"
#include "svn_time.h"
#include "svn_pools.h"
#include "private/svn_atomic.h"
#include "private/svn_string_private.h"

#include "cache_admit.h"
#include "caching.h"
#include "corrupt.h"
#include "hashdump.h"
#include "paths.h"
#include "revprops.h"
#include "revprops_codec.h"
#include "shard_dir.h"
#include "durable.h"

/* ------------------------------------------------------------------ */
/* Where revprops of a revision live                                   */

/* TRUE if REV's revprops are in a pack (RPPACK-0: never r0; OLD-8: format
   4 packs revisions only). */
static svn_boolean_t
revprops_packed(svn_fs_t *fs, svn_revnum_t rev)
{
  svn_fs_fs__data_t *ffd = SVN_FS_FS__DATA(fs);
  return rev > 0 && ffd->max_files_per_dir > 0
         && rev < ffd->min_unpacked_rev
         && ffd->format >= SVN_FS_FS__MIN_PACKED_REVPROPS_FORMAT;
}

/* First revision listed in the manifest of REV's shard. */
static svn_revnum_t
manifest_first_rev(svn_fs_t *fs, svn_revnum_t rev)
{
  svn_revnum_t start = svn_fs_fs__shard_start(fs, rev);
  return start == 0 ? 1 : start;
}

/* How many lines the manifest of REV's packed shard has: one per
   revision of the shard, but shard 0 keeps r0 unpacked (RPPACK-1). */
static int
manifest_lines(svn_fs_t *fs, svn_revnum_t rev)
{
  svn_fs_fs__data_t *ffd = SVN_FS_FS__DATA(fs);

  return (int)(svn_fs_fs__shard_start(fs, rev) + ffd->max_files_per_dir
               - manifest_first_rev(fs, rev));
}

/* db/revprops/<shard>.pack/<NAME> */
static const char *
pack_file_path(svn_fs_t *fs, svn_revnum_t rev, const char *name,
               apr_pool_t *result_pool)
{
  return svn_dirent_join(svn_fs_fs__path_revprops_pack_shard(fs, rev,
                                                             result_pool),
                         name, result_pool);
}

/* Read PATH into *CONTENT; if it does not exist set *CONTENT to NULL. */
static svn_error_t *
read_if_exists(svn_stringbuf_t **content, const char *path,
               apr_pool_t *result_pool)
{
  svn_error_t *err = svn_stringbuf_from_file2(content, path, result_pool);

  if (err && APR_STATUS_IS_ENOENT(err->apr_err))
    {
      svn_error_clear(err);
      *content = NULL;
      return SVN_NO_ERROR;
    }
  return svn_error_trace(err);
}

/* ------------------------------------------------------------------ */
/* Cache keys                                                          */

/* Cache keys are (revision, generation).  The generation is a process-
   wide unique number held per svn_fs_t (in its revprop_state_t);
   refresh_revprops moves an fs to a new generation, which makes all its
   older entries unreachable. */
/* How many parsed manifests and pack files one svn_fs_t keeps.  Each
   holds an open file (see held_file_t), so these also bound the file
   descriptors we pin: revfile.c keeps up to 8 more.  A parsed pack holds
   its whole text (64 kB and more in format 6, where packs are not
   compressed): eight of them were 0.8 MB of the peak RSS of an export of
   packed f6 maven.  With four, 'svn list -R -v' of its trunk parses 224
   packs instead of 113, at no measurable CPU (two: 395). */
#define MANIFEST_SLOTS 4
#define PACK_SLOTS 4

/* And how many files of unpacked revisions: mod_dav_svn asks for HEAD's
   revprops three times per PROPFIND, each with REFRESH; 'svn log' and
   'svn list -v' come back to the same few revisions.  Kept small: every
   slot is one more descriptor for each open svn_fs_t of a server. */
#define PLAIN_SLOTS 4

/* Larger manifests and packs are parsed, used and dropped: what we keep
   stays within (MANIFEST_SLOTS + PACK_SLOTS) * this. */
#define KEEP_LIMIT (256 * 1024)

/* Bytes read_plain() expects of a revision's own revprop file when it
   does not ask fstat(): author, date and a log message of ordinary
   length fit, and a bigger file takes one read more per doubling. */
#define PLAIN_GUESS 4095

/* A file of a packed shard whose parsed content we keep.  Writers never
   change these files in place; they write a temp file and rename it over
   the old name (RPPACK-7).  So while the name still leads to the inode we
   read, the content is what we parsed -- and holding the file open makes
   sure that inode cannot be freed and reused for a newer file.  One
   stat() of the path thus answers what re-reading and re-parsing the
   file would, which keeps REFRESH a true read barrier. */
typedef struct held_file_t
{
  const char *path;
  apr_file_t *file;
  apr_ino_t inode;
  apr_dev_t device;

  /* For files of unpacked revisions also size and mtime: hand edits of
     such a file in place (the stock module would see them at once) are
     seen too, at no extra cost -- the same stat() reports them. */
  svn_boolean_t check_times;
  apr_off_t size;
  apr_time_t mtime;
} held_file_t;

/* A parsed manifest (SHARD_START >= 0) or pack file of one shard. */
typedef struct slot_t
{
  svn_revnum_t shard_start;     /* SVN_INVALID_REVNUM: empty */
  held_file_t held;
  apr_uint64_t last_use;
  apr_pool_t *pool;             /* HELD, the parse; cleared on eviction */

  /* Manifest slots: the text, split into lines but not parsed (each
     reader parses only the line of its revision). */
  svn_fs_fs__revprop_manifest_t manifest;

  /* Pack slots: which file and its parsed container. */
  svn_fs_fs__revprop_manifest_entry_t name;
  svn_fs_fs__revprop_pack_t pack;

  /* Plain slots (SHARD_START is the revision): the file's bytes. */
  svn_string_t plain;
} slot_t;

/* Revprop state of one svn_fs_t. */
typedef struct revprop_state_t
{
  apr_int64_t generation;
  slot_t manifests[MANIFEST_SLOTS];
  slot_t packs[PACK_SLOTS];
  slot_t plains[PLAIN_SLOTS];
  apr_uint64_t clock;           /* LRU stamps */

  /* Counters for tests and benchmarks (FSFS7_REVPROP_STATS). */
  apr_uint64_t parses, hits;
} revprop_state_t;

static volatile svn_atomic_t last_generation = 0;

/* The revprop state of FS (created with the first generation). */
static revprop_state_t *
state_of(svn_fs_t *fs)
{
  svn_fs_fs__data_t *ffd = SVN_FS_FS__DATA(fs);
  revprop_state_t *state = ffd->revprop_state;
  int i;

  /* A field of the fs rather than pool user data: this runs for every
     revprop read, and the user data lookup (a hash of a key naming the
     svn_fs_t) showed in profiles of 'svnbench null-log'. */
  if (state)
    return state;
  state = apr_pcalloc(fs->pool, sizeof(*state));
  state->generation = svn_atomic_inc(&last_generation) + 1;
  for (i = 0; i < MANIFEST_SLOTS; i++)
    state->manifests[i].shard_start = SVN_INVALID_REVNUM;
  for (i = 0; i < PACK_SLOTS; i++)
    state->packs[i].shard_start = SVN_INVALID_REVNUM;
  for (i = 0; i < PLAIN_SLOTS; i++)
    state->plains[i].shard_start = SVN_INVALID_REVNUM;
  ffd->revprop_state = state;
  return state;
}

/* Fill *KEY for REV of FS. */
static void
make_key(svn_fs_fs__pair_cache_key_t *key, svn_fs_t *fs, svn_revnum_t rev)
{
  *key = svn_fs_fs__pair_cache_key(rev, state_of(fs)->generation);
}

/* ------------------------------------------------------------------ */
/* Packed shards                                                       */

/* The text of the manifest of REV's shard in *TEXT (NULL if it is
   missing) and its path in *PATH, both in RESULT_POOL. */
static svn_error_t *
read_manifest_text(svn_stringbuf_t **text, const char **path, svn_fs_t *fs,
                   svn_revnum_t rev, apr_pool_t *result_pool)
{
  *path = pack_file_path(fs, rev, "manifest", result_pool);
  return svn_error_trace(read_if_exists(text, *path, result_pool));
}

/* Read, unwrap and parse pack file NAME of REV's shard into *PACK, whose
   body points into *PLAIN (both in RESULT_POOL).  *PACK->body is NULL if
   the file does not exist. */
static svn_error_t *
read_pack(svn_fs_fs__revprop_pack_t *pack, svn_stringbuf_t **plain,
          svn_fs_t *fs, svn_revnum_t rev,
          const svn_fs_fs__revprop_manifest_entry_t *entry,
          apr_pool_t *result_pool, apr_pool_t *scratch_pool)
{
  const char *path = pack_file_path(
    fs, rev, svn_fs_fs__revprop_pack_name(entry, scratch_pool), scratch_pool);
  const char *where = svn_dirent_local_style(path, scratch_pool);
  svn_stringbuf_t *wrapped;

  pack->body = NULL;
  SVN_ERR(read_if_exists(&wrapped, path, scratch_pool));
  if (wrapped == NULL)
    return SVN_NO_ERROR;
  SVN_ERR(svn_fs_fs__revprop_pack_unwrap(plain, wrapped->data, wrapped->len,
                                         where, result_pool));
  SVN_ERR(svn_fs_fs__revprop_pack_parse(pack, (*plain)->data, (*plain)->len,
                                        where, result_pool));
  if (pack->start_rev != entry->start_rev)
    return svn_fs_fs__corrupt("RPPACK-5", where,
                              "Revprop pack starts at r%ld, not r%ld",
                              pack->start_rev, entry->start_rev);
  return SVN_NO_ERROR;
}

/* Readers of one revision usually go on to its neighbours (svn log), so
   put every other revision of a pack we just read into the cache too
   (unparsed: see the file header). */
static svn_error_t *
cache_pack_neighbours(svn_fs_t *fs, const svn_fs_fs__revprop_pack_t *pack,
                      svn_revnum_t rev, apr_pool_t *scratch_pool)
{
  svn_cache__t *cache = SVN_FS_FS__DATA(fs)->revprop_cache;
  svn_fs_fs__pair_cache_key_t key;
  svn_string_t dump;
  int i;

  if (cache == NULL)
    return SVN_NO_ERROR;
  make_key(&key, fs, rev);
  for (i = 0; i < pack->count; i++)
    {
      if (pack->start_rev + i == rev)
        continue;
      key.revision = pack->start_rev + i;
      dump.data = pack->body + pack->offsets[i];
      dump.len = pack->sizes[i];
      SVN_ERR(svn_fs_fs__admit_store(cache, SVN_FS_FS__DATA(fs)->admit_salt,
                                     svn_fs_fs__admit_revprops, &key,
                                     sizeof(key), TRUE, &dump,
                                     scratch_pool));
    }
  return SVN_NO_ERROR;
}

/* ------------------------------------------------------------------ */
/* Parsed manifests and packs kept per svn_fs_t                        */

/* 'svn list -v' asks for the revprops of every entry with REFRESH, so
   the membuffer cannot help it; the stock module then reads and parses
   the shard's manifest and a pack file per entry.  We keep a few parsed
   ones (slot_t) and check with one stat() each that they are still what
   the disk holds (held_file_t). */

/* Empty SLOT, closing its file. */
static void
slot_clear(slot_t *slot)
{
  if (slot->pool)
    svn_pool_clear(slot->pool);
  slot->shard_start = SVN_INVALID_REVNUM;
  slot->held.file = NULL;
  slot->held.check_times = FALSE;
}

/* Done with SLOT for now: drop it if it is too large to keep. */
static void
slot_release(slot_t *slot, apr_size_t size)
{
  if (size > KEEP_LIMIT)
    slot_clear(slot);
}

/* Does HELD's path still lead to the file we hold open? */
static svn_boolean_t
still_same_file(const held_file_t *held, apr_pool_t *scratch_pool)
{
  apr_finfo_t finfo;
  apr_int32_t wanted = APR_FINFO_IDENT;

  if (held->check_times)
    wanted |= APR_FINFO_SIZE | APR_FINFO_MTIME;
  if (apr_stat(&finfo, held->path, wanted, scratch_pool) != APR_SUCCESS)
    return FALSE;
  if ((finfo.valid & wanted) != wanted)
    return FALSE;
  if (held->check_times
      && (finfo.size != held->size || finfo.mtime != held->mtime))
    return FALSE;
  return finfo.inode == held->inode && finfo.device == held->device;
}

/* All of FILE from its start into *CONTENT (RESULT_POOL), SIZE (> 0)
   being what it is expected to hold: the size fstat() just gave, or a
   guess.  Each read asks for one byte more than the room left, and a
   read that comes back short is the end of the file (a regular file's
   read is short only there), so a file no bigger than expected costs a
   single read() -- svn_io_file_read_full2() would make a second one to
   see the end, one more system call per revision of a whole-history
   'svn log' (12,765 of them on maven).  A file that grew meanwhile is
   still read whole. */
static svn_error_t *
read_to_end(svn_stringbuf_t **content, apr_file_t *file, apr_size_t size,
            apr_pool_t *result_pool)
{
  svn_stringbuf_t *text = svn_stringbuf_create_ensure(size + 1, result_pool);

  while (TRUE)
    {
      apr_size_t asked = text->blocksize - 1 - text->len;
      apr_size_t n = asked;
      apr_status_t status = apr_file_read(file, text->data + text->len, &n);

      if (status && !APR_STATUS_IS_EOF(status))
        {
          const char *name = NULL;

          apr_file_name_get(&name, file);
          return svn_error_wrap_apr(status, "Can't read file '%s'",
                                    name ? svn_dirent_local_style(
                                             name, result_pool) : "");
        }
      text->len += n;
      if (status || n < asked)
        break;
      svn_stringbuf_ensure(text, text->blocksize * 2);
    }
  text->data[text->len] = '\0';
  *content = text;
  return SVN_NO_ERROR;
}

/* Open PATH for reading into *FILE (POOL); FALSE if it does not exist. */
static svn_error_t *
open_if_exists(svn_boolean_t *exists, apr_file_t **file, const char *path,
               apr_pool_t *pool)
{
  svn_error_t *err = svn_io_file_open(file, path, APR_READ, APR_OS_DEFAULT,
                                      pool);

  *exists = !(err && APR_STATUS_IS_ENOENT(err->apr_err));
  if (!*exists)
    svn_error_clear(err);
  else
    SVN_ERR(err);
  return SVN_NO_ERROR;
}

/* Read all of PATH, a revprops file of FS, into *CONTENT (SCRATCH_POOL)
   without holding it: one open (relative to its shard directory,
   shard_dir.h), one read for a file of up to GUESS bytes, one close, and
   no fstat(); *CONTENT is NULL if PATH does not exist. */
static svn_error_t *
read_once(svn_stringbuf_t **content, svn_fs_t *fs, const char *path,
          apr_size_t guess, apr_pool_t *scratch_pool)
{
  apr_file_t *file = NULL;
  apr_os_file_t fd;
  svn_error_t *err;
  int failed = svn_fs_fs__shard_dir_open(&fd, fs, svn_fs_fs__dir_revprops,
                                         path);

  *content = NULL;
  if (failed == ENOENT)
    return SVN_NO_ERROR;
  if (failed)
    return svn_error_wrap_apr(APR_FROM_OS_ERROR(failed),
                              "Can't open file '%s'",
                              svn_dirent_local_style(path, scratch_pool));
  /* A file without a pool cleanup: closed right here whatever happens. */
  apr_os_file_put(&file, &fd, APR_READ, scratch_pool);
  err = read_to_end(content, file, guess, scratch_pool);
  close(fd);
  return svn_error_trace(err);
}

/* Open PATH as SLOT's held file (in SLOT's pool, created on first use
   under FS's pool) and read all of it into *CONTENT (SCRATCH_POOL);
   *CONTENT is NULL if PATH does not exist. */
static svn_error_t *
hold_and_read(svn_stringbuf_t **content, slot_t *slot, svn_fs_t *fs,
              const char *path, apr_pool_t *scratch_pool)
{
  apr_finfo_t finfo;
  svn_boolean_t exists;

  if (slot->pool == NULL)
    slot->pool = svn_pool_create(fs->pool);
  *content = NULL;
  SVN_ERR(open_if_exists(&exists, &slot->held.file, path, slot->pool));
  if (!exists)
    return SVN_NO_ERROR;
  SVN_ERR(svn_io_file_info_get(&finfo, APR_FINFO_IDENT | APR_FINFO_SIZE
                               | APR_FINFO_MTIME, slot->held.file,
                               scratch_pool));
  slot->held.path = apr_pstrdup(slot->pool, path);
  slot->held.inode = finfo.inode;
  slot->held.device = finfo.device;
  slot->held.size = finfo.size;
  slot->held.mtime = finfo.mtime;
  return svn_error_trace(read_to_end(content, slot->held.file,
                                     finfo.size > 0 ? (apr_size_t)finfo.size
                                                    : 64,
                                     scratch_pool));
}

/* Find the slot among the N of TABLE for which MATCHES (with BATON) is
   TRUE and whose file is unchanged; else clear the one to reuse (the
   matching one or the least recently used) and set *FOUND to FALSE. */
static slot_t *
find_slot(svn_boolean_t *found, revprop_state_t *state, slot_t *table,
          int n, svn_boolean_t (*matches)(const slot_t *, const void *),
          const void *baton, apr_pool_t *scratch_pool)
{
  slot_t *victim = &table[0];
  int i;

  for (i = 0; i < n; i++)
    {
      slot_t *slot = &table[i];

      if (SVN_IS_VALID_REVNUM(slot->shard_start) && matches(slot, baton))
        {
          slot->last_use = ++state->clock;
          /* A mark left by read_plain() holds no file: no hit, but it
             stays for the caller to see. */
          *found = slot->held.file
                   && still_same_file(&slot->held, scratch_pool);
          if (!*found && slot->held.file)
            slot_clear(slot);
          return slot;
        }
      if (slot->last_use < victim->last_use)
        victim = slot;
    }
  slot_clear(victim);
  victim->last_use = ++state->clock;
  *found = FALSE;
  return victim;
}

static svn_boolean_t
manifest_matches(const slot_t *slot, const void *baton)
{
  return slot->shard_start == *(const svn_revnum_t *)baton;
}

/* The manifest of REV's shard, split into lines, in *SLOT, or *SLOT NULL
   if it is missing; give the slot back with slot_release().  Nothing of
   its content is checked here: a damaged line is the error of its own
   revision only (svn_fs_fs__revprop_manifest_get). */
static svn_error_t *
get_manifest(slot_t **result, apr_size_t *size, svn_fs_t *fs,
             svn_revnum_t rev, apr_pool_t *scratch_pool)
{
  revprop_state_t *state = state_of(fs);
  svn_revnum_t start = svn_fs_fs__shard_start(fs, rev);
  svn_boolean_t found;
  slot_t *slot = find_slot(&found, state, state->manifests, MANIFEST_SLOTS,
                           manifest_matches, &start, scratch_pool);
  svn_stringbuf_t *text;
  const char *path;

  *result = NULL;
  *size = 0;
  if (found)
    {
      *result = slot;
      return SVN_NO_ERROR;
    }
  path = pack_file_path(fs, rev, "manifest", scratch_pool);
  SVN_ERR(hold_and_read(&text, slot, fs, path, scratch_pool));
  if (text == NULL)
    {
      slot_clear(slot);
      return SVN_NO_ERROR;
    }
  svn_fs_fs__revprop_manifest_index(
    &slot->manifest, apr_pmemdup(slot->pool, text->data, text->len),
    text->len, manifest_first_rev(fs, rev), slot->pool);
  slot->shard_start = start;
  *size = text->len;
  *result = slot;
  return SVN_NO_ERROR;
}

/* Which pack file a pack slot is for. */
typedef struct pack_id_t
{
  svn_revnum_t shard_start;
  const svn_fs_fs__revprop_manifest_entry_t *entry;
} pack_id_t;

static svn_boolean_t
pack_matches(const slot_t *slot, const void *baton)
{
  const pack_id_t *id = baton;

  return slot->shard_start == id->shard_start
         && slot->name.start_rev == id->entry->start_rev
         && slot->name.counter == id->entry->counter;
}

/* The parsed pack file ENTRY of REV's shard in *SLOT, or *SLOT NULL if it
   is missing; give the slot back with slot_release(). */
static svn_error_t *
get_pack(slot_t **result, apr_size_t *size, svn_fs_t *fs, svn_revnum_t rev,
         const svn_fs_fs__revprop_manifest_entry_t *entry,
         apr_pool_t *scratch_pool)
{
  revprop_state_t *state = state_of(fs);
  pack_id_t id;
  svn_boolean_t found;
  slot_t *slot;
  svn_stringbuf_t *wrapped, *plain;
  const char *path, *where;
  svn_error_t *err;

  id.shard_start = svn_fs_fs__shard_start(fs, rev);
  id.entry = entry;
  slot = find_slot(&found, state, state->packs, PACK_SLOTS, pack_matches,
                   &id, scratch_pool);
  *result = NULL;
  *size = 0;
  if (found)
    {
      *result = slot;
      return SVN_NO_ERROR;
    }
  path = pack_file_path(fs, rev, svn_fs_fs__revprop_pack_name(entry,
                                                              scratch_pool),
                        scratch_pool);
  where = svn_dirent_local_style(path, scratch_pool);
  SVN_ERR(hold_and_read(&wrapped, slot, fs, path, scratch_pool));
  if (wrapped == NULL)
    {
      slot_clear(slot);
      return SVN_NO_ERROR;
    }
  err = svn_fs_fs__revprop_pack_unwrap(&plain, wrapped->data, wrapped->len,
                                       where, slot->pool);
  if (!err)
    err = svn_fs_fs__revprop_pack_parse(&slot->pack, plain->data,
                                        plain->len, where, slot->pool);
  if (!err && slot->pack.start_rev != entry->start_rev)
    err = svn_fs_fs__corrupt("RPPACK-5", where,
                             "Revprop pack starts at r%ld, not r%ld",
                             slot->pack.start_rev, entry->start_rev);
  if (err)
    {
      slot_clear(slot);
      return svn_error_trace(err);
    }
  slot->shard_start = id.shard_start;
  slot->name = *entry;
  *size = plain->len;
  *result = slot;
  return SVN_NO_ERROR;
}

/* TRUE, with *ENTRY filled, if the line of R in MANIFEST is readable. */
static svn_boolean_t
line_readable(svn_fs_fs__revprop_manifest_entry_t *entry,
              const svn_fs_fs__revprop_manifest_t *manifest, svn_revnum_t r)
{
  svn_error_t *err = svn_fs_fs__revprop_manifest_get(entry, manifest, r,
                                                     NULL);
  svn_error_clear(err);
  return err == SVN_NO_ERROR;
}

/* Where REV's revprops may be, from the manifest of its shard: REV's own
   line (*OWN, or *OWN_ERR if that line is damaged) and the nearest
   readable lines before and after it (*OTHERS, *N_OTHERS of them).
   *MISSING if there is no manifest. */
static svn_error_t *
pack_candidates(svn_fs_fs__revprop_manifest_entry_t *own,
                svn_error_t **own_err,
                svn_fs_fs__revprop_manifest_entry_t others[2], int *n_others,
                svn_boolean_t *missing, svn_fs_t *fs, svn_revnum_t rev,
                apr_pool_t *scratch_pool)
{
  const svn_fs_fs__revprop_manifest_t *manifest;
  slot_t *slot;
  apr_size_t size;
  svn_revnum_t r;

  *n_others = 0;
  *own_err = SVN_NO_ERROR;
  SVN_ERR(get_manifest(&slot, &size, fs, rev, scratch_pool));
  *missing = slot == NULL;
  if (slot == NULL)
    return SVN_NO_ERROR;
  manifest = &slot->manifest;
  *own_err = svn_fs_fs__revprop_manifest_get(
               own, manifest, rev,
               svn_dirent_local_style(slot->held.path, scratch_pool));
  /* A pack holds a run of revisions and says which (RPPACK-5), so a
     readable line next to a damaged one leads to REV's pack whenever REV
     is not alone in it. */
  for (r = rev - 1; r >= manifest->first_rev; r--)
    if (line_readable(&others[*n_others], manifest, r))
      {
        ++*n_others;
        break;
      }
  for (r = rev + 1; r < manifest->first_rev + manifest->count; r++)
    if (line_readable(&others[*n_others], manifest, r))
      {
        ++*n_others;
        break;
      }
  slot_release(slot, size);
  return SVN_NO_ERROR;
}

int
svn_fs_fs__revprop_packs_held(svn_fs_t *fs)
{
  revprop_state_t *state = state_of(fs);
  int i, held = 0;

  for (i = 0; i < PACK_SLOTS; i++)
    held += SVN_IS_VALID_REVNUM(state->packs[i].shard_start);
  return held;
}

/* How a reader goes through revisions, for what its pack slots keep. */
typedef enum read_mode_t
{
  /* One revision now, maybe others later in any order (REFRESH reads of
     'svn list -v'): the pack slots keep what they read. */
  READ_ONE,

  /* Then its neighbours too (log, dump): the rest of the pack goes into
     the membuffer. */
  READ_NEIGHBOURS,

  /* Every revision once, in ascending order, uncached (verify): a pack
     is let go once its last revision was read.  Kept in the slots until
     pushed out, the four packs of each svn_fs_t were ~1 MB of the peak
     RSS of 'svnadmin verify' of packed full maven. */
  READ_IN_ORDER
} read_mode_t;

/* REV's dump from the pack file named ENTRY, in RESULT_POOL: *DUMP NULL
   if that file is missing or does not hold REV (then *NOT_HELD says
   which pack it was, for the error). */
static svn_error_t *
read_from_pack(svn_string_t **dump, const char **where,
               svn_error_t **not_held, svn_fs_t *fs, svn_revnum_t rev,
               const svn_fs_fs__revprop_manifest_entry_t *entry,
               read_mode_t mode, apr_pool_t *result_pool,
               apr_pool_t *scratch_pool)
{
  const svn_fs_fs__revprop_pack_t *pack;
  slot_t *slot;
  apr_size_t size;
  svn_error_t *err = SVN_NO_ERROR;
  int i;

  *dump = NULL;
  *not_held = SVN_NO_ERROR;
  SVN_ERR(get_pack(&slot, &size, fs, rev, entry, scratch_pool));
  if (slot == NULL)
    return SVN_NO_ERROR;
  pack = &slot->pack;
  i = (int)(rev - pack->start_rev);
  if (i >= pack->count)
    *not_held = svn_fs_fs__corrupt("RPPACK-2", NULL,
                                   "Revprop pack r%ld+%d does not hold r%ld",
                                   pack->start_rev, pack->count, rev);
  else
    {
      *dump = svn_string_ncreate(pack->body + pack->offsets[i],
                                 pack->sizes[i], result_pool);
      *where = apr_psprintf(result_pool, "packed revprops of r%ld", rev);
      if (mode == READ_NEIGHBOURS)
        err = cache_pack_neighbours(fs, pack, rev, scratch_pool);
      if (mode == READ_IN_ORDER && i == pack->count - 1)
        slot_clear(slot);
    }
  slot_release(slot, size);
  return svn_error_trace(err);
}

/* The hash dump of REV from its packed shard, in RESULT_POOL, and *WHERE
   to name it in parse errors; *DUMP NULL if a file vanished.  With
   NEIGHBOURS, cache the other revisions of the pack file too.

   A reader needs REV's pack, not REV's manifest line: when that line is
   damaged, the pack named by a readable neighbouring line serves if its
   own header says it holds REV (RPPACK-5 ties name and content), and
   only otherwise is the damaged line reported (RPPACK-1, RPPACK-2). */
static svn_error_t *
read_packed(svn_string_t **dump, const char **where, svn_fs_t *fs,
            svn_revnum_t rev, read_mode_t mode,
            apr_pool_t *result_pool, apr_pool_t *scratch_pool)
{
  svn_fs_fs__revprop_manifest_entry_t own, others[2];
  svn_error_t *own_err, *not_held;
  svn_boolean_t missing, own_ok;
  int n_others, k;

  *dump = NULL;
  SVN_ERR(pack_candidates(&own, &own_err, others, &n_others, &missing, fs,
                          rev, scratch_pool));
  if (missing)
    return SVN_NO_ERROR;
  own_ok = own_err == SVN_NO_ERROR;
  if (own_ok)
    {
      SVN_ERR(read_from_pack(dump, where, &not_held, fs, rev, &own,
                             mode, result_pool, scratch_pool));
      if (*dump)
        return SVN_NO_ERROR;
      /* REV's pack is missing (a concurrent rewrite, or a damaged line
         naming a file that never was) or does not hold REV. */
      own_err = not_held;
    }
  for (k = 0; k < n_others && *dump == NULL; k++)
    {
      svn_error_t *err;

      /* The same pack again tells nothing new. */
      if (own_ok && others[k].start_rev == own.start_rev
          && others[k].counter == own.counter)
        continue;
      err = read_from_pack(dump, where, &not_held, fs, rev, &others[k],
                           mode, result_pool, scratch_pool);
      /* A neighbour's pack that does not help leaves REV's own error. */
      svn_error_clear(not_held);
      if (err)
        {
          svn_error_clear(err);
          *dump = NULL;
        }
    }
  if (*dump)
    {
      svn_error_clear(own_err);
      return SVN_NO_ERROR;
    }
  /* No error at all: REV's own pack is missing; the caller refreshes the
     pack boundary and tries again (REVPROP-4). */
  return svn_error_trace(own_err);
}

/* ------------------------------------------------------------------ */
/* Reading                                                             */

static svn_boolean_t
plain_matches(const slot_t *slot, const void *baton)
{
  return slot->shard_start == *(const svn_revnum_t *)baton;
}

/* The hash dump of REV from its own file, in RESULT_POOL, and *WHERE to
   name it in parse errors; *DUMP NULL if the file is missing.

   A revision read for the first time lately is read and let go (open,
   read, close: 'svn log' reads each revision once, and holding its file
   would cost an fstat() per revision); its slot keeps only a mark.  Read
   again while the mark stands (the REFRESH reads of 'svn list -v' ask
   for the same few revisions over and over), the file is read once more
   and held open (held_file_t) with its bytes, and from then on a read of
   it costs one stat(). */
static svn_error_t *
read_plain(svn_string_t **dump, const char **where, svn_fs_t *fs,
           svn_revnum_t rev, apr_pool_t *result_pool,
           apr_pool_t *scratch_pool)
{
  revprop_state_t *state = state_of(fs);
  const char *path = svn_fs_fs__path_revprops(fs, rev, scratch_pool);
  svn_boolean_t found;
  slot_t *slot = find_slot(&found, state, state->plains, PLAIN_SLOTS,
                           plain_matches, &rev, scratch_pool);
  svn_stringbuf_t *text;

  *dump = NULL;
  *where = svn_dirent_local_style(path, result_pool);
  if (!found && slot->shard_start != rev)
    {
      SVN_ERR(read_once(&text, fs, path, PLAIN_GUESS, scratch_pool));
      if (text)
        {
          slot->shard_start = rev;
          *dump = svn_string_ncreate(text->data, text->len, result_pool);
        }
      return SVN_NO_ERROR;
    }
  if (!found)
    {
      slot_clear(slot);
      SVN_ERR(hold_and_read(&text, slot, fs, path, scratch_pool));
      if (text == NULL)
        {
          slot_clear(slot);
          return SVN_NO_ERROR;
        }
      slot->held.check_times = TRUE;
      slot->plain.data = apr_pmemdup(slot->pool, text->data, text->len);
      slot->plain.len = text->len;
      slot->shard_start = rev;
    }
  *dump = svn_string_ncreate(slot->plain.data, slot->plain.len, result_pool);
  slot_release(slot, slot->plain.len);
  return SVN_NO_ERROR;
}

/* One attempt from wherever min-unpacked-rev says REV lives. */
static svn_error_t *
read_revprops_once(svn_string_t **dump, const char **where, svn_fs_t *fs,
                   svn_revnum_t rev, read_mode_t mode,
                   apr_pool_t *result_pool, apr_pool_t *scratch_pool)
{
  if (revprops_packed(fs, rev))
    return svn_error_trace(read_packed(dump, where, fs, rev, mode,
                                       result_pool, scratch_pool));
  return svn_error_trace(read_plain(dump, where, fs, rev, result_pool,
                                    scratch_pool));
}

/* Read REV's hash dump from disk (see read_revprops_once); a file that
   vanished means a concurrent pack or rewrite: refresh the pack boundary
   and try once more (REVPROP-4). */
static svn_error_t *
read_revprops(svn_string_t **dump, const char **where, svn_fs_t *fs,
              svn_revnum_t rev, read_mode_t mode,
              apr_pool_t *result_pool, apr_pool_t *scratch_pool)
{
  SVN_ERR(read_revprops_once(dump, where, fs, rev, mode, result_pool,
                             scratch_pool));
  if (*dump)
    return SVN_NO_ERROR;
  SVN_ERR(svn_fs_fs__update_min_unpacked_rev(fs, scratch_pool));
  SVN_ERR(read_revprops_once(dump, where, fs, rev, mode, result_pool,
                             scratch_pool));
  /* Stock's code for this case is SVN_ERR_FS_NO_SUCH_REVISION. */
  if (*dump == NULL)
    return svn_fs_fs__corrupt_code(SVN_ERR_FS_NO_SUCH_REVISION, "REVPROP-1",
                                   NULL, "Could not read revprops for "
                                   "revision %ld", rev);
  return SVN_NO_ERROR;
}

/* ------------------------------------------------------------------ */
/* Cache                                                               */

/* Cache values are svn_string_t hash dumps, stored as their bytes. */
static svn_error_t *
serialize_dump(void **data, apr_size_t *data_len, void *in,
               apr_pool_t *pool)
{
  const svn_string_t *dump = in;

  *data = (void *)dump->data;
  *data_len = dump->len;
  return SVN_NO_ERROR;
}

/* DATA is the cache's private copy in POOL; wrap it, do not copy it. */
static svn_error_t *
deserialize_dump(void **out, void *data, apr_size_t data_len,
                 apr_pool_t *pool)
{
  svn_string_t *dump = apr_palloc(pool, sizeof(*dump));

  dump->data = data;
  dump->len = data_len;
  *out = dump;
  return SVN_NO_ERROR;
}

/* REV's props from the cache of FS, or *PROPLIST NULL.  A cached dump
   that does not parse is a miss (see the file header). */
static svn_error_t *
cache_lookup(apr_hash_t **proplist, svn_fs_t *fs,
             const svn_fs_fs__pair_cache_key_t *key, apr_pool_t *result_pool)
{
  svn_fs_fs__data_t *ffd = SVN_FS_FS__DATA(fs);
  svn_boolean_t found = FALSE;
  svn_string_t *dump;
  svn_error_t *err;

  *proplist = NULL;
  if (ffd->revprop_cache == NULL)
    return SVN_NO_ERROR;
  SVN_ERR(svn_fs_fs__admit_get((void **)&dump, &found, ffd->revprop_cache,
                               ffd->admit_salt, svn_fs_fs__admit_revprops,
                               key, sizeof(*key), result_pool));
  if (!found)
    return SVN_NO_ERROR;
  err = svn_fs_fs__hashdump_parse(proplist, NULL, dump->data, dump->len,
                                  "revprop cache", result_pool);
  if (err)
    {
      svn_error_clear(err);
      *proplist = NULL;
    }
  return SVN_NO_ERROR;
}

svn_error_t *
svn_fs_fs__revprops_init_caches(svn_fs_t *fs, apr_pool_t *scratch_pool)
{
  svn_fs_fs__data_t *ffd = SVN_FS_FS__DATA(fs);

  state_of(fs);
  return svn_error_trace(svn_fs_fs__make_cache(
           &ffd->revprop_cache,
           svn_fs_fs__own_keys_membuffer(scratch_pool),
           serialize_dump, deserialize_dump,
           sizeof(svn_fs_fs__pair_cache_key_t),
           ffd->cache_prefix ? ffd->cache_prefix : "fsfs7:", "REVPROPS",
           SVN_CACHE__MEMBUFFER_DEFAULT_PRIORITY, fs->pool, scratch_pool));
}

svn_error_t *
svn_fs_fs__reset_revprop_cache(svn_fs_t *fs)
{
  state_of(fs)->generation = svn_atomic_inc(&last_generation) + 1;
  return SVN_NO_ERROR;
}

/* Parse DUMP, REV's revprops read from WHERE, into *PROPLIST.  A dump
   that does not parse is reported as stock reports it (the code
   SVN_ERR_MALFORMED_FILE, "Failed to parse revprops for rN."), with our
   message naming the location and the rule as its cause. */
static svn_error_t *
parse_dump(apr_hash_t **proplist, svn_revnum_t rev, const svn_string_t *dump,
           const char *where, apr_pool_t *result_pool)
{
  svn_error_t *err = svn_fs_fs__hashdump_parse(proplist, NULL, dump->data,
                                               dump->len, where,
                                               result_pool);

  if (err)
    return svn_error_createf(SVN_ERR_MALFORMED_FILE, err,
                             "Failed to parse revprops for r%ld.", rev);
  return SVN_NO_ERROR;
}

svn_error_t *
svn_fs_fs__get_revprops(apr_hash_t **proplist, svn_fs_t *fs, svn_revnum_t rev,
                        svn_boolean_t refresh, apr_pool_t *result_pool,
                        apr_pool_t *scratch_pool)
{
  svn_fs_fs__data_t *ffd = SVN_FS_FS__DATA(fs);
  svn_fs_fs__pair_cache_key_t key;
  svn_string_t *dump;
  const char *where;

  SVN_ERR(svn_fs_fs__ensure_revision_exists(rev, fs, scratch_pool));
  if (refresh)
    SVN_ERR(svn_fs_fs__reset_revprop_cache(fs));
  make_key(&key, fs, rev);
  if (!refresh)
    {
      SVN_ERR(cache_lookup(proplist, fs, &key, result_pool));
      if (*proplist)
        return SVN_NO_ERROR;
    }
  /* Callers that always refresh (svn_repos_get_committed_info, once per
     entry of 'svn list -v') would gain nothing from the neighbours: the
     next call moves to a new generation again. */
  SVN_ERR(read_revprops(&dump, &where, fs, rev,
                        refresh ? READ_ONE : READ_NEIGHBOURS, scratch_pool,
                        scratch_pool));
  SVN_ERR(parse_dump(proplist, rev, dump, where, result_pool));
  /* Nor the revision itself after a REFRESH read, for the same reason:
     'svn list -v' wrote one never-read entry per listed path, which
     touched every page of the membuffer (peak RSS) and cost a copy. */
  if (ffd->revprop_cache && !refresh)
    SVN_ERR(svn_fs_fs__admit_store(ffd->revprop_cache, ffd->admit_salt,
                                   svn_fs_fs__admit_revprops, &key,
                                   sizeof(key), TRUE, dump, scratch_pool));
  return SVN_NO_ERROR;
}

/* Verify's check of a packed REV's manifest line: readers can do
   without it when a neighbouring line leads to REV's pack (read_packed),
   verify reports it (RPPACK-1, RPPACK-2: also when it names a pack that
   does not exist or does not hold REV), and wants the order of the lines
   to hold between REV - 1 and REV (RPPACK-3) and no more lines than the
   shard has revisions (RPPACK-1: a duplicated line shifts the lines after
   it, which readers survive through the packs' own headers). */
static svn_error_t *
verify_manifest_line(svn_fs_t *fs, svn_revnum_t rev,
                     apr_pool_t *scratch_pool)
{
  svn_fs_fs__revprop_manifest_entry_t entry;
  const char *where, *dump_where;
  svn_string_t *dump;
  slot_t *slot;
  apr_size_t size;
  svn_error_t *err, *not_held;

  if (!revprops_packed(fs, rev))
    return SVN_NO_ERROR;
  SVN_ERR(get_manifest(&slot, &size, fs, rev, scratch_pool));
  if (slot == NULL)
    return SVN_NO_ERROR;
  where = svn_dirent_local_style(slot->held.path, scratch_pool);
  err = svn_fs_fs__revprop_manifest_check_count(&slot->manifest,
                                                manifest_lines(fs, rev),
                                                where);
  if (!err)
    err = svn_fs_fs__revprop_manifest_get(&entry, &slot->manifest, rev,
                                          where);
  if (!err)
    err = svn_fs_fs__revprop_manifest_check_order(&slot->manifest, rev,
                                                  where);
  slot_release(slot, size);
  SVN_ERR(err);

  /* The pack the line names must exist and hold REV (RPPACK-2).  Verify
     asks for every revision once, in order. */
  SVN_ERR(read_from_pack(&dump, &dump_where, &not_held, fs, rev, &entry,
                         READ_IN_ORDER, scratch_pool, scratch_pool));
  if (dump == NULL && not_held == SVN_NO_ERROR)
    return svn_fs_fs__corrupt_code(SVN_ERR_FS_CORRUPT_REVPROP_MANIFEST,
                                   "RPPACK-2", where,
                                   "Manifest names pack %s for r%ld, which "
                                   "does not exist",
                                   svn_fs_fs__revprop_pack_name(
                                     &entry, scratch_pool), rev);
  return svn_error_trace(not_held);
}

svn_error_t *
svn_fs_fs__verify_revprop_manifest(svn_fs_t *fs, svn_revnum_t rev,
                                   apr_pool_t *scratch_pool)
{
  return svn_error_trace(verify_manifest_line(fs, rev, scratch_pool));
}

svn_error_t *
svn_fs_fs__verify_revprops(svn_fs_t *fs, svn_revnum_t rev,
                           apr_pool_t *scratch_pool)
{
  svn_string_t *dump;
  const char *where;
  apr_hash_t *proplist;
  const svn_string_t *date;
  apr_time_t when;
  svn_error_t *err;

  /* READ_ONE: verify_manifest_line reads the pack again next, and lets
     it go after its last revision. */
  SVN_ERR(read_revprops(&dump, &where, fs, rev, READ_ONE, scratch_pool,
                        scratch_pool));
  SVN_ERR(verify_manifest_line(fs, rev, scratch_pool));
  SVN_ERR(parse_dump(&proplist, rev, dump, where, scratch_pool));
  date = svn_hash_gets(proplist, SVN_PROP_REVISION_DATE);
  if (date == NULL)
    return SVN_NO_ERROR;
  err = svn_time_from_cstring(&when, date->data, scratch_pool);
  if (err)
    return svn_error_quick_wrapf(err, "Revision %ld has an unreadable "
                                 "svn:date '%s' (%s, rule REVPROP-5)", rev,
                                 date->data, where);
  return SVN_NO_ERROR;
}

/* ------------------------------------------------------------------ */
/* Writing                                                             */

/* The file whose mode the revprop files of REV take when they are
   written: REV's revision file, packed or not (REVPROP-3, RPPACK-7).  It
   exists whatever the revprops' state, and in a repository shared by a
   group it has the group's mode, which the writer's umask may not give. */
static const char *
perms_reference(svn_fs_t *fs, svn_revnum_t rev, apr_pool_t *result_pool)
{
  return svn_fs_fs__is_packed_rev(fs, rev)
         ? svn_fs_fs__path_rev_packed(fs, rev, "pack", result_pool)
         : svn_fs_fs__path_rev(fs, rev, result_pool);
}

/* Atomically replace PATH, a file of FS, by DATA: a temp file in the same
   directory (synced), then a rename (and the directory synced).  Both
   syncs are skipped when FS's opener waived flushes (durable.h).  The
   new file gets the mode of PERMS_FROM, or with NULL the default mode
   (umask). */
static svn_error_t *
replace_file(svn_fs_t *fs, const char *path, const svn_stringbuf_t *data,
             const char *perms_from, apr_pool_t *scratch_pool)
{
  svn_boolean_t flush = svn_fs_fs__flush_wanted(fs);
  apr_file_t *file;
  const char *tmp;
  svn_error_t *err;

  SVN_ERR(svn_io_open_unique_file3(&file, &tmp,
                                   svn_dirent_dirname(path, scratch_pool),
                                   svn_io_file_del_none, scratch_pool,
                                   scratch_pool));
  err = svn_io_file_write_full(file, data->data, data->len, NULL,
                               scratch_pool);
  if (!err && flush)
    err = svn_io_file_flush_to_disk(file, scratch_pool);
  err = svn_error_compose_create(err, svn_io_file_close(file, scratch_pool));
  if (!err && perms_from)
    err = svn_io_copy_perms(perms_from, tmp, scratch_pool);
  if (!err)
    err = svn_io_file_rename2(tmp, path, flush, scratch_pool);
  if (err)
    /* (a full disk, say): the old file stands; leave no temp file */
    svn_error_clear(svn_io_remove_file2(tmp, TRUE, scratch_pool));
  return svn_error_trace(err);
}

/* Revprops of a revision that is not packed: its own file. */
static svn_error_t *
write_plain(svn_fs_t *fs, svn_revnum_t rev, apr_hash_t *proplist,
            apr_pool_t *scratch_pool)
{
  svn_stringbuf_t *dump = svn_stringbuf_create_empty(scratch_pool);

  svn_fs_fs__hashdump_unparse(dump, proplist, scratch_pool);
  return svn_error_trace(replace_file(
           fs, svn_fs_fs__path_revprops(fs, rev, scratch_pool), dump,
           perms_reference(fs, rev, scratch_pool), scratch_pool));
}

/* Write a pack file named after ENTRY holding DUMPS[FIRST .. LAST], with
   the mode of PERMS_FROM (NULL: the default mode). */
static svn_error_t *
write_pack_file(svn_fs_t *fs, svn_revnum_t shard_rev,
                const svn_fs_fs__revprop_manifest_entry_t *entry,
                const apr_array_header_t *dumps, int first, int last,
                const char *perms_from, apr_pool_t *scratch_pool)
{
  svn_fs_fs__data_t *ffd = SVN_FS_FS__DATA(fs);
  apr_array_header_t *part = apr_array_make(scratch_pool, last - first + 1,
                                            sizeof(svn_stringbuf_t *));
  svn_stringbuf_t *plain = svn_stringbuf_create_empty(scratch_pool);
  svn_stringbuf_t *wrapped;
  int i;

  for (i = first; i <= last; i++)
    APR_ARRAY_PUSH(part, svn_stringbuf_t *)
      = APR_ARRAY_IDX(dumps, i, svn_stringbuf_t *);
  svn_fs_fs__revprop_pack_unparse(plain, entry->start_rev, part,
                                  scratch_pool);
  SVN_ERR(svn_fs_fs__revprop_pack_wrap(&wrapped, plain,
                                       ffd->compress_packed_revprops,
                                       scratch_pool));
  return svn_error_trace(replace_file(
           fs, pack_file_path(fs, shard_rev,
                          svn_fs_fs__revprop_pack_name(entry, scratch_pool),
                          scratch_pool),
           wrapped, perms_from, scratch_pool));
}

/* Serialized revprops of every revision of PACK, with REV's replaced by
   PROPLIST, as an array of svn_stringbuf_t *. */
static apr_array_header_t *
pack_dumps(const svn_fs_fs__revprop_pack_t *pack, svn_revnum_t rev,
           apr_hash_t *proplist, apr_size_t *total, apr_pool_t *result_pool)
{
  apr_array_header_t *dumps = apr_array_make(result_pool, pack->count,
                                             sizeof(svn_stringbuf_t *));
  int i;

  *total = 0;
  for (i = 0; i < pack->count; i++)
    {
      svn_stringbuf_t *dump;

      if (pack->start_rev + i == rev)
        {
          dump = svn_stringbuf_create_empty(result_pool);
          svn_fs_fs__hashdump_unparse(dump, proplist, result_pool);
        }
      else
        dump = svn_stringbuf_ncreate(pack->body + pack->offsets[i],
                                     pack->sizes[i], result_pool);
      APR_ARRAY_PUSH(dumps, svn_stringbuf_t *) = dump;
      *total += dump->len + 12;  /* dump plus its size line, roughly */
    }
  return dumps;
}

/* Split a pack that outgrew the limit into the revisions before REV,
   REV alone and those after it, each with the next counter (RPPACK-7);
   then switch the manifest over and remove the old file. */
static svn_error_t *
split_pack(svn_fs_t *fs, svn_revnum_t rev, apr_array_header_t *entries,
           const svn_fs_fs__revprop_manifest_entry_t *old,
           const svn_fs_fs__revprop_pack_t *pack,
           const apr_array_header_t *dumps, apr_pool_t *scratch_pool)
{
  svn_fs_fs__revprop_manifest_entry_t parts[3];
  int bounds[3][2], n = 0, p, i;
  int at = (int)(rev - pack->start_rev);
  apr_int64_t counter = old->counter + 1;
  svn_revnum_t first_rev = manifest_first_rev(fs, rev);
  svn_stringbuf_t *manifest = svn_stringbuf_create_empty(scratch_pool);
  const char *old_name = svn_fs_fs__revprop_pack_name(old, scratch_pool);

  if (at > 0)
    { bounds[n][0] = 0; bounds[n][1] = at - 1; n++; }
  bounds[n][0] = at; bounds[n][1] = at; n++;
  if (at < pack->count - 1)
    { bounds[n][0] = at + 1; bounds[n][1] = pack->count - 1; n++; }
  for (p = 0; p < n; p++)
    {
      parts[p].start_rev = pack->start_rev + bounds[p][0];
      parts[p].counter = counter;
      SVN_ERR(write_pack_file(fs, rev, &parts[p], dumps, bounds[p][0],
                              bounds[p][1], NULL, scratch_pool));
      for (i = bounds[p][0]; i <= bounds[p][1]; i++)
        APR_ARRAY_IDX(entries, pack->start_rev + i - first_rev,
                      svn_fs_fs__revprop_manifest_entry_t) = parts[p];
    }
  svn_fs_fs__revprop_manifest_unparse(manifest, entries);
  SVN_ERR(replace_file(fs,
                       pack_file_path(fs, rev, "manifest", scratch_pool),
                       manifest, perms_reference(fs, rev, scratch_pool),
                       scratch_pool));
  return svn_error_trace(svn_io_remove_file2(
           pack_file_path(fs, rev, old_name, scratch_pool), TRUE,
           scratch_pool));
}

/* Revprops of a packed revision: rewrite its pack in place while it fits
   the size limit (or holds only REV), else split it. */
static svn_error_t *
write_packed(svn_fs_t *fs, svn_revnum_t rev, apr_hash_t *proplist,
             apr_pool_t *scratch_pool)
{
  svn_fs_fs__data_t *ffd = SVN_FS_FS__DATA(fs);
  apr_array_header_t *entries, *dumps;
  svn_fs_fs__revprop_manifest_t manifest;
  svn_fs_fs__revprop_manifest_entry_t entry;
  svn_fs_fs__revprop_pack_t pack;
  svn_stringbuf_t *text, *plain;
  const char *path, *where;
  apr_size_t total;

  SVN_ERR(read_manifest_text(&text, &path, fs, rev, scratch_pool));
  if (text == NULL)
    return svn_fs_fs__corrupt_code(SVN_ERR_FS_CORRUPT_REVPROP_MANIFEST,
                                   "RPPACK-1", NULL,
                                   "Missing revprop manifest for r%ld", rev);
  where = svn_dirent_local_style(path, scratch_pool);
  svn_fs_fs__revprop_manifest_index(&manifest, text->data, text->len,
                                    manifest_first_rev(fs, rev),
                                    scratch_pool);
  SVN_ERR(svn_fs_fs__revprop_manifest_get(&entry, &manifest, rev, where));
  SVN_ERR(read_pack(&pack, &plain, fs, rev, &entry, scratch_pool,
                    scratch_pool));
  if (pack.body == NULL || rev - pack.start_rev >= pack.count)
    return svn_fs_fs__corrupt("RPPACK-2", NULL,
                              "Revprop pack for r%ld is missing", rev);
  dumps = pack_dumps(&pack, rev, proplist, &total, scratch_pool);
  /* Rewriting the pack in place needs only REV's line ... */
  if (pack.count == 1 || total <= (apr_size_t)ffd->revprop_pack_size)
    return svn_error_trace(write_pack_file(
             fs, rev, &entry, dumps, 0, pack.count - 1,
             perms_reference(fs, rev, scratch_pool), scratch_pool));
  /* ... but a split writes a new manifest: every line must be sound, and
     no line too many, or we would spread the damage (RPPACK-7). */
  SVN_ERR(svn_fs_fs__revprop_manifest_check_count(&manifest,
                                                  manifest_lines(fs, rev),
                                                  where));
  SVN_ERR(svn_fs_fs__revprop_manifest_parse(&entries, text->data, text->len,
                                            manifest_first_rev(fs, rev),
                                            where, scratch_pool));
  return svn_error_trace(split_pack(fs, rev, entries, &entry, &pack, dumps,
                                    scratch_pool));
}

svn_error_t *
svn_fs_fs__set_revprops(svn_fs_t *fs, svn_revnum_t rev, apr_hash_t *proplist,
                        apr_pool_t *scratch_pool)
{
  svn_fs_fs__data_t *ffd = SVN_FS_FS__DATA(fs);

  /* Under the write lock nobody packs, so this answer stays valid. */
  SVN_ERR(svn_fs_fs__update_min_unpacked_rev(fs, scratch_pool));
  if (revprops_packed(fs, rev))
    SVN_ERR(write_packed(fs, rev, proplist, scratch_pool));
  else
    SVN_ERR(write_plain(fs, rev, proplist, scratch_pool));
  if (ffd->revprop_cache)
    {
      svn_fs_fs__pair_cache_key_t key;
      svn_stringbuf_t *dump = svn_stringbuf_create_empty(scratch_pool);

      svn_fs_fs__hashdump_unparse(dump, proplist, scratch_pool);
      make_key(&key, fs, rev);
      SVN_ERR(svn_fs_fs__admit_store(ffd->revprop_cache, ffd->admit_salt,
                                     svn_fs_fs__admit_revprops, &key,
                                     sizeof(key), TRUE,
                                     svn_stringbuf__morph_into_string(dump),
                                     scratch_pool));
    }
  return SVN_NO_ERROR;
}

/* ------------------------------------------------------------------ */
/* Packing a shard                                                     */

/* Per-revision overhead the stock packer adds to a dump's size when it
   decides where a pack file ends (RPPACK-8; measured on stock output). */
#define PACK_ENTRY_OVERHEAD 21

/* Write pack file "<START>.0" with DUMPS into PACK_DIR. */
static svn_error_t *
write_initial_pack(const char *pack_dir, svn_revnum_t start,
                   const apr_array_header_t *dumps, svn_boolean_t compress,
                   apr_pool_t *scratch_pool)
{
  svn_stringbuf_t *plain = svn_stringbuf_create_empty(scratch_pool);
  svn_stringbuf_t *wrapped;

  svn_fs_fs__revprop_pack_unparse(plain, start, dumps, scratch_pool);
  SVN_ERR(svn_fs_fs__revprop_pack_wrap(&wrapped, plain, compress,
                                       scratch_pool));
  return svn_error_trace(svn_io_file_create_bytes(
           svn_dirent_join(pack_dir, apr_psprintf(scratch_pool, "%ld.0",
                                                  start), scratch_pool),
           wrapped->data, wrapped->len, scratch_pool));
}

/* The verified plain dump of REV. */
static svn_error_t *
read_plain_dump(svn_stringbuf_t **dump, svn_fs_t *fs, svn_revnum_t rev,
                apr_pool_t *result_pool, apr_pool_t *scratch_pool)
{
  const char *path = svn_fs_fs__path_revprops(fs, rev, scratch_pool);
  apr_hash_t *props;

  SVN_ERR(svn_stringbuf_from_file2(dump, path, result_pool));
  return svn_error_trace(svn_fs_fs__hashdump_parse(
           &props, NULL, (*dump)->data, (*dump)->len,
           svn_dirent_local_style(path, scratch_pool), scratch_pool));
}

svn_error_t *
svn_fs_fs__pack_revprops_shard(svn_fs_t *fs, svn_revnum_t shard,
                               svn_cancel_func_t cancel_func,
                               void *cancel_baton, apr_pool_t *scratch_pool)
{
  svn_fs_fs__data_t *ffd = SVN_FS_FS__DATA(fs);
  svn_revnum_t start = shard * ffd->max_files_per_dir;
  svn_revnum_t first = start == 0 ? 1 : start, rev, pack_start = first;
  const char *pack_dir = svn_fs_fs__path_revprops_pack_shard(fs, start,
                                                             scratch_pool);
  apr_array_header_t *dumps = apr_array_make(scratch_pool, 64,
                                             sizeof(svn_stringbuf_t *));
  apr_array_header_t *entries = apr_array_make(
    scratch_pool, ffd->max_files_per_dir,
    sizeof(svn_fs_fs__revprop_manifest_entry_t));
  svn_stringbuf_t *manifest = svn_stringbuf_create_empty(scratch_pool);
  /* The container header (first revision, count) is costed like two
     more revisions' overhead; measured on stock packs of 1 kB. */
  apr_int64_t budget = ffd->revprop_pack_size * 9 / 10;
  apr_int64_t used = 2 * PACK_ENTRY_OVERHEAD;

  SVN_ERR(svn_io_remove_dir2(pack_dir, TRUE, cancel_func, cancel_baton,
                             scratch_pool));
  /* The mode of the directory it replaces, as stock: in a repository
     shared by a group, everyone must be able to rewrite packs (setlog). */
  SVN_ERR(svn_io_dir_make(pack_dir, APR_OS_DEFAULT, scratch_pool));
  SVN_ERR(svn_io_copy_perms(svn_fs_fs__path_revprops_shard(fs, start,
                                                           scratch_pool),
                            pack_dir, scratch_pool));
  for (rev = first; rev < start + ffd->max_files_per_dir; rev++)
    {
      svn_fs_fs__revprop_manifest_entry_t entry;
      svn_stringbuf_t *dump;

      if (cancel_func)
        SVN_ERR(cancel_func(cancel_baton));
      SVN_ERR(read_plain_dump(&dump, fs, rev, scratch_pool, scratch_pool));
      if (dumps->nelts > 0
          && used + (apr_int64_t)dump->len + PACK_ENTRY_OVERHEAD > budget)
        {
          SVN_ERR(write_initial_pack(pack_dir, pack_start, dumps,
                                     ffd->compress_packed_revprops,
                                     scratch_pool));
          apr_array_clear(dumps);
          pack_start = rev;
          used = 2 * PACK_ENTRY_OVERHEAD;
        }
      APR_ARRAY_PUSH(dumps, svn_stringbuf_t *) = dump;
      used += dump->len + PACK_ENTRY_OVERHEAD;
      entry.start_rev = pack_start;
      entry.counter = 0;
      APR_ARRAY_PUSH(entries, svn_fs_fs__revprop_manifest_entry_t) = entry;
    }
  /* Shard 0 of a repository with one revision per shard holds only r0,
     which is never packed: an empty manifest and no pack file, as stock. */
  if (dumps->nelts > 0)
    SVN_ERR(write_initial_pack(pack_dir, pack_start, dumps,
                               ffd->compress_packed_revprops, scratch_pool));
  svn_fs_fs__revprop_manifest_unparse(manifest, entries);
  return svn_error_trace(svn_io_file_create_bytes(
           svn_dirent_join(pack_dir, "manifest", scratch_pool),
           manifest->data, manifest->len, scratch_pool));
}

void
svn_fs_fs__unpacked_revprops_dir(const char **dir, const char **keep,
                                 svn_fs_t *fs, svn_revnum_t shard,
                                 apr_pool_t *result_pool)
{
  svn_revnum_t start = shard * SVN_FS_FS__DATA(fs)->max_files_per_dir;

  *dir = svn_fs_fs__path_revprops_shard(fs, start, result_pool);
  *keep = start == 0 ? "0" : NULL;
}

svn_error_t *
svn_fs_fs__remove_unpacked_revprops(svn_fs_t *fs, svn_revnum_t shard,
                                    apr_pool_t *scratch_pool)
{
  svn_fs_fs__data_t *ffd = SVN_FS_FS__DATA(fs);
  svn_revnum_t start = shard * ffd->max_files_per_dir, rev;
  apr_pool_t *iterpool;

  if (start > 0)
    return svn_error_trace(svn_io_remove_dir2(
             svn_fs_fs__path_revprops_shard(fs, start, scratch_pool), TRUE,
             NULL, NULL, scratch_pool));
  /* Shard 0 keeps its directory for r0 (RPPACK-0). */
  iterpool = svn_pool_create(scratch_pool);
  for (rev = 1; rev < ffd->max_files_per_dir; rev++)
    {
      svn_pool_clear(iterpool);
      SVN_ERR(svn_io_remove_file2(svn_fs_fs__path_revprops(fs, rev,
                                                           iterpool),
                                  TRUE, iterpool));
    }
  svn_pool_destroy(iterpool);
  return SVN_NO_ERROR;
}
