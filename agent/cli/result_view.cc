// SPDX-License-Identifier: Apache-2.0
#include "agent/cli/result_view.h"

#include <algorithm>
#include <vector>

#include "absl/strings/str_cat.h"
#include "agent/cli/text_table.h"
#include "agent/model/json_text.h"

namespace nictune::cli {
namespace {

using Json = nlohmann::json;

std::string Scalar(const Json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_null()) return "-";
  return model::JsonText(value);
}

bool IsScalar(const Json& value) { return !value.is_object() && !value.is_array(); }

std::string Table(const Json& items, size_t width) {
  std::vector<std::string> keys;
  for (const Json& item : items) {
    for (const auto& [key, value] : item.items()) {
      if (IsScalar(value) && std::find(keys.begin(), keys.end(), key) == keys.end()) {
        keys.push_back(key);
      }
    }
  }
  std::vector<Column> columns;
  for (const std::string& key : keys) columns.push_back({key});
  TextTable table(std::move(columns));
  for (const Json& item : items) {
    std::vector<std::string> row;
    for (const std::string& key : keys) {
      row.push_back(item.contains(key) ? Scalar(item[key]) : "");
    }
    table.AddRow(std::move(row));
  }
  return table.Render(width);
}

void Append(const std::string& prefix, const Json& value, size_t width, std::string& out) {
  if (value.is_object()) {
    for (const auto& [key, child] : value.items()) {
      Append(prefix.empty() ? key : absl::StrCat(prefix, ".", key), child, width, out);
    }
  } else if (value.is_array() && !value.empty() &&
             std::all_of(value.begin(), value.end(), [](const Json& v) { return v.is_object(); })) {
    absl::StrAppend(&out, prefix, ":\n", Table(value, width));
  } else if (value.is_array()) {
    absl::StrAppend(&out, prefix, ": ", value.empty() ? "(none)" : model::JsonText(value), "\n");
  } else {
    absl::StrAppend(&out, prefix.empty() ? "" : prefix + ": ", Scalar(value), "\n");
  }
}

}  // namespace

std::string RenderResult(const Json& answer, size_t width) {
  std::string out;
  Append("", answer, width, out);
  return out;
}

}  // namespace nictune::cli
