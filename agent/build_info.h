// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string_view>

namespace nictune::agent {

// The version printed by --version and reported in /api/v1/status.
std::string_view Version();

}  // namespace nictune::agent
