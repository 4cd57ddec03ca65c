#!/usr/bin/env python3
"""Generate the damaged rev-file images of this directory from the good
r0 of a stock-made format 7 repository (../../good/addressing/r0-f7).

Each image is the good revision rebuilt with one deliberate defect; the
indexes are re-encoded and the footer digests recomputed, so that the
defect itself (not merely a digest mismatch) is what a reader trips over.
EXPECTED lists, for each image, the error code and rule id the checker
must report.  Run from this directory: ./make_bad.py
"""
import hashlib, os

GOOD = os.path.join(os.path.dirname(__file__), '../../good/addressing/r0-f7')

def u(x):
    out = bytearray()
    while x >= 0x80:
        out.append((x & 0x7f) | 0x80); x >>= 7
    out.append(x)
    return bytes(out)

def s(x):
    return u(2 * x if x >= 0 else -2 * x - 1)

def fnv32x4(data):
    def fnv(bs, h=0x811c9dc5):
        for b in bs:
            h = ((h ^ b) * 0x01000193) & 0xffffffff
        return h
    n = len(data) - len(data) % 4
    hs = [fnv(data[i:n:4]) for i in range(4)]
    inter = b''.join(h.to_bytes(4, 'big') for h in hs) + data[n:]
    return fnv(inter)

def items_of(data, l2p_off):
    # (offset, size, type, item) of the good r0, as the stock module wrote it.
    return [(0, 17, 2, 3), (17, 89, 5, 2), (106, 1, 6, 1)]

def l2p(first, page_size, revs):
    """revs: list of lists of stored values (offset+1 or 0)."""
    pages = []
    per_rev = []
    for vals in revs:
        chunks = [vals[i:i + page_size] for i in range(0, len(vals), page_size)] or [[]]
        per_rev.append(len(chunks))
        for c in chunks:
            body = b''.join(s(v - (c[k - 1] if k else 0)) for k, v in enumerate(c))
            pages.append((body, len(c)))
    out = b'L2P-INDEX\n' + u(first) + u(page_size) + u(len(revs)) + u(len(pages))
    out += b''.join(u(n) for n in per_rev)
    out += b''.join(u(len(b)) + u(n) for b, n in pages)
    out += b''.join(b for b, _ in pages)
    return out

def p2l(first, file_size, page_size, entries, data, fnv_override=None):
    """entries: (offset, size, type, item, rev) in one page."""
    body = u(entries[0][0])
    comp = 0; rev = first
    for i, (off, size, typ, item, r) in enumerate(entries):
        c = item * 8 + typ
        f = fnv32x4(data[off:off + size]) if typ else 0
        if fnv_override and i in fnv_override:
            f = fnv_override[i]
        body += u(size) + s(c - comp) + s(r - rev) + u(f)
        comp = c; rev = r
    pages = (file_size + page_size - 1) // page_size
    return b'P2L-INDEX\n' + u(first) + u(file_size) + u(page_size) + u(pages) + u(len(body)) + body

def assemble(items, l2p_bytes, p2l_bytes, footer_fmt=None):
    l2p_off = len(items)
    p2l_off = l2p_off + len(l2p_bytes)
    text = '%d %s %d %s' % (l2p_off, hashlib.md5(l2p_bytes).hexdigest(),
                            p2l_off, hashlib.md5(p2l_bytes).hexdigest())
    if footer_fmt:
        text = footer_fmt(text)
    t = text.encode()
    return items + l2p_bytes + p2l_bytes + t + bytes([len(t) & 0xff])

def standard(data, **kw):
    items = data[:107]
    l2p_vals = kw.get('l2p_vals', [0, 107, 18, 1])
    ents = kw.get('ents', [(0, 17, 2, 3, 0), (17, 89, 5, 2, 0), (106, 1, 6, 1, 0),
                           (107, 1048576 - 107, 0, 0, 0)])
    lb = kw.get('l2p_bytes') or l2p(0, kw.get('l2p_page', 8192), [l2p_vals])
    pb = kw.get('p2l_bytes') or p2l(0, kw.get('p2l_size', 107), kw.get('p2l_page', 1048576),
                                    ents, data, kw.get('fnv'))
    return assemble(items, lb, pb, kw.get('footer'))

