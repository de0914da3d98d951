// SPDX-License-Identifier: Apache-2.0
// `nictune top`: one frame of the per-queue view from GET /api/v1/snapshot (the latest interval's
// window report): each NIC queue with its interrupt rate, its NAPI instance's poll figures, the
// drops on its device and the CPU split of the CPUs its interrupt goes to; then the sockets the
// agent tracks with their peak fill (the kernel does not say which queue fed a socket, so fill is
// per socket, not per queue).
#pragma once

#include <cstddef>
#include <string>

#include "nlohmann/json.hpp"

namespace nictune::cli {

std::string RenderTop(const nlohmann::json& snapshot, size_t width);

}  // namespace nictune::cli
