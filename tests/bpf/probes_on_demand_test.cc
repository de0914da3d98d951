// The per-packet probes (tx share, socket fill, truesize) start detached by default and switch at
// run time with SetPerPacketProbes: while off they count nothing, and when on again they continue
// from the counters their maps kept. softirq_raise is opt-in. Checked with loopback UDP traffic,
// which the always-on backlog NAPI counters prove did flow.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "driver/probe_source.h"
#include "gtest/gtest.h"
#include "tests/support/privileges.h"

namespace nictune::driver {
namespace {

constexpr int kDatagrams = 200;
constexpr int kDatagramBytes = 300;

// A bound loopback UDP receiver and a sender, closed on scope exit.
class LoopbackUdpPair {
 public:
  LoopbackUdpPair()
      : receiver_(socket(AF_INET, SOCK_DGRAM, 0)), sender_(socket(AF_INET, SOCK_DGRAM, 0)) {}
  ~LoopbackUdpPair() {
    if (receiver_ >= 0) close(receiver_);
    if (sender_ >= 0) close(sender_);
  }
  LoopbackUdpPair(const LoopbackUdpPair&) = delete;
  LoopbackUdpPair& operator=(const LoopbackUdpPair&) = delete;

  // Binds the receiver to an ephemeral loopback port; returns the socket's cookie, 0 on failure.
  uint64_t Bind() {
    if (receiver_ < 0 || sender_ < 0) return 0;
    address_.sin_family = AF_INET;
    address_.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(receiver_, reinterpret_cast<sockaddr*>(&address_), sizeof(address_)) != 0) return 0;
    socklen_t length = sizeof(address_);
    if (getsockname(receiver_, reinterpret_cast<sockaddr*>(&address_), &length) != 0) return 0;
    uint64_t cookie = 0;
    socklen_t cookie_length = sizeof(cookie);
    if (getsockopt(receiver_, SOL_SOCKET, SO_COOKIE, &cookie, &cookie_length) != 0) return 0;
    return cookie;
  }

  // Sends `count` datagrams, reading them back in small batches so that the receive buffer never
  // overflows; returns how many arrived (waits up to 1 s for stragglers).
  int SendAndDrain(int count) {
    constexpr int kBatch = 20;
    const std::vector<char> payload(kDatagramBytes, 'p');
    int received = 0;
    for (int i = 0; i < count; ++i) {
      if (sendto(sender_, payload.data(), payload.size(), 0,
                 reinterpret_cast<const sockaddr*>(&address_), sizeof(address_)) < 0) {
        return -1;
      }
      if (i % kBatch == kBatch - 1) received += Drain(0);
    }
    while (received < count) {
      const int more = Drain(1000);
      if (more == 0) break;
      received += more;
    }
    return received;
  }

 private:
  // Reads what is queued; waits up to timeout_ms for the first datagram.
  int Drain(int timeout_ms) {
    pollfd readable{.fd = receiver_, .events = POLLIN, .revents = 0};
    if (poll(&readable, 1, timeout_ms) <= 0) return 0;
    int received = 0;
    std::vector<char> buffer(2048);
    while (recv(receiver_, buffer.data(), buffer.size(), MSG_DONTWAIT) > 0) ++received;
    return received;
  }