def main():
    data = open(GOOD, 'rb').read()
    assert standard(data) == data, 'encoder does not reproduce the stock r0'
    cases = []
    def case(name, code, rule, image):
        open(name, 'wb').write(image)
        cases.append('%s %s %s' % (name, code, rule))
    good_l2p = l2p(0, 8192, [[0, 107, 18, 1]])
    case('footer-garbage.rev', 'SVN_ERR_FS_INDEX_CORRUPTION', 'FOOTER-2',
         standard(data, footer=lambda t: t.replace(' ', '  ', 1)))
    case('footer-order.rev', 'SVN_ERR_FS_INDEX_CORRUPTION', 'FOOTER-3',
         standard(data, footer=lambda t: '131' + t[3:22] + '107' + t[22+3:] if False else
                  ' '.join([t.split()[2], t.split()[1], t.split()[0], t.split()[3]])))
    case('footer-md5.rev', 'SVN_ERR_FS_INDEX_CORRUPTION', 'FOOTER-4',
         standard(data, footer=lambda t: t[:4] + ('0' if t[4] != '0' else '1') + t[5:]))
    case('l2p-magic.rev', 'SVN_ERR_FS_INDEX_CORRUPTION', 'L2P-1',
         standard(data, l2p_bytes=b'L2Q' + good_l2p[3:]))
    case('l2p-pagesize0.rev', 'SVN_ERR_FS_INDEX_CORRUPTION', 'L2P-2',
         standard(data, l2p_bytes=b'L2P-INDEX\n' + u(0) + u(0) + good_l2p[13:]))
    # header says 2 pages, revision uses 1
    case('l2p-pagecount.rev', 'SVN_ERR_FS_INDEX_CORRUPTION', 'L2P-3',
         standard(data, l2p_bytes=b'L2P-INDEX\n' + u(0) + u(8192) + u(1) + u(2)
                  + u(1) + u(6) + u(4) + u(1) + u(0) + good_l2p[-6:] + b'\0'))
    # page size 2 but the page holds 4 entries
    case('l2p-entries.rev', 'SVN_ERR_FS_INDEX_CORRUPTION', 'L2P-4',
         standard(data, l2p_bytes=b'L2P-INDEX\n' + u(0) + u(2) + u(1) + u(1)
                  + u(1) + u(6) + u(4) + good_l2p[-6:]))
    # one byte after the last entry of the page
    case('l2p-trailing.rev', 'SVN_ERR_FS_INDEX_CORRUPTION', 'L2P-5',
         standard(data, l2p_bytes=b'L2P-INDEX\n' + u(0) + u(8192) + u(1) + u(1)
                  + u(1) + u(7) + u(4) + good_l2p[-6:] + b'\0'))
    case('l2p-beyond.rev', 'SVN_ERR_FS_INDEX_CORRUPTION', 'L2P-6',
         standard(data, l2p_vals=[0, 107, 18, 500]))
    case('l2p-varint.rev', 'SVN_ERR_FS_INDEX_CORRUPTION', 'VARINT-1',
         standard(data, l2p_bytes=b'L2P-INDEX\n' + b'\xff' * 11 + b'\0' + good_l2p[11:]))
    case('l2p-wrong-item.rev', 'SVN_ERR_FS_INDEX_INCONSISTENT', 'P2L-8',
         standard(data, l2p_vals=[0, 18, 107, 1]))
    case('p2l-magic.rev', 'SVN_ERR_FS_INDEX_CORRUPTION', 'P2L-1',
         standard(data, p2l_bytes=b'P2X' + p2l(0, 107, 1048576, [(0, 17, 2, 3, 0), (17, 89, 5, 2, 0), (106, 1, 6, 1, 0), (107, 1048576 - 107, 0, 0, 0)], data)[3:]))
    case('p2l-pagesize0.rev', 'SVN_ERR_FS_INDEX_CORRUPTION', 'P2L-2',
         standard(data, p2l_bytes=b'P2L-INDEX\n' + u(0) + u(107) + u(0) + u(1) + u(0)))
    case('p2l-filesize.rev', 'SVN_ERR_FS_INDEX_CORRUPTION', 'P2L-2',
         standard(data, p2l_size=100))
    case('p2l-pagebytes.rev', 'SVN_ERR_FS_INDEX_CORRUPTION', 'P2L-3',
         standard(data, p2l_bytes=b'P2L-INDEX\n' + u(0) + u(107) + u(1048576) + u(1) + u(5000)))
    case('p2l-type7.rev', 'SVN_ERR_FS_INDEX_CORRUPTION', 'P2L-4',
         standard(data, ents=[(0, 17, 7, 3, 0), (17, 89, 5, 2, 0), (106, 1, 6, 1, 0),
                              (107, 1048576 - 107, 0, 0, 0)]))
    case('p2l-outside-page.rev', 'SVN_ERR_FS_INDEX_CORRUPTION', 'P2L-5',
         standard(data, ents=[(0, 17, 2, 3, 0), (17, 89, 5, 2, 0), (106, 1, 6, 1, 0),
                              (107, 1048576 - 107, 0, 0, 0), (1048576, 5, 0, 0, 0)]))
    case('p2l-gap.rev', 'SVN_ERR_FS_INDEX_CORRUPTION', 'P2L-6',
         standard(data, ents=[(0, 17, 2, 3, 0), (17, 89, 5, 2, 0), (106, 0, 6, 1, 0)]))
    case('p2l-fnv.rev', 'SVN_ERR_FS_CORRUPT', 'P2L-7',
         standard(data, fnv={1: 12345}))
    case('item-data-flip.rev', 'SVN_ERR_FS_CORRUPT', 'P2L-7',
         data[:20] + bytes([data[20] ^ 0x20]) + data[21:])
    open('EXPECTED', 'w').write('\n'.join(cases) + '\n')

if __name__ == '__main__':
    main()
