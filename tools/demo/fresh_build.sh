#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The machine's part of the README's way in, from a clean Debian 12 (docs/benchmarks.md "The
# five-minute walk"): in a debootstrap minbase tree entered with chroot, the committed source
# (git archive HEAD) is set up and packaged by the README's commands, each timed:
# `deploy/bootstrap.sh --agent`, `deploy/package.sh`, `apt-get install ./DEB`, `nictuned --check`;
# then, for comparison, what `deploy/bootstrap.sh` adds for the tests.
# As root; it downloads from Debian's mirror (not part of CI). The minbase tarball is the one
# deploy/check_package.sh keeps in NICTUNE_CHECK_CACHE (default /var/cache/nictune-check), made
# here when missing. The tree and its mounts are removed on every exit. Prints a table of seconds.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
cache_dir=${NICTUNE_CHECK_CACHE:-/var/cache/nictune-check}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
suite=bookworm

fail() {
  echo "fresh_build: FAIL: $*" >&2
  exit 1
}
[[ $(id -u) -eq 0 ]] || fail "must run as root (debootstrap, chroot, mount)"
command -v debootstrap >/dev/null || fail "debootstrap not found: apt-get install -y debootstrap"
git -C "$top" rev-parse --verify -q HEAD >/dev/null || fail "$top is not a git checkout"

root=
staging=
mounts=()
cleanup() {
  local status=$?
  local i
  for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do
    umount "${mounts[i]}" 2>/dev/null || umount -l "${mounts[i]}" || true
  done
  [[ -z $staging ]] || rm -rf --one-file-system "$staging" "$tarball.partial"
  if [[ -n $root ]]; then
    # Never delete through a mount that is still there (a bind of the host's /dev).
    if grep -q "^$root/" <<<"$(findmnt -rno TARGET)"; then
      echo "fresh_build: $root still has mounts; left in place" >&2
    else
      rm -rf --one-file-system "$root"
    fi
  fi
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

arch=$(dpkg --print-architecture)
tarball="$cache_dir/$suite-minbase-$arch.tar.gz"
if [[ ! -f $tarball ]]; then
  echo "fresh_build: bootstrapping $suite minbase from $mirror (once; cached as $tarball)" >&2
  mkdir -p "$cache_dir"
  staging=$(mktemp -d "$cache_dir/staging.XXXXXX")
  debootstrap --variant=minbase "$suite" "$staging" "$mirror" >&2
  tar -C "$staging" -czf "$tarball.partial" .
  mv "$tarball.partial" "$tarball"
  rm -rf --one-file-system "$staging"
  staging=
fi

root=$(mktemp -d /var/tmp/nictune-fresh.XXXXXX)
mount_in_root() {  # mount_in_root TARGET MOUNT-ARGS...
  local target=$root$1
  shift
  mkdir -p "$target"
  mount "$@" "$target"
  mounts+=("$target")
}
tar -C "$root" -xzf "$tarball"
cp /etc/resolv.conf "$root/etc/resolv.conf"
mount_in_root /proc -t proc proc
mount_in_root /sys -t sysfs sysfs  # the build's vmlinux.h comes from /sys/kernel/btf/vmlinux
mount_in_root /dev --bind /dev
mount_in_root /dev/pts -t devpts devpts -o newinstance,ptmxmode=0666
mount_in_root /run -t tmpfs tmpfs -o mode=0755
mount_in_root /sys/kernel/tracing -t tracefs tracefs  # else bootstrap mounts it, untracked here
mkdir -p "$root/src"
git -C "$top" archive HEAD | tar -x -C "$root/src"

in_root() { chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
  DEBIAN_FRONTEND=noninteractive LC_ALL=C bash -c "cd /src && $1"; }
rows=()
timed() {  # timed LABEL COMMAND: runs COMMAND in the tree, its output to stderr
  local started=$SECONDS
  in_root "$2" >&2 || fail "$1: '$2' failed"
  rows+=("| $1 | $((SECONDS - started)) |")
}

timed "\`deploy/bootstrap.sh --agent\` (apt's lists, downloads, installs)" "deploy/bootstrap.sh --agent"
timed "\`deploy/package.sh\`, cold" "deploy/package.sh > /tmp/deb-path"
deb=$(cat "$root/tmp/deb-path")
timed "\`apt-get install\` the .deb" "apt-get install -y -q $deb"
timed "\`nictuned --check\`" "nictuned --check --flagfile=/etc/nictune/nictuned.flags || true"
installed=$(in_root "dpkg-query -W -f='\${Status}\n' | grep -c 'install ok installed'")
timed "the tests' packages on top (\`deploy/bootstrap.sh\`), for comparison" "deploy/bootstrap.sh"

echo "| step in a clean $suite minbase tree ($(nproc) CPUs, commit $(git -C "$top" rev-parse --short HEAD)) | seconds |"
echo "|---|---:|"
printf '%s\n' "${rows[@]}"
echo "| packages installed after the walk's steps | $installed |"
