// SPDX-License-Identifier: Apache-2.0
// A UDP flow between two test hosts: a UdpReceiver in b, a UdpSender in a aimed at it, run
// together. The sockets live in their namespaces; the threads that run them need not.
#pragma once

#include <memory>

#include "absl/status/statusor.h"
#include "tests/support/netns_host.h"
#include "tests/support/udp_receiver.h"
#include "tests/support/udp_sender.h"

namespace nictune::testing_support {

struct UdpFlowResult {
  UdpSenderReport sent;
  UdpReceiverReport received;
};

class UdpFlow {
 public:
  // The receiver binds to hosts.address_b(); the sender's destination and port are filled in.
  static absl::StatusOr<UdpFlow> Open(const VethHosts& hosts, UdpReceiverOptions receiver_options,
                                      UdpSenderOptions sender_options);

  UdpReceiver& receiver() { return *receiver_; }
  UdpSender& sender() { return *sender_; }

  // Runs the receiver on a thread and the sender on this one; stops the receiver as soon as the
  // sender is done (a receiver with a drain gap then leaves its queue as the flow left it).
  absl::StatusOr<UdpFlowResult> Run();

 private:
  UdpFlow(std::unique_ptr<UdpReceiver> receiver, std::unique_ptr<UdpSender> sender)
      : receiver_(std::move(receiver)), sender_(std::move(sender)) {}

  std::unique_ptr<UdpReceiver> receiver_;
  std::unique_ptr<UdpSender> sender_;
};

}  // namespace nictune::testing_support
