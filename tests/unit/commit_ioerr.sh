#!/bin/bash
# commit_ioerr.sh [TOP [SCRATCH]]: fail the Nth rename / fdatasync / fsync /
# write of one commit through our module (strace fault injection), for
# every N, and check what doc/format/commit.md promises: the repository
# still verifies with the stock module, the commit either happened
# completely or not at all, a commit that reported success is there, and
# the next commit works (after removing a dead transaction).
# Exit 77 (skip) without strace.
set -u
top=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
scratch=${2:-/tmp/commit-ioerr-$$}
command -v strace >/dev/null || exit 77
mod=$(readlink -f "$top/subversion/libsvn_fs_fs/.libs")
rm -rf "$scratch" && mkdir -p "$scratch" && cd "$scratch" || exit 1
printf 'hello\n' > a
svnadmin create --compatible-version 1.9 base
LD_LIBRARY_PATH=$mod svnmucc -m 1 put a "file://$PWD/base/f" >/dev/null \
  || exit 1
runs=0
for call in rename fdatasync fsync write; do
  # Every write would take minutes; every third still hits each step.
  step=1; [ $call = write ] && step=3
  for n in $(seq 1 $step 60); do
    rm -rf r && cp -a base r
    strace -f -o /dev/null -e trace=$call -e inject=$call:error=EIO:when=$n \
      env LD_LIBRARY_PATH=$mod svnmucc -m 2 put a "file://$PWD/r/g" \
      mkdir "file://$PWD/r/d" >out 2>&1
    rc=$?
    # Past the last call of this kind: nothing was injected.
    grep -q "EIO\|Input/output" out || { [ $rc = 0 ] && break; }
    runs=$((runs + 1))
    y=$(svnlook youngest r)
    svnadmin verify -q r 2>/dev/null \
      || { echo "$call #$n: verify fails"; exit 1; }
    if [ $rc = 0 ] && [ "$y" != 2 ]; then
      echo "$call #$n: commit reported success, youngest $y"; exit 1
    fi
    if [ "$y" = 2 ]; then
      [ "$(svnlook tree r | tr -d ' \n')" = "/d/fg" ] \
        || { echo "$call #$n: r2 incomplete"; exit 1; }
    elif [ "$y" != 1 ]; then
      echo "$call #$n: youngest $y"; exit 1
    fi
    t=$(svnadmin lstxns r)
    [ -z "$t" ] || svnadmin rmtxns -q r $t
    LD_LIBRARY_PATH=$mod svnmucc -m 3 put a "file://$PWD/r/h" >/dev/null \
      || { echo "$call #$n: next commit fails"; exit 1; }
    svnadmin verify -q r 2>/dev/null \
      && [ "$(svnlook youngest r)" = $((y + 1)) ] \
      || { echo "$call #$n: after next commit"; exit 1; }
  done
done
echo "commit_ioerr: $runs injected failures survived"
cd / && rm -rf "$scratch"
[ $runs -gt 20 ]
