// SPDX-License-Identifier: Apache-2.0
// The answers of apply, rollback and restore, whose shape is the actuator's: scalar fields as
// "name: value" lines, nested objects with dotted names, and arrays of objects (the changes made)
// as a table whose columns are the union of their scalar fields.
#pragma once

#include <cstddef>
#include <string>

#include "nlohmann/json.hpp"

namespace nictune::cli {

std::string RenderResult(const nlohmann::json& answer, size_t width);

}  // namespace nictune::cli
