// SPDX-License-Identifier: Apache-2.0
// Joining intervals into a tuner window: counts over the whole window from its first snapshot to
// its last, socket peaks the highest of its intervals (the probes reset peaks at every read).
#include "agent/service/window_aggregator.h"

#include <vector>

#include "gtest/gtest.h"

namespace nictune::service {
namespace {

constexpr uint64_t kCookie = 4242;

// A snapshot `second` seconds in, holding one socket's cumulative enqueues and the peak fill its
// probe saw since the previous read.
model::Snapshot At(int second, uint64_t enqueues, double peak_fill) {
  model::Snapshot s;
  s.monotonic_ns = static_cast<uint64_t>(second) * 1'000'000'000;
  s.unix_ns = 1'700'000'000'000'000'000 + static_cast<int64_t>(s.monotonic_ns);
  driver::BpfCounters bpf;
  bpf.monotonic_ns = s.monotonic_ns;
  bpf.sockets.push_back(
      {.key = {.cookie = kCookie, .family = 2, .protocol = 17, .local_port = 5001},
       .enqueues = enqueues,
       .rcvbuf = 212992,
       .peak_fill = peak_fill});
  s.bpf = bpf;
  return s;
}

TEST(WindowAggregatorTest, CountsSpanTheWindowAndPeaksAreTheHighestInterval) {
  WindowAggregator aggregator;
  EXPECT_FALSE(aggregator.started());
  const model::Snapshot s0 = At(10, 1000, 0.0);
  const model::Snapshot s1 = At(11, 3000, 0.9);  // a burst filled the socket to 90% here
  const model::Snapshot s2 = At(12, 3500, 0.3);
  aggregator.Start(s0);
  for (const auto& [before, after] : {std::pair{&s0, &s1}, std::pair{&s1, &s2}}) {
    auto interval = model::ComputeWindow(*before, *after);
    ASSERT_TRUE(interval.ok()) << interval.status();
    aggregator.AddInterval(*interval);
  }
  EXPECT_EQ(aggregator.intervals(), 2u);

  auto window = aggregator.Close(s2);
  ASSERT_TRUE(window.ok()) << window.status();
  EXPECT_DOUBLE_EQ(window->seconds, 2.0);
  ASSERT_EQ(window->sockets.size(), 1u);
  EXPECT_DOUBLE_EQ(window->sockets[0].enqueues_per_s, 2500.0 / 2.0);
  EXPECT_DOUBLE_EQ(window->sockets[0].peak_fill, 0.9);  // not the end snapshot's 0.3

  // The next window starts at the end of this one, with its own peaks.
  EXPECT_EQ(aggregator.intervals(), 0u);
  const model::Snapshot s3 = At(13, 3600, 0.2);
  auto interval = model::ComputeWindow(s2, s3);
  ASSERT_TRUE(interval.ok());
  aggregator.AddInterval(*interval);
  auto next = aggregator.Close(s3);
  ASSERT_TRUE(next.ok());
  EXPECT_DOUBLE_EQ(next->seconds, 1.0);
  ASSERT_EQ(next->sockets.size(), 1u);
  EXPECT_DOUBLE_EQ(next->sockets[0].peak_fill, 0.2);
  EXPECT_DOUBLE_EQ(next->sockets[0].enqueues_per_s, 100.0);
}

// A device and its NAPI instance with cumulative receive counts `rx` at `second`.
model::Snapshot WithRx(int second, uint64_t rx) {
  model::Snapshot s = At(second, 0, 0);
  s.devices = std::vector<procfs::NetDevice>{
      {.name = "eth1", .ifindex = 3, .statistics = {{"rx_packets", rx}}}};
  s.bpf->napis = {{.napi_id = 8193, .ifindex = 3, .device = "eth1", .polls = rx / 10,
                   .work = rx}};
  return s;
}

TEST(WindowAggregatorTest, ReceiveRatesPeakAtTheBusiestInterval) {
  // 1,000 packets in the first second, a burst of 7,000 in the second, 1,000 in the third.
  const std::vector<model::Snapshot> snapshots = {WithRx(10, 0), WithRx(11, 1000),
                                                  WithRx(12, 8000), WithRx(13, 9000)};
  WindowAggregator aggregator;
  aggregator.Start(snapshots[0]);
  for (size_t i = 1; i < snapshots.size(); ++i) {
    auto interval = model::ComputeWindow(snapshots[i - 1], snapshots[i]);
    ASSERT_TRUE(interval.ok()) << interval.status();
    ASSERT_EQ(interval->devices.size(), 1u);
    EXPECT_EQ(interval->devices[0].peak_rx_packets_per_s, 0);  // an interval's own: none
    aggregator.AddInterval(*interval);
  }
  auto window = aggregator.Close(snapshots.back());
  ASSERT_TRUE(window.ok()) << window.status();
  ASSERT_EQ(window->devices.size(), 1u);
  EXPECT_DOUBLE_EQ(window->devices[0].per_s.at("rx_packets"), 3000);  // the mean
  EXPECT_DOUBLE_EQ(window->devices[0].peak_rx_packets_per_s, 7000);
  ASSERT_EQ(window->napis.size(), 1u);
  EXPECT_DOUBLE_EQ(window->napis[0].work_per_s, 3000);
  EXPECT_DOUBLE_EQ(window->napis[0].peak_work_per_s, 7000);

  // A window of one interval: its peak is its mean.
  const model::Snapshot later = WithRx(14, 9500);
  auto interval = model::ComputeWindow(snapshots.back(), later);
  ASSERT_TRUE(interval.ok());
  aggregator.AddInterval(*interval);
  auto next = aggregator.Close(later);
  ASSERT_TRUE(next.ok());
  EXPECT_DOUBLE_EQ(next->devices[0].peak_rx_packets_per_s, 500);
}

// `At` with the kernel's own count of the socket's drops (sock_diag), cumulative.
model::Snapshot WithKernelDrops(int second, uint64_t enqueues, uint32_t drops) {
  model::Snapshot s = At(second, enqueues, 0.5);
  s.udp_sockets = driver::SocketCensus{.sockets = {{.cookie = kCookie,
                                                    .family = 2,
                                                    .protocol = 17,
                                                    .local_port = 5001,
                                                    .rmem_alloc = 106496,
                                                    .rcvbuf = 212992,
                                                    .drops = drops}}};
  return s;
}

TEST(WindowAggregatorTest, SocketArrivalsPeakAtTheBusiestIntervalCountingWhatTheBufferRefused) {
  // Per second: 1,000 queued; then 2,000 queued and 5,000 refused (a burst of 7,000); then 1,000.
  const std::vector<model::Snapshot> snapshots = {
      WithKernelDrops(10, 0, 0), WithKernelDrops(11, 1000, 0), WithKernelDrops(12, 3000, 5000),
      WithKernelDrops(13, 4000, 5000)};
  WindowAggregator aggregator;
  aggregator.Start(snapshots[0]);
  for (size_t i = 1; i < snapshots.size(); ++i) {
    auto interval = model::ComputeWindow(snapshots[i - 1], snapshots[i]);
    ASSERT_TRUE(interval.ok()) << interval.status();
    aggregator.AddInterval(*interval);
  }
  auto window = aggregator.Close(snapshots.back());
  ASSERT_TRUE(window.ok()) << window.status();
  ASSERT_EQ(window->sockets.size(), 1u);
  EXPECT_DOUBLE_EQ(window->sockets[0].enqueues_per_s, 4000.0 / 3);
  EXPECT_EQ(window->sockets[0].kernel_drops, 5000u);
  EXPECT_DOUBLE_EQ(window->sockets[0].peak_arrivals_per_s, 7000);  // not the mean, 3,000
}

TEST(WindowAggregatorTest, AnIntervalTheSocketsProbeSawLittleOfSetsNoPeak) {
  // A slot that saw a tenth of one interval, scaled tenfold, against a whole one.
  const auto interval = [](double share, double enqueues_per_s) {
    model::Window w{.seconds = 1};
    w.sockets.push_back({.key = {.cookie = kCookie, .family = 2, .protocol = 17},
                         .enqueues_per_s = enqueues_per_s,
                         .coverage = {.share = share}});
    return w;
  };
  WindowAggregator aggregator;
  aggregator.Start(At(10, 0, 0));
  aggregator.AddInterval(interval(0.1, 50000));
  aggregator.AddInterval(interval(1.0, 2500));
  auto window = aggregator.Close(At(12, 3000, 0));
  ASSERT_TRUE(window.ok()) << window.status();
  ASSERT_EQ(window->sockets.size(), 1u);
  EXPECT_DOUBLE_EQ(window->sockets[0].enqueues_per_s, 1500);
  EXPECT_DOUBLE_EQ(window->sockets[0].peak_arrivals_per_s, 2500);
}

TEST(WindowAggregatorTest, ASocketWhoseArrivalsNoIntervalMeasuredHasNoPeak) {
  // Only the kernel's census lists the socket: its drops are known, its arrivals are not.
  model::Snapshot before = WithKernelDrops(10, 0, 0);
  model::Snapshot after = WithKernelDrops(11, 0, 900);
  before.bpf->sockets.clear();
  after.bpf->sockets.clear();
  WindowAggregator aggregator;
  aggregator.Start(before);
  auto interval = model::ComputeWindow(before, after);
  ASSERT_TRUE(interval.ok()) << interval.status();
  aggregator.AddInterval(*interval);
  auto window = aggregator.Close(after);
  ASSERT_TRUE(window.ok()) << window.status();
  ASSERT_EQ(window->sockets.size(), 1u);
  EXPECT_EQ(window->sockets[0].kernel_drops, 900u);
  EXPECT_EQ(window->sockets[0].peak_arrivals_per_s, 0);
}

TEST(WindowAggregatorTest, ClosingBeforeStartingIsAnError) {
  WindowAggregator aggregator;
  auto window = aggregator.Close(At(1, 0, 0));
  ASSERT_FALSE(window.ok());
  EXPECT_EQ(window.status().code(), absl::StatusCode::kFailedPrecondition);
}

TEST(WindowAggregatorTest, SnapshotsOutOfOrderFailTheWindowAndRestartIt) {
  WindowAggregator aggregator;
  aggregator.Start(At(5, 0, 0));
  auto window = aggregator.Close(At(4, 0, 0));
  EXPECT_FALSE(window.ok());
  EXPECT_TRUE(aggregator.started());  // the next window begins at the snapshot given
}

}  // namespace
}  // namespace nictune::service
