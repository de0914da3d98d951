// SPDX-License-Identifier: Apache-2.0
// First privileged check of the BPF probes on the running kernel: every program attaches, and
// counters move the way loopback UDP traffic and a disk write make the kernel's own counters move.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "driver/bpf/tracepoint_arguments.h"
#include "driver/probe_source.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/build_paths.h"
#include "tests/support/privileges.h"

namespace nictune::driver {
namespace {

using ::testing::Contains;
using ::testing::Field;

constexpr uint32_t kNetRxSoftirq = 3;
constexpr int kDatagrams = 300;
constexpr int kDatagramBytes = 400;

// A loopback UDP socket owned by the test, closed on scope exit.
class UdpSocket {
 public:
  UdpSocket() : fd_(socket(AF_INET, SOCK_DGRAM, 0)) {}
  ~UdpSocket() {
    if (fd_ >= 0) close(fd_);
  }
  UdpSocket(const UdpSocket&) = delete;
  UdpSocket& operator=(const UdpSocket&) = delete;
  int fd() const { return fd_; }

 private:
  int fd_;
};

uint64_t NetRxSoftirqs(const BpfCounters& counters) {
  uint64_t total = 0;
  for (const SoftirqCpuCounter& softirq : counters.softirqs)
    if (softirq.vector == kNetRxSoftirq) total += softirq.count;
  return total;
}

uint64_t HardIrqs(const BpfCounters& counters) {
  uint64_t total = 0;
  for (const IrqCpuCounter& irq : counters.irqs) total += irq.count;
  return total;
}

// The per-CPU backlog NAPI serves loopback; it has neither a napi id nor a device.
NapiCounter Backlog(const BpfCounters& counters) {
  NapiCounter backlog;
  for (const NapiCounter& napi : counters.napis) {
    if (napi.device != "backlog") continue;
    backlog.polls += napi.polls;
    backlog.work += napi.work;
  }
  return backlog;
}

uint64_t LoopbackTruesizeSamples(const BpfCounters& counters) {
  uint64_t samples = 0;
  for (const TruesizeHistogram& histogram : counters.truesize)
    if (histogram.device == "lo") samples += histogram.samples;
  return samples;
}

uint64_t DropsOnPort(const BpfCounters& counters, uint16_t port, const std::string& reason) {
  uint64_t drops = 0;
  for (const DropCounter& drop : counters.drops) {
    if (drop.local_port == port && drop.reason_name == reason && drop.l4_protocol == IPPROTO_UDP)
      drops += drop.count;
  }
  return drops;
}

const SocketFill* FindSocket(const BpfCounters& counters, uint64_t cookie) {
  for (const SocketFill& socket : counters.sockets)
    if (socket.key.cookie == cookie) return &socket;
  return nullptr;
}

// Writes and fsyncs a file so that the disk's completion interrupt fires.
void WriteToDisk() {
  const std::string path = testing_support::BinaryDir() + "/probes_smoke_disk_io.tmp";
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  ASSERT_GE(fd, 0) << path;
  const std::vector<char> block(1 << 16, 'x');
  for (int i = 0; i < 8; ++i) {
    ASSERT_EQ(write(fd, block.data(), block.size()), static_cast<ssize_t>(block.size()));
    ASSERT_EQ(fsync(fd), 0);
  }
  close(fd);
  unlink(path.c_str());
}

TEST(ProbesSmokeTest, AllProgramsAttachAndCountersFollowLoopbackTrafficAndDiskIo) {
  if (std::string why = testing_support::WhyNotPrivileged(); !why.empty()) GTEST_SKIP() << why;

  ProbeOptions options;
  options.truesize_sample_every = 1;  // every loopback packet is sampled: exact counts below
  options.socket_fill_threshold_pct = 50;
  options.per_packet_probes = true;  // every program, the on-demand and opt-in ones too
  options.softirq_raise = true;
  absl::StatusOr<std::unique_ptr<ProbeSource>> source = OpenBpfProbes(options);
  ASSERT_TRUE(source.ok()) << source.status();

  const std::vector<ProbeStatus> statuses = (*source)->Status();
  std::set<std::string> names;
  for (const ProbeStatus& status : statuses) {
    names.insert(status.name);
    EXPECT_TRUE(status.attached) << status.name << ": " << status.reason;
    EXPECT_EQ(status.attach_type, "tp_btf") << status.name << ": " << status.reason;
  }
  EXPECT_EQ(names, (std::set<std::string>{"irq", "softirq", "napi", "txshare", "drops", "udp_fail",
                                          "sockfill", "truesize"}));

  absl::StatusOr<BpfCounters> before = (*source)->Read();
  ASSERT_TRUE(before.ok()) << before.status();

  // A receiver that does not read until the sender is done: its small buffer overflows, and
  // the kernel drops the excess with SKB_DROP_REASON_SOCKET_RCVBUFF.
  UdpSocket receiver;
  UdpSocket sender;
  ASSERT_GE(receiver.fd(), 0);
  ASSERT_GE(sender.fd(), 0);
  const int rcvbuf = 16384;
  ASSERT_EQ(setsockopt(receiver.fd(), SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf)), 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(receiver.fd(), reinterpret_cast<sockaddr*>(&address), sizeof(address)), 0);
  socklen_t length = sizeof(address);
  ASSERT_EQ(getsockname(receiver.fd(), reinterpret_cast<sockaddr*>(&address), &length), 0);
  const uint16_t port = ntohs(address.sin_port);
  uint64_t cookie = 0;
  socklen_t cookie_length = sizeof(cookie);
  ASSERT_EQ(getsockopt(receiver.fd(), SOL_SOCKET, SO_COOKIE, &cookie, &cookie_length), 0);

