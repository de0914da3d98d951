// SPDX-License-Identifier: Apache-2.0
#include "tests/support/dashboard_queries.h"

#include <algorithm>
#include <fstream>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/strip.h"
#include "nlohmann/json.hpp"

namespace nictune::testing_support {
namespace {

std::string StringField(const nlohmann::json& object, const char* key) {
  if (!object.is_object()) return "";
  const auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : "";
}

void CollectPanelQueries(const nlohmann::json& panels, std::vector<DashboardQuery>& out) {
  if (!panels.is_array()) return;
  for (const nlohmann::json& panel : panels) {
    if (!panel.is_object()) continue;
    if (panel.contains("panels")) CollectPanelQueries(panel["panels"], out);  // collapsed rows
    if (!panel.contains("targets") || !panel["targets"].is_array()) continue;
    for (const nlohmann::json& target : panel["targets"]) {
      const std::string expr = StringField(target, "expr");
      if (expr.empty()) continue;
      out.push_back({.panel = StringField(panel, "title"),
                     .ref_id = StringField(target, "refId"),
                     .expr = expr});
    }
  }
}

// "label_values(SELECTOR, LABEL)": the selector may itself hold commas, so the label is what
// follows the last one.
absl::Status ParseLabelValues(absl::string_view query, DashboardVariable& variable) {
  absl::string_view body = absl::StripAsciiWhitespace(query);
  if (!absl::ConsumePrefix(&body, "label_values(") || !absl::ConsumeSuffix(&body, ")")) {
    return absl::InvalidArgumentError(absl::StrCat(
        "variable ", variable.name, ": expected label_values(selector, label), got ", query));
  }
  const size_t comma = body.rfind(',');
  if (comma == absl::string_view::npos) {
    return absl::InvalidArgumentError(
        absl::StrCat("variable ", variable.name, ": label_values without a label: ", query));
  }
  variable.selector = std::string(absl::StripAsciiWhitespace(body.substr(0, comma)));
  variable.label = std::string(absl::StripAsciiWhitespace(body.substr(comma + 1)));
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Dashboard> ReadDashboard(const std::string& path) {
  std::ifstream file(path);
  if (!file) return absl::NotFoundError(absl::StrCat("dashboard ", path, ": cannot open"));
  std::stringstream text;
  text << file.rdbuf();
  const nlohmann::json json =
      nlohmann::json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
  if (!json.is_object()) {
    return absl::InvalidArgumentError(absl::StrCat("dashboard ", path, ": not a JSON object"));
  }
  Dashboard dashboard;
  dashboard.uid = StringField(json, "uid");
  if (json.contains("panels")) CollectPanelQueries(json["panels"], dashboard.panel_queries);

  if (json.contains("annotations") && json["annotations"].contains("list")) {
    for (const nlohmann::json& annotation : json["annotations"]["list"]) {
      const std::string expr = StringField(annotation, "expr");
      if (!expr.empty()) {
        dashboard.annotation_queries.push_back(
            {.panel = StringField(annotation, "name"), .ref_id = "", .expr = expr});
      }
    }
  }

  if (json.contains("templating") && json["templating"].contains("list")) {
    for (const nlohmann::json& entry : json["templating"]["list"]) {
      if (StringField(entry, "type") != "query") continue;
      DashboardVariable variable;
      variable.name = StringField(entry, "name");
      // Grafana keeps the query either as a string or as {query: ...}.
      std::string query = StringField(entry, "query");
      if (query.empty() && entry.contains("query")) query = StringField(entry["query"], "query");
      if (absl::Status parsed = ParseLabelValues(query, variable); !parsed.ok()) {
        return absl::InvalidArgumentError(absl::StrCat("dashboard ", path, ": ", parsed.message()));
      }
      variable.include_all = entry.contains("includeAll") && entry["includeAll"].is_boolean() &&
                             entry["includeAll"].get<bool>();
      if (variable.include_all) {
        variable.all_value = StringField(entry, "allValue");
        if (variable.all_value.empty()) variable.all_value = ".*";
      }
      dashboard.variables.push_back(std::move(variable));
    }
  }
  return dashboard;
}

std::string ExpandVariables(absl::string_view expr,
                            const std::map<std::string, std::string>& values) {
  std::vector<std::pair<std::string, std::string>> replacements;
  for (const auto& [name, value] : values) {
    replacements.emplace_back(absl::StrCat("${", name, "}"), value);
    replacements.emplace_back(absl::StrCat("$", name), value);
  }
  std::sort(replacements.begin(), replacements.end(),
            [](const auto& a, const auto& b) { return a.first.size() > b.first.size(); });
  std::string out(expr);
  for (const auto& [from, to] : replacements) absl::StrReplaceAll({{from, to}}, &out);
  return out;
}

}  // namespace nictune::testing_support
