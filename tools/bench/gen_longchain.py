#!/usr/bin/env python3
"""gen_longchain.py -- a long, narrow history as a dump stream (format 2,
full texts) for read benchmarks: one large text file edited by most
commits, so its delta chains are long and its fulltexts big, beside a
few thousand small files that change now and then.

    gen_longchain.py [--revs 3000] [--files 3000] [--big-kb 800]
                     [--edit-ratio 0.7] [--small-lines 60]
                     [--small-edits 3] [--prepend] [--seed 1] > long.dump

--prepend makes the large file a ChangeLog: each commit that edits it
puts 2-6 new lines at its top (a dated header and a few entries), so
the file only grows and every byte of it moves in each of its versions;
without it, edits change, insert or delete lines anywhere.
    svnadmin create --compatible-version=1.9 REPO
    gen_longchain.py | svnadmin load -q REPO

Deterministic for given arguments (one random.Random(seed)); standard
library only.  Paths: /trunk/big.txt and /trunk/mod<k>/f<n>.txt.
"""
import argparse
import datetime
import random
import sys

WORDS = ("alpha beta gamma delta epsilon zeta theta kappa lambda sigma "
         "omega window offset index cache parser merge branch revision "
         "node change build test fix update release").split()


def line(rng):
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(4, 11)))


def text_of(lines):
    return ("\n".join(lines) + "\n").encode()


class Dump:
    def __init__(self, out):
        self.out = out

    def w(self, data):
        self.out.write(data if isinstance(data, bytes) else data.encode())

    @staticmethod
    def props(pairs):
        body = b""
        for k, v in pairs:
            k, v = k.encode(), v.encode()
            body += b"K %d\n%s\nV %d\n%s\n" % (len(k), k, len(v), v)
        return body + b"PROPS-END\n"

    def revision(self, rev, author, date, log):
        p = self.props([("svn:author", author), ("svn:date", date),
                        ("svn:log", log)])
        self.w("Revision-number: %d\nProp-content-length: %d\n"
               "Content-length: %d\n\n" % (rev, len(p), len(p)))
        self.w(p)
        self.w("\n")

    def node(self, path, kind, action, text=None):
        self.w("Node-path: %s\nNode-kind: %s\nNode-action: %s\n"
               % (path, kind, action))
        if kind == "dir":
            p = self.props([])
            self.w("Prop-content-length: %d\nContent-length: %d\n\n"
                   % (len(p), len(p)))
            self.w(p)
            self.w("\n\n")
            return
        if action == "add":
            p = self.props([])
            self.w("Prop-content-length: %d\nText-content-length: %d\n"
                   "Content-length: %d\n\n" % (len(p), len(text),
                                               len(p) + len(text)))
            self.w(p)
        else:
            self.w("Text-content-length: %d\nContent-length: %d\n\n"
                   % (len(text), len(text)))
        self.w(text)
        self.w("\n\n")


def edit(rng, lines, n):
    """N small edits in place: change, insert or delete a line."""
    for _ in range(n):
        at = rng.randrange(len(lines))
        op = rng.random()
        if op < 0.6:
            lines[at] = line(rng)
        elif op < 0.85 or len(lines) < 10:
            lines.insert(at, line(rng))
        else:
            del lines[at]


def prepend(rng, lines, rev, date):
    """A ChangeLog entry on top: a header and 1-5 indented lines."""
    entry = ["%s  %s" % (date[:10], rng.choice(("alice", "bob", "carol",
                                                  "dave")))]
    entry += ["\t* r%d: %s" % (rev, line(rng))
              for _ in range(rng.randint(1, 5))]
    lines[0:0] = entry


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--revs", type=int, default=3000)
    ap.add_argument("--files", type=int, default=3000)
    ap.add_argument("--big-kb", type=int, default=800)
    ap.add_argument("--edit-ratio", type=float, default=0.7)
    ap.add_argument("--small-lines", type=int, default=60,
                    help="small files get 5..N lines")
    ap.add_argument("--small-edits", type=int, default=3,
                    help="each revision edits 0..N small files")
    ap.add_argument("--prepend", action="store_true",
                    help="edits of the large file prepend a ChangeLog entry")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    d = Dump(sys.stdout.buffer)
    t0 = datetime.datetime(2015, 1, 1, tzinfo=datetime.timezone.utc)

    def date(rev):
        t = t0 + datetime.timedelta(minutes=17 * rev)
        return t.strftime("%Y-%m-%dT%H:%M:%S.000000Z")

    d.w("SVN-fs-dump-format-version: 2\n\n"
        "UUID: 6c2b51a4-2d4e-4e8b-9a57-0a6e3f1c7d21\n\n")
    d.w("Revision-number: 0\nProp-content-length: 56\n"
        "Content-length: 56\n\nK 8\nsvn:date\nV 27\n%s\nPROPS-END\n\n"
        % date(0))

    big = []
    while sum(len(x) + 1 for x in big) < args.big_kb * 1024:
        big.append(line(rng))
    small = {}
    ndirs = max(1, args.files // 50)
    for n in range(args.files):
        path = "trunk/mod%d/f%d.txt" % (n % ndirs, n)
        small[path] = [line(rng) for _ in
                       range(rng.randint(5, args.small_lines))]

    d.revision(1, "gen", date(1), "initial import")
    d.node("trunk", "dir", "add")
    for k in range(ndirs):
        d.node("trunk/mod%d" % k, "dir", "add")
    d.node("trunk/big.txt", "file", "add", text_of(big))
    for path in sorted(small):
        d.node(path, "file", "add", text_of(small[path]))

    paths = sorted(small)
    for rev in range(2, args.revs + 1):
        d.revision(rev, rng.choice(("alice", "bob", "carol", "dave")),
                   date(rev), "change %d: %s" % (rev, line(rng)))
        if rng.random() < args.edit_ratio:
            if args.prepend:
                prepend(rng, big, rev, date(rev))
            else:
                edit(rng, big, rng.randint(1, 8))
            d.node("trunk/big.txt", "file", "change", text_of(big))
        for path in rng.sample(paths, rng.randint(0, args.small_edits)):
            edit(rng, small[path], rng.randint(1, 3))
            d.node(path, "file", "change", text_of(small[path]))


if __name__ == "__main__":
    main()
