#!/bin/bash
# main-job.sh: the end-to-end demonstration of fsfs7 on this machine.
# Run after build/setup.sh (the README's first command does both):
#   1. generate a history with tools/gen_history.py;
#   2. create repositories with OUR module in formats 6, 7 and 8, show stock
#      `svnadmin info` of each and verify them with STOCK;
#   3. write path: load the generated history (and maven-small when it is
#      there) into f7 and f6 repos with OUR module and, for comparison, with
#      STOCK (timed, ratio printed); stock verifies ours and stock's dumps
#      of both must be identical;
#   4. pack: three interleaved copies of each loaded repository
#      (tools/copy_repo.py); one stays unpacked, one is packed by STOCK,
#      one by OUR module (timed); stock verifies our pack and stock's
#      dumps of both packs must be identical;
#   5. read path: time read operations stock vs ours on our packs,
#      printing the speed ratio and whether the outputs are identical;
#   6. cold reads: `svn log -v` and `svn export` of the format-7 unpacked
#      copies, of stock's packs and of ours, each read by both modules
#      with the page cache of the copy emptied first
#      (tools/bench/cold_reads.py).
#   Failures of ours in 5 and 6 are printed, not fatal.
# Environment: FSFS7_JOB_DIR (default /tmp/fsfs7-main-job, recreated),
#   FSFS7_JOB_REVS (default 1000), FSFS7_DATA (dir with maven-small),
#   FSFS7_JOB_COLD_REPS (runs per cold cell, median; default 3).
# Exit status: non-zero only if the set-up (build, stock side) fails or a
# repository created, loaded or packed by ours does not verify with stock
# (or its dump differs from its stock-made twin's).
set -uo pipefail
top=$(cd "$(dirname "$(readlink -f "$0")")/.." && pwd)
run="$top/tools/fsfs7-run"
job=${FSFS7_JOB_DIR:-/tmp/fsfs7-main-job}
revs=${FSFS7_JOB_REVS:-1000}
cold_reps=${FSFS7_JOB_COLD_REPS:-3}
export TZ=UTC LC_ALL=C.UTF-8
unset LD_LIBRARY_PATH
calc() { awk "BEGIN { print $* }"; }     # float arithmetic without bc
say() { printf '\n=== %s\n' "$*"; }
die() { echo "main-job: $*" >&2; exit 1; }

"$run" true || die "our module is not usable (run build/setup.sh first)"
# fsfs7-run has just checked that the loader picks our module with this
# environment; timed runs use it directly so that fsfs7-run's own ~40 ms
# check is not counted against fsfs7.
moddir=${FSFS7_MODULE_DIR:-$top/subversion/libsvn_fs_fs/.libs}
ours() { LD_LIBRARY_PATH="$moddir" "$@"; }
rm -rf "$job"; mkdir -p "$job"
echo "fsfs7 main job: $(date -u +%FT%TZ), work dir $job"
echo "module: $("$run" svnadmin --version | grep '^\* fs_fs')"

say "1. generating $revs revisions with tools/gen_history.py (seed 1)"
t0=$(date +%s.%N)
python3 "$top/tools/gen_history.py" --revs "$revs" --seed 1 -o "$job/gen.dump" --stats \
  2> "$job/gen.stats" || die "gen_history.py failed"
printf '%s: %d bytes in %.1fs; shapes: %s\n' gen.dump "$(stat -c %s "$job/gen.dump")" \
  "$(calc "$(date +%s.%N) - $t0")" "$(awk '{printf "%s=%s ", $1, $2}' "$job/gen.stats")"

say "2. repositories created by fsfs7, checked by stock"
created_bad=0
for f in 6 7 8; do
  case $f in 6) opt="--compatible-version 1.8";; 7) opt="--compatible-version 1.9";; 8) opt="";; esac
  repo="$job/created-f$f"
  echo "--- fsfs7 svnadmin create $opt created-f$f"
  if ! "$run" svnadmin create $opt "$repo"; then
    echo "FAILED: fsfs7 could not create a format-$f repository"; created_bad=1; continue
  fi
  svnadmin info "$repo" | grep -E '^(Filesystem (Type|Format)|Compatible|FSFS|Revisions|UUID)'
  if svnadmin verify -q "$repo"; then echo "stock svnadmin verify: OK"
  else echo "stock svnadmin verify: FAILED"; created_bad=1; fi
  if svn mkdir -q -m "first commit by stock" --parents "file://$repo/trunk/src" \
     && ours svn mkdir -q -m "second commit, by fsfs7" "file://$repo/trunk/doc" \
     && svnadmin verify -q "$repo"; then
    echo "stock commit + fsfs7 commit + stock verify on it: OK (r$(svnlook youngest "$repo"))"
  else echo "commits into it: FAILED"; created_bad=1; fi
