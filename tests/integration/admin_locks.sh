#!/bin/bash
# admin_locks.sh --- svn lock / unlock / lslocks / rmlocks through fsfs7
# must print what they print with the stock module, and each module must
# read the other's db/locks.
# Usage: tests/integration/admin_locks.sh  (FSFS7_MODULE_DIR honoured).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
run="$top/tools/fsfs7-run"
work=$(mktemp -d /tmp/fsfs7-locks-XXXXXX)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

session() { # RUNNER NAME: a scripted lock session, output normalised
  local r=$1 d="$work/$2" wc="$work/$2-wc" uuid
  svnadmin create "$d"; svn co -q "file://$d" "$wc"
  mkdir -p "$wc/a/b"; echo 1 > "$wc/a/f"; echo 2 > "$wc/a/b/g"
  echo 3 > "$wc/top"; svn add -q "$wc/a" "$wc/top"; svn ci -q -m init "$wc"
  uuid=$(svnlook uuid "$d")
  {
    $r svn lock -q -m "file f" "$wc/a/f"
    $r svn lock -q "$wc/a/b/g"
    $r svn lock -q -m "multi
line" "$wc/top"
    $r svn lock "file://$d/a/f" || true
    $r svn lock "file://$d/a" || true
    $r svn lock "file://$d/nope" || true
    $r svnadmin lslocks "$d" | grep -v -e Created -e Token | sort
    $r svn unlock -q "$wc/a/f"
    $r svn unlock --username alice "$wc/a/b/g" || true
    $r svn unlock --force "file://$d/a/b" || true
    $r svn lock --username other --force "file://$d/top"
    $r svn info "file://$d/top" | grep Lock | grep -v -e Created -e Token
    $r svnadmin rmlocks "$d" /a/b/g
    $r svnadmin lslocks "$d" | grep -v -e Created -e Token
  } 2>&1 | sed -e "s/$uuid/UUID/g" -e "s|$work/$2|REPO|g"
  (cd "$d/db/locks" && find . -type f | sort)
}

session "" stock > "$work/stock.out"
session "$run" ours > "$work/ours.out"
diff "$work/stock.out" "$work/ours.out" || fail "lock session output differs"
# Cross-reading: each module lists the other's remaining lock.
[ "$("$run" svnadmin lslocks "$work/stock" | grep -c '^Path:')" = 1 ] \
  || fail "fsfs7 does not read stock's lock"
[ "$(svnadmin lslocks "$work/ours" | grep -c '^Path:')" = 1 ] \
  || fail "stock does not read fsfs7's lock"
svn unlock -q --force "file://$work/ours/top"
[ -z "$(cd "$work/ours/db/locks" && find . -type f)" ] \
  || fail "stock unlock left digest files behind in fsfs7's tree"
echo "PASS admin_locks"
