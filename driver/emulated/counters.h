// SPDX-License-Identifier: Apache-2.0
// What the emulated NIC counts and reports on "GET counters": one line of key=value pairs, so a
// person reads it with socat and the agent parses it here.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace nictune::driver::emulated {

// A NIC's coalescing timer fires within microseconds; an emulated interrupt this late means the
// host held the NIC's thread off its CPU. A quarter of a millisecond is more than the slack a
// small socket keeps at a tuned interval (the closed-loop test's keeps 100-600 us).
inline constexpr int64_t kStallNs = 250'000;

struct EmulatedNicCounters {
  uint64_t generated = 0;   // packets the traffic source produced
  uint64_t delivered = 0;   // frames the TAP accepted (write(2) returned the frame's length)
  uint64_t missed = 0;      // ring overflow (rx_missed_errors on a real NIC)
  uint64_t tap_errors = 0;  // frames the TAP refused
  uint64_t interrupts = 0;  // emulated interrupts: one burst into the TAP each
  uint64_t pending = 0;     // packets in the ring right now
  // Settings, as `ethtool -c` would show them, and what the moderation uses right now.
  int64_t rx_usecs = 0;
  int64_t rx_frames = 0;
  int64_t adaptive_rx = 0;
  int64_t ring_size = 0;
  int64_t interval_ns = 0;      // adaptive: the interval it chose; static: rx_usecs * 1000
  int64_t frame_threshold = 0;  // adaptive: its profile's frame count; static: rx_frames
  uint64_t adaptive_changes = 0;
  // Timing accuracy: how long after its due time each interrupt's burst started.
  int64_t elapsed_ns = 0;  // since the traffic started
  int64_t late_ns_total = 0;
  int64_t late_ns_max = 0;
  // Interrupts that fired more than kStallNs late: the host held the NIC's thread off its CPU
  // (a VM's vCPU preempted, say). Their bursts carry what arrived meanwhile, which overflows a
  // small socket at any moderation setting: tests tell such windows apart by this count.
  uint64_t stalls = 0;
  int64_t stall_late_ns_total = 0;  // the stalled interrupts' lateness, summed
  int64_t flush_ns_total = 0;  // time spent writing bursts into the TAP
  // Receive queues the NIC has. A device's counters sum its queues (interrupts, frames, lateness
  // and flush time; late_ns_max is the largest, the settings are queue 0's); a queue's are its own.
  uint64_t queues = 1;
  int64_t napi_thread = 0;  // a queue's: the pid of the kernel thread that polls it; a device's: 0
};

// The device's counters from its queues' (at least one).
EmulatedNicCounters SumQueueCounters(const std::vector<EmulatedNicCounters>& queues);

std::string FormatCounters(const EmulatedNicCounters& counters);
// InvalidArgument naming the field that is missing or not a number.
absl::StatusOr<EmulatedNicCounters> ParseCounters(absl::string_view text);

}  // namespace nictune::driver::emulated