done

say "3. write path: svnadmin load through fsfs7 and through stock"
printf '%-34s %9s %9s %7s  %s\n' load stock_s fsfs7_s ratio "stock verify / dumps"
mkrepo() { # name compat dumpcmd
  local repo="$job/$1" twin="$job/$1.stock" t s o same
  svnadmin create --compatible-version "$2" "$repo" || die "stock create failed"
  sed -i 's/^layout sharded 1000$/layout sharded 100/' "$repo/db/format"
  cp -a "$repo" "$twin"
  t=$(date +%s.%N)
  bash -c "set -o pipefail; $3 | svnadmin load -q '$twin' >/dev/null" || die "stock load into $1 failed"
  s=$(calc "$(date +%s.%N) - $t"); t=$(date +%s.%N)
  if ! ours bash -c "set -o pipefail; $3 | svnadmin load -q '$repo' >/dev/null"; then
    echo "FAILED: fsfs7 load into $1"; created_bad=1
    rm -rf "$repo"; mv "$twin" "$repo"
  else
    o=$(calc "$(date +%s.%N) - $t")
    same="verify OK"
    svnadmin verify -q "$repo" 2>/dev/null || { same="verify FAILED"; created_bad=1; }
    if cmp -s <(svnadmin dump -q "$repo") <(svnadmin dump -q "$twin"); then same="$same, dumps identical"
    else same="$same, dumps DIFFERENT"; created_bad=1; fi
    printf '%-34s %9.2f %9.2f %6.2fx  %s\n' "$1 ($(svnlook youngest "$repo") revs)" "$s" "$o" \
      "$(calc "$s / ($o + 0.0001)")" "$same"
    rm -rf "$twin"
  fi
}
mkrepo gen-f7 1.9 "cat '$job/gen.dump'"
mkrepo gen-f6 1.8 "cat '$job/gen.dump'"
repos="gen-f7 gen-f6"
packed=""
mvn=""
for d in ${FSFS7_DATA:-} "$top/../shared/data"; do
  [ -f "$d/maven-small.svndump.gz" ] && { mvn="$d/maven-small.svndump.gz"; break; }
done
if [ -n "$mvn" ]; then
  mkrepo maven-f7 1.9 "zcat '$mvn'"
  repos="$repos maven-f7"
else
  echo "(maven-small.svndump.gz not found; set FSFS7_DATA to include it)"
fi

echo "(loaded by fsfs7, shards of 100)"

say "4. svnadmin pack through stock and through fsfs7"
# Three copies of each loaded repository, written shard by shard round
# robin with gaps between them (tools/copy_repo.py), as the files of a
# repository that grew on a busy server lie on disk; each pack starts with
# the copy's pages evicted from the cache, as a pack on a server does.
evict() { python3 -c 'import sys; sys.path.insert(0, sys.argv[1]); import cache; cache.evict(sys.argv[2:])' \
  "$top/tools/bench" "$@"; }
printf '%-34s %9s %9s %7s  %s\n' pack stock_s fsfs7_s ratio "fsfs7's pack: stock verify / dumps"
for r in $repos; do
  lay="$job/$r.layouts"
  python3 "$top/tools/copy_repo.py" --remove-filler "$job/$r" "$lay" 3 64 >/dev/null \
    || die "copy_repo.py of $r failed"
  mv "$lay/copy-1" "$lay/unpacked"; mv "$lay/copy-2" "$lay/stock-pack"; mv "$lay/copy-3" "$lay/fsfs7-pack"
  evict "$lay/stock-pack"; t=$(date +%s.%N)
  svnadmin pack -q "$lay/stock-pack" || die "stock pack of $r failed"
  s=$(calc "$(date +%s.%N) - $t")
  evict "$lay/fsfs7-pack"; t=$(date +%s.%N)
  if ! ours svnadmin pack -q "$lay/fsfs7-pack"; then
    echo "FAILED: fsfs7 pack of $r"; created_bad=1; continue
  fi
  o=$(calc "$(date +%s.%N) - $t")
  same="verify OK"
  svnadmin verify -q "$lay/fsfs7-pack" 2>/dev/null || { same="verify FAILED"; created_bad=1; }
  if cmp -s <(svnadmin dump -q "$lay/fsfs7-pack") <(svnadmin dump -q "$lay/stock-pack"); then
    same="$same, dumps identical"
  else same="$same, dumps DIFFERENT"; created_bad=1; fi
  printf '%-34s %9.2f %9.2f %6.2fx  %s\n' "$r ($(ls "$lay/fsfs7-pack/db/revs" | grep -c '\.pack$') shards)" \
    "$s" "$o" "$(calc "$s / ($o + 0.0001)")" "$same"
  packed="$packed $r"
