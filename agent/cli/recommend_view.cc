// SPDX-License-Identifier: Apache-2.0
#include "agent/cli/recommend_view.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "agent/cli/json_text.h"
#include "agent/cli/text_table.h"
#include "agent/cli/time_text.h"

namespace nictune::cli {
namespace {

using Json = nlohmann::json;

bool Keeps(const Json& r) {
  return NumberOrDash(NumberAt(r, "current"), 6) == NumberOrDash(NumberAt(r, "recommended"), 6);
}

// "50 -> 84 us", "212992 B (keep)"; on/off knobs without their unit.
std::string ChangeText(const Json& r) {
  const std::string current = NumberOrDash(NumberAt(r, "current"), 6);
  const std::string recommended = NumberOrDash(NumberAt(r, "recommended"), 6);
  std::string unit = TextAt(r, "unit");
  if (unit == "bool") unit.clear();
  const std::string spaced_unit = unit.empty() ? "" : absl::StrCat(" ", unit);
  return Keeps(r) ? absl::StrCat(current, spaced_unit, " (keep)")
                  : absl::StrCat(current, " -> ", recommended, spaced_unit);
}

// "keep as they are: adaptive_rx on emu0; rmem_default, rmem_max on host": the knobs whose
// recommendation is their current value, grouped by target in the agent's order.
std::string KeptLine(const Json& recommendations) {
  std::vector<std::pair<std::string, std::vector<std::string>>> by_target;
  for (const Json& r : recommendations) {
    if (!Keeps(r)) continue;
    const std::string target = TextAt(r, "target");
    auto it = std::find_if(by_target.begin(), by_target.end(),
                           [&target](const auto& group) { return group.first == target; });
    if (it == by_target.end()) it = by_target.insert(by_target.end(), {target, {}});
    it->second.push_back(TextAt(r, "knob"));
  }
  if (by_target.empty()) return "";
  std::vector<std::string> groups;
  for (const auto& [target, knobs] : by_target) {
    groups.push_back(absl::StrCat(absl::StrJoin(knobs, ", "), " on ", target));
  }
  return absl::StrCat("keep as they are: ", absl::StrJoin(groups, "; "), "\n");
}

std::string WindowLine(const Json& window) {
  return absl::StrCat("window ", AgentTimeText(TextAt(window, "start")), " .. ",
                      AgentTimeText(TextAt(window, "end")), ", ", TextAt(window, "samples"),
                      " samples\n");
}

std::string Inputs(const Json& r) {
  std::vector<std::string> parts;
  if (r.contains("inputs") && r["inputs"].is_array()) {
    for (const Json& input : r["inputs"]) {
      std::string unit = TextAt(input, "unit");
      parts.push_back(absl::StrCat(TextAt(input, "name"), " = ",
                                   NumberOrDash(NumberAt(input, "value"), 6),
                                   unit.empty() ? "" : " ", unit));
    }
  }
  return parts.empty() ? "-" : absl::StrJoin(parts, ", ");
}

// A recommendation's arithmetic: its formula, the inputs substituted, and its confidence's reason.
std::string Why(const Json& r) {
  const Json confidence = r.contains("confidence") ? r["confidence"] : Json();
  return absl::StrCat("\n", TextAt(r, "knob"), " on ", TextAt(r, "target"), ": ", ChangeText(r),
                      "\n  formula:    ", TextAt(r, "formula"), "\n  inputs:     ", Inputs(r),
                      "\n  confidence: ", NumberOrDash(NumberAt(confidence, "value"), 2), " (",
                      TextAt(confidence, "reason"), ")\n");
}

}  // namespace

std::string RenderRecommendations(const Json& set, bool why, size_t width) {
  std::string out;
  // Before the first window closes the agent sends an empty one: no line for it.
  if (set.contains("window") && set["window"].is_object() &&
      !TextAt(set["window"], "start").empty()) {
    absl::StrAppend(&out, WindowLine(set["window"]));
  }
  if (const std::string reason = TextAt(set, "reason"); !reason.empty()) {
    absl::StrAppend(&out, reason, "\n");
  }
  const Json recommendations = set.contains("recommendations") && set["recommendations"].is_array()
                                   ? set["recommendations"]
                                   : Json::array();
  if (recommendations.empty()) {
    absl::StrAppend(&out, "no recommendations\n");
    return out;
  }
  // The target names the scope ("host", "eth0", "eth0 rx 0"); --json and --why carry it too.
  TextTable table({{"KNOB"},
                   {"TARGET"},
                   {"CHANGE"},
                   {"CONFIDENCE", Align::kRight},
                   {"EXPECTED EFFECT"}},
                  /*key_columns=*/2);
  for (const Json& r : recommendations) {
    if (Keeps(r)) continue;
    const Json confidence = r.contains("confidence") ? r["confidence"] : Json();
    table.AddRow({TextAt(r, "knob"), TextAt(r, "target"), ChangeText(r),
                  NumberOrDash(NumberAt(confidence, "value"), 2), TextAt(r, "expected_effect")});
  }
  absl::StrAppend(&out, table.rows() == 0 ? "no changes: every knob is as recommended\n"
                                          : table.Render(width),
                  KeptLine(recommendations));
  if (!why) return out;
  // The changes first, in the table's order, then the knobs kept as they are.
  for (const bool kept : {false, true}) {
    for (const Json& r : recommendations) {
      if (Keeps(r) == kept) absl::StrAppend(&out, Why(r));
    }
  }
  return out;
}

}  // namespace nictune::cli
