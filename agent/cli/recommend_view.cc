// SPDX-License-Identifier: Apache-2.0
#include "agent/cli/recommend_view.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "agent/cli/json_text.h"
#include "agent/cli/text_table.h"

namespace nictune::cli {
namespace {

using Json = nlohmann::json;

// "50 -> 84 us", "212992 B (keep)"; on/off knobs without their unit.
std::string Change(const Json& r) {
  const std::string current = NumberOrDash(NumberAt(r, "current"), 6);
  const std::string recommended = NumberOrDash(NumberAt(r, "recommended"), 6);
  std::string unit = TextAt(r, "unit");
  if (unit == "bool") unit.clear();
  const std::string spaced_unit = unit.empty() ? "" : absl::StrCat(" ", unit);
  return current == recommended ? absl::StrCat(current, spaced_unit, " (keep)")
                                : absl::StrCat(current, " -> ", recommended, spaced_unit);
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

}  // namespace

std::string RenderRecommendations(const Json& set, bool why, size_t width) {
  std::string out;
  if (set.contains("window") && set["window"].is_object()) {
    const Json& window = set["window"];
    absl::StrAppend(&out, "window ", TextAt(window, "start"), " .. ", TextAt(window, "end"), ", ",
                    TextAt(window, "samples"), " samples\n");
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
  TextTable table({{"KNOB"},
                   {"SCOPE"},
                   {"TARGET"},
                   {"CURRENT -> RECOMMENDED"},
                   {"CONFIDENCE", Align::kRight},
                   {"EXPECTED EFFECT"}});
  for (const Json& r : recommendations) {
    const Json confidence = r.contains("confidence") ? r["confidence"] : Json();
    table.AddRow({TextAt(r, "knob"), TextAt(r, "scope"), TextAt(r, "target"), Change(r),
                  NumberOrDash(NumberAt(confidence, "value"), 2), TextAt(r, "expected_effect")});
  }
  absl::StrAppend(&out, table.Render(width));
  if (!why) return out;
  for (const Json& r : recommendations) {
    const Json confidence = r.contains("confidence") ? r["confidence"] : Json();
    absl::StrAppend(&out, "\n", TextAt(r, "knob"), " on ", TextAt(r, "target"), ": ", Change(r),
                    "\n  formula:    ", TextAt(r, "formula"), "\n  inputs:     ", Inputs(r),
                    "\n  confidence: ", NumberOrDash(NumberAt(confidence, "value"), 2), " (",
                    TextAt(confidence, "reason"), ")\n");
  }
  return out;
}

}  // namespace nictune::cli
