#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds the nictune Debian package: an -O2 build of the daemon and the CLI in
# ${BUILD_DIR:-build-package}, without tests or benchmarks, packed by CPack. Prints the path of
# the .deb. Extra arguments go to cmake's configure step.
# A cold build, so its time is a newcomer's wait (docs/benchmarks.md "The five-minute walk"): no
# -g, since the package's binaries are stripped anyway (CPACK_STRIP_FILES), and the agent
# library's heaviest headers precompiled. Both cut the build on 2 cores from 390 s to 230 s.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build_dir=${BUILD_DIR:-$top/build-package}
cmake -S "$top" -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CXX_FLAGS_RELEASE="-O2 -DNDEBUG" -DCMAKE_C_FLAGS_RELEASE="-O2 -DNDEBUG" \
  -DNICTUNE_PRECOMPILED_HEADERS=ON -DNICTUNE_TESTS=OFF -DNICTUNE_BENCH=OFF "$@" >/dev/null
# Build output goes to stderr: stdout is the .deb's path alone, for deb=$(deploy/package.sh).
cmake --build "$build_dir" -j"${JOBS:-$(nproc)}" >&2
(cd "$build_dir" && cpack -G DEB >/dev/null)
ls -t "$build_dir"/nictune_*.deb | head -n 1
