#!/bin/sh
# rep_read_repos.sh DIR --- make the small stock repositories test_rep_read
# reads: formats 6, 7 and 8, svndiff 0/1/2 (compression none/zlib/lz4),
# one packed with 4-revision shards.  Files change a little in every
# revision, so reps form delta chains (linear and skip-delta); one file is
# larger than two delta windows, one (20 kB) has the length of a thrifty
# REP-9 proof, one is incompressible, and one (churn.bin) is an
# incompressible 234 kB that keeps only its first 4 kB from revision to
# revision: deep chains of windows that are almost all new data.
set -e
dir=$1
# The stock commits below take a minute on a busy machine, so the result
# is built once per version of this script into $FSFS7_TEST_CACHE
# (default /tmp/fsfs7-test-cache) and copied from there afterwards.
cache=${FSFS7_TEST_CACHE:-/tmp/fsfs7-test-cache}/rep-read-repos-$(sha256sum "$0" | cut -c1-16)
if [ -d "$cache" ]; then
  mkdir -p "$dir"
  cp -a "$cache/." "$dir/"
  exit 0
fi
rm -rf "$dir"
mkdir -p "$dir/src"
unset LD_LIBRARY_PATH   # always the stock module here
cd "$dir/src"

make_content() {   # make_content REV
  awk -v r="$1" 'BEGIN {
    for (n = 0; n < 9000; n++)
      printf "line %05d %s\n", n, (n % (61 + r) == 0) ? "changed in r" r : "unchanged text here";
  }' > big.txt
  printf 'small file, revision %s\n' "$1" > small.txt
  head -c 3000 big.txt | tr 'a-z' 'b-za' > mid.txt
  head -c 20000 big.txt | tr 'a-z' 'n-za-m' > medium.txt
  { head -c 4096 churn.bin; head -c 230000 /dev/urandom; } > churn.new
  mv churn.new churn.bin
}
head -c 150000 /dev/urandom > random.bin
head -c 4096 /dev/urandom > churn.bin

for spec in f6:1.8:zlib f7:1.9:zlib f7p:1.9:zlib f8:1.10:lz4 f8none:1.10:none; do
  name=${spec%%:*}; rest=${spec#*:}; compat=${rest%%:*}; comp=${rest#*:}
  repo="$dir/$name"
  svnadmin create --compatible-version="$compat" "$repo"
  if [ "$compat" = 1.10 ]; then
    printf '[deltification]\ncompression = %s\n' "$comp" >> "$repo/db/fsfs.conf"
  fi
  if [ "$name" = f7p ]; then
    chmod u+w "$repo/db/format"
    sed -i 's/layout sharded 1000/layout sharded 4/' "$repo/db/format"
  fi
  url="file://$repo"
  svnmucc -m init -U "$url" mkdir trunk mkdir trunk/d \
    put random.bin trunk/random.bin propset svn:ignore "*.o" trunk/d >/dev/null
  for r in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22; do
    make_content $r
    svnmucc -m "r$r" -U "$url" put big.txt trunk/big.txt \
      put small.txt trunk/small.txt put mid.txt trunk/d/mid$((r % 3)).txt \
      put medium.txt trunk/d/medium.txt put churn.bin trunk/churn.bin \
      propset "p$r" "value $r" trunk/small.txt >/dev/null
  done
  if [ "$name" = f7p ]; then
    svnadmin pack -q "$repo"
  fi
done
rm -rf "$dir/src"
# Publish to the cache (atomically; a concurrent run may have won).
mkdir -p "${cache%/*}"
tmp=$cache.tmp$$
rm -rf "$tmp"
cp -a "$dir" "$tmp" && mv -T "$tmp" "$cache" 2>/dev/null || rm -rf "$tmp"
