// SPDX-License-Identifier: Apache-2.0
#include "tests/support/udp_sender.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tests/support/errno_error.h"

namespace nictune::testing_support {

absl::StatusOr<std::unique_ptr<UdpSender>> UdpSender::Create(const UdpSenderOptions& options) {
  const std::string what = absl::StrCat("UDP sender to ", options.destination, ":", options.port);
  if (options.batch == 0) return absl::InvalidArgumentError(what + ": batch must be at least 1");
  const int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return ErrnoError(what + ": socket", errno);
  auto fail = [&](const std::string& operation) {
    const int error_number = errno;
    close(fd);
    return ErrnoError(absl::StrCat(what, ": ", operation), error_number);
  };
  if (options.sndbuf_bytes > 0 && setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &options.sndbuf_bytes,
                                             sizeof(options.sndbuf_bytes)) != 0) {
    return fail("setsockopt SO_SNDBUF");
  }
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(options.port);
  if (inet_pton(AF_INET, options.destination.c_str(), &address.sin_addr) != 1) {
    close(fd);
    return absl::InvalidArgumentError(what + ": not an IPv4 address");
  }
  if (connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof(address)) != 0) {
    return fail("connect");
  }
  return std::unique_ptr<UdpSender>(new UdpSender(fd, options));
}

UdpSender::~UdpSender() {
  if (fd_ >= 0) close(fd_);
}

absl::StatusOr<UdpSenderReport> UdpSender::Run() {
  std::vector<char> payload(std::max<size_t>(options_.payload_bytes, 1), 'n');
  iovec data{payload.data(), options_.payload_bytes};
  std::vector<mmsghdr> messages(options_.batch);
  for (mmsghdr& message : messages) {
    message.msg_hdr.msg_iov = &data;
    message.msg_hdr.msg_iovlen = 1;
  }
  UdpSenderReport report;
  const absl::Time start = absl::Now();
  const absl::Time deadline = start + options_.max_duration;
  while (report.sent < options_.packets) {
    const absl::Time now = absl::Now();
    if (now >= deadline) break;
    if (options_.packets_per_second > 0) {
      // Pace by the schedule since the start, so that a late batch is caught up, not lost.
      const absl::Time due =
          start + absl::Seconds(static_cast<double>(report.sent) / options_.packets_per_second);
      if (due > now) absl::SleepFor(due - now);
    }
    const uint64_t remaining = options_.packets - report.sent;
    const unsigned int count =
        static_cast<unsigned int>(std::min<uint64_t>(remaining, options_.batch));
    const int n = sendmmsg(fd_, messages.data(), count, 0);
    if (n < 0) {
      if (errno == ENOBUFS || errno == EAGAIN || errno == EINTR) {
        ++report.would_block;
        continue;
      }
      // ECONNREFUSED: an ICMP port unreachable from an earlier datagram; the next one goes out.
      if (errno == ECONNREFUSED) continue;
      return ErrnoError(absl::StrCat("UDP sender to ", options_.destination, ":", options_.port,
                                     ": sendmmsg after ", report.sent, " datagrams"),
                        errno);
    }
    report.sent += static_cast<uint64_t>(n);
  }
  report.elapsed = absl::Now() - start;
  return report;
}

}  // namespace nictune::testing_support
