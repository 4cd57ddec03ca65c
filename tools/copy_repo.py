#!/usr/bin/env python3
"""copy_repo.py SRC DST COUNT SEP_KB -- interleaved copies of a repository.

A repository that has lived on a busy server for years does not lie in one
contiguous stretch of disk: its revision files were written one commit at a
time, between the files of other repositories.  A fresh `cp -a` gives the
opposite, and cold-cache benchmarks on it flatter any layout.  This tool
makes COUNT copies DST/copy-1 .. DST/copy-N of SRC whose bulk data (the
shards of db/revs and db/revprops, packed or not) is written shard by
shard, round robin across the copies, with a filler file of about SEP_KB kB
written (and synced) after each piece, so that on disk the copies alternate
with gaps between them.  Everything else (format files, conf, hooks, small
db files) is copied first, per copy.

The order of creation is written to DST/creation.log, one line per file:
"<copy number> <path relative to the copy>" (filler files as "filler
<name>").  The fillers stay under DST/filler/ unless --remove-filler is
given (their blocks then become free space between the copies).

Each copy is a valid repository; check with `svnadmin verify`.
"""
import argparse
import os
import shutil
import sys

DATA_DIRS = ("db/revs", "db/revprops")


def shard_key(name):
    """Sort key for a shard directory or file name in db/revs, db/revprops:
    "12" and "12.pack" belong to shard 12; other names sort last."""
    head = name.split(".", 1)[0]
    return (0, int(head), name) if head.isdigit() else (1, 0, name)


def data_units(src):
    """The bulk-data pieces of SRC in the order a server would have written
    them: a list of lists of relative file paths, one list per shard (revs
    before revprops of the same shard).  Loose files directly in db/revs
    (linear layout) form one unit each."""
    units = {}
    for data_dir in DATA_DIRS:
        top = os.path.join(src, data_dir)
        if not os.path.isdir(top):
            continue
        for name in os.listdir(top):
            path = os.path.join(top, name)
            if os.path.isdir(path):
                files = []
                for dirpath, _dirs, fnames in os.walk(path):
                    for fname in fnames:
                        files.append(os.path.relpath(
                            os.path.join(dirpath, fname), src))
                files.sort(key=lambda p: shard_key(os.path.basename(p)))
            else:
                files = [os.path.relpath(path, src)]
            key = shard_key(name)
            units.setdefault(key[:2], []).extend(files)
    return [units[k] for k in sorted(units)]


def copy_skeleton(src, dst, skip):
    """Copy every directory of SRC and every file not in SKIP to DST."""
    for dirpath, dirs, fnames in os.walk(src):
        rel = os.path.relpath(dirpath, src)
        os.makedirs(os.path.join(dst, rel), exist_ok=True)
        for fname in fnames:
            relf = os.path.normpath(os.path.join(rel, fname))
            if relf not in skip:
                copy_file(src, dst, relf)
        dirs.sort()


def copy_file(src, dst, rel):
    """Copy one file with its mode and times, like cp -a (no fsync)."""
    target = os.path.join(dst, rel)
    os.makedirs(os.path.dirname(target), exist_ok=True)
    shutil.copy2(os.path.join(src, rel), target, follow_symlinks=False)
    return target


def write_filler(path, size_kb):
    """Write SIZE_KB kB of non-zero bytes (no sparse file) and sync them."""
    block = b"\xa5" * 1024
    with open(path, "wb") as out:
        for _ in range(size_kb):
            out.write(block)
        out.flush()
        os.fsync(out.fileno())


def sync_file(path):
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def copy_repo(src, dst, count, sep_kb, remove_filler=False, sync=True,
              log=None):
    """Make DST/copy-1 .. DST/copy-COUNT (see the module doc).  Returns the
    list of copy paths."""
    if count < 1:
        raise ValueError("COUNT must be at least 1")
    if not os.path.isfile(os.path.join(src, "format")) or \
            not os.path.isdir(os.path.join(src, "db")):
        raise ValueError("%s is not a repository" % src)
    os.makedirs(dst, exist_ok=True)
    copies = [os.path.join(dst, "copy-%d" % (i + 1)) for i in range(count)]
    for copy in copies:
        if os.path.exists(copy):
            raise FileExistsError(copy)
    filler_dir = os.path.join(dst, "filler")
    os.makedirs(filler_dir, exist_ok=True)
    units = data_units(src)
    bulk = {f for unit in units for f in unit}
    with open(os.path.join(dst, "creation.log"), "w") as creation:
        for i, copy in enumerate(copies):
            copy_skeleton(src, copy, bulk)
            creation.write("%d skeleton\n" % (i + 1))
        fill_no = 0
        for unit in units:
            for i, copy in enumerate(copies):
                for rel in unit:
                    target = copy_file(src, copy, rel)
                    if sync:
                        sync_file(target)
                    creation.write("%d %s\n" % (i + 1, rel))
                if sep_kb > 0:
                    fill_no += 1
                    name = "fill-%06d" % fill_no
                    write_filler(os.path.join(filler_dir, name), sep_kb)
                    creation.write("filler %s\n" % name)
            if log:
                log("shard done: %s" % (os.path.dirname(unit[0]) or unit[0]))
    if remove_filler:
        shutil.rmtree(filler_dir)
    return copies


def main(argv=None):
    parser = argparse.ArgumentParser(
        description="Make COUNT interleaved copies of a repository.")
    parser.add_argument("src")
    parser.add_argument("dst")
    parser.add_argument("count", type=int)
    parser.add_argument("sep_kb", type=int,
                        help="filler written between pieces, in kB")
    parser.add_argument("--remove-filler", action="store_true",
                        help="delete the filler files at the end")
    parser.add_argument("--no-sync", action="store_true",
                        help="do not fsync each piece (faster, but the "
                             "file system may then place data as it likes)")
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args(argv)
    try:
        copies = copy_repo(args.src, args.dst, args.count, args.sep_kb,
                           remove_filler=args.remove_filler,
                           sync=not args.no_sync,
                           log=(lambda m: print(m, file=sys.stderr))
                           if args.verbose else None)
    except (ValueError, OSError) as err:
        print("copy_repo.py: %s" % err, file=sys.stderr)
        return 1
    for copy in copies:
        print(copy)
    return 0


if __name__ == "__main__":
    sys.exit(main())
