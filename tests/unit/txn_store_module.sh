#!/bin/sh
# txn_store_module.sh TMPDIR BUILDDIR --- for test_txn_store: the same
# transaction (txn_stock_helper make) is begun by the stock module and by
# ours (tools/fsfs7-run) on identical repositories of formats 6, 7 and 8.
# The transaction directories, proto-revision files and txn-current must be
# byte-identical (but for svn:date); then each module commits the other's
# transaction, both results must pass stock 'svnadmin verify' and the new
# revision files must be byte-identical.  Prints what differs; exit 1 then.
set -e
tmp=$1; top=$2
helper=$top/tests/unit/txn_stock_helper
run_ours="$top/tools/fsfs7-run"
stock="env -u LD_LIBRARY_PATH"
cd "$tmp"
for v in 1.8 1.9 default; do
  for who in stock ours; do
    d=m$v-$who
    rm -rf $d
    if [ $v = default ]; then $stock svnadmin create $d
    else $stock svnadmin create --compatible-version $v $d; fi
    $stock svn mkdir -q -m m file://$tmp/$d/a file://$tmp/$d/b
  done
  s=$($stock $helper make m$v-stock/db)
  o=$($run_ours $helper make m$v-ours/db)
  [ "$s" = "$o" ] || { echo "txn names differ: $s $o"; exit 1; }
  # svn:date differs by the clock only
  for who in stock ours; do
    sed '/^20[0-9][0-9]-.*Z$/d' m$v-$who/db/transactions/$s.txn/props \
      > props-$who
  done
  diff props-stock props-ours
  diff -r -x props m$v-stock/db/transactions m$v-ours/db/transactions
  diff -r m$v-stock/db/txn-protorevs m$v-ours/db/txn-protorevs
  cmp m$v-stock/db/txn-current m$v-ours/db/txn-current
  # each commits the other's transaction
  $run_ours $helper commit m$v-stock/db $s >/dev/null
  $stock $helper commit m$v-ours/db $o >/dev/null
  $stock svnadmin verify -q m$v-stock
  $stock svnadmin verify -q m$v-ours
  for f in $(cd m$v-stock/db/revs && find . -type f); do
    cmp m$v-stock/db/revs/$f m$v-ours/db/revs/$f
  done
done
echo ok
