// SPDX-License-Identifier: Apache-2.0
// A bounded UDP sender for tests and benchmarks: a packet count, a payload size, a time limit, and
// either a target rate or flat out; sends in batches with sendmmsg.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace nictune::testing_support {

struct UdpSenderOptions {
  std::string destination;  // IPv4 address
  uint16_t port = 0;
  uint64_t packets = 100000;  // stop after this many datagrams were accepted by the kernel
  size_t payload_bytes = 64;
  double packets_per_second = 0;                   // 0: flat out
  unsigned int batch = 32;                         // datagrams per sendmmsg call
  absl::Duration max_duration = absl::Seconds(2);  // stop after this long even if packets remain
  int sndbuf_bytes = 0;                            // SO_SNDBUF request; 0 keeps the default
};

struct UdpSenderReport {
  uint64_t sent = 0;         // datagrams the kernel accepted
  uint64_t would_block = 0;  // sendmmsg calls refused with ENOBUFS/EAGAIN (then retried)
  absl::Duration elapsed;
};

class UdpSender {
 public:
  // Opens and connects the socket in the calling thread's network namespace.
  static absl::StatusOr<std::unique_ptr<UdpSender>> Create(const UdpSenderOptions& options);
  UdpSender(const UdpSender&) = delete;
  UdpSender& operator=(const UdpSender&) = delete;
  ~UdpSender();

  absl::StatusOr<UdpSenderReport> Run();

 private:
  UdpSender(int fd, const UdpSenderOptions& options) : fd_(fd), options_(options) {}
  int fd_ = -1;
  UdpSenderOptions options_;
};

}  // namespace nictune::testing_support
