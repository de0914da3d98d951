// SPDX-License-Identifier: Apache-2.0
// A deliberately slow UDP receiver for tests: a configurable SO_RCVBUF, a read batch and a gap
// between batches, so that its socket fills and the kernel drops (SOCKET_RCVBUFF) on purpose.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace nictune::testing_support {

struct UdpReceiverOptions {
  std::string bind_address = "0.0.0.0";
  uint16_t port = 0;        // 0: the kernel picks one; see UdpReceiver::port()
  int rcvbuf_bytes = 0;     // SO_RCVBUF request (the kernel doubles it); 0 keeps the default
  unsigned int batch = 64;  // datagrams read per wake-up (recvmmsg)
  absl::Duration drain_gap = absl::ZeroDuration();  // sleep between batches
  absl::Duration run_time = absl::Seconds(1);       // Run() returns after this long at most
};

// The kernel's own view of the socket's receive memory (SO_MEMINFO), and how many datagrams were
// queued at that moment, counted by draining the queue right after.
struct QueuedMemory {
  uint32_t rmem_alloc = 0;  // SK_MEMINFO_RMEM_ALLOC: truesize the kernel charged to the socket
  uint32_t rcvbuf = 0;      // SK_MEMINFO_RCVBUF
  uint32_t drops = 0;       // SK_MEMINFO_DROPS: the socket's drop counter (sk_drops)
  uint64_t queued_datagrams = 0;
};

struct UdpReceiverReport {
  uint64_t received = 0;        // datagrams read by Run()
  uint64_t kernel_drops = 0;    // the socket's drop counter (SK_MEMINFO_DROPS) when Run() ended
  uint64_t rxq_ovfl_drops = 0;  // the same counter as SO_RXQ_OVFL gave it with the last datagram
  uint64_t batches = 0;
  uint32_t peak_rmem_alloc = 0;  // highest SK_MEMINFO_RMEM_ALLOC seen before a batch
  // The longest time from the start of one batch's read to the end of the next batch's (steady
  // clock, as the kernel's monotonic one): no wait for data that a read ends can be longer.
  absl::Duration longest_between_reads = absl::ZeroDuration();
  // When the first batch's read ended: data that waited for it arrived after the flow began.
  std::chrono::steady_clock::time_point first_read_ended;
};

class UdpReceiver {
 public:
  // Opens and binds the socket in the calling thread's network namespace.
  static absl::StatusOr<std::unique_ptr<UdpReceiver>> Create(const UdpReceiverOptions& options);
  UdpReceiver(const UdpReceiver&) = delete;
  UdpReceiver& operator=(const UdpReceiver&) = delete;
  ~UdpReceiver();

  uint16_t port() const { return port_; }
  uint64_t socket_cookie() const { return cookie_; }  // SO_COOKIE, as BPF's socket cookie
  int fd() const { return fd_; }

  // Reads batches with the configured gap until run_time passes or Stop() is called.
  absl::StatusOr<UdpReceiverReport> Run();
  void Stop() { stop_.store(true); }

  // Takes SO_MEMINFO, then drains the queue without blocking and counts what was queued. Only
  // meaningful when nothing is arriving; then rmem_alloc / queued_datagrams is the truesize the
  // kernel charged per datagram.
  absl::StatusOr<QueuedMemory> MeasureQueuedAndDrain();

  absl::StatusOr<QueuedMemory> ReadMemory() const;  // SO_MEMINFO alone

  // Datagrams read so far by Run() and MeasureQueuedAndDrain().
  uint64_t total_received() const { return total_received_.load(); }

 private:
  UdpReceiver(int fd, uint16_t port, uint64_t cookie, const UdpReceiverOptions& options)
      : fd_(fd), port_(port), cookie_(cookie), options_(options) {}

  // Reads up to `batch` datagrams without blocking; returns how many. SO_RXQ_OVFL stamps each
  // datagram with the drop counter at its enqueue; the latest stamp goes to rxq_ovfl_drops.
  absl::StatusOr<unsigned int> ReadBatch(unsigned int batch, uint64_t& rxq_ovfl_drops);

  int fd_ = -1;
  uint16_t port_ = 0;
  uint64_t cookie_ = 0;
  UdpReceiverOptions options_;
  std::atomic<bool> stop_{false};
  std::atomic<uint64_t> total_received_{0};
};

}  // namespace nictune::testing_support
