#!/usr/bin/env python3
"""Integration test of build/fetch-svn-source.sh, which build/setup.sh
and the package's fsfs7-rebuild use to get the source of the installed
Subversion: where apt's mirror has no .dsc of the version (Debian 13's
1.14.5-3 as our VMs see deb.debian.org), the upstream tarball apt names
is downloaded with apt's own helper, checked against apt's hash and
unpacked, with a warning; a tarball whose hash differs is refused and
leaves no tree; a missing .dsc in a given directory is an error.

apt-get is replaced by a stand-in on PATH that refuses the download of
the source package and names a file:// URI of a tarball made here; the
download itself goes through the real /usr/lib/apt/apt-helper, so the
URI and hash lines are parsed and checked as apt prints them.
"""

import hashlib
import io
import os
import subprocess
import sys
import tarfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fsfs7test as T  # noqa: E402

SCRIPT = os.path.join(T.TOP_SRCDIR, "build", "fetch-svn-source.sh")
HELPER = "/usr/lib/apt/apt-helper"
VERSION = "1.14.99-1"
S = None


def setup():
    global S
    if not os.access(HELPER, os.X_OK):
        raise T.SetupError("no %s" % HELPER)
    S = T.Scratch("fetchsrc")


def make_tarball(path):
    """A stand-in upstream tarball holding the header configure looks for."""
    data = b"/* stand-in */\n"
    with tarfile.open(path, "w:gz") as tar:
        info = tarfile.TarInfo("subversion-1.14.99/subversion/libsvn_fs/"
                               "fs-loader.h")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def fake_apt(bindir, uri, name, size, sha256):
    """An apt-get that has no source package but prints the tarball's
    URI line the way `apt-get source --print-uris` does."""
    os.makedirs(bindir, exist_ok=True)
    path = os.path.join(bindir, "apt-get")
    with open(path, "w") as f:
        f.write("#!/bin/sh\n"
                "case \"$*\" in\n"
                "  *--print-uris*) echo \"'%s' %s %d SHA256:%s\" ;;\n"
                "  *) echo 'E: no .dsc here' >&2; exit 100 ;;\n"
                "esac\n" % (uri, name, size, sha256))
    os.chmod(path, 0o755)


def run(dest, bindir, extra=()):
    env = dict(os.environ, PATH=bindir + ":" + os.environ["PATH"])
    return subprocess.run([SCRIPT, VERSION, dest] + list(extra), env=env,
                          capture_output=True, text=True, timeout=120)


class FetchSource(unittest.TestCase):
    def test_fetch_source_falls_back_to_checked_tarball(self):
        tarball = S.path("subversion_1.14.99.orig.tar.gz")
        digest = make_tarball(tarball)
        bindir = S.path("bin-good")
        fake_apt(bindir, "file://" + tarball, os.path.basename(tarball),
                 os.path.getsize(tarball), digest)
        dest = S.path("good")
        p = run(dest, bindir)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("WARNING", p.stderr)
        self.assertTrue(os.path.isfile(os.path.join(
            dest, "subversion-1.14.99", "subversion", "libsvn_fs",
            "fs-loader.h")), os.listdir(dest))
        self.assertFalse(os.path.exists(os.path.join(dest, "dl")))

    def test_fetch_source_refuses_wrong_hash(self):
        tarball = S.path("subversion_1.14.99.orig.tar.gz")
        make_tarball(tarball)
        bindir = S.path("bin-bad")
        fake_apt(bindir, "file://" + tarball, os.path.basename(tarball),
                 os.path.getsize(tarball), "0" * 64)
        dest = S.path("bad")
        p = run(dest, bindir)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("hash", p.stderr)
        self.assertFalse(os.path.exists(os.path.join(dest,
                                                     "subversion-1.14.99")))

    def test_fetch_source_missing_dsc(self):
        p = run(S.path("nodsc"), S.path("bin-none"), [S.path("empty")])
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("subversion_1.14.99-1.dsc", p.stderr)


if __name__ == "__main__":
    try:
        T.main("fetch source", setup, sys.modules[__name__])
    finally:
        if S:
            S.cleanup()
