#!/bin/bash
# mut_compare.sh BASE_REPO WORKDIR OP... --- run the same transaction
# script (mut_driver OPs) through the stock module and through fsfs7 on two
# copies of BASE_REPO and compare what they leave behind:
#   - mut_driver's output (error codes and messages, txn name, revisions)
#   - `svnlook tree -t TXN --show-ids` (read by the stock svnlook)
#   - the transaction's node files, .children, .props, changes, next-ids
#     byte for byte (props differs by svn:date and is left out).
# Exit 0 when equal, 1 with a diff otherwise, 77 when a tool is missing.
set -u
base=$1 work=$2; shift 2
top=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
bld=${top_builddir:-$top}
drv=$bld/tests/unit/mut_driver
command -v svnlook >/dev/null || exit 77
[ -x "$drv" ] || exit 77

rm -rf "$work"; mkdir -p "$work"
cp -a "$base" "$work/stock"; cp -a "$base" "$work/ours"
env -u LD_LIBRARY_PATH "$drv" "$work/stock/db" "$@" > "$work/stock.out" 2>&1
"$top/tools/fsfs7-run" "$drv" "$work/ours/db" "$@" > "$work/ours.out" 2>&1
rc=0
diff -u "$work/stock.out" "$work/ours.out" || rc=1
txn=$(sed -n 's/^txn //p' "$work/stock.out")
[ -n "$txn" ] || exit $rc
for side in stock ours; do
  env -u LD_LIBRARY_PATH svnlook tree -t "$txn" --show-ids \
      "$work/$side" > "$work/$side.tree" 2>&1
done
diff -u "$work/stock.tree" "$work/ours.tree" || rc=1
for f in $(cd "$work/stock/db/transactions/$txn.txn" && ls node.* changes next-ids;
           cd "$work/ours/db/transactions/$txn.txn" && ls node.* changes next-ids); do
  cmp -s "$work/stock/db/transactions/$txn.txn/$f" \
         "$work/ours/db/transactions/$txn.txn/$f" && continue
  echo "--- transaction file $f differs:"
  diff -u "$work/stock/db/transactions/$txn.txn/$f" \
          "$work/ours/db/transactions/$txn.txn/$f"
  rc=1
done
exit $rc
