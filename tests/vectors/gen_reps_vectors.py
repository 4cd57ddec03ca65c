#!/usr/bin/env python3
"""Regenerate the svndiff and rep_header vectors of the reps layer.

Good svndiff vectors: NAME.svndiff applied to the fixed base text
SOURCE (below) gives NAME.expected.  Bad vectors: NAME.svndiff (or
NAME.header) must fail with the error code and rule in NAME.expect.
Run from anywhere; writes next to this script.
"""
import os
import zlib

SOURCE = b"0123456789abcdefghijklmnopqrstuvwxyz"
HERE = os.path.dirname(os.path.abspath(__file__))


def varint(n):
    """svndiff number: 7 bits per byte, most significant group first."""
    out = [n & 0x7F]
    n >>= 7
    while n:
        out.append(0x80 | (n & 0x7F))
        n >>= 7
    return bytes(reversed(out))


def op(kind, length, offset=None):
    code = {"src": 0, "tgt": 1, "new": 2}[kind] << 6
    b = bytes([code | length]) if 0 < length < 64 else bytes([code]) + varint(length)
    if offset is not None:
        b += varint(offset)
    return b


def window(soff, slen, tlen, ins, new, ins_len=None, new_len=None):
    return (varint(soff) + varint(slen) + varint(tlen)
            + varint(len(ins) if ins_len is None else ins_len)
            + varint(len(new) if new_len is None else new_len) + ins + new)


def raw_section(data):
    return varint(len(data)) + data


def zlib_section(data):
    return varint(len(data)) + zlib.compress(data)


def lz4_literals(data):
    """An LZ4 block holding DATA as literals only (valid, if not small)."""
    n = len(data)
    if n < 15:
        return bytes([n << 4]) + data
    extra, rest = b"", n - 15
    while rest >= 255:
        extra += b"\xff"
        rest -= 255
    return bytes([0xF0]) + extra + bytes([rest]) + data


def write(kind, codec, name, files):
    d = os.path.join(HERE, kind, codec)
    os.makedirs(d, exist_ok=True)
    for suffix, data in files.items():
        with open(os.path.join(d, name + suffix), "wb") as f:
            f.write(data if isinstance(data, bytes) else data.encode())


def good_svndiff(name, stream, expected):
    write("good", "svndiff", name, {".svndiff": stream, ".expected": expected})


def bad_svndiff(name, stream, code, rule):
    write("bad", "svndiff", name, {".svndiff": stream,
                                   ".expect": "%s %s\n" % (code, rule)})


V0, V1, V2 = b"SVN\0", b"SVN\1", b"SVN\2"

good_svndiff("empty", V0, b"")
good_svndiff("new_only", V0 + window(0, 0, 5, op("new", 5), b"hello"), b"hello")
good_svndiff("source_copy", V0 + window(10, 5, 5, op("src", 5, 0), b""), b"abcde")
good_svndiff("target_overlap",
             V0 + window(0, 0, 8, op("new", 2) + op("tgt", 6, 0), b"ab"),
             b"abababab")
good_svndiff("mixed_two_windows",
             V0 + window(0, 10, 12, op("src", 10, 0) + op("new", 2), b"!?")
             + window(30, 6, 7, op("new", 1) + op("src", 6, 0), b"-"),
             b"0123456789!?-uvwxyz")
good_svndiff("empty_window", V0 + window(0, 0, 0, b"", b""), b"")
good_svndiff("long_varint_length",
             V0 + window(0, 0, 100, op("new", 100), b"x" * 100), b"x" * 100)
good_svndiff("v1_raw_sections",
             V1 + window(0, 3, 6, raw_section(op("src", 3, 0) + op("new", 3)),
                         raw_section(b"xyz")), b"012xyz")
good_svndiff("v1_zlib_new_data",
             V1 + window(0, 0, 300, raw_section(op("new", 300)),
                         zlib_section(b"a" * 300)), b"a" * 300)
good_svndiff("v2_lz4_new_data",
             V2 + window(0, 0, 5, raw_section(op("new", 5)),
                         varint(5) + lz4_literals(b"hello")), b"hello")

bad_svndiff("bad_magic", b"SVX\0", "SVN_ERR_SVNDIFF_INVALID_HEADER", "SVNDIFF-1")
bad_svndiff("bad_version", b"SVN\3", "SVN_ERR_SVNDIFF_INVALID_HEADER", "SVNDIFF-1")
bad_svndiff("short_header", b"SV", "SVN_ERR_SVNDIFF_INVALID_HEADER", "SVNDIFF-1")
bad_svndiff("truncated_window_header", V0 + b"\x00\x05\x05",
            "SVN_ERR_SVNDIFF_UNEXPECTED_END", "SVNDIFF-13")
bad_svndiff("truncated_window_body", V0 + window(0, 0, 3, op("new", 3), b"abc")[:-1],
            "SVN_ERR_SVNDIFF_UNEXPECTED_END", "SVNDIFF-13")
