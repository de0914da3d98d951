#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds the nictune Debian package: a RelWithDebInfo build of the daemon and the CLI in
# ${BUILD_DIR:-build-package}, without tests or benchmarks, packed by CPack. Prints the path of
# the .deb. Extra arguments go to cmake's configure step.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build_dir=${BUILD_DIR:-$top/build-package}
cmake -S "$top" -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DNICTUNE_TESTS=OFF \
  -DNICTUNE_BENCH=OFF "$@" >/dev/null
# Build output goes to stderr: stdout is the .deb's path alone, for deb=$(deploy/package.sh).
cmake --build "$build_dir" -j"${JOBS:-$(nproc)}" >&2
(cd "$build_dir" && cpack -G DEB >/dev/null)
ls -t "$build_dir"/nictune_*.deb | head -n 1
