#!/usr/bin/env python3
"""Integration test: a short slice of the concurrency campaign
(tools/torture/concurrency.py, doc/reliability.md).

One repository with 4-revision shards is served by a threaded svnserve and
by a private Apache with mod_dav_svn, both on our module, for SECONDS (12;
60 with FSFS7_SLOW=1; TORTURE_CONC_SECONDS overrides): 8 clients (even
ones over svn://, odd ones over http://) commit to their own and to shared
files, copy, set properties, lock and unlock, edit revprops and read (log,
export, checkout/update, ls, cat), while `svnadmin pack` runs every ~2 s.
The client choices are seeded; the interleaving is the machine's.

Passes when the campaign finds nothing unjustified: commits accepted =
revisions present, authors right, every out-of-date or lock error
justified by another client's change or lock, zero reader errors and
reads equal to stock's answer, zero pack errors, stock verify passes, the
dump equals a replay of the accepted commits, and both servers mapped our
module.  It must also have exercised what it claims to (commits, packs,
reads, locks).  Tests are named test_concurrency_<what>.
"""

import os
import shutil
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fsfs7test as T  # noqa: E402

sys.path.insert(0, os.path.join(T.TOP_SRCDIR, "tools", "torture"))
import concurrency as C  # noqa: E402

SECONDS = float(os.environ.get("TORTURE_CONC_SECONDS",
                               "60" if T.SLOW else "12"))
SEED = 11
WORK = None


def setup():
    global WORK
    missing = C.check_prerequisites()
    if missing:
        raise T.SetupError("missing %s (build/setup.sh installs them)"
                           % ", ".join(missing))
    WORK = tempfile.mkdtemp(prefix="fsfs7-conc-")
    os.chmod(WORK, 0o755)


class Concurrency(unittest.TestCase):
    def test_concurrency_svnserve_and_apache(self):
        run = C.Run("fsfs7", T.MODULE_DIR, WORK, SECONDS, 8, SEED)
        f = run.go()
        T.log(" ".join("%s=%s" % (k, f[k]) for k in C.FIELDS))
        bad = ["c%d %s r=%s base=%s %s: %s" % (
            o["client"], o["kind"], o["rev"], o["base"], o["cls"], o["err"])
            for o in run.ops if o["cls"] not in ("ok", "out-of-date", "lock")]
        bad += ["unjustified out-of-date: c%d %s base=%s %s" % (
            o["client"], o["kind"], o["base"], o["err"])
            for o in run.ops if o["cls"] == "out-of-date"
            and not run.ood_justified(o, C.stock_log(run.repo))]
        self.assertEqual(bad, [])
        self.assertEqual(f["servers_on_module"], 1, "a server is not on fsfs7")
        self.assertEqual(f["verify"], "pass", run.verify_err[:500])
        self.assertEqual(f["replay_equal"], 1, getattr(run, "replay_err", ""))
        for k in ("commits_lost", "revisions_unreported", "wrong_author",
                  "out_of_date_unjustified", "lock_errors_unjustified",
                  "writer_other_errors", "reader_errors", "reads_wrong",
                  "pack_errors", "revprops_wrong", "unjustified"):
            self.assertEqual(f[k], 0, "%s: %s" % (k, f))
        self.assertEqual(f["commits_accepted"], f["revisions"])
        # It did what it claims to: a slice that commits or packs nothing
        # proves nothing.
        self.assertGreater(f["commits_accepted"], 10, f)
        self.assertGreater(f["packs"], 0, f)
        self.assertGreater(f["packed_shards"], 1, f)
        self.assertGreater(f["reads_rechecked"], 0, f)
        self.assertGreater(f["locks_taken"], 0, f)


if __name__ == "__main__":
    try:
        T.main("concurrency", setup, sys.modules[__name__])
    finally:
        if WORK:
            shutil.rmtree(WORK, ignore_errors=True)
