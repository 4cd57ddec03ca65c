#!/usr/bin/env python3
"""gen_bigdir.py REVS FILES_PER_REV > dump

A dump stream (format 2, full texts) whose history grows one large
directory: r1 makes /big, then each of REVS revisions adds FILES_PER_REV
small files to it and edits 10 of the files already there.  Used to look
at `svnadmin load` of a large directory (peak RSS, CPU); 40 x 200 gives
8,000 entries.  Deterministic; Python 3 standard library only.
"""
import hashlib
import sys


def main():
    revs, per = int(sys.argv[1]), int(sys.argv[2])
    out = sys.stdout.buffer

    def w(s):
        out.write(s if isinstance(s, bytes) else s.encode())

    def rev(n, log):
        props = ("K 7\nsvn:log\nV %d\n%s\nK 10\nsvn:author\nV 3\nbob\n"
                 "K 8\nsvn:date\nV 27\n2020-01-01T00:00:00.000000Z\n"
                 "PROPS-END\n" % (len(log), log))
        w("Revision-number: %d\nProp-content-length: %d\n"
          "Content-length: %d\n\n%s\n" % (n, len(props), len(props), props))

    def node(path, action, kind=None, text=None):
        props = "PROPS-END\n"
        h = "Node-path: %s\n" % path
        if kind:
            h += "Node-kind: %s\n" % kind
        h += "Node-action: %s\n" % action
        if text is None:
            h += "Prop-content-length: %d\nContent-length: %d\n\n" % (
                len(props), len(props))
            w(h); w(props); w("\n\n")
            return
        h += ("Prop-content-length: %d\nText-content-length: %d\n"
              "Text-content-md5: %s\nContent-length: %d\n\n"
              % (len(props), len(text), hashlib.md5(text).hexdigest(),
                 len(props) + len(text)))
        w(h); w(props); w(text); w("\n\n")

    w("SVN-fs-dump-format-version: 2\n\n"
      "UUID: 0b0b0b0b-1111-2222-3333-444444444444\n\n")
    rev(0, "")
    rev(1, "mkdir")
    node("big", "add", "dir")
    n = 0
    for r in range(2, revs + 2):
        rev(r, "rev %d" % r)
        for _ in range(per):
            node("big/file-%06d.txt" % n, "add", "file",
                 ("content of file %d\n" % n).encode() * 20)
            n += 1
        for k in range(10):
            j = (r * 7919 + k * 104729) % n
            node("big/file-%06d.txt" % j, "change", "file",
                 ("changed %d in r%d\n" % (j, r)).encode() * 20)


if __name__ == "__main__":
    main()
