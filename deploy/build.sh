#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Configures and builds nictune into ${BUILD_DIR:-build} (Release with debug info by default).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build_dir=${BUILD_DIR:-$top/build}
. "$top/deploy/compiler_cache.sh"
cmake -S "$top" -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-RelWithDebInfo}" \
  "${compiler_cache_args[@]}" "$@" >/dev/null
cmake --build "$build_dir" -j"$(nproc)"
