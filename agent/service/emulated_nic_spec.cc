// SPDX-License-Identifier: Apache-2.0
#include "agent/service/emulated_nic_spec.h"

#include <set>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace nictune::service {

absl::StatusOr<std::vector<EmulatedNicSpec>> ParseEmulatedNics(
    const std::vector<std::string>& values) {
  std::vector<EmulatedNicSpec> specs;
  std::set<std::string> devices;
  for (const std::string& value : values) {
    for (absl::string_view item : absl::StrSplit(value, ',', absl::SkipEmpty())) {
      const std::vector<std::string> parts = absl::StrSplit(item, absl::MaxSplits('=', 1));
      if (parts.size() != 2 || parts[0].empty() || parts[1].empty()) {
        return absl::InvalidArgumentError(
            absl::StrCat("--emulated_nic=", item, ": expected DEVICE=SOCKET_PATH"));
      }
      if (!absl::StartsWith(parts[1], "/")) {
        return absl::InvalidArgumentError(
            absl::StrCat("--emulated_nic=", item, ": the control socket path must be absolute"));
      }
      if (!devices.insert(parts[0]).second) {
        return absl::InvalidArgumentError(
            absl::StrCat("--emulated_nic=", item, ": device ", parts[0], " is named twice"));
      }
      specs.push_back({parts[0], parts[1]});
    }
  }
  return specs;
}

std::vector<std::string> RepeatedFlagValues(int argc, char** argv, absl::string_view name) {
  std::vector<std::string> values;
  const std::string single = absl::StrCat("-", name, "=");
  const std::string dashed = absl::StrCat("--", name, "=");
  const std::string bare_single = absl::StrCat("-", name);
  const std::string bare_dashed = absl::StrCat("--", name);
  for (int i = 1; i < argc; ++i) {
    const absl::string_view arg(argv[i]);
    if (arg == "--") break;
    if (absl::StartsWith(arg, dashed)) {
      values.emplace_back(arg.substr(dashed.size()));
    } else if (absl::StartsWith(arg, single)) {
      values.emplace_back(arg.substr(single.size()));
    } else if ((arg == bare_dashed || arg == bare_single) && i + 1 < argc) {
      values.emplace_back(argv[++i]);
    }
  }
  return values;
}

}  // namespace nictune::service
