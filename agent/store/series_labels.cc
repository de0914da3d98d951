// SPDX-License-Identifier: Apache-2.0
#include "agent/store/series_labels.h"

#include <algorithm>
#include <map>

#include "absl/strings/str_format.h"
#include "agent/model/json_text.h"
#include "nlohmann/json.hpp"

namespace nictune::store {

absl::StatusOr<std::string> EncodeLabels(const Labels& labels) {
  std::map<std::string, std::string> sorted;
  for (const auto& [key, value] : labels) {
    if (key.empty()) return absl::InvalidArgumentError("series label with an empty name");
    if (!sorted.emplace(key, value).second) {
      return absl::InvalidArgumentError(absl::StrFormat("series label %s given twice", key));
    }
  }
  // nlohmann's object is a std::map: keys come out sorted, so the text is canonical.
  // Invalid UTF-8 is replaced rather than thrown on: a label value is not worth an exception.
  return model::JsonText(nlohmann::json(sorted));
}

absl::StatusOr<Labels> DecodeLabels(const std::string& text) {
  const nlohmann::json parsed = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!parsed.is_object()) {
    return absl::DataLossError(absl::StrFormat("series labels %s: not a JSON object", text));
  }
  Labels labels;
  for (const auto& [key, value] : parsed.items()) {
    if (!value.is_string()) {
      return absl::DataLossError(
          absl::StrFormat("series labels %s: value of %s is not a string", text, key));
    }
    labels.emplace_back(key, value.get<std::string>());
  }
  return labels;
}

bool LabelsMatch(const Labels& labels, const Labels& match) {
  return std::all_of(match.begin(), match.end(), [&labels](const auto& wanted) {
    return std::find(labels.begin(), labels.end(), wanted) != labels.end();
  });
}

bool IsValidSeriesName(const std::string& name) {
  if (name.empty()) return false;
  for (size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    const bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':';
    const bool digit = c >= '0' && c <= '9';
    if (!letter && !(digit && i > 0)) return false;
  }
  return true;
}

}  // namespace nictune::store
