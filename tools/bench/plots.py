#!/usr/bin/python3
"""plots.py OUTDIR -- PNG bar charts of OUTDIR/summary.csv (median runtime
per cell, min-max as error bars): one figure per module and cold/hot,
one panel per access method, bars grouped by operation/cache, one colour
per repository.  Needs matplotlib (Debian: python3-matplotlib)."""
import csv
import os
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

REPOS = ("f6", "f6p", "f7", "f7p")
ACCESS = ("file", "svn", "http", "local")


def main(out):
    with open(os.path.join(out, "summary.csv"), newline="") as f:
        rows = [r for r in csv.DictReader(f) if r["wall_median"]]
    plots = os.path.join(out, "plots")
    os.makedirs(plots, exist_ok=True)
    for module in sorted({r["module"] for r in rows}):
        for temp in ("cold", "hot"):
            sel = [r for r in rows if r["module"] == module
                   and r["temp"] == temp]
            if sel:
                figure(sel, "%s module, %s" % (module, temp),
                       os.path.join(plots, "%s-%s.png" % (module, temp)))
    for temp in ("cold", "hot"):
        compare(rows, temp, os.path.join(plots, "fsfs7-vs-stock-%s.png"
                                         % temp))


def compare(rows, temp, path):
    """fsfs7/stock median runtime per cell, log scale, 1 = parity."""
    med = {(r["module"], r["repo"], r["op"], r["access"], r["cache"]):
           float(r["wall_median"]) for r in rows if r["temp"] == temp}
    groups = []
    for (module, _repo, op, access, cache) in med:
        if module == "stock" and (op, access, cache) not in groups:
            groups.append((op, access, cache))
    if not any(k[0] == "fsfs7" for k in med) or not groups:
        return
    fig, ax = plt.subplots(figsize=(max(8, 0.45 * len(groups)), 4))
    width = 0.8 / len(REPOS)
    for i, repo in enumerate(REPOS):
        xs, ys = [], []
        for j, (op, access, cache) in enumerate(groups):
            ours = med.get(("fsfs7", repo, op, access, cache))
            theirs = med.get(("stock", repo, op, access, cache))
            if ours and theirs:
                xs.append(j + (i - 1.5) * width)
                ys.append(ours / theirs)
        if xs:
            ax.bar(xs, ys, width, label=repo)
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_yscale("log")
    ax.set_xlim(-0.6, len(groups) - 0.4)
    ax.set_xticks(range(len(groups)))
    ax.set_xticklabels(["%s\n%s\n%s" % g for g in groups], fontsize=6)
    ax.set_ylabel("fsfs7 / stock runtime")
    ax.set_title("fsfs7 vs stock, %s (below 1: fsfs7 faster)" % temp,
                 fontsize=9)
    ax.legend(fontsize=7, ncol=4)
    fig.tight_layout()
    fig.savefig(path, dpi=80)
    plt.close(fig)


def figure(rows, title, path):
    panels = [a for a in ACCESS if any(r["access"] == a for r in rows)]
    fig, axes = plt.subplots(len(panels), 1, squeeze=False,
                             figsize=(11, 3.2 * len(panels)))
    for ax, access in zip(axes[:, 0], panels):
        sub = [r for r in rows if r["access"] == access]
        groups = []
        for r in sub:
            g = (r["op"], r["cache"])
            if g not in groups:
                groups.append(g)
        width = 0.8 / len(REPOS)
        for i, repo in enumerate(REPOS):
            xs, ys, lo, hi = [], [], [], []
            for j, g in enumerate(groups):
                hit = [r for r in sub if (r["op"], r["cache"]) == g
                       and r["repo"] == repo]
                if hit:
                    med = float(hit[0]["wall_median"])
                    xs.append(j + (i - 1.5) * width)
                    ys.append(med)
                    lo.append(med - float(hit[0]["wall_min"]))
                    hi.append(float(hit[0]["wall_max"]) - med)
            if xs:
                ax.bar(xs, ys, width, yerr=[lo, hi], label=repo, capsize=2)
        ax.set_xlim(-0.6, len(groups) - 0.4)
        ax.set_xticks(range(len(groups)))
        ax.set_xticklabels(["%s\n%s" % g for g in groups], fontsize=7)
        ax.set_ylabel("seconds")
        ax.set_title("%s -- %s" % (title, access), fontsize=9)
        ax.legend(fontsize=7, ncol=4)
    fig.tight_layout()
    fig.savefig(path, dpi=80)
    plt.close(fig)


if __name__ == "__main__":
    main(sys.argv[1])
