#!/bin/bash
# Take a fresh Debian 12 machine (run as root) to a built fsfs7 tree:
#   1. the apt packages we build, test and benchmark with,
#   2. the upstream `subversion` source package matching the installed
#      libsvn (its private headers are the module ABI), into build/svn-src,
#   3. autoreconf + configure + make.
# Each step is skipped when its result is already there, so re-running is
# cheap.  Usage: build/setup.sh [--no-build]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
log() { echo "setup: $*" >&2; }

PKGS="subversion libsvn-dev libapr1-dev libaprutil1-dev zlib1g-dev liblz4-dev libdeflate0
      libsqlite3-dev sqlite3 strace libcmocka-dev gcc clang make autoconf automake libtool
      pkg-config python3 dpkg-dev xz-utils procps apache2 libapache2-mod-svn"
missing=$(for p in $PKGS; do dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null \
            | grep -q 'install ok installed' || echo "$p"; done)
if [ -n "$missing" ]; then
  log "installing:" $missing
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  # Packages such as apache2 would start their system service (on every
  # interface); our tests start private servers on loopback instead, so
  # no service is started while we install (policy-rc.d exit 101 = deny).
  prc=
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    prc=/usr/sbin/policy-rc.d
    printf '#!/bin/sh\nexit 101\n' > "$prc"; chmod 755 "$prc"
    trap 'rm -f "$prc"' EXIT
  fi
  apt-get install -y -qq --no-install-recommends $missing >/dev/null
  [ -z "$prc" ] || { rm -f "$prc"; trap - EXIT; }
fi

# The source must be the exact version of the installed binaries.
want=$(dpkg-query -W -f='${source:Version}' subversion)
src="$top/build/svn-src"
have=$(cat "$src/.version" 2>/dev/null || true)
if [ "$have" != "$want" ]; then
  rm -rf "$src"; mkdir -p "$src/dl"
  if ! apt-get source --print-uris subversion >/dev/null 2>&1; then
    f=/etc/apt/sources.list.d/fsfs7-deb-src.sources
    log "adding deb-src entries ($f)"
    if [ -f /etc/apt/sources.list.d/debian.sources ]; then
      sed 's/^Types: deb$/Types: deb-src/' /etc/apt/sources.list.d/debian.sources > "$f"
    else
      printf 'Types: deb-src\nURIs: http://deb.debian.org/debian\nSuites: bookworm bookworm-updates\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' > "$f"
    fi
    apt-get update -qq
  fi
  log "fetching source package subversion=$want"
  "$top/build/fetch-svn-source.sh" "$want" "$src" || exit 1
  # configure.ac looks for build/svn-src/subversion-*/subversion/libsvn_fs/fs-loader.h
  echo "$want" > "$src/.version"
fi

[ "${1:-}" = "--no-build" ] && exit 0

if [ ! -x configure ] || [ configure.ac -nt configure ] || [ Makefile.am -nt Makefile.in ]; then
  log "autoreconf"
  autoreconf -fi >/dev/null 2>&1 || autoreconf -fi
fi
if [ ! -f Makefile ] || [ configure -nt config.status ]; then
  log "configure"
  ./configure -q
fi
log "make"
make -s -j"$(nproc)"
log "built: $top/subversion/libsvn_fs_fs/.libs/libsvn_fs_fs-1.so.1"
