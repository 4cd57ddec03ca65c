#!/usr/bin/env python3
# cache_calls.py -- membuffer lookups and stores per call site of one run:
#
#   tools/bench/cache_calls.py [--bytes] MODDIR -- CMD...
#
# Runs CMD once with LD_LIBRARY_PATH=MODDIR and cache_calls.so preloaded
# (built next to this script on first use), then prints per call site:
# operation (get, getp = get_partial, set), calls, hits and the calling
# function as addr2line names it, and with --bytes the bytes each set
# site added to the membuffer (slower: every store then asks the
# membuffer for its fill before and after).  Counts, not time: the benchmark that
# says what each lookup avoided or cost is rss_cpu.py.
import os
import subprocess
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))


def shim():
    so = os.path.join(tempfile.gettempdir(), 'fsfs7-cache_calls.so')
    src = os.path.join(here, 'cache_calls.c')
    if not os.path.exists(so) or os.path.getmtime(so) < os.path.getmtime(src):
        subprocess.check_call(['cc', '-O2', '-shared', '-fPIC', '-o', so, src,
                               '-ldl'])
    return so


def function_at(path, offset):
    try:
        out = subprocess.run(['addr2line', '-f', '-e', path, offset],
                             capture_output=True, text=True).stdout
        return out.split('\n')[0] or '??'
    except OSError:
        return '??'


def main():
    sep = sys.argv.index('--')
    opts, cmd = sys.argv[1:sep], sys.argv[sep + 1:]
    want_bytes = '--bytes' in opts
    moddir = [o for o in opts if o != '--bytes'][0]
    with tempfile.NamedTemporaryFile(suffix='.txt') as out:
        env = dict(os.environ, LD_LIBRARY_PATH=moddir, LD_PRELOAD=shim(),
                   CACHE_CALLS_OUT=out.name,
                   CACHE_CALLS_BYTES='1' if want_bytes else '0')
        subprocess.run(cmd, stdout=subprocess.DEVNULL, env=env, check=False)
        rows = [line.split() for line in open(out.name) if line.strip()]
    rows.sort(key=lambda r: -int(r[1]))
    print('%-4s %10s %10s %12s  %s' % ('op', 'calls', 'hits', 'bytes',
                                       'site'))
    for op, calls, hits, path, offset, nbytes in rows:
        print('%-4s %10s %10s %12s  %s (%s)'
              % (op, calls, hits, nbytes if op == 'set' else '',
                 function_at(path, offset), os.path.basename(path)))


if __name__ == '__main__':
    main()
