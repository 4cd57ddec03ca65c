#!/bin/bash
# admin_revprops.sh --- create/open and revprop compatibility of fsfs7's
# admin layer with the stock FSFS module.
#
# 1. fsfs7 creates repositories for --compatible-version 1.8, 1.9 and the
#    default; stock `svnadmin verify` accepts them and their db/ listing
#    (names, sizes, modes; fsfs.conf excepted) equals a stock-created one.
# 2. Small stock repositories (shard size 4, packed) get the same series
#    of revprop changes once through stock and once through fsfs7
#    (svn propset/propdel --revprop, svnadmin setlog, a change big enough
#    to split a pack); db/revprops must then be byte-identical, and each
#    side reads the other's revprops identically.
#
# Usage: tests/integration/admin_revprops.sh   (FSFS7_MODULE_DIR honoured
# by tools/fsfs7-run).  Exit status 0 on success.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
run="$top/tools/fsfs7-run"
work=$(mktemp -d /tmp/fsfs7-admin-XXXXXX)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

listing() { (cd "$1/db" && find . -printf '%M %s %p\n' | grep -v fsfs.conf | sort -k3); }

# --- 1. creation ---------------------------------------------------------
for compat in 1.8 1.9 1.14; do
  svnadmin create --compatible-version=$compat "$work/stock-$compat"
  "$run" svnadmin create --compatible-version=$compat "$work/ours-$compat"
  svnadmin verify -q "$work/ours-$compat" || fail "stock verify of ours-$compat"
  diff <(listing "$work/stock-$compat") <(listing "$work/ours-$compat") \
    || fail "db/ listing differs for $compat"
  cmp "$work/stock-$compat/db/revs/0/0" "$work/ours-$compat/db/revs/0/0" \
    || fail "r0 differs for $compat"
  echo "ok: create --compatible-version=$compat"
done
if "$run" svnadmin create --compatible-version=1.7 "$work/old" 2>/dev/null; then
  fail "creating a 1.7-compatible repository should be refused"
fi

# --- 2. revprops -----------------------------------------------------------
head -c 20000 /dev/zero | tr '\0' x > "$work/big"
echo "message from setlog" > "$work/msg"

changes() { # RUNNER REPO
  local r=$1 repo=$2 url="file://$2"
  $r svn propset -q --revprop -r 0 custom "on r0" "$url"
  $r svn propset -q --revprop -r 2 svn:log "changed
two lines" "$url"
  $r svnadmin setlog --bypass-hooks -r 5 "$repo" "$work/msg"
  $r svn propdel -q --revprop -r 6 svn:author "$url"
  $r svn propset -q --revprop -r 10 big -F "$work/big" "$url"
  $r svn propset -q --revprop -r 10 small y "$url"
  $r svn propset -q --revprop -r 13 last z "$url"
}

props() { # RUNNER REPO: every revprop, names sorted (hash order varies)
  local r=$1 repo=$2 rev name
  for rev in $(seq 0 "$(svnlook youngest "$repo")"); do
    echo "r$rev"
    for name in $($r svnlook proplist --revprop -r "$rev" "$repo" | sort); do
      echo "$name:"; $r svn propget --revprop -r "$rev" "$name" "file://$repo"
      echo
    done
  done
}

for compat in 1.8 1.9 1.14; do
  base="$work/base-$compat"
  svnadmin create --compatible-version=$compat "$base"
  chmod u+w "$base/db/format"
  sed -i 's/^layout sharded 1000$/layout sharded 4/' "$base/db/format"
  for i in $(seq 1 13); do svn mkdir -q -m "commit $i" "file://$base/d$i"; done
  svnadmin pack -q "$base"
  printf '#!/bin/sh\nexit 0\n' > "$base/hooks/pre-revprop-change"
  chmod +x "$base/hooks/pre-revprop-change"
  cp -a "$base" "$work/s-$compat"; cp -a "$base" "$work/o-$compat"
  diff <(props "" "$base") <(props "$run" "$base") \
    || fail "fsfs7 reads stock revprops differently ($compat)"
  changes "" "$work/s-$compat"
  changes "$run" "$work/o-$compat"
  diff -r "$work/s-$compat/db/revprops" "$work/o-$compat/db/revprops" \
    || fail "revprop files differ after changes ($compat)"
  diff <(listing "$work/s-$compat" | grep revprops) \
       <(listing "$work/o-$compat" | grep revprops) \
    || fail "revprop file modes differ ($compat)"
  diff <(props "" "$work/o-$compat") <(props "$run" "$work/s-$compat") \
    || fail "cross-reading revprops differs ($compat)"
  echo "ok: revprops --compatible-version=$compat"
done
echo "PASS admin_revprops"
