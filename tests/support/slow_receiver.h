// SPDX-License-Identifier: Apache-2.0
// A slow UDP receiver inside a network namespace that someone else created (the emulated NIC's),
// joined by name: a UdpReceiver (configurable SO_RCVBUF, recvmmsg batch, drain gap; SO_RXQ_OVFL)
// running on its own thread, with its received and dropped counts readable while it runs.
#pragma once

#include <memory>
#include <string>
#include <thread>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "tests/support/udp_receiver.h"

namespace nictune::testing_support {

class SlowReceiver {
 public:
  // Binds in `netns` and starts reading; options.run_time bounds how long it reads.
  static absl::StatusOr<std::unique_ptr<SlowReceiver>> Start(const std::string& netns,
                                                             const UdpReceiverOptions& options);
  SlowReceiver(const SlowReceiver&) = delete;
  SlowReceiver& operator=(const SlowReceiver&) = delete;
  ~SlowReceiver();  // stops and joins

  uint64_t received() const { return receiver_->total_received(); }
  // The socket's drop counter now (SK_MEMINFO_DROPS, the counter SO_RXQ_OVFL reports).
  absl::StatusOr<uint64_t> drops() const;
  absl::StatusOr<QueuedMemory> memory() const { return receiver_->ReadMemory(); }

  // Stops reading and returns the receiver's report (received, drops, SO_RXQ_OVFL's last value).
  absl::StatusOr<UdpReceiverReport> StopAndReport();

 private:
  explicit SlowReceiver(std::unique_ptr<UdpReceiver> receiver) : receiver_(std::move(receiver)) {}

  std::unique_ptr<UdpReceiver> receiver_;
  std::thread reader_;
  absl::StatusOr<UdpReceiverReport> report_ = absl::UnavailableError("receiver still running");
};

}  // namespace nictune::testing_support
