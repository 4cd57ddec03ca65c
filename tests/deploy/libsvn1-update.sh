#!/bin/bash
# tests/deploy/libsvn1-update.sh: a simulated libsvn1 security update on
# this machine, with the fsfs7 package installed and two servers switched
# to it (`make check-libsvn1-update`; doc/deploy.md, "Security updates").
#
# MODIFIES THE SYSTEM'S PACKAGES, as root: installs the fsfs7 package that
# `make deb` builds, replaces libsvn1 (and the other installed binaries of
# the `subversion` source: subversion, libsvn-dev, libapache2-mod-svn) by
# copies repacked with a bumped version, then puts the original packages
# back and purges fsfs7, also when a step fails.  It refuses to run when
# fsfs7 is already installed.  The repacked packages carry the original
# files (a binNMU-style bump: Version V+b1, Source: subversion (V)), so
# programs running meanwhile see the same libraries.
#
# The steps, each checked:
#  1. dpkg -i fsfs7: the switch names the package's own module (no build);
#     a private Apache (APACHE_CONFDIR) switched by `fsfs7-enable apache2`
#     and an svnserve -d started with LD_LIBRARY_PATH=/usr/lib/fsfs7 serve
#     a repository and map fsfs7 (/proc/PID/maps);
#  2. dpkg --unpack of the bumped packages: dpkg's pre-invoke hook has
#     switched fsfs7 off before libsvn1 was unpacked: a server started now
#     maps the stock module;
#  3. dpkg --configure -a with the rebuild made to fail (FSFS7_SOURCE_DIR
#     an empty directory): the switch stays off, the message says why, the
#     Apache the trigger restarted maps stock and serves;
#  4. fsfs7-rebuild: the module is rebuilt for the new libsvn1 (a build log
#     with compiler lines, LIBDIR/V+b1/ with built-for naming it), the
#     switch names it, fsfs7-enable's guard accepts it (and refuses the
#     module of the old libsvn1); Apache restarted gracefully by
#     fsfs7-rebuild (same parent, no replaced library left mapped) and a
#     new svnserve map /usr/lib/fsfs7/V+b1/libsvn_fs_fs-1.so.1, and a
#     commit through each works; stock verifies the repository;
#  5. the original packages back (dpkg -i): the switch names the package's
#     own module again and the rebuilt one is gone; dpkg --purge fsfs7
#     leaves no switch, hook or build directory.
#
# Environment: FSFS7_KEEP=1 keeps the work directory
# (/tmp/fsfs7-libsvn1-update).  Exit: 0 all checks passed, 1 a check
# failed, 2 could not run (not root, fsfs7 installed, no package).
set -uo pipefail
top=$(cd "$(dirname "$(readlink -f "$0")")/../.." && pwd)
work=/tmp/fsfs7-libsvn1-update
lib=/usr/lib/fsfs7
fails=0
log() { echo "libsvn1-update: $*" >&2; }
exec 3>&1                       # check lines, whatever a command's output is
ok() { echo "ok   $*" >&3; }
bad() { echo "FAIL $*" >&3; fails=$((fails + 1)); }
check() { local what=$1; shift; if "$@"; then ok "$what"; else bad "$what"; fi; }
die() { log "$*"; exit 2; }

[ "$(id -u)" = 0 ] || die "run as root (it installs packages)"
if dpkg-query -W -f='${Status}' fsfs7 2>/dev/null | grep -q 'install ok installed'; then
  die "fsfs7 is installed on this machine; this test installs and purges its own"
fi
V=$(dpkg-query -W -f='${Version}' libsvn1) || die "libsvn1 is not installed"
NEW=$V+b1
pkgs=$(dpkg-query -W -f='${db:Status-Abbrev} ${Package} ${source:Package}\n' \
         | awk '$1 == "ii" && $3 == "subversion" {print $2}')

rm -rf "$work"; mkdir -p "$work"/{orig,new,empty,repos,deb}
chmod 755 "$work"

# ---- restore, however the script ends -----------------------------------------

