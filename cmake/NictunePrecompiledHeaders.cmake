# SPDX-License-Identifier: Apache-2.0
# The package's build (deploy/package.sh) has no compiler cache, and most of its compile time is
# the same third-party headers parsed again for every file: with this on, each library parses
# them once. Off by default, since ccache does not reuse the objects of a precompiled header's
# users without extra settings, and the development and CI builds go through ccache.
option(NICTUNE_PRECOMPILED_HEADERS "Precompile the heaviest third-party headers per library" OFF)

function(nictune_precompiled_headers target)
  if(NICTUNE_PRECOMPILED_HEADERS)
    target_precompile_headers(${target} PRIVATE <nlohmann/json.hpp> <absl/status/statusor.h>
      <absl/strings/str_cat.h> <absl/strings/str_format.h> <absl/time/time.h> <map> <string>
      <vector>)
  endif()
endfunction()
