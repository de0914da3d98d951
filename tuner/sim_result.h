// SPDX-License-Identifier: Apache-2.0
// What one simulator run measured. Plain data. Packets are conserved:
// arrived = ring_drops + socket_drops + read_by_app + in_ring_at_end + in_socket_at_end.
#pragma once

#include <cstdint>
#include <vector>

namespace nictune::tuner {

// Time one CPU spent in each context over the run; the four add up to the run's duration.
struct SimCpuTime {
  int64_t hardirq_ns = 0;
  int64_t softirq_ns = 0;
  int64_t user_ns = 0;
  int64_t idle_ns = 0;
};

struct SimResult {
  int64_t duration_ns = 0;
  int64_t truesize_bytes = 0;  // charged per packet

  uint64_t packets_arrived = 0;
  uint64_t ring_drops = 0;        // found every rx descriptor in use (rx_missed)
  uint64_t socket_drops = 0;      // refused by the socket's rcvbuf check (sk_drops)
  uint64_t packets_enqueued = 0;  // accepted by the socket
  uint64_t packets_read = 0;      // taken by the application
  uint64_t in_ring_at_end = 0;
  uint64_t in_socket_at_end = 0;

  uint64_t interrupts = 0;
  uint64_t softirq_runs = 0;
  uint64_t polls = 0;
  uint64_t time_squeeze = 0;  // softirq runs that ended on budget or time with work left
  // packets_per_poll[n]: polls that took n packets, n from 0 to the NAPI weight.
  std::vector<uint64_t> packets_per_poll;
  // Most packets taken between one interrupt and the re-arm that ended its NAPI cycle.
  uint64_t peak_packets_per_interrupt = 0;

  int64_t peak_socket_bytes = 0;  // highest rmem_alloc
  double peak_socket_fill = 0;    // peak_socket_bytes / rcvbuf (0 when rcvbuf is 0)

  uint64_t moderation_changes = 0;  // interval changes by an adaptive scheme
  int64_t final_interval_ns = 0;    // the moderation interval at the end

  SimCpuTime softirq_cpu;  // the CPU that takes the interrupt (and the reader, if it shares it)
  SimCpuTime reader_cpu;   // the reader's own CPU; all idle when it shares the softirq's

  double interrupts_per_s = 0;
  double socket_drops_per_s = 0;
  double ring_drops_per_s = 0;
};

}  // namespace nictune::tuner
