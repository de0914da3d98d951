// SPDX-License-Identifier: Apache-2.0
#include "tests/support/udp_flow.h"

#include <thread>

namespace nictune::testing_support {

absl::StatusOr<UdpFlow> UdpFlow::Open(const VethHosts& hosts, UdpReceiverOptions receiver_options,
                                      UdpSenderOptions sender_options) {
  receiver_options.bind_address = hosts.address_b();
  absl::StatusOr<std::unique_ptr<UdpReceiver>> receiver = absl::InternalError("not created");
  if (absl::Status ran =
          hosts.b().RunInside([&] { receiver = UdpReceiver::Create(receiver_options); });
      !ran.ok()) {
    return ran;
  }
  if (!receiver.ok()) return receiver.status();
  sender_options.destination = hosts.address_b();
  sender_options.port = (*receiver)->port();
  absl::StatusOr<std::unique_ptr<UdpSender>> sender = absl::InternalError("not created");
  if (absl::Status ran = hosts.a().RunInside([&] { sender = UdpSender::Create(sender_options); });
      !ran.ok()) {
    return ran;
  }
  if (!sender.ok()) return sender.status();
  return UdpFlow(*std::move(receiver), *std::move(sender));
}

absl::StatusOr<UdpFlowResult> UdpFlow::Run() {
  absl::StatusOr<UdpReceiverReport> received = absl::InternalError("receiver did not run");
  std::thread receiving([&] { received = receiver_->Run(); });
  absl::StatusOr<UdpSenderReport> sent = sender_->Run();
  receiver_->Stop();
  receiving.join();
  if (!sent.ok()) return sent.status();
  if (!received.ok()) return received.status();
  return UdpFlowResult{*sent, *received};
}

}  // namespace nictune::testing_support
