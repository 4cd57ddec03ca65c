#!/bin/bash
# sweep_issue11.sh REPOS STOCK START FINAL -- every row of issue 11 with
# tools/bench/rss_cpu.py (min user+sys CPU and peak RSS range per module,
# the modules in turn): trunk reads and open cost of mvn7, mvn7p, mvn6p
# (3 rounds), the long-history rows of lc and lc2 (3 rounds), whole-
# history dump and verify of mvn7p and mvn6p with the default cache and
# with -M 1024 (2 rounds).  REPOS holds the repositories (see
# doc/benchmarks.md, "Data" for how they are made);
# STOCK, START and FINAL are directories holding a libsvn_fs_fs-1.so.1.
# A benchmark, not a test: minutes of CPU.
set -u
[ $# -eq 4 ] || { echo "usage: $0 REPOS STOCK START FINAL" >&2; exit 2; }
R=$1; shift
here=$(dirname "$(readlink -f "$0")")
run() { local n=$1; shift; echo "## $*"; python3 "$here/rss_cpu.py" "$n" $MODS -- "$@"; }
MODS="$*"
for r in mvn7 mvn7p mvn6p; do
  run 3 svnbench null-log -v -q "file://$R/$r"
  run 3 svnbench null-export -q "file://$R/$r/trunk"
  run 3 svnbench null-list -R -v "file://$R/$r/trunk"
  run 3 svn list -R -v "file://$R/$r/trunk"
  run 3 svnlook youngest "$R/$r"
done
run 3 svnadmin dump -q -r0:3000 "$R/lc"
run 3 svnadmin dump -q -M 1024 -r0:3000 "$R/lc"
run 3 svnbench null-export -q "file://$R/lc/trunk"
run 3 svnbench null-export -q "file://$R/lc2/trunk"
run 3 svn export -q --force "file://$R/lc2/trunk" /dev/shm/sweep-issue11-lc2
rm -rf /dev/shm/sweep-issue11-lc2
run 3 svn log -q --limit 20000 "file://$R/lc"
run 3 svn log -q --limit 20000 "file://$R/mvn7p"
for r in mvn7p mvn6p; do
  run 2 svnadmin dump -q "$R/$r"
  run 2 svnadmin dump -q -M 1024 "$R/$r"
  run 2 svnadmin verify -q "$R/$r"
  run 2 svnadmin verify -q -M 1024 "$R/$r"
done