done

say "5. read path: fsfs7's packs read by stock and by fsfs7"
# time_op LABEL CMD...: run CMD with stock and with ours (best of 2 runs),
# compare outputs, print the times and stock/ours ratio.
printf '\n%-34s %9s %9s %7s  %s\n' operation stock_s fsfs7_s ratio output
time_op() {
  local label=$1; shift
  local best_s=999999 best_o=999999 rc_o=0 t s o i
  for i in 1 2; do
    t=$(date +%s.%N); "$@" > "$job/out.stock" 2>"$job/err.stock" \
      || { echo "stock failed: $label: $(head -c 300 "$job/err.stock")"; return; }
    s=$(calc "$(date +%s.%N) - $t"); [ "$(calc "$s < $best_s")" = 1 ] && best_s=$s
    t=$(date +%s.%N); ours "$@" > "$job/out.ours" 2>"$job/err.ours"; rc_o=$?
    o=$(calc "$(date +%s.%N) - $t"); [ "$(calc "$o < $best_o")" = 1 ] && best_o=$o
    [ $rc_o -eq 0 ] || break
  done
  if [ $rc_o -ne 0 ]; then
    printf '%-34s %9.2f %9s %7s  %s\n' "$label" "$best_s" FAILED - \
      "exit $rc_o: $(grep -m1 -o 'E[0-9]\{6\}.*' "$job/err.ours" | head -c 90)"
    return
  fi
  local same=identical
  cmp -s "$job/out.stock" "$job/out.ours" || same=DIFFERENT
  printf '%-34s %9.2f %9.2f %6.2fx  %s\n' "$label" "$best_s" "$best_o" \
    "$(calc "$best_s / ($best_o + 0.0001)")" "$same"
}
for r in $packed; do
  repo="$job/$r.layouts/fsfs7-pack"; head=$(svnlook youngest "$repo")
  time_op "$r: svnadmin dump" svnadmin dump -q "$repo"
  time_op "$r: svnadmin dump --deltas" svnadmin dump -q --deltas "$repo"
  time_op "$r: svn log -v" svn log -v "file://$repo"
  time_op "$r: svn list -R -v" svn list -R -v "file://$repo/trunk"
  time_op "$r: svnlook tree -r $((head / 2))" svnlook tree --show-ids -r $((head / 2)) "$repo"
  time_op "$r: svnadmin verify" svnadmin verify -q "$repo"
done
rm -f "$job"/out.* "$job"/err.*

say "6. cold reads: unpacked, stock's pack and fsfs7's pack, each read by both modules"
echo "(format 7: the physical packs of format 6 are the same bytes from both modules;"
echo " page cache of the copy emptied before each run; median of $cold_reps runs;"
echo " gain = stock reading stock's pack / fsfs7 reading fsfs7's pack)"
sets=""
for r in $packed; do
  case $r in *-f6) continue ;; esac
  lay="$job/$r.layouts"; sets="$sets $r:$lay/unpacked:$lay/stock-pack:$lay/fsfs7-pack"
done
[ -n "$sets" ] && python3 "$top/tools/bench/cold_reads.py" --header --reps "$cold_reps" \
  --module "$moddir" --work "$job" $sets

say "done"
[ $created_bad -eq 0 ] && echo "repositories created, loaded and packed by fsfs7: all verified by stock" \
  || echo "repositories created, loaded or packed by fsfs7: SOME FAILED (see sections 2-4)"
echo "work dir kept: $job"
exit $created_bad
