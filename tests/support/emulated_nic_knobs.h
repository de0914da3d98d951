// An emulated NIC's moderation knobs as a test reads and sets them over its control socket (the
// way an administrator's ethtool would reach a real NIC), by their control keys (rx_usecs,
// rx_frames, adaptive_rx).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace nictune::testing_support {

absl::StatusOr<int64_t> ReadNicKnob(const std::string& control_socket, const std::string& key);
absl::Status SetNicKnob(const std::string& control_socket, const std::string& key, int64_t value);

// Each key's value, by key.
absl::StatusOr<std::map<std::string, int64_t>> ReadNicKnobs(const std::string& control_socket,
                                                            const std::vector<std::string>& keys);
absl::Status SetNicKnobs(const std::string& control_socket,
                         const std::map<std::string, int64_t>& values);

// " key=value key=value" for a test's output.
std::string DescribeNicKnobs(const std::map<std::string, int64_t>& values);

}  // namespace nictune::testing_support
