#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The machine's part of the README's way in, from a clean Debian 12 (docs/benchmarks.md "The
# five-minute walk"): in a debootstrap minbase tree entered with chroot, the committed source
# (git archive HEAD) is set up and packaged by the README's commands, each timed:
# `deploy/bootstrap.sh --agent`, `deploy/package.sh`, `apt-get install ./DEB`, `nictuned --check`;
# then, for comparison, what `deploy/bootstrap.sh` adds for the tests.
# As root; it downloads from Debian's mirror (not part of CI). The clean root is
# deploy/clean_root.sh's, removed on every exit. Prints a table of seconds.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/deploy/clean_root.sh"

fail() {
  echo "fresh_build: FAIL: $*" >&2
  exit 1
}
[[ $(id -u) -eq 0 ]] || fail "must run as root (debootstrap, chroot, mount)"
command -v debootstrap >/dev/null || fail "debootstrap not found: apt-get install -y debootstrap"
git -C "$top" rev-parse --verify -q HEAD >/dev/null || fail "$top is not a git checkout"

cleanup() {
  local status=$?
  clean_root_remove fresh_build
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# tracefs mounted here, or bootstrap.sh would mount it where nothing unmounts it
clean_root_make fresh_build true
root=$clean_root
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

echo "| step in a clean bookworm minbase tree ($(nproc) CPUs, commit $(git -C "$top" rev-parse --short HEAD)) | seconds |"
echo "|---|---:|"
printf '%s\n' "${rows[@]}"
echo "| packages installed after the walk's steps | $installed |"
