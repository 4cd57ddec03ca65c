"""Aggregation and output of benchmark results: raw runs -> per-cell
median/min/max -> CSV and Markdown tables in the layout of the published
FSFS 7 measurements (runtime, CPU share, F7/F6, packed/unpacked) plus the
fsfs7/stock ratio.  Pure functions over lists of dicts, no subprocesses.
"""
import csv
import statistics

from matrix import REPOS, OPS, ACCESS, CACHES, TEMPS, MODULES

RUN_FIELDS = ["module", "repo", "op", "access", "cache", "temp", "rep",
              "status", "wall_s", "client_cpu_s", "server_cpu_s", "note"]
SUMMARY_FIELDS = ["module", "repo", "op", "access", "cache", "temp", "n",
                  "failures", "wall_median", "wall_min", "wall_max",
                  "client_cpu_median", "server_cpu_median", "cpu_share"]
KEY = ("module", "repo", "op", "access", "cache", "temp")


def _num(value):
    if value in (None, ""):
        return None
    return float(value)


def read_runs(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def write_csv(path, rows, fields):
    with open(path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=fields, extrasaction="ignore")
        writer.writeheader()
        for row in rows:
            writer.writerow(row)


def aggregate(runs):
    """One summary dict per cell (KEY) from the run dicts: medians over the
    successful runs, the CPU share = (client + server user+sys CPU) /
    wall time, as the median of the per-run shares."""
    groups = {}
    for run in runs:
        groups.setdefault(tuple(run[k] for k in KEY), []).append(run)
    out = []
    for key, group in groups.items():
        ok = [r for r in group if r["status"] == "ok"]
        walls = [_num(r["wall_s"]) for r in ok]
        row = dict(zip(KEY, key))
        row.update(n=len(ok), failures=len(group) - len(ok))
        if ok:
            cli = [_num(r["client_cpu_s"]) or 0.0 for r in ok]
            srv = [_num(r["server_cpu_s"]) or 0.0 for r in ok]
            shares = [(c + s) / w for c, s, w in zip(cli, srv, walls) if w]
            row.update(wall_median=statistics.median(walls),
                       wall_min=min(walls), wall_max=max(walls),
                       client_cpu_median=statistics.median(cli),
                       server_cpu_median=statistics.median(srv),
                       cpu_share=statistics.median(shares) if shares
                       else None)
        out.append(row)
    order = {name: i for i, name in enumerate(
        MODULES + REPOS + OPS + ACCESS + ("local",) + CACHES + TEMPS)}
    out.sort(key=lambda r: [order.get(r[k], 99) for k in KEY])
    return out


def index(summary):
    return {tuple(r[k] for k in KEY): r for r in summary}


def ratio(a, b):
    if a is None or b in (None, 0):
        return None
    return a / b


def _fmt(value, kind):
    if value is None:
        return "–"
    if kind == "s":
        return "%.3f" % value
    if kind == "%":
        return "%.0f%%" % (100 * value)
    return "%.2f" % value


def _rows(summary, module, temp):
    """(op, access, cache) row keys present for MODULE/TEMP, in order."""
    seen = []
    for r in summary:
        if r["module"] == module and r["temp"] == temp:
            k = (r["op"], r["access"], r["cache"])
            if k not in seen:
                seen.append(k)
    return seen


def _table(header, rows):
    lines = ["| " + " | ".join(header) + " |",
             "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def _get(idx, module, repo, row, temp, field):
    r = idx.get((module, repo, row[0], row[1], row[2], temp))
    return r.get(field) if r else None


def runtime_table(summary, module, temp, field="wall_median", kind="s"):
    idx = index(summary)
    rows = []
    for row in _rows(summary, module, temp):
        cells = [_fmt(_get(idx, module, repo, row, temp, field), kind)
                 for repo in REPOS]
        rows.append(list(row) + cells)
    return _table(["operation", "access", "cache"] + list(REPOS), rows)


def ratio_table(summary, module, temp):
    """F7/F6 (unpacked and packed) and packed/unpacked (f6 and f7) of the
    median runtimes: < 1 means the first is faster."""
    idx = index(summary)
    pairs = [("F7/F6", "f7", "f6"), ("F7/F6 packed", "f7p", "f6p"),
             ("f6 packed/unpacked", "f6p", "f6"),
             ("f7 packed/unpacked", "f7p", "f7")]
    rows = []
    for row in _rows(summary, module, temp):
        cells = [_fmt(ratio(_get(idx, module, a, row, temp, "wall_median"),
                            _get(idx, module, b, row, temp, "wall_median")),
                      "x") for _label, a, b in pairs]
        rows.append(list(row) + cells)
    return _table(["operation", "access", "cache"]
                  + [p[0] for p in pairs], rows)


def module_ratio_table(summary, temp):
    """fsfs7/stock median runtime per repository."""
    idx = index(summary)
    rows = []
    for row in _rows(summary, "stock", temp):
        cells = [_fmt(ratio(_get(idx, "fsfs7", repo, row, temp,
                                 "wall_median"),
                            _get(idx, "stock", repo, row, temp,
                                 "wall_median")), "x") for repo in REPOS]
        rows.append(list(row) + cells)
    return _table(["operation", "access", "cache"] + list(REPOS), rows)


def markdown(summary, title="Benchmark results"):
    """The whole report as Markdown."""
    modules = [m for m in MODULES if any(r["module"] == m for r in summary)]
    temps = [t for t in TEMPS if any(r["temp"] == t for r in summary)]
    out = ["## %s" % title, ""]
    for module in modules:
        for temp in temps:
            out += ["### %s module, %s: client runtime (median s)"
                    % (module, temp), "", runtime_table(summary, module, temp),
                    "",
                    "### %s module, %s: CPU share ((client+server user+sys)"
                    " / wall)" % (module, temp), "",
                    runtime_table(summary, module, temp, "cpu_share", "%"),
                    "",
                    "### %s module, %s: ratios of median runtime"
                    % (module, temp), "", ratio_table(summary, module, temp),
                    ""]
    if "fsfs7" in modules and "stock" in modules:
        for temp in temps:
            out += ["### fsfs7/stock runtime ratio, %s" % temp, "",
                    module_ratio_table(summary, temp), ""]
    failed = [r for r in summary if r["failures"]]
    if failed:
        out += ["### Cells with failed runs", ""]
        out += ["- %s: %d of %d runs failed" % (
            "/".join(r[k] for k in KEY), r["failures"],
            r["failures"] + r["n"]) for r in failed]
        out.append("")
    return "\n".join(out)
