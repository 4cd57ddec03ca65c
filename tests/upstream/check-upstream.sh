#!/bin/bash
# check-upstream.sh MODDIR: run upstream Subversion's own test suites (C FS
# tests + Python cmdline tests, groups c,py) against the module in MODDIR,
# over file:// and over svn:// (svnserve loads the module too), and compare
# with a stock baseline of the same runs.  `make check-upstream` calls it
# with the freshly built module's .libs dir.  Needs root (the harness runs
# the tests as user svntest and may apt-get on first use).
#
# Environment:
#   FSFS7_UPSTREAM_TESTS  the harness dir (default: ../shared/upstream-tests
#                         next to the checkout)
#   FSFS7_UPSTREAM_WORK   prepared work dir, reused if ready (default
#                         /tmp/fsfs7-uw; an already prepared /tmp/uw is
#                         reused instead of preparing a second one)
#   FSFS7_UPSTREAM_OUT    results (default: build/upstream-results)
#   FSFS7_UPSTREAM_RA     which access methods (default: "file svn http";
#                         http:// starts a private Apache with mod_dav_svn)
#   FSFS7_UPSTREAM_SUITES suite list for run-suites.py (default: c,py)
#   FSFS7_UPSTREAM_JOBS   parallelism (default: nproc)
# Stock baselines are cached in the work dir (baseline-stock-<ra>-<suites>)
# since the
# stock module never changes; a file:// baseline in /tmp/r/stock is adopted.
# Output per access method: OUT/ours-<ra>/{summary.tsv,results.tsv,logs/},
# OUT/compare-<ra>.txt (every test whose result differs from stock).
# Exit status: 0 when every result equals stock's, 1 otherwise, 2 on usage
# or harness errors.
set -uo pipefail
top=$(cd "$(dirname "$(readlink -f "$0")")/../.." && pwd)
[ $# -eq 1 ] || { echo "usage: $0 MODULE_DIR" >&2; exit 2; }
moddir=$(readlink -f "$1")
[ -f "$moddir/libsvn_fs_fs-1.so.1" ] || { echo "check-upstream: no libsvn_fs_fs-1.so.1 in $1" >&2; exit 2; }
ut=${FSFS7_UPSTREAM_TESTS:-$top/../shared/upstream-tests}
[ -x "$ut/run-suites.py" ] || { echo "check-upstream: no harness at $ut (set FSFS7_UPSTREAM_TESTS)" >&2; exit 2; }
work=${FSFS7_UPSTREAM_WORK:-/tmp/fsfs7-uw}
if [ -z "${FSFS7_UPSTREAM_WORK:-}" ] && [ ! -f "$work/bin/c-suites.tsv" ] && [ -f /tmp/uw/bin/c-suites.tsv ]; then
  work=/tmp/uw
fi
out=${FSFS7_UPSTREAM_OUT:-$PWD/build/upstream-results}
ras=${FSFS7_UPSTREAM_RA:-file svn http}
suites=${FSFS7_UPSTREAM_SUITES:-c,py}
jobs=${FSFS7_UPSTREAM_JOBS:-$(nproc)}
log() { echo "check-upstream: $*" >&2; }
table() { awk -F'\t' '{ printf "%-26s", $1; for (i = 2; i <= NF; i++) printf " %7s", $i; print "" }' "$1"; }

case " $ras " in *" http "*) http=--http;; *) http=;; esac
if [ ! -f "$work/bin/c-suites.tsv" ] || { [ -n "$http" ] && [ ! -f "$work/bin/mod_dontdothat.so" ]; }; then
  log "preparing upstream suites in $work (once per machine) $http"
  "$ut/prepare.sh" $http "$work" || { log "prepare.sh failed"; exit 2; }
fi

# The tests run as user svntest: give them a world-readable copy of the
# module (the build tree may not be readable for them).
mcopy="$work/fsfs7-module"
rm -rf "$mcopy"; mkdir -p "$mcopy"
cp "$(readlink -f "$moddir/libsvn_fs_fs-1.so.1")" "$mcopy/libsvn_fs_fs-1.so.1"
chmod -R a+rX "$mcopy"
mkdir -p "$out"
log "module: $moddir (as $mcopy); work: $work; results: $out"

status=0
for ra in $ras; do
  # svnserve runs threaded: one process, many svn_fs_t on one repository
  # (the per-repository shared state a threaded server depends on).
  extra=; [ "$ra" = svn ] && extra=--threaded
  base="$work/baseline-stock-$ra-$(echo "$suites" | tr ',' '_')"
  if [ ! -f "$base/summary.tsv" ] && [ "$ra" = file ] && [ "$suites" = c,py ] \
     && [ -f /tmp/r/stock/summary.tsv ]; then
    log "adopting the stock file:// baseline in /tmp/r/stock"
    rm -rf "$base"; cp -a /tmp/r/stock "$base"
  fi
  if [ ! -f "$base/summary.tsv" ]; then
    log "stock baseline over $ra:// (cached in $base)"
    rm -rf "$base"
    "$ut/run-suites.py" --work "$work" --out "$base" --suites "$suites" --ra "$ra" \
        $extra --jobs "$jobs" > "$base.log" 2>&1
    [ -f "$base/summary.tsv" ] || { log "stock baseline failed, see $base.log"; exit 2; }
  fi
  res="$out/ours-$ra"
  rm -rf "$res"
  log "fsfs7 over $ra://"
  "$ut/run-suites.py" --work "$work" --out "$res" --module "$mcopy" --suites "$suites" \
      --ra "$ra" $extra --jobs "$jobs" > "$out/ours-$ra.log" 2>&1
  [ -f "$res/summary.tsv" ] || { log "run failed, see $out/ours-$ra.log"; status=2; continue; }
  echo "== stock, $ra:// ($base/summary.tsv)"
  table "$base/summary.tsv"
  echo "== fsfs7, $ra:// ($res/summary.tsv)"
  table "$res/summary.tsv"
  grep -E '^(client|server) maps' "$res/run.txt"
  "$ut/run-suites.py" --compare "$base" "$res" > "$out/compare-$ra.txt"
  rc=$?
  echo "== results that differ from stock ($out/compare-$ra.txt): $(tail -1 "$out/compare-$ra.txt")"
  awk -F'\t' 'NF>=4 {split($4,a," -> "); k=a[1]" -> "a[2]; n[k]++} END {for (k in n) print "   " n[k] "\t" k}' \
      "$out/compare-$ra.txt" | sort -rn
  [ $rc -eq 0 ] || [ $status -ne 0 ] || status=1
done
exit $status
