#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds the nictune Debian package: an -O2 build of the daemon and the CLI in
# ${BUILD_DIR:-build-package}, without tests or benchmarks, packed by CPack. Prints the path of
# the .deb. Extra arguments go to cmake's configure step.
# A cold build, so its time is a newcomer's wait (docs/benchmarks.md "The five-minute walk"): no
# -g, since the package's binaries are stripped anyway (CPACK_STRIP_FILES), the agent library's
# heaviest headers precompiled, and a unity build (each library's sources compiled in batches of
# 32, so the headers they share are parsed once a batch: 0.85 of 16's time, for 0.1 GB more per
# compiler). A binary links a batch's object whole, so
# each function gets a section of its own and the linker drops the ones nothing calls.
# UNITY_FALLBACK=0 makes a failed unity build fail the script instead of building file by file
# (deploy/test.sh: a name clash must not slow a newcomer's build unnoticed).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build_dir=${BUILD_DIR:-$top/build-package}
configure() {  # configure UNITY
  cmake -S "$top" -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CXX_FLAGS_RELEASE="-O2 -DNDEBUG -ffunction-sections -fdata-sections" \
    -DCMAKE_C_FLAGS_RELEASE="-O2 -DNDEBUG" -DCMAKE_EXE_LINKER_FLAGS_RELEASE="-Wl,--gc-sections" \
    -DNICTUNE_PRECOMPILED_HEADERS=ON -DNICTUNE_TESTS=OFF -DNICTUNE_BENCH=OFF \
    -DCMAKE_UNITY_BUILD="$1" -DCMAKE_UNITY_BUILD_BATCH_SIZE=32 "${extra_args[@]}" >/dev/null
}
extra_args=("$@")
configure ON
# Build output goes to stderr: stdout is the .deb's path alone, for deb=$(deploy/package.sh).
if ! cmake --build "$build_dir" -j"${JOBS:-$(nproc)}" >&2; then
  [[ ${UNITY_FALLBACK:-1} == 0 ]] && { echo "package: the unity build failed (above)" >&2; exit 1; }
  # Two sources of a batch that define the same file-local name do not compile together; the
  # package still builds, file by file, and slower.
  echo "package: not fatal: the unity build failed (above), so each source is built on its own," \
    "which takes about twice as long" >&2
  configure OFF
  cmake --build "$build_dir" -j"${JOBS:-$(nproc)}" >&2
fi
(cd "$build_dir" && cpack -G DEB >/dev/null)
ls -t "$build_dir"/nictune_*.deb | head -n 1
