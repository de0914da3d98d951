// SPDX-License-Identifier: Apache-2.0
// Windows over probes the probe budget attached for part of the time: counts scaled by the share
// of the window each hook was attached, a device's NAPI work scaled to its rx_packets, each
// namespace's UDP receive-buffer drops scaled to its own Udp.RcvbufErrors (or kept as one
// unattributed drop when the sample saw none), and every scaled figure saying what it was
// scaled to.
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "agent/model/window.h"
#include "agent/model/window_json.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace nictune::model {
namespace {

constexpr uint64_t kStart = 1'000'000'000;
constexpr uint64_t kSecond = 1'000'000'000;
constexpr uint32_t kOwnNetns = 4026531840;

driver::HookDuty Duty(const std::string& hook, uint64_t attached_ns) {
  return {.hook = hook, .attached_ns = attached_ns, .mode = "slotted", .share = 0.1};
}

driver::NapiCounter Napi(uint64_t polls, uint64_t work) {
  driver::NapiCounter napi{.napi_id = 8193,
                           .ifindex = 7,
                           .device = "veth1",
                           .polls = polls,
                           .work = work,
                           .budget_exhausted = polls / 10,
                           .last_budget = 64};
  napi.work_histogram.assign(driver::kNapiWorkBuckets, 0);
  if (polls > 0) napi.work_histogram[work / polls] = polls;
  return napi;
}

// Two snapshots a second apart; the hooks attached for `attached` of it.
std::pair<Snapshot, Snapshot> Readings(uint64_t attached) {
  Snapshot before{.monotonic_ns = kStart, .unix_ns = 1};
  Snapshot after{.monotonic_ns = kStart + kSecond, .unix_ns = 2};
  before.bpf = driver::BpfCounters{.monotonic_ns = kStart, .netns_inode = kOwnNetns};
  after.bpf = driver::BpfCounters{.monotonic_ns = kStart + kSecond, .netns_inode = kOwnNetns};
  for (const char* hook : {"napi", "drops", "txshare"}) {
    before.bpf->hooks.push_back(Duty(hook, 0));
    after.bpf->hooks.push_back(Duty(hook, attached));
  }
  return {before, after};
}

TEST(ProbeCoverageTest, ASlottedHooksCountsAreScaledByTheShareOfTheWindowItSaw) {
  auto [before, after] = Readings(kSecond / 10);
  before.bpf->napis = {Napi(0, 0)};
  after.bpf->napis = {Napi(1000, 40000)};
  absl::StatusOr<Window> w = ComputeWindow(before, after);
  ASSERT_TRUE(w.ok()) << w.status();
  ASSERT_EQ(w->napis.size(), 1u);
  const NapiWindow& napi = w->napis[0];
  EXPECT_DOUBLE_EQ(napi.coverage.share, 0.1);
  EXPECT_EQ(napi.coverage.scaled_to, "coverage");
  EXPECT_NEAR(napi.polls_per_s, 10000, 1e-6);
  EXPECT_NEAR(napi.work_per_s, 400000, 1e-6);
  EXPECT_DOUBLE_EQ(napi.packets_per_poll, 40);  // a ratio: no scale
  EXPECT_DOUBLE_EQ(napi.budget_exhausted_fraction, 0.1);
  ASSERT_EQ(w->probes.size(), 3u);
  EXPECT_EQ(w->probes[0].hook, "napi");
  EXPECT_DOUBLE_EQ(w->probes[0].coverage, 0.1);
}

TEST(ProbeCoverageTest, ADevicesNapiWorkIsScaledToItsRxPackets) {
  auto [before, after] = Readings(kSecond / 10);
  after.bpf->napis = {Napi(1000, 40000)};
  before.devices = {{.name = "veth1", .ifindex = 7, .statistics = {{"rx_packets", 0}}}};
  after.devices = {{.name = "veth1", .ifindex = 7, .statistics = {{"rx_packets", 380000}}}};
  absl::StatusOr<Window> w = ComputeWindow(before, after);
  ASSERT_TRUE(w.ok()) << w.status();
  ASSERT_EQ(w->napis.size(), 1u);
  EXPECT_NEAR(w->napis[0].work_per_s, 380000, 1e-6);
  EXPECT_NEAR(w->napis[0].polls_per_s, 9500, 1e-6);
  EXPECT_DOUBLE_EQ(w->napis[0].packets_per_poll, 40);
  EXPECT_EQ(w->napis[0].coverage.scaled_to, "rx_packets");
}

driver::DropCounter SocketDrop(uint64_t cookie, uint64_t count, uint32_t netns) {
  return {.reason = 6,
          .reason_name = "SOCKET_RCVBUFF",
          .protocol = 0x0800,
          .l4_protocol = 17,
          .ifindex = 7,
          .netns_inode = netns,
          .device = "veth1",
          .local_port = 5000,
          .socket_cookie = cookie,
          .count = count};
}

TEST(ProbeCoverageTest, UdpReceiveBufferDropsAddUpToTheKernelsCountSplitAsSampled) {
  auto [before, after] = Readings(kSecond / 10);
  after.bpf->drops = {SocketDrop(77, 30, kOwnNetns), SocketDrop(78, 10, kOwnNetns),
                      SocketDrop(79, 5, 1234)};
  before.snmp = procfs::SnmpCounters{{"Udp", {{"RcvbufErrors", 100}}}};
  after.snmp = procfs::SnmpCounters{{"Udp", {{"RcvbufErrors", 500}}}};
  absl::StatusOr<Window> w = ComputeWindow(before, after);
  ASSERT_TRUE(w.ok()) << w.status();
  uint64_t ours = 0;
  for (const DropWindow& d : w->drops) {
    if (d.netns_inode == kOwnNetns) {
      ours += d.count;
      EXPECT_EQ(d.coverage.scaled_to, "Udp.RcvbufErrors");
    } else {
      // Another namespace's drops, whose counters the census did not read: left as sampled.
      EXPECT_EQ(d.count, 50u);
      EXPECT_EQ(d.coverage.scaled_to, "coverage");
    }
  }
  EXPECT_EQ(ours, 400u);
  ASSERT_GE(w->drops.size(), 2u);
  EXPECT_EQ(w->drops[0].socket_cookie, 77u);
  EXPECT_EQ(w->drops[0].count, 300u);
}

TEST(ProbeCoverageTest, AnotherNamespacesDropsAreScaledToItsOwnCountersAsTheCensusReadThem) {
  constexpr uint32_t kOther = 1234;
  constexpr uint32_t kUnsampled = 5678;
  auto [before, after] = Readings(kSecond / 10);
  after.bpf->drops = {SocketDrop(77, 30, kOwnNetns), SocketDrop(79, 5, kOther),
                      SocketDrop(80, 15, kOther)};
  before.snmp = procfs::SnmpCounters{{"Udp", {{"RcvbufErrors", 100}}}};
  after.snmp = procfs::SnmpCounters{{"Udp", {{"RcvbufErrors", 400}}}};
  before.netns_protocols[kOther] = {{"Udp", {{"RcvbufErrors", 1000}, {"InDatagrams", 10}}}};
  after.netns_protocols[kOther] = {{"Udp", {{"RcvbufErrors", 1200}, {"InDatagrams", 10}}}};
  // A namespace whose drops the sample missed altogether.
  before.netns_protocols[kUnsampled] = {{"Udp", {{"RcvbufErrors", 0}}}};
  after.netns_protocols[kUnsampled] = {{"Udp", {{"RcvbufErrors", 9}}}};
  absl::StatusOr<Window> w = ComputeWindow(before, after);
  ASSERT_TRUE(w.ok()) << w.status();
  ASSERT_EQ(w->netns_protocol_per_s.size(), 2u);
  EXPECT_EQ(w->netns_protocol_per_s.at(kOther),
            (std::map<std::string, double>{{"Udp.RcvbufErrors", 200}}))
      << "only the counters that moved";
  std::map<uint32_t, uint64_t> by_netns;
  for (const DropWindow& d : w->drops) {
    by_netns[d.netns_inode] += d.count;
    EXPECT_EQ(d.coverage.scaled_to, "Udp.RcvbufErrors") << d.netns_inode;
  }
  EXPECT_EQ(by_netns,
            (std::map<uint32_t, uint64_t>{{kOwnNetns, 300}, {kOther, 200}, {kUnsampled, 9}}));
  for (const DropWindow& d : w->drops) {
    if (d.socket_cookie == 79) {
      EXPECT_EQ(d.count, 50u) << "split as sampled, 1:3";
    }
    if (d.netns_inode == kUnsampled) {
      EXPECT_TRUE(d.unseen_by_sample);
    }
  }
  const nlohmann::json json = WindowToJson(*w);
  EXPECT_EQ(json["protocol_per_s"]["by_netns"]["1234"]["Udp.RcvbufErrors"], 200.0);
  EXPECT_EQ(json["protocol_per_s"]["by_netns"]["5678"]["Udp.RcvbufErrors"], 9.0);
}

TEST(ProbeCoverageTest, DropsTheSampleMissedAreCountedUnattributed) {
  auto [before, after] = Readings(kSecond / 100);
  before.snmp = procfs::SnmpCounters{{"Udp", {{"RcvbufErrors", 0}}}};
  after.snmp = procfs::SnmpCounters{{"Udp", {{"RcvbufErrors", 70}}}};
  absl::StatusOr<Window> w = ComputeWindow(before, after);
  ASSERT_TRUE(w.ok()) << w.status();
  ASSERT_EQ(w->drops.size(), 1u);
  EXPECT_EQ(w->drops[0].reason_name, "SOCKET_RCVBUFF");
  EXPECT_EQ(w->drops[0].count, 70u);
  EXPECT_EQ(w->drops[0].socket_cookie, 0u);
  EXPECT_EQ(w->drops[0].device, "");
  EXPECT_TRUE(w->drops[0].unseen_by_sample) << "so that /metrics labels its device unattributed";
  EXPECT_EQ(w->drops[0].coverage.share, 0);
}

TEST(ProbeCoverageTest, WholeHooksAreMeasuredNotScaled) {
  auto [before, after] = Readings(kSecond);
  after.bpf->napis = {Napi(1000, 40000)};
  after.bpf->drops = {SocketDrop(77, 30, kOwnNetns)};
  before.snmp = procfs::SnmpCounters{{"Udp", {{"RcvbufErrors", 0}}}};
  after.snmp = procfs::SnmpCounters{{"Udp", {{"RcvbufErrors", 30}}}};
  absl::StatusOr<Window> w = ComputeWindow(before, after);
  ASSERT_TRUE(w.ok()) << w.status();
  EXPECT_DOUBLE_EQ(w->napis[0].polls_per_s, 1000);
  EXPECT_EQ(w->napis[0].coverage.scaled_to, "");
  ASSERT_EQ(w->drops.size(), 1u);
  EXPECT_EQ(w->drops[0].count, 30u);
  EXPECT_EQ(w->drops[0].coverage.scaled_to, "");
}

// A socket's fill over a window in which the socket-fill hook measured `attached_ns` in `slots`
// stretches begun within it; `timed`: the kernel has the read tracepoint.
std::optional<Window> SocketFillWindow(uint64_t attached_ns, uint64_t slots, bool timed,
                                       uint64_t open_wait_ns = 0) {
  auto [before, after] = Readings(attached_ns);
  before.bpf->hooks.push_back({.hook = "sockfill", .attached_ns = 0, .slots = 3});
  after.bpf->hooks.push_back({.hook = "sockfill", .attached_ns = attached_ns, .slots = 3 + slots});
  driver::SocketFill fill{.key = {.cookie = 77, .family = 2, .protocol = 17, .local_port = 5000},
                          .enqueues = 1000,
                          .rcvbuf = 212992,
                          .longest_drain_gap_ns = 4'000'000,
                          .open_drain_wait_ns = open_wait_ns};
  after.bpf->sockets = {fill};
  before.bpf->drain_gap_timed = timed;
  after.bpf->drain_gap_timed = timed;
  absl::StatusOr<Window> w = ComputeWindow(before, after);
  if (!w.ok() || w->sockets.size() != 1) {
    ADD_FAILURE() << w.status();
    return std::nullopt;
  }
  return *std::move(w);
}

// The probe pairs a read only with a wait begun in the same stretch, so in slots it sees no wait
// longer than a slot: the window says so, as its mean slot, and JSON's null is "no limit".
TEST(ProbeCoverageTest, TheDrainGapSaysWhichWaitsTheProbeCouldSee) {
  std::optional<Window> slotted = SocketFillWindow(kSecond / 10, 20, true);
  ASSERT_TRUE(slotted.has_value());
  EXPECT_DOUBLE_EQ(slotted->sockets[0].longest_drain_gap_s, 0.004);
  // 100 ms in the 20 slots begun in the window and one that may have begun before it.
  EXPECT_DOUBLE_EQ(slotted->sockets[0].drain_gap_seen_below_s, 0.1 / 21);
  EXPECT_DOUBLE_EQ(WindowToJson(*slotted)["sockets"][0]["drain_gap_seen_below_s"], 0.1 / 21);

  // One slot spanning the window's start: what it measured in the window.
  std::optional<Window> spanning = SocketFillWindow(kSecond / 4, 0, true);
  ASSERT_TRUE(spanning.has_value());
  EXPECT_DOUBLE_EQ(spanning->sockets[0].drain_gap_seen_below_s, 0.25);

  std::optional<Window> whole = SocketFillWindow(kSecond, 0, true);
  ASSERT_TRUE(whole.has_value());
  EXPECT_TRUE(std::isinf(whole->sockets[0].drain_gap_seen_below_s));
  EXPECT_TRUE(WindowToJson(*whole)["sockets"][0]["drain_gap_seen_below_s"].is_null());

  // Attached whole, but re-attached within the window (a new stretch): not one stretch.
  std::optional<Window> restarted = SocketFillWindow(kSecond, 1, true);
  ASSERT_TRUE(restarted.has_value());
  EXPECT_DOUBLE_EQ(restarted->sockets[0].drain_gap_seen_below_s, 0.5);

  // A reader 9 ms into a pause at the window's end: a wait still open, beside those it ended,
  // and the longer of the two is what the series show.
  std::optional<Window> stuck = SocketFillWindow(kSecond, 0, true, 9'000'000);
  ASSERT_TRUE(stuck.has_value());
  EXPECT_DOUBLE_EQ(stuck->sockets[0].longest_drain_gap_s, 0.004);
  EXPECT_DOUBLE_EQ(stuck->sockets[0].open_drain_wait_s, 0.009);
  EXPECT_DOUBLE_EQ(LongestDrainWait(stuck->sockets[0]), 0.009);
  EXPECT_DOUBLE_EQ(WindowToJson(*stuck)["sockets"][0]["open_drain_wait_s"], 0.009);
  EXPECT_DOUBLE_EQ(WindowToJson(*stuck)["sockets"][0]["longest_drain_wait_s"], 0.009);
  std::optional<Window> brief = SocketFillWindow(kSecond, 0, true, 1'000'000);
  ASSERT_TRUE(brief.has_value());
  EXPECT_DOUBLE_EQ(LongestDrainWait(brief->sockets[0]), 0.004);

  std::optional<Window> untimed = SocketFillWindow(kSecond, 0, false);
  ASSERT_TRUE(untimed.has_value());
  EXPECT_EQ(untimed->sockets[0].drain_gap_seen_below_s, 0);
  EXPECT_EQ(WindowToJson(*untimed)["sockets"][0]["drain_gap_seen_below_s"], 0);
  EXPECT_TRUE(WindowToJson(*untimed)["sockets"][0]["longest_drain_wait_s"].is_null())
      << "no read timed: the series is absent, and so is its figure";
}

}  // namespace
}  // namespace nictune::model
