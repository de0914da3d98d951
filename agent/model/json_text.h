// SPDX-License-Identifier: Apache-2.0
// The one way the agent turns JSON into text. Kernel names arrive as valid UTF-8 already
// (driver/kernel_name.h); a string that still is not (an error quoting a client's bytes) has its
// bad bytes replaced with U+FFFD instead of making nlohmann throw, so that no output can abort
// the daemon.
#pragma once

#include <string>

#include "nlohmann/json.hpp"

namespace nictune::model {

inline std::string JsonText(const nlohmann::json& value, int indent = -1) {
  return value.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace nictune::model
