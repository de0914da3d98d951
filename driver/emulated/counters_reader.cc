// SPDX-License-Identifier: Apache-2.0
#include "driver/emulated/counters_reader.h"

namespace nictune::driver::emulated {

absl::StatusOr<EmulatedNicCounters> EmulatedNicCountersReader::Read() const {
  absl::StatusOr<std::string> text =
      client_.Call(ControlRequest{.verb = ControlVerb::kGet, .key = std::string(kKeyCounters)});
  if (!text.ok()) return text.status();
  return ParseCounters(*text);
}

absl::StatusOr<EmulatedNicCounters> EmulatedNicCountersReader::ReadQueue(size_t queue) const {
  absl::StatusOr<std::string> text = client_.Call(
      ControlRequest{.verb = ControlVerb::kGet, .key = std::string(kKeyCounters), .queue = queue});
  if (!text.ok()) return text.status();
  return ParseCounters(*text);
}

}  // namespace nictune::driver::emulated
