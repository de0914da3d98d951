// SPDX-License-Identifier: Apache-2.0
#include "tests/support/slow_receiver.h"

#include "tests/support/netns_host.h"

namespace nictune::testing_support {

absl::StatusOr<std::unique_ptr<SlowReceiver>> SlowReceiver::Start(
    const std::string& netns, const UdpReceiverOptions& options) {
  absl::StatusOr<std::unique_ptr<UdpReceiver>> receiver = absl::InternalError("not created");
  absl::Status ran = RunInNamedNamespace(netns, [&] { receiver = UdpReceiver::Create(options); });
  if (!ran.ok()) return ran;
  if (!receiver.ok()) return receiver.status();
  auto slow = std::unique_ptr<SlowReceiver>(new SlowReceiver(std::move(*receiver)));
  SlowReceiver* raw = slow.get();
  slow->reader_ = std::thread([raw] { raw->report_ = raw->receiver_->Run(); });
  return slow;
}

absl::StatusOr<uint64_t> SlowReceiver::drops() const {
  absl::StatusOr<QueuedMemory> memory = receiver_->ReadMemory();
  if (!memory.ok()) return memory.status();
  return memory->drops;
}

absl::StatusOr<UdpReceiverReport> SlowReceiver::StopAndReport() {
  receiver_->Stop();
  if (reader_.joinable()) reader_.join();
  return report_;
}

SlowReceiver::~SlowReceiver() {
  receiver_->Stop();
  if (reader_.joinable()) reader_.join();
}

}  // namespace nictune::testing_support
