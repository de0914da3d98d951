#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# deploy/package.sh's output contract, which `deb=$(deploy/package.sh)` in the README relies on:
# standard output is the .deb's path and nothing else, whatever cmake, ninja and cpack print, and
# a failed build prints no path and fails. cmake and cpack are stand-ins on PATH that print what
# the real ones print to standard output: packing for real is deploy/check_package.sh's job.
#   package_output_test.sh PACKAGE_SCRIPT
set -uo pipefail
script=$(realpath "$1")
work=$(mktemp -d "/tmp/nictune_package_$$.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/bin"

cat >"$work/bin/cmake" <<'FAKE'
#!/usr/bin/env bash
# configure: "-S SRC -B DIR ..."; build: "--build DIR ...". Both chatter on stdout as cmake does.
if [[ $1 == --build ]]; then
  echo "[1/2] Building CXX object agent/CMakeFiles/nictuned.dir/nictuned_main.cc.o"
  echo "[2/2] Linking CXX executable agent/nictuned"
  exit "${FAKE_BUILD_EXIT:-0}"
fi
while [[ $# -gt 0 && $1 != -B ]]; do shift; done
mkdir -p "$2"
echo "-- Configuring done"
echo "-- Build files have been written to: $2"
FAKE
cat >"$work/bin/cpack" <<'FAKE'
#!/usr/bin/env bash
echo "CPack: Create package using DEB"
touch nictune_0.0.0_amd64.deb
echo "CPack: - package: $PWD/nictune_0.0.0_amd64.deb generated."
FAKE
chmod +x "$work/bin/cmake" "$work/bin/cpack"

failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

out=$(PATH=$work/bin:$PATH BUILD_DIR=$work/build bash "$script" 2>"$work/err")
rc=$?
[[ $rc -eq 0 ]] || fail "package.sh exited $rc: $(cat "$work/err")"
[[ $out == "$work/build/nictune_0.0.0_amd64.deb" ]] ||
  fail "standard output is not the .deb's path alone: [$out]"
grep -qF "[2/2] Linking" "$work/err" || fail "the build's progress is not on standard error"

rm -rf "$work/build"
out=$(PATH=$work/bin:$PATH BUILD_DIR=$work/build FAKE_BUILD_EXIT=1 bash "$script" 2>"$work/err")
rc=$?
[[ $rc -ne 0 ]] || fail "a failed build exited 0"
[[ -z $out ]] || fail "a failed build printed [$out] on standard output"

# UNITY_FALLBACK=0 (deploy/test.sh): a failed unity build fails at once, without the file-by-file
# build that would hide a name clash.
rm -rf "$work/build"
out=$(PATH=$work/bin:$PATH BUILD_DIR=$work/build FAKE_BUILD_EXIT=1 UNITY_FALLBACK=0 bash "$script" \
  2>"$work/err")
rc=$?
[[ $rc -ne 0 ]] || fail "UNITY_FALLBACK=0: a failed unity build exited 0"
[[ -z $out ]] || fail "UNITY_FALLBACK=0: a failed build printed [$out] on standard output"
grep -q "not fatal" "$work/err" && fail "UNITY_FALLBACK=0: it fell back to building file by file"
grep -q "the unity build failed" "$work/err" || fail "UNITY_FALLBACK=0: no word of the failure"

echo "package.sh output: $failures failed"
((failures == 0))
