// SPDX-License-Identifier: Apache-2.0
// The per-packet probes (tx share, socket fill, truesize) start detached by default and switch at
// run time with SetPerPacketProbes: while off they count nothing, and when on again they continue
// from the counters their maps kept. softirq_raise is opt-in. Checked with loopback UDP traffic,
// which the always-on backlog NAPI counters prove did flow.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "driver/probe_source.h"
#include "gtest/gtest.h"
#include "tests/support/privileges.h"
#include "tests/support/udp_receiver.h"
#include "tests/support/udp_sender.h"

namespace nictune::driver {
namespace {

constexpr uint64_t kDatagrams = 200;
constexpr size_t kDatagramBytes = 300;

// A loopback receiver with room for all kDatagrams (SO_RCVBUF 208 KiB, doubled by the kernel).
absl::StatusOr<std::unique_ptr<testing_support::UdpReceiver>> OpenLoopbackReceiver() {
  return testing_support::UdpReceiver::Create(
      {.bind_address = "127.0.0.1", .rcvbuf_bytes = 212992});
}

// Sends kDatagrams to `receiver` over loopback and reads them all back (waiting up to 1 s for
// stragglers); returns how many it read, 0 after reporting a socket error as a test failure.
uint64_t SendAndDrain(testing_support::UdpReceiver& receiver) {
  absl::StatusOr<std::unique_ptr<testing_support::UdpSender>> sender =
      testing_support::UdpSender::Create({.destination = "127.0.0.1",
                                          .port = receiver.port(),
                                          .packets = kDatagrams,
                                          .payload_bytes = kDatagramBytes});
  absl::StatusOr<testing_support::UdpSenderReport> sent =
      sender.ok() ? (*sender)->Run() : sender.status();
  if (!sent.ok()) {
    ADD_FAILURE() << sent.status();
    return 0;
  }
  uint64_t received = 0;
  const absl::Time deadline = absl::Now() + absl::Seconds(1);
  while (received < kDatagrams && absl::Now() < deadline) {
    absl::StatusOr<testing_support::QueuedMemory> queued = receiver.MeasureQueuedAndDrain();
    if (!queued.ok()) {
      ADD_FAILURE() << queued.status();
      return 0;
    }
    received += queued->queued_datagrams;
    if (received < kDatagrams) absl::SleepFor(absl::Milliseconds(10));
  }
  return received;
}

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

using NamesAttached = std::vector<std::pair<std::string, bool>>;

// Per-packet concerns by name, and whether each is attached now.
NamesAttached PerPacketAttached(const ProbeSource& source) {
  NamesAttached result;
  for (const ProbeStatus& status : source.Status())
    if (status.per_packet) result.emplace_back(status.name, status.attached);
  return result;
}

// What PerPacketAttached says when every per-packet concern is on (or off).
NamesAttached EveryPerPacket(bool attached) {
  return {{"txshare", attached}, {"sockfill", attached}, {"truesize", attached}};
}

TEST(ProbesOnDemandTest, PerPacketProbesStopWhenDetachedAndResumeFromKeptMaps) {
  if (std::string why = testing_support::WhyNotPrivileged(); !why.empty()) GTEST_SKIP() << why;

  ProbeOptions options;
  options.truesize_sample_every = 1;      // every loopback packet is sampled: exact counts
  options.socket_fill_threshold_pct = 0;  // every enqueue of every socket is recorded
  absl::StatusOr<std::unique_ptr<ProbeSource>> source = OpenBpfProbes(options);
  ASSERT_TRUE(source.ok()) << source.status();
  ProbeSource& probes = **source;

  // Off by default, but loaded: the status says so and why.
  EXPECT_EQ(PerPacketAttached(probes), EveryPerPacket(false));
  for (const ProbeStatus& status : probes.Status()) {
    if (status.per_packet) {
      EXPECT_NE(status.reason.find("per-packet probe, detached until switched on"),
                std::string::npos)
          << status.reason;
      EXPECT_TRUE(status.waiting) << status.name;
    } else {
      EXPECT_TRUE(status.attached) << status.name << ": " << status.reason;
      EXPECT_FALSE(status.waiting) << status.name;
    }
  }

  absl::StatusOr<std::unique_ptr<testing_support::UdpReceiver>> receiver = OpenLoopbackReceiver();
  ASSERT_TRUE(receiver.ok()) << receiver.status();
  const uint64_t cookie = (*receiver)->socket_cookie();

  auto read = [&probes, cookie]() -> Watched {
    absl::StatusOr<BpfCounters> counters = probes.Read();
    EXPECT_TRUE(counters.ok()) << counters.status();
    return counters.ok() ? Watch(*counters, cookie) : Watched{};
  };

  // 1. Off: traffic flows through the backlog NAPI, the per-packet counters stay put.
  const Watched start = read();
  ASSERT_EQ(SendAndDrain(**receiver), kDatagrams);
  const Watched off = read();
  EXPECT_GE(off.backlog_work - start.backlog_work, kDatagrams);
  EXPECT_EQ(off.loopback_truesize, start.loopback_truesize);
  EXPECT_EQ(off.socket_enqueues, 0u);

  // 2. On: every datagram is counted.
  ASSERT_TRUE(probes.SetPerPacketProbes(true).ok());
  EXPECT_EQ(PerPacketAttached(probes), EveryPerPacket(true));
  ASSERT_EQ(SendAndDrain(**receiver), kDatagrams);
  const Watched on = read();
  EXPECT_GE(on.loopback_truesize - off.loopback_truesize, kDatagrams);
  EXPECT_EQ(on.socket_enqueues, kDatagrams);

  // 3. Off again: the counters are still read (maps kept) and do not move.
  ASSERT_TRUE(probes.SetPerPacketProbes(false).ok());
  EXPECT_EQ(PerPacketAttached(probes), EveryPerPacket(false));
  ASSERT_EQ(SendAndDrain(**receiver), kDatagrams);
  const Watched off_again = read();
  EXPECT_GE(off_again.backlog_work - on.backlog_work, kDatagrams);
  EXPECT_EQ(off_again.loopback_truesize, on.loopback_truesize);
  EXPECT_EQ(off_again.socket_enqueues, on.socket_enqueues);

  // 4. On again: counting continues from the kept values, not from zero.
  ASSERT_TRUE(probes.SetPerPacketProbes(true).ok());
  ASSERT_TRUE(probes.SetPerPacketProbes(true).ok());  // idempotent: no second attachment
  ASSERT_EQ(SendAndDrain(**receiver), kDatagrams);
  const Watched resumed = read();
  EXPECT_GE(resumed.loopback_truesize - off_again.loopback_truesize, kDatagrams);
  EXPECT_EQ(resumed.socket_enqueues, 2 * kDatagrams);

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
  EXPECT_EQ(PerPacketAttached(**source), EveryPerPacket(true));

  absl::StatusOr<std::unique_ptr<testing_support::UdpReceiver>> receiver = OpenLoopbackReceiver();
  ASSERT_TRUE(receiver.ok()) << receiver.status();
  const uint64_t cookie = (*receiver)->socket_cookie();
  absl::StatusOr<BpfCounters> before = (*source)->Read();
  ASSERT_TRUE(before.ok()) << before.status();
  ASSERT_EQ(SendAndDrain(**receiver), kDatagrams);
  absl::StatusOr<BpfCounters> after = (*source)->Read();
  ASSERT_TRUE(after.ok()) << after.status();

  // Loopback delivery raises NET_RX (netif_rx -> backlog) for the datagrams.
  EXPECT_GT(Watch(*after, cookie).softirq_raised, Watch(*before, cookie).softirq_raised);
  EXPECT_GE(Watch(*after, cookie).loopback_truesize - Watch(*before, cookie).loopback_truesize,
            kDatagrams);
}

}  // namespace
}  // namespace nictune::driver
