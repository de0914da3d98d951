# SPDX-License-Identifier: Apache-2.0
# Sourced by build.sh and fuzz.sh: compile through ccache when it is installed, with a cache that
# hits across checkouts in different folders (CI clones into a new folder every run).
#   base_dir   rewrites absolute paths under the checkout to relative ones before hashing;
#   hash_dir   off, so the build folder's path (in -g's DW_AT_comp_dir) is not hashed either.
# The cache lives in one machine-wide place, not under HOME, which CI does not fix.
# Sets compiler_cache_args for cmake's configure step; empty when ccache is absent.
compiler_cache_args=()
if command -v ccache >/dev/null; then
  export CCACHE_DIR=${CCACHE_DIR:-/var/cache/nictune-ccache}
  export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$top}
  export CCACHE_NOHASHDIR=1
  export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-5G}
  compiler_cache_args=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
