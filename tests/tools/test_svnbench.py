#!/usr/bin/env python3
"""Integration test of tools/svnbench: on a small generated repository,
served over file://, svn:// (private svnserve) and, when we may start one,
http:// (private Apache), the totals of null-log, null-export and
null-list must equal what `svn log`, `svn export` and `svn list` produce,
and those of Debian's own svnbench when it is installed."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.environ.get("top_srcdir") or os.path.dirname(os.path.dirname(HERE))
BUILD = os.environ.get("top_builddir") or TOP
sys.path.insert(0, os.path.join(TOP, "tools", "bench"))

import gen_repo  # noqa: E402
import servers   # noqa: E402

SVNBENCH = os.path.join(BUILD, "tools", "svnbench", "svnbench")
SVN = ["svn", "--non-interactive"]


def run(argv, **kw):
    return subprocess.run(argv, check=True, capture_output=True, text=True,
                          env=dict(os.environ, LC_ALL="C"), **kw).stdout


def bench(*args):
    return json.loads(run([SVNBENCH] + list(args) + ["--json"]))


def can_run_apache():
    return os.geteuid() == 0 and os.path.exists("/usr/sbin/apache2") and \
        os.path.exists(os.path.join(servers.APACHE_MODULES, "mod_dav_svn.so"))


class SvnbenchTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not os.access(SVNBENCH, os.X_OK):
            raise unittest.SkipTest("svnbench not built")
        cls.tmp = tempfile.mkdtemp(prefix="test_svnbench.")
        os.chmod(cls.tmp, 0o755)
        root = os.path.join(cls.tmp, "repos")
        os.makedirs(root)
        gen_repo.make_repo(os.path.join(root, "f7p"), revs=37, shard=8,
                           pack=True)
        gen_repo.make_repo(os.path.join(root, "f6"), revs=23, compat="1.8")
        subprocess.run(["chmod", "-R", "a+rX", root], check=True)
        cls.servers = []
        cls.urls = {"file": "file://" + root}
        srv = servers.Svnserve(root, os.path.join(cls.tmp, "svnserve"),
                               dict(os.environ)).start()
        cls.servers.append(srv)
        cls.urls["svn"] = srv.url("")[:-1]
        if can_run_apache():
            srv = servers.Apache(root, os.path.join(cls.tmp, "httpd"),
                                 dict(os.environ)).start()
            cls.servers.append(srv)
            cls.urls["http"] = srv.url("")[:-1]

    @classmethod
    def tearDownClass(cls):
        for srv in getattr(cls, "servers", []):
            srv.stop()
        shutil.rmtree(getattr(cls, "tmp", "/nonexistent"),
                      ignore_errors=True)

    def each_url(self):
        """[(label, url)] of every repository over every access method."""
        return [("%s/%s" % (scheme, repo), base + "/" + repo)
                for scheme, base in sorted(self.urls.items())
                for repo in ("f7p", "f6")]

    # ---- what the real client says

    @staticmethod
    def svn_log_totals(url, *extra):
        text = run(SVN + ["log", "-v", url] + list(extra))
        heads = re.findall(r"^r\d+ \| .* \| (\d+) lines?$", text, re.M)
        return {"revisions": len(heads),
                "changed_paths": len(re.findall(r"^   [AMDR] /", text,
                                                re.M)),
                "msg_lines": sum(int(n) for n in heads)}

    def svn_export_totals(self, url):
        dest = tempfile.mkdtemp(dir=self.tmp)
        target = os.path.join(dest, "x")
        run(SVN + ["export", "-q", "--ignore-keywords", url, target])
        totals = {"dirs": 0, "files": 0, "bytes": 0}
        for _dirpath, dirs, files in os.walk(target):
            totals["dirs"] += 1
            totals["files"] += len(files)
            totals["bytes"] += sum(os.path.getsize(os.path.join(_dirpath, f))
                                   for f in files)
        shutil.rmtree(dest)
        props = ET.fromstring(run(SVN + ["proplist", "-R", "-v", "--xml",
                                         url]))
        totals["props"] = len(props.findall(".//property"))
        return totals

    # ---- tests

    def test_null_log_matches_svn_log(self):
        for label, url in self.each_url():
            with self.subTest(url=label):
                got = bench("null-log", "-v", url)
                want = self.svn_log_totals(url)
                for key, value in want.items():
                    self.assertEqual(got[key], value, key)
                self.assertEqual(got["revprops"], 3 * want["revisions"])

    def test_null_log_range_limit_quiet(self):
        for label, url in self.each_url():
            with self.subTest(url=label):
                got = bench("null-log", "-v", "--limit", "5", "-r", "20:3",
                            url)
                want = self.svn_log_totals(url, "--limit", "5", "-r", "20:3")
                self.assertEqual(got["revisions"], 5)
                self.assertEqual(got["changed_paths"], want["changed_paths"])
                self.assertEqual(got["revision"], 20)
                quiet = bench("null-log", "-q", url)
                self.assertEqual(quiet["msg_lines"], 0)
                self.assertEqual(quiet["changed_paths"], 0)
                self.assertEqual(quiet["revprops"], 2 * quiet["revisions"])
                fwd = bench("null-log", "-v", "-r", "2:4", url)
                self.assertEqual(fwd["revisions"], 3)

    def test_null_export_matches_svn_export(self):
        for label, url in self.each_url():
            with self.subTest(url=label):
                got = bench("null-export", url)
                want = self.svn_export_totals(url)
                for key, value in want.items():
                    self.assertEqual(got[key], value, key)
                self.assertGreater(got["files"], 5)
                old = bench("null-export", "-r", "7", url)
                self.assertEqual(old["revision"], 7)
                self.assertEqual(old["files"],
                                 self.svn_export_totals(url + "@7")["files"])

    def test_null_list_matches_svn_list(self):
        for label, url in self.each_url():
            with self.subTest(url=label):
                got = bench("null-list", "-R", url)
                lines = run(SVN + ["list", "-R", url]).split()
                self.assertEqual(got["dirs"], 1 + sum(l.endswith("/")
                                                      for l in lines))
                self.assertEqual(got["files"], sum(not l.endswith("/")
                                                   for l in lines))

    def test_matches_debian_svnbench(self):
        debian = shutil.which("svnbench", path="/usr/bin")
        if not debian:
            self.skipTest("Debian svnbench not installed")
        number = lambda text, label: int(re.search(
            r"([\d,]+) %s\n" % label, text).group(1).replace(",", ""))
        for label, url in self.each_url():
            with self.subTest(url=label):
                theirs = run([debian, "null-log", "-v", url])
                ours = bench("null-log", "-v", url)
                self.assertEqual(ours["revisions"],
                                 number(theirs, "revisions"))
                self.assertEqual(ours["changed_paths"],
                                 number(theirs, "changes"))
                self.assertEqual(ours["msg_lines"],
                                 number(theirs, "msg lines"))
                theirs = run([debian, "null-export", url])
                ours = bench("null-export", url)
                self.assertEqual(ours["dirs"], number(theirs, "directories"))
                self.assertEqual(ours["files"], number(theirs, "files"))
                self.assertEqual(ours["bytes"],
                                 number(theirs, "bytes in files"))
                # Debian's count includes the svn:entry:* properties and over
                # http:// the svn:wc:* ones
                self.assertEqual(ours["props"] + ours["entry_props"]
                                 + ours["wc_props"],
                                 number(theirs, "properties"))

    def test_bad_usage(self):
        for argv in ([], ["null-log"], ["bogus", self.urls["file"]],
                     ["null-log", "/not/a/url"],
                     ["null-log", "--limit", "0", self.urls["file"]]):
            res = subprocess.run([SVNBENCH] + argv, capture_output=True)
            self.assertNotEqual(res.returncode, 0, argv)
        res = subprocess.run([SVNBENCH, "null-log",
                              self.urls["file"] + "/nonexistent"],
                             capture_output=True)
        self.assertNotEqual(res.returncode, 0)


if __name__ == "__main__":
    unittest.main()
