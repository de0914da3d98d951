// SPDX-License-Identifier: Apache-2.0
#include "driver/knobs/knob_commands.h"

#include <algorithm>
#include <string_view>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/string_view.h"
#include "driver/kernel_name.h"
#include "driver/knobs/knob_catalog.h"
#include "driver/knobs/knob_target.h"

namespace nictune::driver::knobs {
namespace {

// A name that needs no quoting in a shell or in tuned's configuration.
bool PlainWord(const std::string& word) {
  return !word.empty() && std::all_of(word.begin(), word.end(), [](char c) {
    return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-' ||
           c == '@';
  });
}

// A device's name as one shell word of its real bytes (its kernel-name text may escape them):
// the kernel allows ';', '$' or quotes in a name.
std::string ShellWord(const std::string& text) {
  const std::string word = KernelNameBytes(text);
  if (PlainWord(word)) return word;
  return absl::StrCat("'", absl::StrReplaceAll(word, {{"'", "'\\''"}}), "'");
}

// "sys/net/core/netdev_budget" -> "net.core.netdev_budget".
std::string SysctlName(std::string_view proc_path) {
  std::string_view name = proc_path;
  if (name.substr(0, 4) == "sys/") name.remove_prefix(4);
  return absl::StrReplaceAll(std::string(name), {{"/", "."}});
}

// ethtool -C's words for the coalescing knobs.
const char* EthtoolParameter(tuner::Knob knob) {
  switch (knob) {
    case tuner::Knob::kRxFrames:
      return "rx-frames";
    case tuner::Knob::kAdaptiveRx:
      return "adaptive-rx";
    default:
      return "rx-usecs";
  }
}

// "rx-usecs 50", "adaptive-rx off": the knob's words after `ethtool -C DEV`.
std::string EthtoolWords(tuner::Knob knob, int64_t value) {
  const std::string shown = knob == tuner::Knob::kAdaptiveRx ? std::string(value != 0 ? "on" : "off")
                                                             : absl::StrCat(value);
  return absl::StrCat(EthtoolParameter(knob), " ", shown);
}

// The netdev family's napi-set attribute for a per-NAPI sysfs knob.
const char* NapiSetAttribute(tuner::Knob knob) {
  return knob == tuner::Knob::kGroFlushTimeout ? "gro-flush-timeout" : "defer-hard-irqs";
}

absl::StatusOr<std::string> DeviceCommand(const KnobSpec& spec, const KnobTarget& target,
                                          int64_t value) {
  if (!target.device.empty() && target.device.front() == '-') {
    // ethtool and the shell would take it for an option, quoted or not.
    return absl::StrCat("# device ", ShellCommentText(target.device),
                        " starts with '-': set it by hand with care");
  }
  if (spec.home == KnobHome::kEthtoolCoalesce) {
    return absl::StrCat("ethtool -C ", ShellWord(target.device), " ",
                        EthtoolWords(spec.knob, value));
  }
  if (spec.home == KnobHome::kEthtoolRings) {
    return absl::StrCat("ethtool -G ", ShellWord(target.device), " rx ", value,
                        "  # most drivers restart the device's queues for it: pick the moment");
  }
  if (target.napi_id) {
    return absl::StrCat("ynl --family netdev --do napi-set --json '{\"id\": ", *target.napi_id,
                        ", \"", NapiSetAttribute(spec.knob), "\": ", value, "}'");
  }
  return absl::StrCat("echo ", value, " > /sys/class/net/", ShellWord(target.device), "/",
                      std::string(spec.path));
}

}  // namespace

absl::StatusOr<std::string> ShellCommandFor(const KnobAddress& address, int64_t value) {
  const KnobSpec& spec = SpecOf(address.knob);
  if (spec.home == KnobHome::kAdviceOnly) {
    return absl::StrCat("# ", ShellCommentText(address.target), ": setsockopt(SO_RCVBUF, ", value,
                        ") in the application (net.core.rmem_max at least as much)");
  }
  absl::StatusOr<KnobTarget> target = ParseKnobTarget(address.target);
  if (!target.ok()) return target.status();
  const bool on_host = spec.home == KnobHome::kHostSysctl;
  if (on_host != target->host || (target->napi_id && !tuner::SetPerNapi(address.knob))) {
    return absl::InvalidArgumentError(absl::StrCat(std::string(tuner::KnobName(address.knob)),
                                                   " on \"", address.target,
                                                   "\": not a target it has"));
  }
  if (on_host) return absl::StrCat("sysctl -w ", SysctlName(spec.path), "=", value);
  return DeviceCommand(spec, *target, value);
}

absl::StatusOr<TunedSetting> TunedSettingFor(const KnobAddress& address, int64_t value) {
  const KnobSpec& spec = SpecOf(address.knob);
  const std::string knob(tuner::KnobName(address.knob));
  if (spec.home == KnobHome::kAdviceOnly) {
    return absl::FailedPreconditionError(absl::StrCat(
        knob, " on ", address.target, ": the application's setsockopt(SO_RCVBUF), not the host's"));
  }
  absl::StatusOr<KnobTarget> target = ParseKnobTarget(address.target);
  if (!target.ok()) return target.status();
  const bool on_host = spec.home == KnobHome::kHostSysctl;
  if (on_host != target->host || (target->napi_id && !tuner::SetPerNapi(address.knob))) {
    return absl::InvalidArgumentError(
        absl::StrCat(knob, " on \"", address.target, "\": not a target it has"));
  }
  if (on_host) {
    return TunedSetting{.plugin = TunedPlugin::kSysctl,
                        .device = "",
                        .option = absl::StrCat(SysctlName(spec.path), "=", value)};
  }
  if (target->napi_id) {
    return absl::FailedPreconditionError(absl::StrCat(
        knob, " on ", address.target, ": one NAPI instance is set over netlink only (napi-set)"));
  }
  const std::string device = KernelNameBytes(target->device);
  if (!PlainWord(device) || device.front() == '-') {
    return absl::FailedPreconditionError(absl::StrCat(
        knob, " on ", address.target, ": the name is not one plain word in tuned's syntax"));
  }
  if (spec.home == KnobHome::kEthtoolRings) {
    return absl::FailedPreconditionError(absl::StrCat(
        knob, " on ", address.target,
        ": set by hand with ethtool -G at a moment without traffic (most drivers restart the "
        "device's queues for it)"));
  }
  if (spec.home == KnobHome::kEthtoolCoalesce) {
    return TunedSetting{
        .plugin = TunedPlugin::kNet, .device = device, .option = EthtoolWords(spec.knob, value)};
  }
  return TunedSetting{
      .plugin = TunedPlugin::kSysfs,
      .device = device,
      .option = absl::StrCat("/sys/class/net/", device, "/", std::string(spec.path), "=", value)};
}

std::string ShellCommentText(absl::string_view text) {
  return absl::StrReplaceAll(text, {{"\n", " "}, {"\r", " "}});
}

std::optional<std::string> SysctlConfLine(tuner::Knob knob, int64_t value) {
  const KnobSpec& spec = SpecOf(knob);
  if (spec.home != KnobHome::kHostSysctl) return std::nullopt;
  return absl::StrCat(SysctlName(spec.path), " = ", value);
}

}  // namespace nictune::driver::knobs