  int receiver_;
  int sender_;
  sockaddr_in address_{};
};

// Totals of what the test watches, from one Read().
struct Watched {
  uint64_t backlog_work = 0;       // always-on napi_poll: proves the traffic flowed
  uint64_t loopback_truesize = 0;  // per-packet netif_receive_skb
  uint64_t socket_enqueues = 0;    // per-packet sk_data_ready, for the test's socket
  uint64_t softirq_raised = 0;     // opt-in softirq_raise
};

Watched Watch(const BpfCounters& counters, uint64_t cookie) {
  Watched watched;
  for (const NapiCounter& napi : counters.napis)
    if (napi.device == "backlog") watched.backlog_work += napi.work;
  for (const TruesizeHistogram& histogram : counters.truesize)
    if (histogram.device == "lo") watched.loopback_truesize += histogram.samples;
  for (const SocketFill& socket : counters.sockets)
    if (socket.key.cookie == cookie) watched.socket_enqueues += socket.enqueues;
  for (const SoftirqCpuCounter& softirq : counters.softirqs)
    watched.softirq_raised += softirq.raised;
  return watched;
}

// Per-packet concerns by name, and whether each is attached now.
std::vector<std::pair<std::string, bool>> PerPacketAttached(const ProbeSource& source) {
  std::vector<std::pair<std::string, bool>> result;
  for (const ProbeStatus& status : source.Status())
    if (status.per_packet) result.emplace_back(status.name, status.attached);
  return result;
}

using NamesAttached = std::vector<std::pair<std::string, bool>>;

TEST(ProbesOnDemandTest, PerPacketProbesStopWhenDetachedAndResumeFromKeptMaps) {
  if (std::string why = testing_support::WhyNotPrivileged(); !why.empty()) GTEST_SKIP() << why;

  ProbeOptions options;
  options.truesize_sample_every = 1;      // every loopback packet is sampled: exact counts
  options.socket_fill_threshold_pct = 0;  // every enqueue of every socket is recorded
  absl::StatusOr<std::unique_ptr<ProbeSource>> source = OpenBpfProbes(options);
  ASSERT_TRUE(source.ok()) << source.status();
  ProbeSource& probes = **source;

  // Off by default, but loaded: the status says so and why.
  EXPECT_EQ(PerPacketAttached(probes),
            (NamesAttached{{"txshare", false}, {"sockfill", false}, {"truesize", false}}));
  for (const ProbeStatus& status : probes.Status()) {
    if (status.per_packet) {
      EXPECT_NE(status.reason.find("SetPerPacketProbes"), std::string::npos) << status.reason;
    } else {
      EXPECT_TRUE(status.attached) << status.name << ": " << status.reason;
    }
  }

  LoopbackUdpPair udp;
  const uint64_t cookie = udp.Bind();
  ASSERT_NE(cookie, 0u);

  auto read = [&probes, cookie]() -> Watched {
    absl::StatusOr<BpfCounters> counters = probes.Read();
    EXPECT_TRUE(counters.ok()) << counters.status();
    return counters.ok() ? Watch(*counters, cookie) : Watched{};
  };

  // 1. Off: traffic flows through the backlog NAPI, the per-packet counters stay put.
  const Watched start = read();
  ASSERT_EQ(udp.SendAndDrain(kDatagrams), kDatagrams);
  const Watched off = read();
  EXPECT_GE(off.backlog_work - start.backlog_work, static_cast<uint64_t>(kDatagrams));
  EXPECT_EQ(off.loopback_truesize, start.loopback_truesize);
  EXPECT_EQ(off.socket_enqueues, 0u);

  // 2. On: every datagram is counted.
  ASSERT_TRUE(probes.SetPerPacketProbes(true).ok());
  EXPECT_EQ(PerPacketAttached(probes),
            (NamesAttached{{"txshare", true}, {"sockfill", true}, {"truesize", true}}));
  ASSERT_EQ(udp.SendAndDrain(kDatagrams), kDatagrams);
  const Watched on = read();
  EXPECT_GE(on.loopback_truesize - off.loopback_truesize, static_cast<uint64_t>(kDatagrams));
  EXPECT_EQ(on.socket_enqueues, static_cast<uint64_t>(kDatagrams));

  // 3. Off again: the counters are still read (maps kept) and do not move.
  ASSERT_TRUE(probes.SetPerPacketProbes(false).ok());
  EXPECT_EQ(PerPacketAttached(probes),
            (NamesAttached{{"txshare", false}, {"sockfill", false}, {"truesize", false}}));
  ASSERT_EQ(udp.SendAndDrain(kDatagrams), kDatagrams);
  const Watched off_again = read();
  EXPECT_GE(off_again.backlog_work - on.backlog_work, static_cast<uint64_t>(kDatagrams));
  EXPECT_EQ(off_again.loopback_truesize, on.loopback_truesize);
  EXPECT_EQ(off_again.socket_enqueues, on.socket_enqueues);

  // 4. On again: counting continues from the kept values, not from zero.
  ASSERT_TRUE(probes.SetPerPacketProbes(true).ok());
  ASSERT_TRUE(probes.SetPerPacketProbes(true).ok());  // idempotent: no second attachment
  ASSERT_EQ(udp.SendAndDrain(kDatagrams), kDatagrams);
  const Watched resumed = read();
  EXPECT_GE(resumed.loopback_truesize - off_again.loopback_truesize,
            static_cast<uint64_t>(kDatagrams));
  EXPECT_EQ(resumed.socket_enqueues, static_cast<uint64_t>(2 * kDatagrams));

  // softirq_raise was not asked for: nothing counts raises.
  EXPECT_EQ(resumed.softirq_raised, 0u);
}

TEST(ProbesOnDemandTest, OptionsAttachPerPacketAndSoftirqRaiseAtOpen) {
  if (std::string why = testing_support::WhyNotPrivileged(); !why.empty()) GTEST_SKIP() << why;

  ProbeOptions options;
  options.per_packet_probes = true;
  options.softirq_raise = true;
  options.truesize_sample_every = 1;
  absl::StatusOr<std::unique_ptr<ProbeSource>> source = OpenBpfProbes(options);
  ASSERT_TRUE(source.ok()) << source.status();
  EXPECT_EQ(PerPacketAttached(**source),
            (NamesAttached{{"txshare", true}, {"sockfill", true}, {"truesize", true}}));

  LoopbackUdpPair udp;
  const uint64_t cookie = udp.Bind();
  ASSERT_NE(cookie, 0u);
  absl::StatusOr<BpfCounters> before = (*source)->Read();
  ASSERT_TRUE(before.ok()) << before.status();
  ASSERT_EQ(udp.SendAndDrain(kDatagrams), kDatagrams);
  absl::StatusOr<BpfCounters> after = (*source)->Read();
  ASSERT_TRUE(after.ok()) << after.status();

  // Loopback delivery raises NET_RX (netif_rx -> backlog) for the datagrams.
  EXPECT_GT(Watch(*after, cookie).softirq_raised, Watch(*before, cookie).softirq_raised);
  EXPECT_GE(Watch(*after, cookie).loopback_truesize - Watch(*before, cookie).loopback_truesize,
            static_cast<uint64_t>(kDatagrams));
}

}  // namespace
}  // namespace nictune::driver
