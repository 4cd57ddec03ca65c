#!/usr/bin/env python3
"""Unit tests of the benchmark harness's pure parts: /proc/<pid>/stat
parsing and process trees, the matrix and its command lines, option
parsing, aggregation (median/min/max, CPU share, failures) and the
Markdown tables with their ratios."""
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.environ.get("top_srcdir") or os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(TOP, "tools", "bench"))

import cpu      # noqa: E402
import matrix   # noqa: E402
import report   # noqa: E402
import run      # noqa: E402


def stat_line(pid, comm, ppid, utime, stime, cutime, cstime):
    # fields after comm: state ppid pgrp session tty tpgid flags minflt
    # cminflt majflt cmajflt utime stime cutime cstime ...
    return ("%d (%s) S %d 1 1 0 -1 4194304 10 0 0 0 %d %d %d %d 20 0 1 0"
            % (pid, comm, ppid, utime, stime, cutime, cstime))


class CpuTest(unittest.TestCase):
    def test_parse_stat_plain_and_odd_names(self):
        self.assertEqual(cpu.parse_stat(stat_line(7, "svnserve", 1, 5, 3,
                                                  2, 1)), (7, 1, 11))
        # a name with spaces and a ')' must not shift the fields
        self.assertEqual(cpu.parse_stat(stat_line(9, "a b) (c", 7, 1, 0,
                                                  0, 0)), (9, 7, 1))

    def test_parse_real_stat(self):
        with open("/proc/self/stat") as f:
            pid, ppid, ticks = cpu.parse_stat(f.read())
        self.assertEqual(pid, os.getpid())
        self.assertEqual(ppid, os.getppid())
        self.assertGreaterEqual(ticks, 0)

    def test_process_tree(self):
        stats = {1: (0, 1), 10: (1, 5), 11: (10, 7), 12: (10, 1),
                 13: (11, 2), 20: (1, 100)}
        self.assertEqual(cpu.process_tree(10, stats), [10, 11, 12, 13])
        self.assertEqual(cpu.process_tree(99, stats), [])
        self.assertIn(os.getpid(), cpu.process_tree(os.getppid()))


class MatrixTest(unittest.TestCase):
    def test_cells_shape(self):
        cells = matrix.cells(("stock",), ("f6", "f7p"), matrix.OPS,
                             matrix.ACCESS, matrix.CACHES, matrix.TEMPS,
                             load_caches=("slow",))
        per_repo = (4 * 3 * 3 * 2   # client ops x access x cache x temp
                    + 3 * 2         # dump: local x cache x temp
                    + 1)            # load: slow, cold only
        self.assertEqual(len(cells), 2 * per_repo)
        self.assertEqual(len(set(cells)), len(cells))
        for c in cells:
            self.assertEqual(c.access == "local", c.op in ("dump", "load"))
            if c.op == "load":
                self.assertEqual((c.temp, c.cache), ("cold", "slow"))
        # grouped: each (module, repo, access, cache) block is contiguous
        keys = [(c.module, c.repo, c.access, c.cache) for c in cells]
        blocks = [k for i, k in enumerate(keys) if i == 0 or keys[i - 1] != k]
        self.assertEqual(len(blocks), len(set(blocks)))

    def test_commands(self):
        env = {"svnbench": "/b/svnbench", "log_limit": 50,
               "export_dir": "/shm/x", "config_dir": "/c",
               "load_target": "/t"}
        cell = matrix.Cell("stock", "f7", "log", "file", "medium", "hot")
        argv, stdin = matrix.command(cell, "file:///r", "/r", env)
        self.assertEqual(argv[:5], ["svn", "log", "-v", "--limit", "50"])
        self.assertIn("config:miscellany:memory-cache-size=256", argv)
        self.assertIsNone(stdin)
        cell = cell._replace(access="svn", op="null-export", cache="fast")
        argv, _ = matrix.command(cell, "svn://h/r", "/r", env)
        self.assertEqual(argv, ["/b/svnbench", "null-export", "svn://h/r",
                                "--config-dir", "/c"])
        cell = cell._replace(access="file")
        argv, _ = matrix.command(cell, "file:///r", "/r", env)
        self.assertIn("-M", argv)
        self.assertEqual(argv[argv.index("-M") + 1], "1024")
        cell = cell._replace(op="load", access="local", cache="slow")
        argv, stdin = matrix.command(cell, None, "/d.svndump", env)
        self.assertEqual((argv, stdin),
                         (["svnadmin", "load", "-q", "/t"], "/d.svndump"))
        cell = cell._replace(op="dump", cache="medium")
        argv, _ = matrix.command(cell, None, "/r", env)
        self.assertEqual(argv, ["svnadmin", "dump", "-q", "/r", "-M", "256"])
        with self.assertRaises(ValueError):
            matrix.command(cell._replace(op="frob"), None, "/r", env)


