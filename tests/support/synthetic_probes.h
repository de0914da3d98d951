// SPDX-License-Identifier: Apache-2.0
// A ProbeSource whose counters describe a made-up host of a given size: per queue a NAPI
// instance and an irq, per CPU the softirq vectors, and `sockets` UDP sockets that each receive
// and overflow on the device (a SocketFill entry and a SOCKET_RCVBUFF drop record per socket).
// For measuring how the agent's per-interval work grows with queues, CPUs and tracked sockets
// (tests/bench/agent_scaling_bench.cc) with the same shapes a real BpfProbeSource would return.
//
// Advance() builds the counters of the next interval (one second on) so that Read() only copies
// them, as the real source copies map contents out.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "driver/probe_source.h"

namespace nictune::testing_support {

struct SyntheticProbeShape {
  int queues = 4;
  int cpus = 2;
  int sockets = 10;
  std::string device = "syn0";
  int32_t ifindex = 2;
  uint32_t first_queue_irq = 100;     // as SyntheticHostShape: queue q's irq, on CPU q % cpus
  uint32_t netns_inode = 4026531840;  // the initial network namespace's inode
};

class SyntheticProbes : public driver::ProbeSource {
 public:
  explicit SyntheticProbes(SyntheticProbeShape shape);

  // Counters one interval later; `monotonic_ns` stamps them.
  void Advance(uint64_t monotonic_ns);

  std::vector<driver::ProbeStatus> Status() const override;
  absl::StatusOr<driver::BpfCounters> Read() override { return counters_; }
  std::vector<driver::ProbeCost> Cost() const override;
  absl::Status SetPerPacketProbes(bool on) override;

  bool per_packet_on() const { return per_packet_on_; }

 private:
  SyntheticProbeShape shape_;
  uint64_t tick_ = 0;
  bool per_packet_on_ = false;
  driver::BpfCounters counters_;
};

}  // namespace nictune::testing_support
