#!/bin/sh
# node_repos.sh DIR --- make the repositories test_node reads: DIR/f6
# (format 6, physical addressing) and DIR/f8 (format 8, logical), written
# by the stock module.  History: props, copies, mergeinfo, delete,
# replace, file names with spaces, a directory of 600 entries added in one
# revision (a changed-path list spanning several blocks).
set -e
unset LD_LIBRARY_PATH
dir=$1
# The stock commits below take a minute on a busy machine, so the result
# is built once per version of this script into $FSFS7_TEST_CACHE
# (default /tmp/fsfs7-test-cache) and copied from there afterwards.
cache=${FSFS7_TEST_CACHE:-/tmp/fsfs7-test-cache}/node-repos-$(sha256sum "$0" | cut -c1-16)
if [ -d "$cache" ]; then
  mkdir -p "$dir"
  cp -a "$cache/." "$dir/"
  exit 0
fi
for v in 6 8; do
  case $v in 6) cv=1.8;; 8) cv=1.10;; esac
  R=$dir/f$v; W=$dir/wc$v
  svnadmin create --compatible-version=$cv $R
  svn -q checkout file://$R $W
  cd $W
  mkdir -p trunk/sub branches
  echo hello > trunk/a.txt; echo "spaced" > "trunk/sub/b c.txt"; : > trunk/empty
  svn -q add trunk branches
  svn -q propset myprop val trunk/a.txt
  svn -q commit -m r1
  svn -q copy trunk branches/br1; svn -q commit -m r2; svn -q up
  echo more >> branches/br1/a.txt; svn -q commit -m r3; svn -q up
  svn -q merge ^/branches/br1 trunk; svn -q commit -m r4; svn -q up
  svn -q rm trunk/sub; svn -q commit -m r5; svn -q up
  svn -q rm trunk/a.txt; svn -q copy branches/br1/a.txt@3 trunk/a.txt
  svn -q commit -m r6; svn -q up
  mkdir trunk/many
  i=0; while [ $i -lt 600 ]; do echo $i > trunk/many/f$i; i=$((i+1)); done
  svn -q add trunk/many; svn -q commit -m r7; svn -q up
  # r8: keep a copy of its transaction (taken by pre-commit) and put it
  # back under db/transactions/ afterwards, for reading txn node-revs.
  cat > $R/hooks/pre-commit <<HOOK
#!/bin/sh
cp -a "\$1/db/transactions/\$2.txn" $dir/txn-f$v
echo "\$2" > $dir/txn-f$v.name
HOOK
  chmod +x $R/hooks/pre-commit
  echo y >> trunk/empty; svn -q copy trunk/a.txt trunk/a2.txt
  svn -q mkdir trunk/d; svn -q propset p v trunk/d; svn -q rm trunk/many/f1
  svn -q commit -m r8
  rm $R/hooks/pre-commit
  mv $dir/txn-f$v $R/db/transactions/$(cat $dir/txn-f$v.name).txn
  cd $dir
done
# Publish to the cache (atomically; a concurrent run may have won).
mkdir -p "${cache%/*}"
tmp=$cache.tmp$$
rm -rf "$tmp"
cp -a "$dir" "$tmp" && mv -T "$tmp" "$cache" 2>/dev/null || rm -rf "$tmp"
