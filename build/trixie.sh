#!/bin/bash
# build/trixie.sh [STEP...]: build and test fsfs7 on Debian 13 (trixie,
# Subversion 1.14.5) in a chroot, from a Debian 12 host, as root.
#
# Steps (default: all of them, in this order; `make check-trixie` runs them):
#   chroot    create the chroot with debootstrap, once: cached in
#             $FSFS7_TRIXIE_CHROOT and reused while it is there
#   sync      copy the checkout's source files (git ls-files: tracked and
#             untracked-but-not-ignored) to /work/fsfs7 in the chroot; the
#             host's build products, build/svn-src included, stay outside
#   build     build/setup.sh in the chroot: trixie's build dependencies,
#             subversion, libsvn-dev, apache2 and libapache2-mod-svn, the
#             `subversion` source package of the installed libsvn1 (deb-src
#             entries are written with the chroot), autoreconf, configure,
#             make
#   check     make check in the chroot
#   upstream  upstream Subversion's suites through trixie's stock module and
#             through fsfs7 (tests/upstream/check-upstream.sh), 0 differences
#             wanted; over the access methods in $FSFS7_TRIXIE_RA
#   shell     an interactive shell in the chroot (not part of the default)
#
# The checkout's ../shared (maven-small, the upstream-suite harness; for a
# git worktree, the main checkout's; or $FSFS7_SHARED) is bind-mounted
# read-only at /work/shared, beside the copy, where the tests look.  proc, sysfs, a devpts instance, /dev/shm and that
# bind mount are set up for the run and unmounted when the script exits,
# however it exits; a lock keeps two runs out of one chroot.
#
# Environment:
#   FSFS7_TRIXIE_CHROOT  the chroot (default /var/cache/fsfs7/trixie-chroot);
#                        remove it to start from a fresh debootstrap
#   FSFS7_TRIXIE_MIRROR  the Debian mirror (default http://deb.debian.org/debian)
#   FSFS7_TRIXIE_RA      access methods of the upstream step (default "file";
#                        "file svn http" for all three)
#   CHECK_JOBS, CI, FSFS7_SLOW, FSFS7_KEEP, TESTS and FSFS7_UPSTREAM_SUITES,
#   FSFS7_UPSTREAM_JOBS are passed on to the runs in the chroot.
# Exit status: that of the first step that failed, 0 when all passed.
set -euo pipefail
top=$(cd "$(dirname "$(readlink -f "$0")")/.." && pwd)
root=${FSFS7_TRIXIE_CHROOT:-/var/cache/fsfs7/trixie-chroot}
mirror=${FSFS7_TRIXIE_MIRROR:-http://deb.debian.org/debian}
ras=${FSFS7_TRIXIE_RA:-file}
# ../shared beside the checkout; a git worktree elsewhere uses the one
# beside its main checkout.
shared=${FSFS7_SHARED:-}
if [ -z "$shared" ]; then
  for d in "$top/../shared" "$(git -C "$top" rev-parse --git-common-dir 2>/dev/null)/../../shared"; do
    [ -d "$d" ] && { shared=$(readlink -f "$d"); break; }
  done
fi
log() { echo "trixie: $*" >&2; }
die() { log "$*"; exit 1; }

[ "$(id -u)" = 0 ] || die "run as root (debootstrap, chroot and mounts)"
steps=("$@")
[ ${#steps[@]} -gt 0 ] || steps=(chroot sync build check upstream)
for s in "${steps[@]}"; do
  case "$s" in chroot|sync|build|check|upstream|shell) ;;
    *) echo "usage: $0 [chroot|sync|build|check|upstream|shell]..." >&2; exit 2 ;;
  esac
done

# ---- the chroot, created once -------------------------------------------------

# Packages the chroot starts with; build/setup.sh installs the rest there,
# from its own list, as on a fresh Debian 12 machine.  git dates the
# package's changelog; iproute2 and curl serve the upstream harness.
BASE_PKGS=ca-certificates,git,iproute2,curl,dpkg-dev,xz-utils,procps

create_chroot() {
  command -v debootstrap >/dev/null || {
    log "installing debootstrap"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      debootstrap >/dev/null
  }
  local tmp=$root.new
  rm -rf "$tmp"; mkdir -p "$(dirname "$root")"
  log "debootstrap trixie into $tmp (a few minutes)"
  debootstrap --variant=minbase --include="$BASE_PKGS" trixie "$tmp" "$mirror" \
    > "$(dirname "$root")/debootstrap.log" 2>&1 \
    || die "debootstrap failed, see $(dirname "$root")/debootstrap.log"
  # deb and deb-src from trixie, its updates and its security archive: the
  # newest libsvn1 and the source package of exactly that version.
  rm -f "$tmp/etc/apt/sources.list"
  cat > "$tmp/etc/apt/sources.list.d/debian.sources" <<EOF
Types: deb deb-src
URIs: $mirror
Suites: trixie trixie-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb deb-src
URIs: http://security.debian.org/debian-security
Suites: trixie-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
  # Services installed in the chroot (apache2) must not start: the tests
  # start private servers on loopback.
  printf '#!/bin/sh\nexit 101\n' > "$tmp/usr/sbin/policy-rc.d"
  chmod 755 "$tmp/usr/sbin/policy-rc.d"
  mkdir -p "$tmp/work/fsfs7" "$tmp/work/shared"
  mv "$tmp" "$root"
  date -u +%FT%TZ > "$root/.fsfs7-created"
}

# ---- mounts, undone on every exit ----------------------------------------------

mounted=()
unmount_all() {
  local i m
  for (( i=${#mounted[@]}-1; i>=0; i-- )); do
    m=${mounted[$i]}
    mountpoint -q "$m" || continue
    umount "$m" 2>/dev/null || umount -l "$m" || log "could not unmount $m"
  done
  mounted=()
}
current=
on_exit() {
  local rc=$?
  unmount_all
  [ "$rc" = 0 ] || [ -z "$current" ] || log "step $current failed (exit $rc)"
  exit "$rc"
}
trap on_exit EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# mnt TARGET mount-arguments...: mount and remember it for unmount_all.
mnt() {
  local target=$1; shift
  mkdir -p "$target"
  mountpoint -q "$target" && die "$target is already mounted (another run?)"
  mount "$@" "$target"
  mounted+=("$target")
}

mount_all() {
  [ ${#mounted[@]} -eq 0 ] || return 0
  mnt "$root/proc" -t proc proc
  mnt "$root/sys" -t sysfs -o ro sysfs
  # Private instances, not binds of the host's /dev: nothing done inside
  # the chroot can reach the host's terminals or shared memory.
  mnt "$root/dev/pts" -t devpts -o newinstance,ptmxmode=0666,mode=620 devpts
  ln -sf pts/ptmx "$root/dev/ptmx"
  mnt "$root/dev/shm" -t tmpfs -o mode=1777,nosuid,nodev shm
  if [ -n "$shared" ] && [ -d "$shared" ]; then
    mnt "$root/work/shared" --bind "$shared"
    mount -o remount,bind,ro "$root/work/shared"
  fi
  cp /etc/resolv.conf "$root/etc/resolv.conf"
  cp /etc/hosts "$root/etc/hosts"
}

# in_chroot COMMAND: run a bash command in the source copy in the chroot,
# with a clean environment and the knobs the tests read.
in_chroot() {
  local env=(HOME=/root LANG=C.UTF-8 TERM=dumb DEBIAN_FRONTEND=noninteractive
             PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin)
  local v
  for v in CHECK_JOBS CI FSFS7_SLOW FSFS7_KEEP TESTS FSFS7_UPSTREAM_SUITES \
           FSFS7_UPSTREAM_JOBS FSFS7_EXPECT_INFLATE; do
    [ -z "${!v+x}" ] || env+=("$v=${!v}")
  done
  chroot "$root" /usr/bin/env -i "${env[@]}" nice -n 10 \
    /bin/bash -c "cd /work/fsfs7 && $1"
}

# ---- steps ------------------------------------------------------------------------

sync_tree() {
  local dst=$root/work/fsfs7
  mkdir -p "$dst"
  log "copying the source files to $dst"
  # tar keeps the modification times, so an unchanged file is not rebuilt.
  (cd "$top" && git ls-files -z -co --exclude-standard \
     | while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done \
     | tar --null -T - -cf -) | tar -xf - -C "$dst"
}

run_step() {
  case "$1" in
    chroot)
      if [ -f "$root/.fsfs7-created" ]; then
        log "chroot $root (created $(cat "$root/.fsfs7-created"))"
      else
        create_chroot
      fi ;;
    sync) sync_tree ;;
    build)
      mount_all
      log "build/setup.sh in the chroot"
      in_chroot 'apt-get update -qq && build/setup.sh'
      in_chroot 'echo "trixie: $(. /etc/os-release; echo "$PRETTY_NAME"), libsvn1 $(dpkg-query -W -f="\${Version}" libsvn1), gcc $(gcc -dumpfullversion), python $(python3 -V | cut -d" " -f2)"' ;;
    check)
      mount_all
      log "make check in the chroot"
      in_chroot 'make check || { rc=$?; [ ! -f test-suite.log ] || cat test-suite.log; exit $rc; }' ;;
    upstream)
      mount_all
      log "upstream suites in the chroot over: $ras"
      # The harness takes the source tree setup.sh fetched (the same
      # version; the mirror may lack the .dsc the harness would ask apt
      # for).  Results stay in the chroot; the summaries are printed.
      in_chroot 'w=/tmp/fsfs7-uw; if [ ! -f $w/src/subversion/include/svn_version.h ]; then
          rm -rf $w/src; mkdir -p $w; cp -a build/svn-src/subversion-*/ $w/src; fi'
      in_chroot "FSFS7_UPSTREAM_RA='$ras' FSFS7_UPSTREAM_OUT=/work/upstream-results \
        tests/upstream/check-upstream.sh subversion/libsvn_fs_fs/.libs" ;;
    shell)
      mount_all
      in_chroot 'exec bash -i' ;;
  esac
}

mkdir -p "$(dirname "$root")"
exec 9> "$root.lock"
flock -n 9 || die "another build/trixie.sh runs with $root"
for current in "${steps[@]}"; do
  run_step "$current"
done
current=
log "passed: ${steps[*]}"
