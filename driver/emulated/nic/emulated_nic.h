// The emulated NIC's one thread: sleeps until the moderation's next interrupt (epoll_pwait2 with
// a nanosecond timeout, optionally spinning the last microseconds), then writes the ring's burst
// into the TAP, one write(2) per frame; between interrupts it answers the control socket and
// SIGTERM / SIGINT.
#pragma once

#include <cstdint>
#include <memory>
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
};

class EmulatedNic {
 public:
  // Takes the epoll descriptor the control server registered with; adds the TAP and a signalfd
  // for SIGTERM and SIGINT (which the caller has blocked).
  static absl::StatusOr<std::unique_ptr<EmulatedNic>> Create(int epoll_fd, TapDevice& tap,
                                                             ControlServer& server,
                                                             std::unique_ptr<NicEngine> engine,
                                                             uint32_t tap_address,
                                                             const EmulatedNicOptions& options);
  EmulatedNic(const EmulatedNic&) = delete;
  EmulatedNic& operator=(const EmulatedNic&) = delete;
  ~EmulatedNic();

  // Runs until SHUTDOWN, a signal, or the duration; a failed epoll is the only error.
  absl::Status Run();

  EmulatedNicCounters Counters() const;

  static int64_t NowNs();  // CLOCK_MONOTONIC, the clock of every time here

 private:
  EmulatedNic(int epoll_fd, int signal_fd, TapDevice& tap, ControlServer& server,
              std::unique_ptr<NicEngine> engine, const EmulatedNicOptions& options)
      : epoll_fd_(epoll_fd),
        signal_fd_(signal_fd),
        tap_(tap),
        server_(server),
        engine_(std::move(engine)),
        options_(options) {}

  void Fire(int64_t due_ns);
  std::string Handle(const ControlRequest& request);
  absl::Status WaitAndServe(int64_t timeout_ns);

  int epoll_fd_;
  int signal_fd_;
  TapDevice& tap_;
  ControlServer& server_;
  std::unique_ptr<NicEngine> engine_;
  EmulatedNicOptions options_;
  std::vector<FrameAddresses> flow_addresses_;  // one per flow
  std::vector<uint8_t> frame_;                  // scratch for building one frame
  int64_t start_ns_ = 0;
  bool stop_ = false;

  uint64_t delivered_ = 0;
  uint64_t tap_errors_ = 0;
  int64_t late_ns_total_ = 0;
  int64_t late_ns_max_ = 0;
  uint64_t stalls_ = 0;
  int64_t flush_ns_total_ = 0;
};

}  // namespace nictune::driver::emulated
