#include "tests/support/emulated_nic_knobs.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "driver/emulated/control_client.h"
#include "driver/emulated/control_protocol.h"

namespace nictune::testing_support {

using driver::emulated::ControlClient;
using driver::emulated::ControlVerb;

absl::StatusOr<int64_t> ReadNicKnob(const std::string& control_socket, const std::string& key) {
  absl::StatusOr<std::string> value =
      ControlClient(control_socket).Call({.verb = ControlVerb::kGet, .key = key});
  if (!value.ok()) return value.status();
  int64_t parsed = 0;
  if (!absl::SimpleAtoi(*value, &parsed)) {
    return absl::InternalError(
        absl::StrCat("GET ", key, " on ", control_socket, ": not an integer: \"", *value, "\""));
  }
  return parsed;
}

absl::Status SetNicKnob(const std::string& control_socket, const std::string& key, int64_t value) {
  return ControlClient(control_socket)
      .Call({.verb = ControlVerb::kSet, .key = key, .value = value})
      .status();
}

absl::StatusOr<std::map<std::string, int64_t>> ReadNicKnobs(const std::string& control_socket,
                                                            const std::vector<std::string>& keys) {
  std::map<std::string, int64_t> values;
  for (const std::string& key : keys) {
    absl::StatusOr<int64_t> value = ReadNicKnob(control_socket, key);
    if (!value.ok()) return value.status();
    values[key] = *value;
  }
  return values;
}

absl::Status SetNicKnobs(const std::string& control_socket,
                         const std::map<std::string, int64_t>& values) {
  for (const auto& [key, value] : values) {
    if (absl::Status set = SetNicKnob(control_socket, key, value); !set.ok()) return set;
  }
  return absl::OkStatus();
}

std::string DescribeNicKnobs(const std::map<std::string, int64_t>& values) {
  std::string out;
  for (const auto& [key, value] : values) absl::StrAppend(&out, " ", key, "=", value);
  return out;
}

}  // namespace nictune::testing_support
