// SPDX-License-Identifier: Apache-2.0
// A Window computed from recorded kernel text (6.18, 2 CPUs) becomes series named as /metrics
// names them, with the window's rates as values; sockets are capped to the top ones.
#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include "agent/metrics/family_names.h"
#include "agent/metrics/figure_catalog.h"
#include "agent/model/window.h"
#include "agent/procfs/interrupts.h"
#include "agent/procfs/snmp.h"
#include "agent/procfs/softirqs.h"
#include "agent/procfs/softnet_stat.h"
#include "agent/procfs/stat.h"
#include "agent/store/series_labels.h"
#include "agent/store/window_series.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/build_paths.h"

namespace nictune::store {
namespace {

using ::testing::DoubleEq;
using ::testing::Optional;

std::string Fixture(const std::string& name) {
  std::ifstream in(testing_support::FixturesDir() + "/" + name);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

constexpr uint64_t kSecond = 1'000'000'000;

// The value of the one sample with this name and labels, if there is one.
std::optional<double> Value(const std::vector<SeriesSample>& samples, const std::string& name,
                            const Labels& labels) {
  std::optional<double> found;
  for (const SeriesSample& s : samples) {
    if (s.name != name || s.labels != labels) continue;
    EXPECT_FALSE(found.has_value()) << name << " given twice";
    found = s.value;
  }
  return found;
}

class StoreWindowSeriesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<procfs::InterruptTable> interrupts =
        procfs::ParseInterrupts(Fixture("interrupts/x86_64_6.18_2cpu.txt"));
    absl::StatusOr<procfs::SoftirqTable> softirqs =
        procfs::ParseSoftirqs(Fixture("softirqs/x86_64_6.18_2cpu.txt"));
    absl::StatusOr<std::vector<procfs::SoftnetRow>> softnet =
        procfs::ParseSoftnetStat(Fixture("softnet_stat/x86_64_6.18_2cpu_15col.txt"));
    absl::StatusOr<procfs::ProcStat> stat =
        procfs::ParseProcStat(Fixture("stat/x86_64_6.18_2cpu.txt"));
    ASSERT_TRUE(interrupts.ok() && softirqs.ok() && softnet.ok() && stat.ok());
    before_.monotonic_ns = 100 * kSecond;
    before_.unix_ns = 1'700'000'000 * static_cast<int64_t>(kSecond);
    before_.interrupts = *interrupts;
    before_.softirqs = *softirqs;
    before_.softnet = *softnet;
    before_.stat = *stat;
    after_ = before_;
    after_.monotonic_ns += 2 * kSecond;
    after_.unix_ns += 2 * static_cast<int64_t>(kSecond);
  }

  std::vector<SeriesSample> Series(const WindowSeriesOptions& options = {}) {
    absl::StatusOr<model::Window> window = model::ComputeWindow(before_, after_);
    EXPECT_TRUE(window.ok()) << window.status();
    return window.ok() ? WindowSeries(*window, options) : std::vector<SeriesSample>{};
  }

