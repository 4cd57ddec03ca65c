"""Emptying the OS page cache of one set of files (never the whole
machine's: dropping all caches is not allowed on shared hosts).

Uses vmtouch -e when installed, else posix_fadvise(POSIX_FADV_DONTNEED)
on every file.  Dirty pages cannot be dropped, so files are synced first.
"""
import os
import shutil
import subprocess


def all_files(paths):
    for top in paths:
        if os.path.isfile(top):
            yield top
            continue
        for dirpath, _dirs, fnames in os.walk(top):
            for fname in fnames:
                yield os.path.join(dirpath, fname)


def evict_fadvise(paths):
    count = 0
    for path in all_files(paths):
        try:
            fd = os.open(path, os.O_RDONLY)
        except OSError:
            continue
        try:
            os.fsync(fd)
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            count += 1
        finally:
            os.close(fd)
    return count


def evict(paths, use_vmtouch=True):
    """Evict every file under PATHS from the page cache."""
    paths = list(paths)
    if use_vmtouch and shutil.which("vmtouch"):
        subprocess.run(["sync"] + [p for p in paths if os.path.isfile(p)],
                       check=False)
        res = subprocess.run(["vmtouch", "-q", "-e"] + paths,
                             stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
        if res.returncode == 0:
            return
    evict_fadvise(paths)


def resident_fraction(paths):
    """Fraction of the pages of PATHS in the page cache (vmtouch only;
    None without it).  For tests and sanity checks."""
    if not shutil.which("vmtouch"):
        return None
    out = subprocess.run(["vmtouch"] + list(paths), capture_output=True,
                         text=True).stdout
    for line in out.splitlines():
        if "Resident Pages" in line:
            pct = line.split()[-1].rstrip("%")
            return float(pct) / 100.0
    return None