class ArgsTest(unittest.TestCase):
    def test_presets_and_lists(self):
        args = run.parse_args(["--full"])
        self.assertEqual(args.caches, matrix.CACHES)
        self.assertEqual(args.load_caches, ("slow",))
        self.assertEqual(args.reps, 3)
        args = run.parse_args(["--quick", "--ops", "log,dump", "--access",
                               "svn", "--modules", "stock,fsfs7"])
        self.assertEqual(args.ops, ("log", "dump"))
        self.assertEqual(args.access, ("svn",))
        self.assertEqual(args.modules, ("stock", "fsfs7"))
        with self.assertRaises(SystemExit):
            run.parse_args(["--ops", "log,nope"])
        with self.assertRaises(SystemExit):
            run.parse_args(["--modules", "other"])

    def test_snapshot_module(self):
        import tempfile
        with tempfile.TemporaryDirectory() as tmp:
            src = os.path.join(tmp, "src")
            os.makedirs(src)
            with open(os.path.join(src, "libsvn_fs_fs-1.so.1.0.0"), "w") as f:
                f.write("v1")
            os.symlink("libsvn_fs_fs-1.so.1.0.0",
                       os.path.join(src, "libsvn_fs_fs-1.so.1"))
            dest = run.snapshot_module(src, os.path.join(tmp, "snap"))
            copy = os.path.join(dest, "libsvn_fs_fs-1.so.1")
            self.assertFalse(os.path.islink(copy))
            with open(os.path.join(src, "libsvn_fs_fs-1.so.1.0.0"), "w") as f:
                f.write("v2")      # a rebuild must not reach the snapshot
            with open(copy) as f:
                self.assertEqual(f.read(), "v1")
            with self.assertRaises(SystemExit):
                run.snapshot_module(os.path.join(tmp, "none"), dest)

    def test_module_env(self):
        old = os.environ.get("LD_LIBRARY_PATH")
        os.environ["LD_LIBRARY_PATH"] = "/mod:/other"
        try:
            self.assertEqual(run.module_env("stock", "/mod")
                             ["LD_LIBRARY_PATH"], "/other")
            self.assertEqual(run.module_env("fsfs7", "/mod")
                             ["LD_LIBRARY_PATH"], "/mod:/other")
            os.environ["LD_LIBRARY_PATH"] = "/mod"
            self.assertNotIn("LD_LIBRARY_PATH",
                             run.module_env("stock", "/mod"))
        finally:
            if old is None:
                os.environ.pop("LD_LIBRARY_PATH", None)
            else:
                os.environ["LD_LIBRARY_PATH"] = old


def fake_runs():
    rows = []

    def add(module, repo, walls, cpu_c=0.1, cpu_s=0.1, op="log",
            status="ok", temp="cold"):
        for i, w in enumerate(walls):
            rows.append(dict(module=module, repo=repo, op=op, access="svn",
                             cache="slow", temp=temp, rep=str(i + 1),
                             status=status, wall_s=str(w),
                             client_cpu_s=str(cpu_c), server_cpu_s=str(cpu_s),
                             note=""))
    add("stock", "f6", [1.0, 3.0, 2.0])
    add("stock", "f6p", [1.0, 1.0, 1.0])
    add("stock", "f7", [0.5, 0.4, 9.0], cpu_c=0.2, cpu_s=0.0)
    add("stock", "f7p", [0.25, 0.25, 0.25])
    add("fsfs7", "f7", [0.25, 0.2, 0.3])
    add("fsfs7", "f6", [1.0], status="fail")
    return rows


class ReportTest(unittest.TestCase):
    def setUp(self):
        self.summary = report.aggregate(fake_runs())
        self.idx = report.index(self.summary)

    def cell(self, module, repo):
        return self.idx[(module, repo, "log", "svn", "slow", "cold")]

    def test_aggregate(self):
        f6 = self.cell("stock", "f6")
        self.assertEqual((f6["n"], f6["failures"]), (3, 0))
        self.assertEqual((f6["wall_median"], f6["wall_min"],
                          f6["wall_max"]), (2.0, 1.0, 3.0))
        f7 = self.cell("stock", "f7")
        self.assertEqual(f7["wall_median"], 0.5)  # the 9 s outlier ignored
        self.assertAlmostEqual(f7["cpu_share"], 0.2 / 0.5)
        bad = self.cell("fsfs7", "f6")
        self.assertEqual((bad["n"], bad["failures"]), (0, 1))
        self.assertNotIn("wall_median", bad)
        # stable order: stock before fsfs7, f6 before f6p
        self.assertEqual([r["module"] for r in self.summary][:4],
                         ["stock"] * 4)
        self.assertEqual(self.summary[0]["repo"], "f6")

    def test_ratios(self):
        self.assertEqual(report.ratio(1.0, 2.0), 0.5)
        self.assertIsNone(report.ratio(None, 1.0))
        self.assertIsNone(report.ratio(1.0, 0))
        table = report.ratio_table(self.summary, "stock", "cold")
        row = table.splitlines()[2]
        # F7/F6 = 0.5/2, packed 0.25/1, f6p/f6 = 1/2, f7p/f7 = 0.25/0.5
        self.assertEqual(row, "| log | svn | slow | 0.25 | 0.25 | 0.50 "
                              "| 0.50 |")
        mod = report.module_ratio_table(self.summary, "cold").splitlines()
        self.assertEqual(mod[2], "| log | svn | slow | – | – | 0.50 | – |")

    def test_markdown(self):
        text = report.markdown(self.summary, "T")
        self.assertIn("### stock module, cold: client runtime (median s)",
                      text)
        self.assertIn("| log | svn | slow | 2.000 | 1.000 | 0.500 | 0.250 |",
                      text)
        self.assertIn("fsfs7/stock runtime ratio, cold", text)
        self.assertIn("fsfs7/f6/log/svn/slow/cold: 1 of 1 runs failed", text)
        self.assertNotIn("hot", text)

    def test_csv_round_trip(self):
        import tempfile
        with tempfile.NamedTemporaryFile("w", suffix=".csv") as f:
            report.write_csv(f.name, fake_runs(), report.RUN_FIELDS)
            back = report.read_runs(f.name)
        self.assertEqual(report.aggregate(back), self.summary)


if __name__ == "__main__":
    unittest.main()
