// SPDX-License-Identifier: Apache-2.0
#include "agent/cli/recommend_commands.h"

#include <cmath>
#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "agent/actuate/knob_key.h"
#include "agent/cli/json_text.h"
#include "driver/knobs/knob_commands.h"
#include "nlohmann/json.hpp"

namespace nictune::cli {
namespace {

using Json = nlohmann::json;
using driver::knobs::ShellCommentText;

// A recommendation that changes something, as the knob, its target and the values.
struct Change {
  tuner::Knob knob = tuner::Knob::kRxUsecs;
  std::string knob_name;
  std::string target;
  int64_t current = 0;
  int64_t recommended = 0;
};

std::vector<Change> Changes(const Json& set) {
  std::vector<Change> out;
  if (!set.contains("recommendations") || !set["recommendations"].is_array()) return out;
  for (const Json& r : set["recommendations"]) {
    const std::string name = TextAt(r, "knob");
    const std::optional<tuner::Knob> knob = actuate::ParseKnobName(name);
    const std::optional<double> current = NumberAt(r, "current");
    const std::optional<double> recommended = NumberAt(r, "recommended");
    if (!knob || !recommended || (current && *current == *recommended)) continue;
    out.push_back({.knob = *knob,
                   .knob_name = name,
                   .target = TextAt(r, "target"),
                   .current = current ? std::llround(*current) : 0,
                   .recommended = std::llround(*recommended)});
  }
  return out;
}

std::string Heading(const Change& c) {
  return absl::StrCat("# ", ShellCommentText(c.knob_name), " on ", ShellCommentText(c.target), ": ",
                      c.current, " -> ", c.recommended, "\n");
}

}  // namespace

std::string RenderRecommendationsAsShell(const Json& set) {
  const std::vector<Change> changes = Changes(set);
  if (changes.empty()) return "# nothing to change\n";
  std::string out;
  for (const Change& c : changes) {
    absl::StatusOr<std::string> command =
        driver::knobs::ShellCommandFor({.knob = c.knob, .target = c.target}, c.recommended);
    absl::StrAppend(
        &out, Heading(c),
        command.ok() ? *command : absl::StrCat("# ", ShellCommentText(command.status().message())),
        "\n");
  }
  return out;
}

std::string RenderRecommendationsAsSysctlConf(const Json& set) {
  std::string out =
      "# nictune's recommended host sysctls, e.g. for /etc/sysctl.d/60-nictune.conf\n";
  for (const Change& c : Changes(set)) {
    if (std::optional<std::string> line = driver::knobs::SysctlConfLine(c.knob, c.recommended)) {
      absl::StrAppend(&out, Heading(c), *line, "\n");
    } else {
      absl::StrAppend(
          &out, "# not a sysctl (nictune recommend --as=shell): ", ShellCommentText(c.knob_name),
          " on ", ShellCommentText(c.target), " -> ", c.recommended, "\n");
    }
  }
  return out;
}

}  // namespace nictune::cli
