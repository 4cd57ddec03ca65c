#!/bin/bash
# build/fetch-svn-source.sh VERSION DEST [DSC_DIR]: unpack the source of
# Debian's `subversion` package VERSION (the version of the installed
# libsvn1: the module compiles against its private headers) under DEST.
#
# From DSC_DIR/subversion_VERSION.dsc when DSC_DIR is given; else through
# apt's deb-src entries (`apt-get source --download-only`), unpacked with
# dpkg-source into DEST/subversion-upstream.  A mirror may carry the
# upstream tarball of the version but not its .dsc or Debian tarball
# (deb.debian.org as seen from our build VMs, for trixie's 1.14.5-3): then
# the upstream tarball apt names is downloaded, checked against apt's
# hash and unpacked into DEST/subversion-X.Y.Z, with a warning -- the
# private headers the module includes come from the upstream release, and
# Debian's patches change none of them.  Said loudly, never silently.
#
# Used by build/setup.sh and by the package's fsfs7-rebuild.  Environment:
# FSFS7_APT_HELPER (default /usr/lib/apt/apt-helper) -- tests replace it.
# Exit status 0 when DEST holds a source tree, 1 otherwise.
set -uo pipefail
[ $# -ge 2 ] && [ $# -le 3 ] || { echo "usage: $0 VERSION DEST [DSC_DIR]" >&2; exit 2; }
v=$1 dest=$2 dsc_dir=${3:-}
helper=${FSFS7_APT_HELPER:-/usr/lib/apt/apt-helper}
say() { echo "fetch-svn-source: $*" >&2; }

mkdir -p "$dest/dl" || exit 1
if [ -n "$dsc_dir" ]; then
  dsc="$dsc_dir/subversion_${v#*:}.dsc"
  [ -f "$dsc" ] || { say "no $dsc"; exit 1; }
elif (cd "$dest/dl" && apt-get source -qq --download-only "subversion=$v" 2>/dev/null); then
  dsc=$(ls "$dest"/dl/subversion_*.dsc)
else
  orig=$(apt-get source --print-uris -qq "subversion=$v" 2>/dev/null \
           | awk '$2 ~ /\.orig\.tar\.(gz|bz2|xz)$/ {print; exit}')
  if [ -z "$orig" ]; then
    say "no source of subversion=$v through apt: apt needs a deb-src entry for"
    say "the archive libsvn1 came from (see /etc/apt/sources.list.d/)"
    exit 1
  fi
  read -r o_uri o_name _ o_hash <<<"$orig"
  say "WARNING: the mirror has no subversion_${v#*:}.dsc; using the upstream" \
      "tarball $o_name without Debian's patches"
  "$helper" -qq download-file "${o_uri//\'/}" "$dest/dl/$o_name" "$o_hash" >/dev/null \
    || { say "download of $o_name failed or its hash differs from apt's"; exit 1; }
  tar -xf "$dest/dl/$o_name" -C "$dest" || exit 1
  rm -rf "$dest/dl"
  exit 0
fi
dpkg-source --no-check -x "$dsc" "$dest/subversion-upstream" >/dev/null 2>&1 \
  || { say "dpkg-source could not unpack $dsc"; exit 1; }
rm -rf "$dest/dl"