  model::Snapshot before_;
  model::Snapshot after_;
};

TEST_F(StoreWindowSeriesTest, CountersBecomeRatesUnderTheExportersNames) {
  // Over 2 s: virtio3-rx (irq 41) fires 3000 times on CPU0, CPU1 runs NET_RX 500 times,
  // processes 4000 packets and squeezes 6 times.
  for (auto& line : after_.interrupts->lines) {
    if (line.id == "41") {
      line.per_cpu[0] += 3000;
      line.total += 3000;
    }
  }
  for (auto& row : after_.softirqs->rows) {
    if (row.vector == "NET_RX") row.per_cpu[1] += 500;
  }
  (*after_.softnet)[1].processed += 4000;
  (*after_.softnet)[1].time_squeeze += 6;
  const std::vector<SeriesSample> series = Series();

  // Per irq, as /metrics has it unless asked per CPU.
  EXPECT_THAT(Value(series, "nictune_interrupts_total",
                    {{"chip", "PCI-MSIX-0000:00:04.0"}, {"devices", "virtio3-rx"}, {"irq", "41"}}),
              Optional(DoubleEq(1500.0)));
  EXPECT_THAT(Value(Series({.interrupts_per_cpu = true}), "nictune_interrupts_total",
                    {{"chip", "PCI-MSIX-0000:00:04.0"},
                     {"cpu", "0"},
                     {"devices", "virtio3-rx"},
                     {"irq", "41"}}),
              Optional(DoubleEq(1500.0)));
  EXPECT_THAT(Value(series, "nictune_softirqs_total", {{"cpu", "1"}, {"vector", "NET_RX"}}),
              Optional(DoubleEq(250.0)));
  // Summed over CPUs when per-CPU series are off, as /metrics has them.
  const std::vector<SeriesSample> summed = Series({.per_cpu = false});
  EXPECT_THAT(Value(summed, "nictune_softirqs_total", {{"vector", "NET_RX"}}),
              Optional(DoubleEq(250.0)));
  EXPECT_THAT(Value(summed, "nictune_softnet_processed_total", {}), Optional(DoubleEq(2000.0)));
  EXPECT_THAT(Value(series, "nictune_softnet_processed_total", {{"cpu", "1"}}),
              Optional(DoubleEq(2000.0)));
  EXPECT_THAT(Value(series, "nictune_softnet_times_squeezed_total", {{"cpu", "1"}}),
              Optional(DoubleEq(3.0)));
  EXPECT_THAT(Value(series, "nictune_softnet_processed_total", {{"cpu", "0"}}),
              Optional(DoubleEq(0.0)));
  // Every series is storable: a metric name and canonical labels.
  for (const SeriesSample& s : series) {
    EXPECT_TRUE(IsValidSeriesName(s.name)) << s.name;
    EXPECT_TRUE(std::is_sorted(s.labels.begin(), s.labels.end())) << s.name;
  }
}

TEST_F(StoreWindowSeriesTest, ProtocolCountersAreTheExportedOnesUnderTheirMetricsNames) {
  before_.snmp = procfs::SnmpCounters{{"Udp", {{"RcvbufErrors", 10}, {"IgnoredMulti", 0}}}};
  after_.snmp = procfs::SnmpCounters{{"Udp", {{"RcvbufErrors", 30}, {"IgnoredMulti", 8}}}};
  before_.netstat = procfs::SnmpCounters{{"TcpExt", {{"TCPRcvQDrop", 0}, {"TCPHPHits", 0}}}};
  after_.netstat = procfs::SnmpCounters{{"TcpExt", {{"TCPRcvQDrop", 4}, {"TCPHPHits", 900}}}};
  const std::vector<SeriesSample> series = Series();
  EXPECT_THAT(Value(series, "nictune_netstat_udp_rcvbuf_errors_total", {}),
              Optional(DoubleEq(10.0)));
  EXPECT_THAT(Value(series, "nictune_netstat_tcpext_rcvq_drop_total", {}),
              Optional(DoubleEq(2.0)));
  // Counters /metrics leaves to node_exporter stay out of history too: the store keeps the
  // series budget's families only.
  std::set<std::string> netstat_names;
  for (const SeriesSample& s : series) {
    if (s.name.starts_with("nictune_netstat_")) netstat_names.insert(s.name);
  }
  EXPECT_EQ(netstat_names, (std::set<std::string>{"nictune_netstat_tcpext_rcvq_drop_total",
                                                  "nictune_netstat_udp_rcvbuf_errors_total"}));
}

TEST(StoreWindowSeriesNamespacesTest, OtherNamespacesNapisAndTruesizeAreOneSeriesAsOnMetrics) {
  model::Window window{.seconds = 1};
  const auto napi = [](uint32_t id, bool other_namespace) {
    model::NapiWindow n{.napi_id = id, .device = "eth0", .polls_per_s = 10, .work_per_s = 40};
    n.other_namespace = other_namespace;
    return n;
  };
  window.napis = {napi(8193, false), napi(8200, true), napi(8201, true)};
  const std::vector<SeriesSample> series = WindowSeries(window, {});
  EXPECT_THAT(Value(series, "nictune_napi_polls_total", {{"device", "eth0"}, {"napi_id", "8193"}}),
              Optional(DoubleEq(10.0)));
  EXPECT_THAT(Value(series, "nictune_napi_packets_total", {{"device", "other_namespaces"}}),
              Optional(DoubleEq(80.0)));

  // Two containers' eth0 (ifindex 2 in each): one mean over both, weighted by their samples.
  model::TruesizeWindow container_a{.ifindex = 2, .device = "eth0", .samples = 10,
                                    .mean_bytes = 1000};
  container_a.other_namespace = true;
  model::TruesizeWindow container_b = container_a;
  container_b.samples = 30;
  container_b.mean_bytes = 2000;
  window.truesize = {container_a, container_b};
  EXPECT_THAT(Value(WindowSeries(window, {}), "nictune_rx_truesize_mean_bytes",
                    {{"device", "other_namespaces"}}),
              Optional(DoubleEq(1750.0)));
}

TEST_F(StoreWindowSeriesTest, EmulatedNicInterruptsAreKeptPerSecondPerDevice) {
  driver::emulated::EmulatedNicCounters start;
  start.elapsed_ns = 5 * static_cast<int64_t>(kSecond);
  start.interrupts = 1000;
  driver::emulated::EmulatedNicCounters end = start;
  end.elapsed_ns += 2 * static_cast<int64_t>(kSecond);
  end.interrupts += 448;
  end.delivered += 40000;
  before_.emulated_nics = {{.device = "emu0", .counters = start}};
  after_.emulated_nics = {{.device = "emu0", .counters = end}};
  const std::vector<SeriesSample> series = Series();
  EXPECT_THAT(Value(series, "nictune_emulated_nic_interrupts_total", {{"device", "emu0"}}),
              Optional(DoubleEq(224.0)));
  EXPECT_THAT(Value(series, "nictune_emulated_nic_delivered_packets_total", {{"device", "emu0"}}),
              Optional(DoubleEq(20000.0)));
  EXPECT_THAT(Value(series, "nictune_emulated_nic_missed_packets_total", {{"device", "emu0"}}),
              Optional(DoubleEq(0.0)));
}

TEST(StoreWindowSeriesPollersTest, ThreadedPollersAreTheirShareOfACpuAsOnMetrics) {
  model::Window window{.seconds = 2};
  window.napi_pollers = {
      {.poller = {.pid = 700, .device = "eth1", .queue = 0, .napi_id = 8193}, .cpu_share = 0.25},
      {.poller = {.pid = 801, .device = "emu0", .queue = 0}, .cpu_share = 0.1},
      {.poller = {.pid = 802, .device = "emu0", .queue = 1}, .cpu_share = 0.2}};
  std::map<Labels, double> shares;
  for (const SeriesSample& s : WindowSeries(window, {})) {
    if (s.name == metrics::family::kNapiPollerCpuSecondsTotal) shares[s.labels] = s.value;
  }
  ASSERT_EQ(shares.size(), 2u);
  EXPECT_DOUBLE_EQ((shares[{{"device", "eth1"}, {"napi_id", "8193"}}]), 0.25);
  EXPECT_NEAR((shares[{{"device", "emu0"}}]), 0.3, 1e-12);
}

TEST_F(StoreWindowSeriesTest, CpuTicksBecomeSharesPerMode) {
  // 2 s at 100 Hz on CPU1: 200 ticks, 50 in softirq and 150 idle.
  for (auto& cpu : after_.stat->cpus) {
    if (cpu.cpu == 1) {
      cpu.softirq += 50;
      cpu.idle += 150;
    }
  }
  const std::vector<SeriesSample> series = Series();
  EXPECT_THAT(Value(series, "nictune_cpu_seconds_total", {{"cpu", "1"}, {"mode", "softirq"}}),
              Optional(DoubleEq(0.25)));
  EXPECT_THAT(Value(series, "nictune_cpu_seconds_total", {{"cpu", "1"}, {"mode", "idle"}}),
              Optional(DoubleEq(0.75)));
}

TEST_F(StoreWindowSeriesTest, OnlyTheTopSocketsGetSeries) {
  model::Window window;
  window.seconds = 2;
  for (uint64_t cookie = 1; cookie <= 5; ++cookie) {
    model::SocketWindow s;
    s.key = {.cookie = cookie, .family = 2, .protocol = 17, .local_port = 5000, .netns_inode = 7};
    s.rcvqueue_full = cookie == 3 ? 40 : 0;  // the one dropping ranks first
    s.peak_fill = 0.1 * static_cast<double>(cookie);
    window.sockets.push_back(s);
  }
  const std::vector<SeriesSample> series = WindowSeries(window, {.max_sockets = 2});
  std::set<std::string> sockets;
  for (const SeriesSample& s : series) {
    for (const auto& [key, value] : s.labels) {
      if (key == "socket") sockets.insert(value);
    }
  }
  EXPECT_EQ(sockets, (std::set<std::string>{"3", "5"}));
  EXPECT_THAT(Value(series, "nictune_socket_rcvqueue_full_total",
                    {{"netns", "7"}, {"port", "5000"}, {"proto", "udp"}, {"socket", "3"}}),
              Optional(DoubleEq(20.0)));
}

// A drain gap no read timed (the per-packet probes off, a kernel without the read tracepoint)
// is unknown: no sample, where a 0 would read as a reader that never pauses.
TEST_F(StoreWindowSeriesTest, ADrainGapNoReadTimedIsNotStored) {
  model::Window window;
  window.seconds = 1;
  for (const double seen_below_s : {0.0, 0.012}) {
    model::SocketWindow s;
    s.key = {.cookie = seen_below_s > 0 ? 2u : 1u,
             .family = 2,
             .protocol = 17,
             .local_port = 5000,
             .netns_inode = 7};
    s.peak_fill = 0.5;
    s.longest_drain_gap_s = 0.0004;
    s.drain_gap_seen_below_s = seen_below_s;
    window.sockets.push_back(s);
  }
  const std::vector<SeriesSample> series = WindowSeries(window, {});
  const auto gap = [&series](const char* cookie) {
    return Value(series, metrics::family::kSocketDrainGapSeconds,
                 {{"netns", "7"}, {"port", "5000"}, {"proto", "udp"}, {"socket", cookie}});
  };
  EXPECT_EQ(gap("1"), std::nullopt);
  EXPECT_THAT(gap("2"), Optional(DoubleEq(0.0004)));
  EXPECT_THAT(Value(series, metrics::family::kSocketReceiveBufferPeakFillRatio,
                    {{"netns", "7"}, {"port", "5000"}, {"proto", "udp"}, {"socket", "1"}}),
              Optional(DoubleEq(0.5)));
}

TEST_F(StoreWindowSeriesTest, EveryStoredNameIsACatalogFamilysOrHistorysOwnMean) {
  absl::StatusOr<model::Window> window = model::ComputeWindow(before_, after_);
  ASSERT_TRUE(window.ok()) << window.status();
  model::NapiWindow napi{.napi_id = 8193, .device = "eth0", .polls_per_s = 10, .work_per_s = 40};
  napi.work_histogram = {1, 2, 3};
  window->napis = {napi};
  window->truesize = {{.ifindex = 2, .device = "eth0", .samples = 10, .mean_bytes = 1000}};
  model::SocketWindow socket;
  socket.key = {.cookie = 1, .family = 2, .protocol = 17, .local_port = 5000, .netns_inode = 7};
  socket.rcvqueue_full = 4;
  socket.peak_fill = 0.5;
  window->sockets = {socket};
  std::set<std::string> names;
  for (const SeriesSample& s : WindowSeries(*window, {})) names.insert(s.name);
  for (const char* fed : {"nictune_softnet_processed_total", "nictune_napi_polls_total",
                          metrics::family::kRxTruesizeMeanBytes,
                          "nictune_socket_rcvqueue_full_total"}) {
    EXPECT_TRUE(names.contains(fed)) << fed << " not stored";
  }
  for (const std::string& name : names) {
    EXPECT_TRUE(metrics::FindFigure(name) != nullptr ||
                name == metrics::family::kRxTruesizeMeanBytes)
        << name << " is stored but is not a family of the figure catalog";
  }
}

}  // namespace
}  // namespace nictune::store