bad_svndiff("varint_too_long", V0 + b"\xff" * 11 + b"\x00",
            "SVN_ERR_SVNDIFF_CORRUPT_WINDOW", "SVNDIFF-2")
bad_svndiff("huge_target_view", V0 + varint(0) + varint(0) + varint(1 << 30)
            + varint(0) + varint(0), "SVN_ERR_SVNDIFF_CORRUPT_WINDOW", "SVNDIFF-4")
bad_svndiff("view_beyond_source", V0 + window(30, 10, 1, op("src", 1, 0), b""),
            "SVN_ERR_SVNDIFF_CORRUPT_WINDOW", "SVNDIFF-5")
bad_svndiff("opcode_3", V0 + window(0, 0, 1, b"\xc1", b""),
            "SVN_ERR_SVNDIFF_INVALID_OPS", "SVNDIFF-9")
bad_svndiff("truncated_instruction", V0 + window(0, 4, 4, b"\x00", b""),
            "SVN_ERR_SVNDIFF_INVALID_OPS", "SVNDIFF-9")
bad_svndiff("source_copy_outside_view", V0 + window(0, 4, 5, op("src", 5, 0), b""),
            "SVN_ERR_SVNDIFF_INVALID_OPS", "SVNDIFF-10")
bad_svndiff("target_copy_unwritten", V0 + window(0, 0, 2, op("tgt", 2, 0), b""),
            "SVN_ERR_SVNDIFF_INVALID_OPS", "SVNDIFF-11")
bad_svndiff("new_data_overrun", V0 + window(0, 0, 4, op("new", 4), b"ab"),
            "SVN_ERR_SVNDIFF_INVALID_OPS", "SVNDIFF-12")
bad_svndiff("target_view_not_filled", V0 + window(0, 0, 4, op("new", 2), b"ab"),
            "SVN_ERR_SVNDIFF_INVALID_OPS", "SVNDIFF-12")
bad_svndiff("target_view_overrun", V0 + window(0, 0, 2, op("new", 3), b"abc"),
            "SVN_ERR_SVNDIFF_INVALID_OPS", "SVNDIFF-12")
bad_svndiff("zlib_garbage", V1 + window(0, 0, 10, raw_section(op("new", 10)),
                                        varint(10) + b"\x01\x02\x03"),
            "SVN_ERR_SVNDIFF_INVALID_COMPRESSED_DATA", "SVNDIFF-7")
bad_svndiff("zlib_wrong_length",
            V1 + window(0, 0, 20, raw_section(op("new", 20)),
                        varint(20) + zlib.compress(b"a" * 30)),
            "SVN_ERR_SVNDIFF_INVALID_COMPRESSED_DATA", "SVNDIFF-7")
bad_svndiff("lz4_garbage", V2 + window(0, 0, 10, raw_section(op("new", 10)),
                                       varint(10) + b"\xf0\xff\xff"),
            "SVN_ERR_SVNDIFF_INVALID_COMPRESSED_DATA", "SVNDIFF-7")
bad_svndiff("section_too_large", V1 + window(0, 0, 2, raw_section(op("new", 2)),
                                             varint(9) + b"abc"),
            "SVN_ERR_SVNDIFF_INVALID_COMPRESSED_DATA", "SVNDIFF-8")
bad_svndiff("section_no_length", V1 + window(0, 0, 0, b"", b"\x80"),
            "SVN_ERR_SVNDIFF_INVALID_COMPRESSED_DATA", "SVNDIFF-7")


def good_header(name, text, expected):
    write("good", "rep_header", name, {".header": text, ".expected": expected + "\n"})


def bad_header(name, text, rule):
    write("bad", "rep_header", name, {".header": text,
                                      ".expect": "SVN_ERR_FS_CORRUPT %s\n" % rule})

good_header("plain", b"PLAIN\nabc", "plain 6")
good_header("self_delta", b"DELTA\nSVN\0", "self_delta 6")
good_header("delta", b"DELTA 1 3 149548\nSVN\2", "delta 1 3 149548 17")
good_header("delta_physical", b"DELTA 17 4711 0\n", "delta 17 4711 0 16")
good_header("delta_big_item", b"DELTA 9 18446744073709551615 12\n",
            "delta 9 18446744073709551615 12 32")
bad_header("no_newline", b"PLAIN", "REP-1")
bad_header("line_too_long", b"DELTA " + b"1" * 100 + b"\n", "REP-1")
bad_header("unknown_keyword", b"PLAINX\n", "REP-2")
bad_header("lowercase", b"plain\n", "REP-2")
bad_header("trailing_blank", b"DELTA \n", "REP-2")
bad_header("missing_length", b"DELTA 1 3\n", "REP-4")
bad_header("extra_field", b"DELTA 1 3 4 5\n", "REP-4")
bad_header("negative_rev", b"DELTA -1 3 4\n", "REP-4")
bad_header("double_blank", b"DELTA 1  3 4\n", "REP-4")
bad_header("item_overflow", b"DELTA 1 18446744073709551616 4\n", "REP-4")
bad_header("hex_digits", b"DELTA 1 3 4a\n", "REP-4")