  const std::vector<char> payload(kDatagramBytes, 'p');
  for (int i = 0; i < kDatagrams; ++i) {
    ASSERT_EQ(sendto(sender.fd(), payload.data(), payload.size(), 0,
                     reinterpret_cast<sockaddr*>(&address), sizeof(address)),
              static_cast<ssize_t>(payload.size()));
  }
  int received = 0;
  std::vector<char> buffer(2048);
  while (recv(receiver.fd(), buffer.data(), buffer.size(), MSG_DONTWAIT) > 0) ++received;
  const int dropped = kDatagrams - received;
  ASSERT_GT(dropped, 0) << "the receive buffer never overflowed; the test proves nothing";

  WriteToDisk();
  // Socket peaks are "since the previous read", so the counters are checked on this one read.
  absl::StatusOr<BpfCounters> after = (*source)->Read();
  ASSERT_TRUE(after.ok()) << after.status();

  // Disk interrupts arrive asynchronously: wait (bounded) until the hard IRQ count moves.
  uint64_t hard_irqs = HardIrqs(*after);
  for (int attempt = 0; hard_irqs == HardIrqs(*before) && attempt < 20; ++attempt) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    absl::StatusOr<BpfCounters> later = (*source)->Read();
    ASSERT_TRUE(later.ok()) << later.status();
    hard_irqs = HardIrqs(*later);
  }
  EXPECT_GT(hard_irqs, HardIrqs(*before));

  EXPECT_GT(NetRxSoftirqs(*after), NetRxSoftirqs(*before));
  // Every datagram, delivered or dropped, went through the backlog NAPI and netif_receive_skb.
  EXPECT_GT(Backlog(*after).polls, Backlog(*before).polls);
  EXPECT_GE(Backlog(*after).work - Backlog(*before).work, static_cast<uint64_t>(kDatagrams));
  EXPECT_GE(LoopbackTruesizeSamples(*after) - LoopbackTruesizeSamples(*before),
            static_cast<uint64_t>(kDatagrams));

  // Drops and queue failures of our socket match what the socket itself lost, exactly.
  EXPECT_EQ(DropsOnPort(*after, port, "SOCKET_RCVBUFF"), static_cast<uint64_t>(dropped));
  EXPECT_THAT(after->drops, Contains(Field(&DropCounter::socket_cookie, cookie)));
  const SocketFill* socket = FindSocket(*after, cookie);
  ASSERT_NE(socket, nullptr) << "socket cookie " << cookie << " not tracked";
  EXPECT_EQ(socket->udp_queue_failures, static_cast<uint64_t>(dropped));
  EXPECT_EQ(socket->key.local_port, port);
  EXPECT_EQ(socket->key.family, AF_INET);
  EXPECT_EQ(socket->key.protocol, IPPROTO_UDP);
  EXPECT_GT(socket->enqueues, 0u);
  EXPECT_GE(socket->peak_fill, 0.5);
  EXPECT_LE(socket->peak_fill, 1.5);  // UDP may overshoot rcvbuf by one skb
  EXPECT_GE(socket->rcvbuf, static_cast<uint32_t>(rcvbuf));
  ASSERT_GT(socket->truesize_samples, 0u);
  const uint64_t mean_truesize = socket->truesize_sum / socket->truesize_samples;
  EXPECT_GT(mean_truesize, static_cast<uint64_t>(kDatagramBytes));
  EXPECT_LT(mean_truesize, 8192u);

  // Peaks are since the previous read: with no traffic to it since, the next read has none.
  absl::StatusOr<BpfCounters> quiet = (*source)->Read();
  ASSERT_TRUE(quiet.ok()) << quiet.status();
  const SocketFill* quiet_socket = FindSocket(*quiet, cookie);
  ASSERT_NE(quiet_socket, nullptr);
  EXPECT_EQ(quiet_socket->peak_rmem_alloc, 0u);

  // One cost entry per attached program, named concern:tracepoint.
  std::set<std::string> cost_names;
  for (const ProbeCost& cost : (*source)->Cost()) cost_names.insert(cost.name);
  EXPECT_THAT(cost_names, Contains("napi:napi_poll"));
  EXPECT_THAT(cost_names, Contains("drops:kfree_skb"));
  EXPECT_THAT(cost_names, Contains("txshare:consume_skb"));
  // txshare runs only consume_skb: its softirq and napi_poll work is inside those concerns'.
  // sockfill's read handler loads where the kernel has its tracepoint.
  const size_t recv_length = bpf::TracepointArguments("sock_recv_length").has_value() ? 1 : 0;
  EXPECT_EQ(cost_names.size(), 12u + recv_length);
}

}  // namespace
}  // namespace nictune::driver
