# SPDX-License-Identifier: Apache-2.0
# A clean Debian 12 root for the scripts that try nictune as a new host would
# (deploy/check_package.sh, tools/demo/fresh_build.sh). Sourced, as root.
#
# A debootstrap minbase bookworm tree is bootstrapped once and kept as a tarball in
# NICTUNE_CHECK_CACHE (default /var/cache/nictune-check), from DEBIAN_MIRROR (default
# http://deb.debian.org/debian); each run unpacks a new copy under /var/tmp and mounts /proc, /sys,
# /dev, /dev/pts, an empty /run (no /run/systemd/system: systemd is not PID 1 there), and tracefs
# when asked. The caller's EXIT trap calls clean_root_remove, which undoes all of it.

clean_root=            # the tree, once clean_root_make has made it
clean_root_mounts=()
clean_root_staging=
clean_root_tarball=

# clean_root_make NAME TRACEFS: NAME goes in the tree's directory name; TRACEFS is true or false.
clean_root_make() {
  local name=$1 tracefs=$2
  local cache_dir=${NICTUNE_CHECK_CACHE:-/var/cache/nictune-check}
  local mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
  clean_root_tarball="$cache_dir/bookworm-minbase-$(dpkg --print-architecture).tar.gz"
  if [[ ! -f $clean_root_tarball ]]; then
    echo "$name: bootstrapping bookworm minbase from $mirror (once; cached as $clean_root_tarball)" >&2
    mkdir -p "$cache_dir"
    clean_root_staging=$(mktemp -d "$cache_dir/staging.XXXXXX")
    debootstrap --variant=minbase bookworm "$clean_root_staging" "$mirror" >&2
    tar -C "$clean_root_staging" -czf "$clean_root_tarball.partial" .
    mv "$clean_root_tarball.partial" "$clean_root_tarball"
    rm -rf --one-file-system "$clean_root_staging"
    clean_root_staging=
  fi
  clean_root=$(mktemp -d "/var/tmp/nictune-$name.XXXXXX")
  tar -C "$clean_root" -xzf "$clean_root_tarball"
  cp /etc/resolv.conf "$clean_root/etc/resolv.conf"
  clean_root_mount /proc -t proc proc
  clean_root_mount /sys -t sysfs sysfs  # also the build's BTF, /sys/kernel/btf/vmlinux
  clean_root_mount /dev --bind /dev
  clean_root_mount /dev/pts -t devpts devpts -o newinstance,ptmxmode=0666
  clean_root_mount /run -t tmpfs tmpfs -o mode=0755
  if [[ $tracefs == true ]]; then
    clean_root_mount /sys/kernel/tracing -t tracefs tracefs
  fi
}

clean_root_mount() {  # clean_root_mount TARGET MOUNT-ARGS...
  local target=$clean_root$1
  shift
  mkdir -p "$target"
  mount "$@" "$target"
  clean_root_mounts+=("$target")
}

# clean_root_remove NAME: unmounts and deletes the tree, and a bootstrap cut short.
clean_root_remove() {
  local name=$1 i
  for ((i = ${#clean_root_mounts[@]} - 1; i >= 0; i--)); do
    umount "${clean_root_mounts[i]}" 2>/dev/null || umount -l "${clean_root_mounts[i]}" || true
  done
  [[ -z $clean_root_staging ]] ||
    rm -rf --one-file-system "$clean_root_staging" "$clean_root_tarball.partial"
  [[ -n $clean_root ]] || return 0
  # Never delete through a mount that is still there (a bind of the host's /dev).
  # (grep -q on a pipe could end findmnt with SIGPIPE, which pipefail reads as "no match".)
  if grep -q "^$clean_root/" <<<"$(findmnt -rno TARGET)"; then
    echo "$name: $clean_root still has mounts; left in place" >&2
  else
    rm -rf --one-file-system "$clean_root"
  fi
}