apache_dir=$work/apache2
svnserve_pid=
restore() {
  set +e
  log "restoring the original packages"
  [ -z "$svnserve_pid" ] || kill "$svnserve_pid" 2>/dev/null
  [ ! -f "$apache_dir/run/apache2.pid" ] || APACHE_CONFDIR=$apache_dir apache2ctl -k stop 2>/dev/null
  if [ "$(dpkg-query -W -f='${Version}' libsvn1)" != "$V" ]; then
    dpkg -i "$work"/orig/*.deb > "$work/restore.log" 2>&1 || log "dpkg -i of the originals failed: $work/restore.log"
  fi
  if dpkg-query -W -f='${Status}' fsfs7 2>/dev/null | grep -q installed; then
    dpkg --purge fsfs7 >> "$work/restore.log" 2>&1 || log "dpkg --purge fsfs7 failed: $work/restore.log"
  fi
  [ "$(dpkg-query -W -f='${Version}' libsvn1)" = "$V" ] || log "libsvn1 is NOT back to $V"
  [ "${FSFS7_KEEP:-0}" = 1 ] || rm -rf "$work"
}

# ---- the packages ---------------------------------------------------------------

log "original packages ($V): $(echo $pkgs)"
for p in $pkgs; do
  f=$(ls /var/cache/apt/archives/"${p}_${V#*:}"_*.deb 2>/dev/null | head -n1)
  if [ -n "$f" ]; then cp "$f" "$work/orig/"
  else (cd "$work/orig" && apt-get download -q "$p=$V" >/dev/null) || die "cannot get $p $V"
  fi
done
[ "$(ls "$work"/orig/*.deb | wc -l)" = "$(echo $pkgs | wc -w)" ] || die "missing original packages"

# The update: same files, Version V+b1, built from the same source (V),
# exact dependencies between the binaries moved to the new version.
for f in "$work"/orig/*.deb; do
  d=$work/new/$(basename "$f" .deb)
  dpkg-deb -R "$f" "$d"
  sed -i -e "s/^Version: .*/Version: $NEW/" -e "s/(= $V)/(= $NEW)/g" \
         -e "s/^Source: subversion$/Source: subversion ($V)/" "$d/DEBIAN/control"
  dpkg-deb --root-owner-group -b "$d" "$work/new/" >/dev/null || die "dpkg-deb -b $d"
  rm -rf "$d"
done

log "make deb"
make -s -C "$top" deb DEB_OUT="$work/deb" DEB_ROOT="$work/deb-root" >/dev/null \
  || die "make deb failed"
deb=$(ls "$work"/deb/fsfs7_*.deb)

trap 'restore' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# ---- servers --------------------------------------------------------------------

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_port() {
  local i; for i in $(seq 100); do
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0; sleep 0.2; done; return 1
}

# mapped PID...: the libsvn_fs_fs files these processes mapped.
mapped() {
  local p; for p in "$@"; do awk '$6 ~ /libsvn_fs_fs-1\.so/ {print $6}' "/proc/$p/maps" 2>/dev/null; done | sort -u
}
apache_pids() {
  local parent; parent=$(cat "$apache_dir/run/apache2.pid" 2>/dev/null) || return 0
  echo "$parent"; ps -o pid= --ppid "$parent"
}
# expect_maps WHAT FILE PID...: every libsvn_fs_fs these map is FILE.
expect_maps() {
  local what=$1 want=$2; shift 2
  local got; got=$(mapped "$@")
  if [ "$got" = "$want" ]; then ok "$what maps $want"; else bad "$what maps '${got//$'\n'/ }', not $want"; fi
}

setup_apache() {
  local port; port=$(free_port); apache_port=$port
  mkdir -p "$apache_dir"/{run,lock,log}
  cat > "$apache_dir/envvars" <<EOF
unset HOME
export APACHE_RUN_USER=www-data APACHE_RUN_GROUP=www-data
export APACHE_PID_FILE=$apache_dir/run/apache2.pid APACHE_RUN_DIR=$apache_dir/run
export APACHE_LOCK_DIR=$apache_dir/lock APACHE_LOG_DIR=$apache_dir/log LANG=C
EOF
  {
    echo "ServerRoot $apache_dir"; echo "ServerName 127.0.0.1"; echo "Listen 127.0.0.1:$port"
    echo 'PidFile ${APACHE_PID_FILE}'; echo 'Mutex file:${APACHE_LOCK_DIR} default'
    echo 'DefaultRuntimeDir ${APACHE_RUN_DIR}'
    echo 'User ${APACHE_RUN_USER}'; echo 'Group ${APACHE_RUN_GROUP}'
    echo 'ErrorLog ${APACHE_LOG_DIR}/error.log'; echo 'LogLevel warn'
    echo 'StartServers 1'; echo 'ServerLimit 2'; echo 'ThreadsPerChild 4'; echo 'MaxRequestWorkers 4'
    # As Debian's apache2.conf: fsfs7-enable's LoadFile comes first.
    echo "IncludeOptional $apache_dir/mods-enabled/*.load"
    for m in mpm_event authz_core dav dav_svn; do
      echo "LoadModule ${m}_module /usr/lib/apache2/modules/mod_$m.so"; done
    echo "<Location /svn>"; echo "  DAV svn"; echo "  SVNParentPath $work/repos"
    echo "  Require all granted"; echo "</Location>"
  } > "$apache_dir/apache2.conf"
  apache_url=http://127.0.0.1:$port/svn/r
}
apache_up() { sleep 1; wait_port "$apache_port"; }

start_svnserve() {
  [ -z "$svnserve_pid" ] || { kill "$svnserve_pid"; sleep 0.5; }
  svn_port=$(free_port)
  LD_LIBRARY_PATH=$lib setsid svnserve -d --foreground -T -r "$work/repos" \
    --listen-host 127.0.0.1 --listen-port "$svn_port" &
  svnserve_pid=$!
  wait_port "$svn_port"
}

# use: a commit through both servers, so both open the repository.
n=0
use() {
  n=$((n + 1))
  echo "$n" > "$work/file"
  svnmucc -m "c$n" put "$work/file" "svn://127.0.0.1:$svn_port/r/s$n" >/dev/null \
    && svnmucc -m "h$n" put "$work/file" "$apache_url/h$n" >/dev/null
}

svnadmin create "$work/repos/r"
printf '[general]\nanon-access = write\n' > "$work/repos/r/conf/svnserve.conf"
chown -R www-data:www-data "$work/repos"
setup_apache
export APACHE_CONFDIR=$apache_dir     # fsfs7-enable and fsfs7-rebuild act on this Apache
APACHE_CONFDIR=$apache_dir apache2ctl -k start; apache_up

# ---- 1. install -----------------------------------------------------------------
log "1. dpkg -i $(basename "$deb")"
check "dpkg -i fsfs7" dpkg -i "$deb" > "$work/install.log" 2>&1
check "switch names the package's module ($V)" test "$(readlink $lib/current)" = "$V"
check "no build at install" test ! -e "$lib/$V/.rebuilt"
check "fsfs7-enable apache2" fsfs7-enable apache2 > "$work/enable.log" 2>&1
start_svnserve
check "commits through svnserve and Apache" use
expect_maps "Apache" "$lib/$V/libsvn_fs_fs-1.so.1" $(apache_pids)
expect_maps "svnserve" "$lib/$V/libsvn_fs_fs-1.so.1" "$svnserve_pid"

# ---- 2. unpack the update -------------------------------------------------------
log "2. dpkg --unpack of libsvn1 $NEW and its siblings"
check "dpkg --unpack" dpkg --unpack "$work"/new/*.deb > "$work/unpack.log" 2>&1
check "switch off before libsvn1 was unpacked" test ! -e "$lib/current"
check "off reason names the new libsvn1" grep -q "libsvn1 $NEW is about to be unpacked" /var/lib/fsfs7/off-reason
start_svnserve
check "a commit through an svnserve started now" use
expect_maps "svnserve started between unpack and configure" \
  "$(readlink -f /usr/lib/x86_64-linux-gnu/libsvn_fs_fs-1.so.1)" "$svnserve_pid"

# ---- 3. configure, the rebuild fails ------------------------------------------------
log "3. dpkg --configure -a, the rebuild fails (no source)"
FSFS7_SOURCE_DIR=$work/empty dpkg --configure -a > "$work/configure-fail.log" 2>&1
check "dpkg --configure -a succeeded" test $? = 0
check "message says the build failed" grep -q "FAILED" "$work/configure-fail.log"
check "switch off" test ! -e "$lib/current"
check "fsfs7-rebuild --status says off" sh -c '! fsfs7-rebuild --status'
apache_up
check "commits on stock" use
expect_maps "Apache restarted by the trigger" \
  "$(readlink -f /usr/lib/x86_64-linux-gnu/libsvn_fs_fs-1.so.1)" $(apache_pids)
check "fsfs7-enable refuses with no module" sh -c '! fsfs7-enable --no-restart apache2 >/dev/null 2>&1'

# ---- 4. the rebuild -------------------------------------------------------------------
log "4. fsfs7-rebuild (builds the module for $NEW; minutes)"
parent_before=$(cat "$apache_dir/run/apache2.pid" 2>/dev/null)
check "fsfs7-rebuild" fsfs7-rebuild > "$work/rebuild.log" 2>&1
cat "$work/rebuild.log" >&2
# A graceful restart: the same parent (its listening socket stayed), no
# library of before left mapped in it.
check "Apache restarted gracefully (parent $parent_before kept)" \
  test "$(cat "$apache_dir/run/apache2.pid" 2>/dev/null)" = "$parent_before"
check "no replaced Subversion library mapped in Apache's parent" \
  sh -c "! grep -E 'libsvn_[a-z_]*-1\.so.* \(deleted\)' /proc/$parent_before/maps"
check "build log has compiler lines" grep -q 'libsvn_fs_fs-1.la' "/var/lib/fsfs7/rebuild-$NEW.log"
check "switch names $NEW" test "$(readlink $lib/current)" = "$NEW"
check "built-for names libsvn1 $NEW" grep -qx "LIBSVN1_VERSION=$NEW" "$lib/$NEW/built-for"
check "fsfs7-enable's guard accepts it" fsfs7-enable --no-restart apache2 > "$work/guard.log" 2>&1
FSFS7_MODULE_DIR=$lib/$V fsfs7-enable --no-restart apache2 > "$work/guard-old.log" 2>&1
check "fsfs7-enable's guard refuses the module built for $V" test $? = 1
check "... naming both versions" grep -q "built for libsvn1 $V.*libsvn1 $NEW is installed" "$work/guard-old.log"
apache_up
start_svnserve
check "commits through fsfs7 on the new libsvn1" use
expect_maps "Apache restarted by fsfs7-rebuild" "$lib/$NEW/libsvn_fs_fs-1.so.1" $(apache_pids)
expect_maps "svnserve" "$lib/$NEW/libsvn_fs_fs-1.so.1" "$svnserve_pid"
check "fsfs7-check apache2" fsfs7-check apache2
check "stock verifies the repository" svnadmin verify -q "$work/repos/r"

# ---- 5. back to the original ----------------------------------------------------------
log "5. the original packages back, fsfs7 purged"
kill "$svnserve_pid"; svnserve_pid=
APACHE_CONFDIR=$apache_dir apache2ctl -k stop; sleep 1
check "dpkg -i of the originals" dpkg -i "$work"/orig/*.deb > "$work/downgrade.log" 2>&1
check "libsvn1 is $V again" test "$(dpkg-query -W -f='${Version}' libsvn1)" = "$V"
check "switch names the package's module ($V)" test "$(readlink $lib/current)" = "$V"
check "the module built for $NEW is gone" test ! -e "$lib/$NEW"
check "dpkg --purge fsfs7" dpkg --purge fsfs7 > "$work/purge.log" 2>&1
check "nothing left" test ! -e "$lib" -a ! -e /etc/dpkg/dpkg.cfg.d/fsfs7 -a ! -e /var/lib/fsfs7

echo "libsvn1-update: $fails check(s) failed"
[ "$fails" = 0 ]
