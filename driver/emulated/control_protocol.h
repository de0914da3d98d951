// SPDX-License-Identifier: Apache-2.0
// The emulated NIC's control protocol: one text line per request and per response over a unix
// stream socket (driver/emulated/README.md documents it for people using socat):
//   GET rx_usecs | rx_frames | adaptive_rx | ring_size | counters [queue=<index>]
//   SET rx_usecs | rx_frames | adaptive_rx | ring_size <integer> [queue=<index>]
//   SET flow_pps <flow index> <packets per second>
//   SHUTDOWN
// answered by "OK <value>" or "ERR <STATUS_CODE> <message>". Without queue=, a SET changes every
// queue (as `ethtool -C` and `-G` do), a GET of a setting reads queue 0 and GET counters sums the
// queues.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace nictune::driver::emulated {

enum class ControlVerb { kGet, kSet, kSetFlowRate, kShutdown };

struct ControlRequest {
  ControlVerb verb = ControlVerb::kGet;
  std::string key;              // kGet, kSet
  int64_t value = 0;            // kSet
  std::optional<size_t> queue;  // kGet, kSet: one receive queue rather than the device
  size_t flow = 0;              // kSetFlowRate
  double rate_pps = 0;          // kSetFlowRate
};

// Keys a GET or SET names.
inline constexpr absl::string_view kKeyRxUsecs = "rx_usecs";
inline constexpr absl::string_view kKeyRxFrames = "rx_frames";
inline constexpr absl::string_view kKeyAdaptiveRx = "adaptive_rx";
inline constexpr absl::string_view kKeyRingSize = "ring_size";
inline constexpr absl::string_view kKeyCounters = "counters";  // GET only

// InvalidArgument quoting the line and saying what was expected.
absl::StatusOr<ControlRequest> ParseControlRequest(absl::string_view line);
// The request line, without the newline.
std::string FormatControlRequest(const ControlRequest& request);

std::string FormatOkResponse(absl::string_view value);
std::string FormatErrorResponse(const absl::Status& status);
// The value of an OK response, or the status an ERR response carries.
absl::StatusOr<std::string> ParseControlResponse(absl::string_view line);

}  // namespace nictune::driver::emulated
