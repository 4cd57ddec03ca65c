#!/bin/bash
# follow-layout.sh DEB_ROOT SRCDIR BUILT_FOR: turn the tree `make deb`
# installed into DEB_ROOT into the package that follows libsvn1 updates
# (doc/deploy.md, "Security updates"):
#
#   /usr/lib/fsfs7/<libsvn1>/libsvn_fs_fs-1.so.1, built-for
#                       the module built here, for the libsvn1 it was
#                       linked against (BUILT_FOR)
#   /usr/lib/fsfs7/libsvn_fs_fs-1.so.1, built-for
#                       symlinks through current/, the switch that
#                       fsfs7-rebuild sets (the package ships no current)
#   /usr/sbin/fsfs7-rebuild, /etc/dpkg/dpkg.cfg.d/fsfs7 (its pre-invoke
#                       hook, a conffile), DEBIAN/triggers (a file trigger
#                       on libsvn_fs-1.so.1), DEBIAN/postrm
#   /usr/src/fsfs7-<version>.tar.xz
#                       the source, with configure and the Makefile.in
#                       files already made, that fsfs7-rebuild builds from
#
# and DEBIAN/control's Depends: libsvn1 of the same Subversion minor
# release, plus what a rebuild needs, instead of exactly one libsvn1.
set -euo pipefail
root=$1 src=$2 built_for=$3
here=$(dirname "$(readlink -f "$0")")
# shellcheck disable=SC1090
. "$built_for"
lib=$root/usr/lib/fsfs7
v=$LIBSVN1_VERSION

# The module into its versioned directory; symlinks through current/.
mkdir -p "$lib/$v"
cp --remove-destination "$(readlink -f "$lib/libsvn_fs_fs-1.so.1")" "$lib/$v/libsvn_fs_fs-1.so.1"
chmod 644 "$lib/$v/libsvn_fs_fs-1.so.1"
mv "$lib/built-for" "$lib/$v/built-for"
rm -f "$lib"/libsvn_fs_fs-1.so*
ln -s current/libsvn_fs_fs-1.so.1 "$lib/libsvn_fs_fs-1.so.1"
ln -s current/built-for "$lib/built-for"

install -D -m 755 "$here/fsfs7-rebuild" "$root/usr/sbin/fsfs7-rebuild"
install -d "$root/etc/dpkg/dpkg.cfg.d"
cat > "$root/etc/dpkg/dpkg.cfg.d/fsfs7" <<'EOF'
# fsfs7: before a dpkg run that unpacks libsvn1, switch fsfs7 off (servers
# started meanwhile load the stock module); fsfs7's libsvn1 trigger
# rebuilds the module and switches it on again.  See fsfs7-rebuild --help.
pre-invoke=if [ -x /usr/sbin/fsfs7-rebuild ]; then /usr/sbin/fsfs7-rebuild --dpkg-pre-invoke; fi
EOF
echo /etc/dpkg/dpkg.cfg.d/fsfs7 > "$root/DEBIAN/conffiles"
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo x86_64-linux-gnu)
echo "interest-noawait /usr/lib/$multiarch/libsvn_fs-1.so.1" > "$root/DEBIAN/triggers"
sed -e "s|%LIBSVN1_VERSION%|$v|g" "$here/postrm.in" > "$root/DEBIAN/postrm"
chmod 755 "$root/DEBIAN/postrm"

# The source: the files git knows (tracked, or new and not ignored) and
# the generated build system, so a rebuild needs no autotools.
name=fsfs7-$FSFS7_VERSION
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir "$stage/$name"
# Outside a git checkout (a copied tree, as in build/trixie.sh's chroot):
# every file but build products and the upstream source.
list_source() {
  if git -C "$src" rev-parse --git-dir >/dev/null 2>&1; then
    git -C "$src" ls-files -z -co --exclude-standard
  else
    (cd "$src" && find . \( -name .git -o -name .libs -o -name .deps \
        -o -path ./build/svn-src -o -path ./build/stamps -o -path ./build/asan \
        -o -name autom4te.cache \) -prune -o -type f \
        ! -name '*.o' ! -name '*.lo' ! -name '*.la' ! -name '*.so' \
        ! -name '*.log' ! -name '*.trs' ! -name config.status ! -name Makefile \
        -print0 | while IFS= read -r -d '' f; do
          [ "$(head -c4 "$f" | od -An -c | tr -d ' ')" = '177ELF' ] || printf '%s\0' "${f#./}"
        done)
  fi
}
(cd "$src" && { list_source \
    | while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done
  find configure aclocal.m4 build/aux m4 -print0 2>/dev/null
  printf 'Makefile.in\0'; } \
  | tar --null -T - -cf -) | tar -xf - -C "$stage/$name"
[ -f "$stage/$name/configure.ac" ] || { echo "follow-layout: no source in $src" >&2; exit 1; }
install -d "$root/usr/src"
tar -C "$stage" --owner=0 --group=0 -cJf "$root/usr/src/$name.tar.xz" "$name"

# Depends: the Subversion minor release, the build of a new module.
build_deps="gcc, make, pkg-config, dpkg-dev, xz-utils, libsvn-dev, libapr1-dev, libaprutil1-dev, zlib1g-dev, liblz4-dev, libsqlite3-dev"
minor=$(echo "$SVN_VERSION" | cut -d. -f1,2)
next=$(echo "$minor" | awk -F. '{printf "%d.%d", $1, $2 + 1}')
sed -i -e "s/^Depends: libsvn1 (= [^)]*)/Depends: libsvn1 (>= $minor), libsvn1 (<< $next~), $build_deps/" \
       -e "s/Built for exactly libsvn1 [^ ]*\./Rebuilt by fsfs7-rebuild when libsvn1 changes./" \
       -e "s/^Installed-Size: .*/Installed-Size: $(du -sk --exclude=DEBIAN "$root" | cut -f1)/" \
       "$root/DEBIAN/control"
grep -q "^Depends: libsvn1 (>= $minor)" "$root/DEBIAN/control" \
  || { echo "follow-layout: could not rewrite Depends in $root/DEBIAN/control" >&2; exit 1; }
