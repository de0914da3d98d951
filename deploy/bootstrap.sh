#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs nictune's dependencies from Debian 12 packages. Idempotent: packages already present
# are not reinstalled, and apt's lists are refreshed only when needed.
#
#   deploy/bootstrap.sh           everything: building, running, and every test layer
#   deploy/bootstrap.sh --agent   only what building, packaging and running the agent need
#                                 (deploy/run.sh, deploy/package.sh): a newcomer's first wait
set -euo pipefail

agent_packages=(
  # build; `file` is what CPack's Debian generator runs dpkg-shlibdeps through (not in minbase)
  build-essential cmake ninja-build pkg-config clang llvm file
  # the manual pages are written from the binaries' help text at build time
  python3
  # kernel side: CO-RE programs, skeletons, libbpf
  bpftool libbpf-dev libelf-dev zlib1g-dev
  # libraries
  libabsl-dev nlohmann-json3-dev libmnl-dev libsqlite3-dev prometheus-cpp-dev libmicrohttpd-dev
  libsystemd-dev
  # recommendations carried out by hand (`nictune recommend --as=ethtool`): a NIC's by ethtool,
  # an emulated NIC's by socat
  ethtool socat
)
test_packages=(
  # tests and benchmarks
  libgtest-dev libgmock-dev libbenchmark-dev iproute2 libbpf-tools prometheus procps
  # fuzzing (deploy/fuzz.sh, also run by deploy/test.sh): libFuzzer and the sanitizer runtimes,
  # only recommended by clang's packages
  libclang-rt-14-dev
  # deploy tests: systemd-analyze checks the unit; node_exporter's unit is the exposure baseline
  systemd prometheus-node-exporter
)

case "${1:-}" in
  "") packages=("${agent_packages[@]}" "${test_packages[@]}") ;;
  --agent) packages=("${agent_packages[@]}") ;;
  *)
    echo "bootstrap: unknown argument '$1'; usage: deploy/bootstrap.sh [--agent]" >&2
    exit 2
    ;;
esac

if [[ $(id -u) -ne 0 ]]; then
  echo "bootstrap: needs root to install packages (run it with sudo)" >&2
  exit 1
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [[ ${#missing[@]} -gt 0 ]]; then
  echo "bootstrap: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "bootstrap: all ${#packages[@]} packages present"
fi

# A compiler cache makes a rebuild of sources built before (in any checkout) take minutes. It
# only speeds the build up, so a machine that cannot fetch it still builds, without it.
if ! command -v ccache >/dev/null; then
  echo "bootstrap: installing ccache"
  export DEBIAN_FRONTEND=noninteractive
  { apt-get install -y -qq --no-install-recommends ccache ||
    { apt-get update -qq && apt-get install -y -qq --no-install-recommends ccache; }; } ||
    echo "bootstrap: could not install ccache; building without a compiler cache" >&2
fi

# The probes attach to tracepoints; tracefs is not always mounted (containers, minimal hosts).
if [[ ! -d /sys/kernel/tracing/events ]] && ! mountpoint -q /sys/kernel/tracing; then
  mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null ||
    echo "bootstrap: could not mount tracefs at /sys/kernel/tracing; the BPF probes may be unavailable" >&2
fi
