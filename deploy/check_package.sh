#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs the nictune .deb into a clean Debian 12 (a debootstrap minbase tree, entered with
# chroot) the way an administrator would, and checks that it works there and that purging it
# leaves nothing behind. Not part of CI: it downloads from Debian's mirror and takes minutes.
#
#   deploy/check_package.sh [nictune_VERSION_ARCH.deb]   (as root; default: deploy/package.sh)
#
# Steps: lintian finds no error and no warning; the Depends field names the package of every shared
# library the binaries need (host side); `dpkg -i` then `apt-get -f install`; `nictuned --version`;
# nictuned started with the packaged flagfile (the unit's ExecStart line, by hand: no systemd in a
# chroot) until its unix socket answers `nictune status`; SIGTERM ends it with status 0; `dpkg -r`
# keeps only the conffile; `dpkg --purge` and `apt-get autoremove --purge` leave the file tree as it
# was before the install; then `apt-get install ./nictune_*.deb` once more. `nictuned --check` with
# the packaged flags must exit 0 there, before the service is started. Prints a report; exits
# non-zero at the first failure. The chroot's mounts and the tree itself are removed on every exit.
#
# Environment: NICTUNE_CHECK_CACHE (bootstrapped tree tarball, default /var/cache/nictune-check),
# DEBIAN_MIRROR (default http://deb.debian.org/debian), NICTUNE_CHECK_BPF (true|false: the
# --bpf flag nictuned runs with in the chroot, default true).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/deploy/clean_root.sh"
bpf=${NICTUNE_CHECK_BPF:-true}

fail() {
  echo "check_package: FAIL: $*" >&2
  exit 1
}
now() { date +%s; }
step() { printf '\n== [%3d s] %s\n' "$(($(now) - started))" "$*"; }

started=$(now)
[[ $(id -u) -eq 0 ]] || fail "must run as root (debootstrap, chroot, mount)"
command -v debootstrap >/dev/null || fail "debootstrap not found: apt-get install -y debootstrap"
command -v lintian >/dev/null || fail "lintian not found: apt-get install -y lintian"
[[ $bpf == true || $bpf == false ]] || fail "NICTUNE_CHECK_BPF=$bpf: expected true or false"

root=
unpacked=
nictuned_pid=

