// SPDX-License-Identifier: Apache-2.0
// Reading the agent's JSON for display: a missing or mistyped field is shown as "-", never a
// crash, since the CLI may be older or newer than the agent it talks to.
#pragma once

#include <optional>
#include <string>

#include "nlohmann/json.hpp"

namespace nictune::cli {

// j[key] as a number, or none when absent, null or not a number.
std::optional<double> NumberAt(const nlohmann::json& j, const char* key);

// j[key] as text: strings as they are, numbers as FormatNumber, booleans as yes/no, "" otherwise.
std::string TextAt(const nlohmann::json& j, const char* key);

// Integers without decimals ("212992"), others with up to `digits` significant digits ("87.5").
std::string FormatNumber(double value, int digits = 4);

// A fraction as a percentage with one decimal ("12.5"), "-" for none.
std::string Percent(std::optional<double> fraction);

// FormatNumber or "-".
std::string NumberOrDash(std::optional<double> value, int digits = 4);

}  // namespace nictune::cli
