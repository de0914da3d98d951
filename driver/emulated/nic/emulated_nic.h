// SPDX-License-Identifier: Apache-2.0
// The emulated NIC's one thread: sleeps until the next interrupt of any receive queue (each queue
// has its ring and moderation: epoll_pwait2 with a nanosecond timeout, optionally spinning the
// last microseconds), then writes that queue's burst into the queue's TAP descriptor, one
// write(2) per frame, for the queue's NAPI thread to poll once the burst is in; between
// interrupts it answers the control socket and SIGTERM / SIGINT.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "driver/emulated/counters.h"
#include "driver/emulated/nic/control_server.h"
#include "driver/emulated/nic/tap_device.h"
#include "driver/emulated/nic_engine.h"
#include "driver/emulated/udp_frame.h"

namespace nictune::driver::emulated {

struct EmulatedNicOptions {
  uint32_t peer_address = 0;  // the source address of generated frames (host byte order)
  absl::Duration duration;    // stop after this long; zero: until SHUTDOWN or a signal
  int64_t spin_ns = 0;        // busy-poll this long before each deadline instead of sleeping
  std::vector<int64_t> napi_threads;  // per queue, the pid of its NAPI thread
};

// What every queue starts with; the flows are the NIC's, spread over the TAP's queues.
struct EmulatedNicTraffic {
  std::vector<FlowSpec> flows;
  int64_t ring_size = 0;
  ModerationSettings moderation;
};

class EmulatedNic {
 public:
  // Takes the epoll descriptor the control server registered with; adds the TAP's queues and a
  // signalfd for SIGTERM and SIGINT (which the caller has blocked). The traffic starts now.
  static absl::StatusOr<std::unique_ptr<EmulatedNic>> Create(int epoll_fd, TapDevice& tap,
                                                             ControlServer& server,
                                                             const EmulatedNicTraffic& traffic,
                                                             uint32_t tap_address,
                                                             const EmulatedNicOptions& options);
  EmulatedNic(const EmulatedNic&) = delete;
  EmulatedNic& operator=(const EmulatedNic&) = delete;
  ~EmulatedNic();

  // Runs until SHUTDOWN, a signal, or the duration; a failed epoll is the only error.
  absl::Status Run();

  EmulatedNicCounters Counters() const;  // the device's: its queues summed
  EmulatedNicCounters QueueCounters(size_t queue) const;

  static int64_t NowNs();  // CLOCK_MONOTONIC, the clock of every time here

 private:
  // One receive queue: its ring and moderation, and what delivering its bursts cost.
  struct RxQueue {
    std::unique_ptr<NicEngine> engine;
    std::vector<size_t> flows;  // the NIC's index of each of the engine's flows
    uint64_t delivered = 0;
    uint64_t tap_errors = 0;
    int64_t late_ns_total = 0;
    int64_t late_ns_max = 0;
    uint64_t stalls = 0;
    int64_t stall_late_ns_total = 0;
    int64_t flush_ns_total = 0;
  };

  EmulatedNic(int epoll_fd, int signal_fd, TapDevice& tap, ControlServer& server,
              const EmulatedNicOptions& options)
      : epoll_fd_(epoll_fd), signal_fd_(signal_fd), tap_(tap), server_(server), options_(options) {}

  absl::Status AddQueues(const EmulatedNicTraffic& traffic, int64_t start_ns);
  void Fire(size_t queue, int64_t due_ns);
  // The queue whose interrupt is due first, and when (kNever: none will be).
  std::pair<size_t, int64_t> NextInterrupt() const;
  std::string Handle(const ControlRequest& request);
  std::string HandleGet(const ControlRequest& request) const;
  std::string HandleSet(const ControlRequest& request);
  absl::Status SetOnQueue(RxQueue& queue, const ControlRequest& request);
  std::string HandleSetFlowRate(const ControlRequest& request);
  absl::Status WaitAndServe(int64_t timeout_ns);

  int epoll_fd_;
  int signal_fd_;
  TapDevice& tap_;
  ControlServer& server_;
  EmulatedNicOptions options_;
  std::vector<RxQueue> queues_;
  std::vector<FrameAddresses> flow_addresses_;  // one per flow
  // Per flow of the NIC: its queue and its index among that queue's engine's flows.
  std::vector<std::pair<size_t, size_t>> flow_places_;
  std::vector<uint8_t> frame_;  // scratch for building one frame
  int64_t start_ns_ = 0;
  bool stop_ = false;
};

}  // namespace nictune::driver::emulated
