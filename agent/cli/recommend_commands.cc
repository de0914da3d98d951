// SPDX-License-Identifier: Apache-2.0
#include "agent/cli/recommend_commands.h"

#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "agent/actuate/knob_key.h"
#include "agent/cli/json_text.h"
#include "driver/emulated/control_commands.h"
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

// The emulated NICs the agent listed, device -> control socket: their moderation is set over
// the socket, where the kernel's command for the same knob fails.
std::map<std::string, std::string> EmulatedNics(const Json& set) {
  std::map<std::string, std::string> out;
  if (!set.contains("emulated_nics") || !set["emulated_nics"].is_array()) return out;
  for (const Json& nic : set["emulated_nics"]) {
    const std::string device = TextAt(nic, "device");
    const std::string socket = TextAt(nic, "control_socket");
    if (!device.empty() && !socket.empty()) out[device] = socket;
  }
  return out;
}

// The emulated NIC's control command when the change is to one of the knobs it holds.
std::optional<std::string> EmulatedCommand(const Change& c,
                                           const std::map<std::string, std::string>& emulated) {
  const auto nic = emulated.find(c.target);
  if (nic == emulated.end()) return std::nullopt;
  return driver::emulated::ControlShellCommand(c.knob, c.recommended, nic->second);
}

std::string Heading(const Change& c) {
  return absl::StrCat("# ", ShellCommentText(c.knob_name), " on ", ShellCommentText(c.target), ": ",
                      c.current, " -> ", c.recommended, "\n");
}

}  // namespace

std::string RenderRecommendationsAsShell(const Json& set) {
  const std::vector<Change> changes = Changes(set);
  if (changes.empty()) return "# nothing to change\n";
  const std::map<std::string, std::string> emulated = EmulatedNics(set);
  std::string out;
  for (const Change& c : changes) {
    if (std::optional<std::string> by_socket = EmulatedCommand(c, emulated)) {
      absl::StrAppend(&out, Heading(c), *by_socket, "\n");
      continue;
    }
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
          &out, "# not a sysctl (nictune recommend --as=ethtool): ", ShellCommentText(c.knob_name),
          " on ", ShellCommentText(c.target), " -> ", c.recommended, "\n");
    }
  }
  return out;
}

std::string RenderRecommendationsAsTunedProfile(const Json& set) {
  using driver::knobs::TunedPlugin;
  std::vector<std::string> sysctl;
  std::map<std::string, std::vector<std::string>> coalesce_by_device;  // sorted: a stable profile
  std::vector<std::string> sysfs;
  std::string left_out;
  const std::map<std::string, std::string> emulated = EmulatedNics(set);
  for (const Change& c : Changes(set)) {
    if (EmulatedCommand(c, emulated)) {
      absl::StrAppend(&left_out, "# not in the profile: ", ShellCommentText(c.knob_name), " on ",
                      ShellCommentText(c.target),
                      ": an emulated NIC, set over its control socket (nictune recommend "
                      "--as=ethtool) -> ",
                      c.recommended, "\n");
      continue;
    }
    absl::StatusOr<driver::knobs::TunedSetting> setting =
        driver::knobs::TunedSettingFor({.knob = c.knob, .target = c.target}, c.recommended);
    if (!setting.ok()) {
      absl::StrAppend(&left_out, "# not in the profile: ",
                      ShellCommentText(setting.status().message()), " -> ", c.recommended, "\n");
      continue;
    }
    switch (setting->plugin) {
      case TunedPlugin::kSysctl:
        sysctl.push_back(setting->option);
        break;
      case TunedPlugin::kNet:
        coalesce_by_device[setting->device].push_back(setting->option);
        break;
      case TunedPlugin::kSysfs:
        sysfs.push_back(setting->option);
        break;
    }
  }
  std::string out =
      "# nictune's recommendations as a tuned profile, e.g. /etc/tuned/nictune/tuned.conf, then\n"
      "# `tuned-adm profile nictune`; include=PROFILE under [main] keeps the one in use now\n"
      "[main]\nsummary=nictune's recommended coalescing, NAPI and socket buffer settings\n";
  if (!sysctl.empty()) absl::StrAppend(&out, "\n[sysctl]\n", absl::StrJoin(sysctl, "\n"), "\n");
  for (const auto& [device, words] : coalesce_by_device) {
    absl::StrAppend(&out, "\n[nictune_", device, "]\ntype=net\ndevices=", device,
                    "\ncoalesce=", absl::StrJoin(words, " "), "\n");
  }
  if (!sysfs.empty()) absl::StrAppend(&out, "\n[sysfs]\n", absl::StrJoin(sysfs, "\n"), "\n");
  if (!left_out.empty()) absl::StrAppend(&out, "\n", left_out);
  return out;
}

}  // namespace nictune::cli
