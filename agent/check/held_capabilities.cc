// SPDX-License-Identifier: Apache-2.0
#include "agent/check/held_capabilities.h"

#include <cerrno>
#include <cstdint>
#include <fstream>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "driver/errno_text.h"

namespace nictune::check {

absl::Status CheckCapabilityHeld(int capability, const std::string& name,
                                 const std::string& needed_for) {
  constexpr char kStatus[] = "/proc/self/status";
  std::ifstream in(kStatus);
  if (!in) {
    const int error = errno;
    return absl::UnavailableError(absl::StrCat(kStatus, ": open: ", driver::ErrnoText(error)));
  }
  for (std::string line; std::getline(in, line);) {
    absl::string_view value = line;
    if (!absl::ConsumePrefix(&value, "CapEff:")) continue;
    uint64_t effective = 0;
    if (!absl::SimpleHexAtoi(absl::StripAsciiWhitespace(value), &effective)) {
      return absl::DataLossError(absl::StrCat(kStatus, ": CapEff \"", value, "\" is not hex"));
    }
    if ((effective >> capability) & 1) return absl::OkStatus();
    return absl::PermissionDeniedError(absl::StrCat(name, " not held: ", needed_for));
  }
  return absl::DataLossError(absl::StrCat(kStatus, ": no CapEff line"));
}

}  // namespace nictune::check
