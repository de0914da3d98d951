// SPDX-License-Identifier: Apache-2.0
#include "tests/support/udp_receiver.h"

#include <arpa/inet.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tests/support/errno_error.h"

namespace nictune::testing_support {
namespace {

// Datagrams larger than this are truncated on read: the tests count datagrams, not bytes.
constexpr size_t kDatagramBuffer = 2048;

}  // namespace

absl::StatusOr<std::unique_ptr<UdpReceiver>> UdpReceiver::Create(
    const UdpReceiverOptions& options) {
  const std::string what = absl::StrCat("UDP receiver ", options.bind_address, ":", options.port);
  if (options.batch == 0) return absl::InvalidArgumentError(what + ": batch must be at least 1");
  const int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return ErrnoError(what + ": socket", errno);
  auto fail = [&](const std::string& operation) {
    const int error_number = errno;
    close(fd);
    return ErrnoError(absl::StrCat(what, ": ", operation), error_number);
  };
  if (options.rcvbuf_bytes > 0 && setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &options.rcvbuf_bytes,
                                             sizeof(options.rcvbuf_bytes)) != 0) {
    return fail(absl::StrCat("setsockopt SO_RCVBUF ", options.rcvbuf_bytes));
  }
  const int on = 1;
  if (setsockopt(fd, SOL_SOCKET, SO_RXQ_OVFL, &on, sizeof(on)) != 0) {
    return fail("setsockopt SO_RXQ_OVFL");
  }
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(options.port);
  if (inet_pton(AF_INET, options.bind_address.c_str(), &address.sin_addr) != 1) {
    close(fd);
    return absl::InvalidArgumentError(what + ": not an IPv4 address");
  }
  if (bind(fd, reinterpret_cast<const sockaddr*>(&address), sizeof(address)) != 0) {
    return fail("bind");
  }
  socklen_t length = sizeof(address);
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    return fail("getsockname");
  }
  uint64_t cookie = 0;
  socklen_t cookie_length = sizeof(cookie);
  if (getsockopt(fd, SOL_SOCKET, SO_COOKIE, &cookie, &cookie_length) != 0) {
    return fail("getsockopt SO_COOKIE");
  }
  return std::unique_ptr<UdpReceiver>(
      new UdpReceiver(fd, ntohs(address.sin_port), cookie, options));
}

UdpReceiver::~UdpReceiver() {
  if (fd_ >= 0) close(fd_);
}

absl::StatusOr<QueuedMemory> UdpReceiver::ReadMemory() const {
  uint32_t meminfo[SK_MEMINFO_VARS] = {};
  socklen_t length = sizeof(meminfo);
  if (getsockopt(fd_, SOL_SOCKET, SO_MEMINFO, meminfo, &length) != 0) {
    return ErrnoError(absl::StrCat("UDP receiver port ", port_, ": getsockopt SO_MEMINFO"), errno);
  }
  QueuedMemory memory;
  memory.rmem_alloc = meminfo[SK_MEMINFO_RMEM_ALLOC];
  memory.rcvbuf = meminfo[SK_MEMINFO_RCVBUF];
  memory.drops = meminfo[SK_MEMINFO_DROPS];
  return memory;
}

absl::StatusOr<unsigned int> UdpReceiver::ReadBatch(unsigned int batch, uint64_t& rxq_ovfl_drops) {
  std::vector<char> buffers(batch * kDatagramBuffer);
  constexpr size_t kControlSpace = CMSG_SPACE(sizeof(uint32_t));
  std::vector<char> controls(batch * kControlSpace);
  std::vector<iovec> iovecs(batch);
  std::vector<mmsghdr> messages(batch);
  for (unsigned int i = 0; i < batch; ++i) {
    iovecs[i].iov_base = &buffers[i * kDatagramBuffer];
    iovecs[i].iov_len = kDatagramBuffer;
    messages[i].msg_hdr.msg_iov = &iovecs[i];
    messages[i].msg_hdr.msg_iovlen = 1;
    messages[i].msg_hdr.msg_control = &controls[i * kControlSpace];
    messages[i].msg_hdr.msg_controllen = kControlSpace;
  }
  const int n = recvmmsg(fd_, messages.data(), batch, MSG_DONTWAIT, nullptr);
  if (n < 0) {
    if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) return 0u;
    return ErrnoError(absl::StrCat("UDP receiver port ", port_, ": recvmmsg"), errno);
  }
  for (int i = 0; i < n; ++i) {
    msghdr& header = messages[static_cast<size_t>(i)].msg_hdr;
    for (cmsghdr* control = CMSG_FIRSTHDR(&header); control != nullptr;
         control = CMSG_NXTHDR(&header, control)) {
      if (control->cmsg_level == SOL_SOCKET && control->cmsg_type == SO_RXQ_OVFL) {
        uint32_t drops = 0;
        std::memcpy(&drops, CMSG_DATA(control), sizeof(drops));
        rxq_ovfl_drops = drops;
      }
    }
  }
  total_received_.fetch_add(static_cast<uint64_t>(n));
  return static_cast<unsigned int>(n);
}

absl::StatusOr<UdpReceiverReport> UdpReceiver::Run() {
  UdpReceiverReport report;
  std::chrono::steady_clock::time_point last_read_started;
  const absl::Time deadline = absl::Now() + options_.run_time;
  while (!stop_.load() && absl::Now() < deadline) {
    if (options_.drain_gap > absl::ZeroDuration()) {
      absl::SleepFor(options_.drain_gap);
      // Stopped while asleep: leave the queue as the flow left it, for MeasureQueuedAndDrain().
      if (stop_.load()) break;
    } else {
      // A fast receiver waits for data instead of spinning; the timeout rechecks stop/deadline.
      pollfd waiting{fd_, POLLIN, 0};
      if (poll(&waiting, 1, 10) < 0 && errno != EINTR) {
        return ErrnoError(absl::StrCat("UDP receiver port ", port_, ": poll"), errno);
      }
    }
    absl::StatusOr<QueuedMemory> memory = ReadMemory();
    if (!memory.ok()) return memory.status();
    report.peak_rmem_alloc = std::max(report.peak_rmem_alloc, memory->rmem_alloc);
    const auto started = std::chrono::steady_clock::now();
    absl::StatusOr<unsigned int> read = ReadBatch(options_.batch, report.rxq_ovfl_drops);
    if (!read.ok()) return read.status();
    report.received += *read;
    if (*read > 0) {
      ++report.batches;
      const auto ended = std::chrono::steady_clock::now();
      if (report.batches == 1) report.first_read_ended = ended;
      if (report.batches > 1) {
        report.longest_between_reads =
            std::max(report.longest_between_reads, absl::FromChrono(ended - last_read_started));
      }
      last_read_started = started;
    }
  }
  absl::StatusOr<QueuedMemory> memory = ReadMemory();
  if (!memory.ok()) return memory.status();
  report.kernel_drops = memory->drops;
  return report;
}

absl::StatusOr<QueuedMemory> UdpReceiver::MeasureQueuedAndDrain() {
  absl::StatusOr<QueuedMemory> memory = ReadMemory();
  if (!memory.ok()) return memory.status();
  uint64_t ignored_drops = 0;
  while (true) {
    absl::StatusOr<unsigned int> read = ReadBatch(256, ignored_drops);
    if (!read.ok()) return read.status();
    if (*read == 0) break;
    memory->queued_datagrams += *read;
  }
  return memory;
}

}  // namespace nictune::testing_support