cleanup() {
  local status=$?
  if [[ -n $nictuned_pid ]] && kill -0 "$nictuned_pid" 2>/dev/null; then
    kill -TERM "$nictuned_pid" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$nictuned_pid" 2>/dev/null || break; sleep 0.2; done
    kill -KILL "$nictuned_pid" 2>/dev/null || true
  fi
  [[ -z $unpacked ]] || rm -rf "$unpacked"
  clean_root_remove check_package
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if [[ $# -ge 1 ]]; then
  deb=$(realpath "$1")
else
  step "building the package (deploy/package.sh)"
  deb=$("$top/deploy/package.sh")
fi
[[ -f $deb ]] || fail "$deb: no such package file"
deb_name=$(basename "$deb")

# ---------------------------------------------------------------------------------------------
step "package: $deb"
dpkg-deb -I "$deb"
depends=$(dpkg-deb -f "$deb" Depends)
installed_size_kib=$(dpkg-deb -f "$deb" Installed-Size)
deb_bytes=$(stat -c %s "$deb")
depends_count=$(tr ',' '\n' <<<"$depends" | grep -c .)
contents=$(dpkg-deb -c "$deb" | awk '{print $6}' | sed 's|^\./|/|')
for expected in /usr/sbin/nictuned /usr/bin/nictune /lib/systemd/system/nictuned.service \
  /etc/nictune/nictuned.flags /usr/share/doc/nictune/README.md /usr/share/doc/nictune/changelog.gz \
  /usr/share/man/man8/nictuned.8.gz /usr/share/man/man8/nictune.8.gz \
  /usr/share/bash-completion/completions/nictune /usr/share/bash-completion/completions/nictuned; do
  grep -qx -- "$expected" <<<"$contents" || fail "$deb_name does not contain $expected"
done
control_files=$(dpkg-deb --ctrl-tarfile "$deb" | tar -t)
for control in conffiles postinst prerm postrm; do
  grep -qx -- "./$control" <<<"$control_files" || fail "$deb_name has no $control"
done
grep -qx /etc/nictune/nictuned.flags <(dpkg-deb -I "$deb" conffiles) ||
  fail "$deb_name: /etc/nictune/nictuned.flags is not a conffile"

step "lintian: no errors and no warnings"
lintian --fail-on error,warning "$deb" || fail "lintian found errors or warnings in $deb_name"

# Every NEEDED library of both binaries, resolved as the loader does on this host, must belong to
# a package the Depends field names (libc6 for the C library, libbpf1 for libbpf, ...).
step "Depends against the binaries' NEEDED libraries"
unpacked=$(mktemp -d)
dpkg-deb -x "$deb" "$unpacked"
depends_names=$(tr ',' '\n' <<<"$depends" | sed -E 's/^ *//; s/[ (|].*//')
missing=()
owners=()
needed=$(for binary in "$unpacked/usr/sbin/nictuned" "$unpacked/usr/bin/nictune"; do
  objdump -p "$binary" | awk '/NEEDED/ {print $2}' | while read -r soname; do
    ldd "$binary" | awk -v s="$soname" '$1 == s {print $1, $3}'
  done
done | sort -u)
# One dpkg -S for all of them (each call reads the whole database). dpkg knows a library by the
# path its package ships, which may be the loader's path or the one usrmerge's links lead to.
declare -A owner_of
while read -r soname path; do
  [[ -n $path && $path != "not" ]] || fail "$soname not found on this host"
done <<<"$needed"
mapfile -t lookup < <(awk '{print $2}' <<<"$needed" | while read -r path; do
  echo "$path"
  realpath "$path"
done | sort -u)
while read -r line; do
  [[ $line == diversion* ]] && continue
  owner_of[/${line#*: /}]=${line%%[:,]*}
done < <(dpkg -S "${lookup[@]}" 2>/dev/null || true)
while read -r soname path; do
  owner=${owner_of[$path]:-${owner_of[$(realpath "$path")]:-}}
  [[ -n $owner ]] || fail "$path ($soname) belongs to no installed package"
  grep -qx -- "$owner" <<<"$depends_names" || missing+=("$owner ($soname)")
  owners+=("$owner")
done <<<"$needed"
printf '%s\n' "${owners[@]}" | sort | uniq -c | awk '{printf "  %-26s %2d libraries\n", $2, $1}'
[[ ${#missing[@]} -eq 0 ]] || fail "Depends lacks ${missing[*]}"

# ---------------------------------------------------------------------------------------------
step "a fresh clean root (deploy/clean_root.sh)"
clean_root_make check "$bpf"
root=$clean_root

echo "fresh copy of the tree in $root"

in_root() { chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
  DEBIAN_FRONTEND=noninteractive LC_ALL=C "$@"; }
package_state() { in_root dpkg-query -W -f='${Status}' nictune 2>/dev/null || true; }

# The files of the tree, without the package manager's own records and caches, which installing
# and purging change by design.
tree_listing() {
  (cd "$root" && find . -xdev \( -path ./var/lib/dpkg -o -path ./var/lib/apt -o \
    -path ./var/cache -o -path ./var/log -o -path ./tmp -o -path ./etc/ld.so.cache \) -prune -o \
    -print | sort)
}

step "apt-get update"
in_root apt-get update -q
before_install=$(tree_listing)
cp "$deb" "$root/tmp/$deb_name"

# ---------------------------------------------------------------------------------------------
step "dpkg -i (a minbase system lacks the libraries: dependency errors are expected)"
install_started=$(now)
if in_root dpkg -i "/tmp/$deb_name"; then
  dpkg_i_result="installed without errors"
else
  dpkg_i_result="stopped on missing dependencies (expected), state '$(package_state)'"
fi
echo "dpkg -i: $dpkg_i_result"

step "apt-get -f install"
in_root apt-get -f install -y -q --no-install-recommends
[[ $(package_state) == "install ok installed" ]] ||
  fail "after apt-get -f install nictune is '$(package_state)', not installed"
install_seconds=$(($(now) - install_started))
pulled=$(in_root apt-mark showauto | wc -l)

# postinst enables the unit although systemd is not running, so that it starts at the next boot
# into systemd; it must not have tried to start it.
wants=/etc/systemd/system/multi-user.target.wants/nictuned.service
[[ $(readlink "$root$wants") == /lib/systemd/system/nictuned.service ]] ||
  fail "postinst did not enable the unit ($wants)"
in_root test ! -e /var/lib/nictune || fail "nictuned ran during the install (/var/lib/nictune exists)"
in_root ldd /usr/sbin/nictuned /usr/bin/nictune | grep 'not found' &&
  fail "a library is missing in the chroot"
version=$(in_root nictuned --version) || fail "nictuned --version exited $?"
echo "nictuned --version: $version"
[[ $version == *"$(dpkg-deb -f "$deb" Version)"* ]] ||
  fail "nictuned --version says '$version', the package is $(dpkg-deb -f "$deb" Version)"
in_root test -f /etc/nictune/nictuned.flags || fail "no /etc/nictune/nictuned.flags"

step "nictuned --check"
# The support self-test with the packaged flags, as an administrator runs it before the service.
check_exit=0
in_root nictuned --check --flagfile=/etc/nictune/nictuned.flags "--bpf=$bpf" 2>/dev/null ||
  check_exit=$?
(( check_exit == 0 )) || fail "nictuned --check exited $check_exit in the clean root"
check_verdict=$(in_root nictuned --check --flagfile=/etc/nictune/nictuned.flags "--bpf=$bpf" \
  2>/dev/null | tail -n 1)

# ---------------------------------------------------------------------------------------------
exec_start=$(sed -n 's/^ExecStart=//p' "$root/lib/systemd/system/nictuned.service")
[[ $exec_start == "/usr/sbin/nictuned --flagfile=/etc/nictune/nictuned.flags" ]] ||
  fail "unexpected ExecStart '$exec_start'"
read -ra command <<<"$exec_start"
command+=("--bpf=$bpf")
# The chroot shares the host's network namespace: another agent may hold the packaged port.
listen=$(sed -n 's/^--listen=//p' "$root/etc/nictune/nictuned.flags")
if [[ -n $(ss -Hltn "sport = :${listen##*:}") ]]; then
  port=19877
  while [[ -n $(ss -Hltn "sport = :$port") ]]; do port=$((port + 1)); done
  command+=("--listen=127.0.0.1:$port")
  echo "port ${listen##*:} is taken on this host; nictuned listens on $port instead"
fi
socket=$(sed -n 's/^--socket=//p' "$root/etc/nictune/nictuned.flags")

step "nictuned: ${command[*]}"
# What systemd does before ExecStart (StateDirectory=, RuntimeDirectory=, UMask=).
in_root install -d -m 0700 /var/lib/nictune /run/nictune
(umask 077 && exec chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
  "${command[@]}") >"$root/tmp/nictuned.log" 2>&1 &
nictuned_pid=$!
for _ in $(seq 100); do
  [[ -S $root$socket ]] && break
  kill -0 "$nictuned_pid" 2>/dev/null || { cat "$root/tmp/nictuned.log"; fail "nictuned exited"; }
  sleep 0.2
done
[[ -S $root$socket ]] || { cat "$root/tmp/nictuned.log"; fail "no socket $socket after 20 s"; }

step "nictune status"
# Asked until the agent has taken a sample, so that the answer shows it measuring, not only up.
for _ in $(seq 20); do
  status_output=$(in_root nictune status) || {
    echo "$status_output"
    cat "$root/tmp/nictuned.log"
    fail "nictune status exited non-zero"
  }
  grep -q '^sampling: [1-9]' <<<"$status_output" && break
  sleep 0.5
done
echo "$status_output"
grep -q '^sampling: [1-9]' <<<"$status_output" || fail "nictuned took no sample in 10 s"
samples=$(sed -n 's/^sampling: \([0-9]*\) samples.*/\1/p' <<<"$status_output")
probes=$(grep -m1 '^BPF: ' <<<"$status_output" || echo "BPF: none attached")

kill -TERM "$nictuned_pid"
nictuned_exit=0
wait "$nictuned_pid" || nictuned_exit=$?
nictuned_pid=
echo "--- nictuned's log"
cat "$root/tmp/nictuned.log"
[[ $nictuned_exit -eq 0 ]] || fail "nictuned exited $nictuned_exit after SIGTERM"

# ---------------------------------------------------------------------------------------------
step "dpkg -r: the conffile stays, everything else goes"
in_root dpkg -r nictune
[[ $(package_state) == "deinstall ok config-files" ]] ||
  fail "after dpkg -r nictune is '$(package_state)'"
in_root test -f /etc/nictune/nictuned.flags || fail "dpkg -r removed the conffile"
for gone in /usr/sbin/nictuned /usr/bin/nictune /lib/systemd/system/nictuned.service \
  /usr/share/nictune; do
  in_root test ! -e "$gone" || fail "dpkg -r left $gone"
done

step "dpkg --purge, apt-get autoremove --purge"
in_root dpkg --purge nictune
in_root dpkg -L nictune >/dev/null 2>&1 && fail "dpkg -L nictune still lists files after purge"
in_root apt-get autoremove --purge -y -q
after_purge=$(tree_listing)
changed=$(diff <(echo "$before_install") <(echo "$after_purge")) ||
  fail "the tree differs from before the install (> left behind, < removed):"$'\n'"$changed"
echo "the tree is as before the install (var/lib/dpkg, var/lib/apt, var/cache, var/log aside)"

# ---------------------------------------------------------------------------------------------
step "apt-get install ./$deb_name"
in_root sh -c "cd /tmp && apt-get install -y -q --no-install-recommends ./$deb_name"
[[ $(package_state) == "install ok installed" ]] ||
  fail "after apt-get install ./$deb_name nictune is '$(package_state)'"
in_root nictuned --version >/dev/null || fail "nictuned --version after apt-get install"
in_root dpkg --purge nictune
in_root apt-get autoremove --purge -y -q >/dev/null

# ---------------------------------------------------------------------------------------------
step "report"
cat <<EOF
package          $deb_name
size             $((deb_bytes / 1024)) KiB (.deb), installed $installed_size_kib KiB
Depends ($depends_count)     $depends
dpkg -i          $dpkg_i_result
apt-get -f       installed nictune and $pulled automatic packages in ${install_seconds} s
version          $version
--check          exit 0: $check_verdict
nictuned         --bpf=$bpf, ${probes#BPF: }; SIGTERM exit 0
postinst         enabled the unit ($wants), started nothing (no systemd)
nictune status   exit 0 over $socket, $samples sample(s) taken
dpkg -r          conffile kept; --purge + autoremove --purge left no file
apt-get install  ./$deb_name: installed, nictuned --version ok, purged
total            $(($(now) - started)) s
EOF
echo "check_package: OK"
