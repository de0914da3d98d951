// SPDX-License-Identifier: Apache-2.0
#include "agent/cli/json_text.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_format.h"

namespace nictune::cli {

std::optional<double> NumberAt(const nlohmann::json& j, const char* key) {
  if (!j.is_object()) return std::nullopt;
  const auto it = j.find(key);
  if (it == j.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

std::string TextAt(const nlohmann::json& j, const char* key) {
  if (!j.is_object()) return "";
  const auto it = j.find(key);
  if (it == j.end()) return "";
  if (it->is_string()) return it->get<std::string>();
  if (it->is_boolean()) return it->get<bool>() ? "yes" : "no";
  if (it->is_number()) return FormatNumber(it->get<double>());
  return "";
}

std::string FormatNumber(double value, int digits) {
  if (!std::isfinite(value)) return std::isnan(value) ? "nan" : (value > 0 ? "inf" : "-inf");
  if (value == std::trunc(value) && std::fabs(value) < 1e15) {
    return absl::StrFormat("%.0f", value);
  }
  // %g with at least the integer part's digits, so 11428.6 is not printed as 1.143e+04.
  const int integer_digits =
      std::fabs(value) >= 1 ? static_cast<int>(std::floor(std::log10(std::fabs(value)))) + 1 : 1;
  return absl::StrFormat("%.*g", std::max(digits, integer_digits), value);
}

std::string Percent(std::optional<double> fraction) {
  if (!fraction) return "-";
  return absl::StrFormat("%.1f", *fraction * 100);
}

std::string NumberOrDash(std::optional<double> value, int digits) {
  return value ? FormatNumber(*value, digits) : "-";
}

}  // namespace nictune::cli
