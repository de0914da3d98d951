// SPDX-License-Identifier: Apache-2.0
// The traffic the emulated NIC receives: UDP flows with a rate, a frame size, a burst pattern, a
// destination port and a receive queue, parsed from the `--flows` text
// ("port=9000,pps=20000,bytes=128;...").
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace nictune::driver::emulated {

struct FlowSpec {
  uint16_t port = 9000;       // UDP destination port inside the namespace
  double rate_pps = 1000;     // packets per second while the flow is on
  int64_t frame_bytes = 128;  // Ethernet frame without FCS: 14 + 20 + 8 + payload
  // On-off bursts: on for on_ns at rate_pps, then silent for off_ns. 0 and 0: constant.
  int64_t on_ns = 0;
  int64_t off_ns = 0;
  // The receive queue it arrives on, as RSS would steer it; kQueueByFlowIndex: the flow's index
  // modulo the NIC's queues.
  int64_t queue = -1;
};

inline constexpr int64_t kQueueByFlowIndex = -1;
inline constexpr size_t kMaxQueues = 16;  // the emulated NIC's receive queues, at most

// Smallest and largest frame: Ethernet + IPv4 + UDP headers and an 8-byte sequence number, up to
// a standard 1500-byte MTU.
inline constexpr int64_t kMinFrameBytes = 14 + 20 + 8 + 8;
inline constexpr int64_t kMaxFrameBytes = 1514;
inline constexpr double kMaxRatePps = 10'000'000;

// One flow per ';'-separated item; each item is ','-separated key=value pairs among port, pps,
// bytes, on_us, off_us, queue. InvalidArgument names the item, the key and the allowed range.
absl::StatusOr<std::vector<FlowSpec>> ParseFlows(absl::string_view text);

// InvalidArgument unless the flow can run (rate, frame size and on/off times in range).
absl::Status ValidateFlow(const FlowSpec& flow);

}  // namespace nictune::driver::emulated
