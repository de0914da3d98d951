// SPDX-License-Identifier: Apache-2.0
#include <optional>
#include <set>
#include <sstream>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "agent/build_info.h"
#include "agent/metrics/exporter.h"
#include "agent/procfs/interrupts.h"
#include "agent/procfs/read_file.h"
#include "agent/procfs/snmp.h"
#include "agent/procfs/softirqs.h"
#include "agent/procfs/softnet_stat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/build_paths.h"

namespace nictune::metrics {
namespace {

using ::testing::AllOf;
using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr uint64_t kSecond = 1'000'000'000;

std::string Fixture(const std::string& relative) {
  const auto text = procfs::ReadFile(testing_support::FixturesDir() + "/" + relative);
  EXPECT_TRUE(text.ok()) << text.status();
  return text.ok() ? *text : std::string();
}

std::vector<std::string> Lines(const std::string& text) {
  return absl::StrSplit(text, '\n', absl::SkipEmpty());
}

// Lines that carry a sample (not # HELP / # TYPE) whose name starts with `prefix`.
std::vector<std::string> Samples(const std::string& text, const std::string& prefix) {
  std::vector<std::string> out;
  for (const auto& line : Lines(text)) {
    if (absl::StartsWith(line, prefix)) out.push_back(line);
  }
  return out;
}

model::Snapshot FromFixtures() {
  model::Snapshot s;
  s.monotonic_ns = 10 * kSecond;
  auto interrupts = procfs::ParseInterrupts(Fixture("interrupts/x86_64_6.18_2cpu.txt"));
  auto softirqs = procfs::ParseSoftirqs(Fixture("softirqs/x86_64_6.18_2cpu.txt"));
  auto softnet = procfs::ParseSoftnetStat(Fixture("softnet_stat/x86_64_6.18_2cpu_15col.txt"));
  auto snmp = procfs::ParseSnmp(Fixture("snmp/x86_64_6.18.txt"), "/proc/net/snmp");
  EXPECT_TRUE(interrupts.ok() && softirqs.ok() && softnet.ok() && snmp.ok());
  if (interrupts.ok()) s.interrupts = *interrupts;
  if (softirqs.ok()) s.softirqs = *softirqs;
  if (softnet.ok()) s.softnet = *softnet;
  if (snmp.ok()) s.snmp = *snmp;
  s.devices = std::vector<procfs::NetDevice>{
      {.name = "veth0", .ifindex = 4, .statistics = {{"rx_packets", 1200}, {"rx_dropped", 3}}}};
  s.sources = {{.name = "/proc/interrupts", .source = model::Source::kProcfs, .in_use = true},
               {.name = "bpf", .source = model::Source::kBpf, .detail = "not root"}};
  return s;
}

TEST(MetricsExporterTest, RecordedProcfsTextBecomesNodeExporterLikeCounters) {
  MetricsExporter exporter;
  exporter.Update(FromFixtures(), model::Window{}, AgentCost{});
  const auto lines = Lines(exporter.Text());
  // The fixture's rows "31: 0 95 PCI-MSIX-0000:00:01.0 3-edge virtio0-stats" and NET_RX 864 1046;
  // interrupts per irq, summed over CPUs, unless asked per CPU (below).
  EXPECT_THAT(lines, Contains("nictune_interrupts_total{chip=\"PCI-MSIX-0000:00:01.0\","
                              "devices=\"virtio0-stats\",irq=\"31\"} 95"));
  EXPECT_THAT(lines, Contains("nictune_softirqs_total{cpu=\"1\",vector=\"NET_RX\"} 1046"));
  EXPECT_THAT(lines, Contains("nictune_softirqs_total{cpu=\"0\",vector=\"NET_TX\"} 4"));
  // softnet row 2 is 0x7fc processed on the CPU its index column names.
  EXPECT_THAT(lines, Contains("nictune_softnet_processed_total{cpu=\"1\"} 2044"));
  EXPECT_THAT(lines, Contains("nictune_softnet_times_squeezed_total{cpu=\"0\"} 0"));
  EXPECT_THAT(lines, Contains("nictune_softnet_backlog_packets{cpu=\"0\"} 0"));
  EXPECT_THAT(lines, Contains("nictune_netstat_udp_in_datagrams_total 26"));
  EXPECT_THAT(lines, Contains("nictune_netstat_udp_out_datagrams_total 27"));
  EXPECT_THAT(lines, Contains("nictune_network_receive_packets_total{device=\"veth0\"} 1200"));
  EXPECT_THAT(lines, Contains("nictune_network_receive_dropped_total{device=\"veth0\"} 3"));
  EXPECT_THAT(lines, Contains("nictune_source_up{kind=\"procfs\",source=\"/proc/interrupts\"} 1"));
  EXPECT_THAT(lines, Contains("nictune_source_up{kind=\"bpf\",source=\"bpf\"} 0"));
  // Lines that never fired (irq 28 virtio0-config) are not exported.
  for (const auto& line : lines) EXPECT_THAT(line, Not(HasSubstr("virtio0-config")));
}

TEST(MetricsExporterTest, InterruptsPerCpuOnlyWhenAsked) {
  MetricsExporter exporter({.interrupts_per_cpu = true});
  model::Snapshot s = FromFixtures();
  s.bpf = driver::BpfCounters{.irqs = {{.irq = 34, .cpu = 1, .count = 7, .time_ns = 10}}};
  exporter.Update(s, model::Window{}, AgentCost{});
  const auto lines = Lines(exporter.Text());
  EXPECT_THAT(lines, Contains("nictune_interrupts_total{chip=\"PCI-MSIX-0000:00:01.0\",cpu=\"1\","
                              "devices=\"virtio0-stats\",irq=\"31\"} 95"));
  EXPECT_THAT(lines, Contains("nictune_interrupts_total{chip=\"PCI-MSIX-0000:00:01.0\",cpu=\"0\","
                              "devices=\"virtio0-stats\",irq=\"31\"} 0"));
  EXPECT_THAT(lines, Contains("nictune_irq_handler_calls_total{cpu=\"1\",irq=\"34\"} 7"));

  MetricsExporter summed;
  summed.Update(s, model::Window{}, AgentCost{});
  for (const auto& line : Samples(summed.Text(), "nictune_i")) {
    EXPECT_THAT(line, Not(HasSubstr("cpu=")));
  }
  EXPECT_THAT(Lines(summed.Text()), Contains("nictune_irq_handler_calls_total{irq=\"34\"} 7"));
}

TEST(MetricsExporterTest, PerCpuFamiliesAreSummedOverCpusWhenAsked) {
  MetricsExporter exporter({.per_cpu = false});
  model::Snapshot s = FromFixtures();
  s.bpf = driver::BpfCounters{.irqs = {{.irq = 34, .cpu = 0, .count = 7, .time_ns = 1'000'000},
                                       {.irq = 35, .cpu = 1, .count = 3, .time_ns = 500'000}}};
  exporter.Update(s, model::Window{}, AgentCost{});
  const std::string text = exporter.Text();
  // NET_RX 864 + 1046 in the fixture; softnet rows 0x7fc on CPU 1 and what CPU 0 processed.
  EXPECT_THAT(Lines(text), Contains("nictune_softirqs_total{vector=\"NET_RX\"} 1910"));
  EXPECT_THAT(Lines(text), Contains("nictune_hardirq_seconds_total 0.0015"));
  for (const char* family : {"nictune_softirqs_total", "nictune_softnet_", "nictune_hardirq_"}) {
    for (const auto& line : Samples(text, family)) EXPECT_THAT(line, Not(HasSubstr("cpu=")));
  }
  ASSERT_EQ(Samples(text, "nictune_softnet_processed_total").size(), 1u);
  MetricsExporter per_cpu;
  per_cpu.Update(s, model::Window{}, AgentCost{});
  double summed = 0;
  for (const auto& line : Samples(per_cpu.Text(), "nictune_softnet_processed_total{")) {
    summed += std::stod(line.substr(line.rfind(' ') + 1));
  }
  EXPECT_THAT(Lines(text), Contains(absl::StrCat("nictune_softnet_processed_total ",
                                                 static_cast<uint64_t>(summed))));
}

TEST(MetricsExporterTest, EveryFamilyIsTypedAndItsHelpNamesItsSource) {
  MetricsExporter exporter;
  model::Snapshot snapshot = FromFixtures();
  snapshot.emulated_nics = {{.device = "emu0"}};
  exporter.Update(snapshot, model::Window{}, AgentCost{});
  int families = 0;
  for (const auto& line : Lines(exporter.Text())) {
    if (!absl::StartsWith(line, "# HELP ")) continue;
    ++families;
    EXPECT_TRUE(absl::StrContains(line, "bpf") || absl::StrContains(line, "procfs") ||
                absl::StrContains(line, "sysfs") || absl::StrContains(line, "getrusage") ||
                absl::StrContains(line, "nictuned") ||
                absl::StrContains(line, "emulated NIC counters"))
        << line;
    // Ours are nictune_*; process_* are the names every Prometheus client gives its own process.
    EXPECT_TRUE(absl::StartsWith(line, "# HELP nictune_") ||
                absl::StartsWith(line, "# HELP process_"))
        << line;
  }
  EXPECT_GT(families, 20);  // families without a series are not printed
}

TEST(MetricsExporterTest, SoftnetCounterKeepsRisingAcrossTheKernelsU32Wrap) {
  MetricsExporter exporter;
  model::Snapshot s;
  s.softnet = {{procfs::SoftnetRow{.cpu = 1, .processed = 0xFFFFFFF0u}}};
  exporter.Update(s, {}, {});
  EXPECT_THAT(Lines(exporter.Text()),
              Contains("nictune_softnet_processed_total{cpu=\"1\"} 4294967280"));
  s.softnet = {{procfs::SoftnetRow{.cpu = 1, .processed = 0x10u}}};
  exporter.Update(s, {}, {});
  EXPECT_THAT(Lines(exporter.Text()),
              Contains("nictune_softnet_processed_total{cpu=\"1\"} 4294967312"));
}

TEST(MetricsExporterTest, CounterThatRestartedIsExportedAsAReset) {
  MetricsExporter exporter;
  model::Snapshot s;
  s.bpf = driver::BpfCounters{.irqs = {{.irq = 34, .cpu = 0, .count = 100, .time_ns = 2'000'000}}};
  exporter.Update(s, {}, {});
  EXPECT_THAT(Lines(exporter.Text()), Contains("nictune_irq_handler_calls_total{irq=\"34\"} 100"));
  EXPECT_THAT(Lines(exporter.Text()),
              Contains("nictune_irq_handler_seconds_total{irq=\"34\"} 0.002"));
  // The probes were reloaded: their counters start again from zero.
  s.bpf->irqs[0].count = 40;
  exporter.Update(s, {}, {});
  EXPECT_THAT(Lines(exporter.Text()), Contains("nictune_irq_handler_calls_total{irq=\"34\"} 40"));
}

TEST(MetricsExporterTest, SoftirqSecondsAddUpTheWindowsEstimates) {
  // The probes timed 1 ms of NET_RX in slots; the windows scaled that to 0.5 s, then 0.25 s.
  MetricsExporter exporter;
  model::Snapshot s;
  s.bpf = driver::BpfCounters{
      .softirqs = {{.vector = 3, .cpu = 1, .count = 10, .time_ns = 1'000'000, .timed = 10}}};
  model::Window w;
  w.softirqs = {{.vector = 3, .cpu = 1, .count = 400'000, .time_ns = 5e8}};
  exporter.Update(s, w, {});
  EXPECT_THAT(Lines(exporter.Text()),
              Contains("nictune_softirq_seconds_total{cpu=\"1\",vector=\"NET_RX\"} 0.5"));
  w.softirqs[0].time_ns = 2.5e8;
  exporter.Update(s, w, {});
  EXPECT_THAT(Lines(exporter.Text()),
              Contains("nictune_softirq_seconds_total{cpu=\"1\",vector=\"NET_RX\"} 0.75"));
  // An interval without NET_RX on that CPU leaves the total where it was.
  exporter.Update(s, {}, {});
  EXPECT_THAT(Lines(exporter.Text()),
              Contains("nictune_softirq_seconds_total{cpu=\"1\",vector=\"NET_RX\"} 0.75"));
}

TEST(MetricsExporterTest, SoftirqDutyCycleShowsHowLongTimingWasOff) {
  MetricsExporter exporter;
  model::Snapshot s;
  s.bpf = driver::BpfCounters{.softirq_duty = {.untimed_ns = 2'500'000'000}};
  exporter.Update(s, {}, {});
  EXPECT_THAT(Lines(exporter.Text()), Contains("nictune_softirq_untimed_seconds_total 2.5"));
  // Without the probes the series go, as the other BPF ones do.
  s.bpf.reset();
  exporter.Update(s, {}, {});
  EXPECT_TRUE(Samples(exporter.Text(), "nictune_softirq_untimed_seconds_total").empty());
}

TEST(MetricsExporterTest, EveryHookShowsItsSlotsAndWhatItsLinkOperationsCost) {
  MetricsExporter exporter;
  model::Snapshot s;
  s.bpf = driver::BpfCounters{};
  s.bpf->hooks = {{.hook = "softirq", .slots = 9, .link_cpu_ns = 5'600'000},
                  {.hook = "drops", .slots = 40, .link_cpu_ns = 0}};
  exporter.Update(s, {}, {});
  const std::vector<std::string> lines = Lines(exporter.Text());
  EXPECT_THAT(lines, Contains("nictune_probe_slots_total{hook=\"softirq\"} 9"));
  EXPECT_THAT(lines, Contains("nictune_probe_link_cpu_seconds_total{hook=\"softirq\"} 0.0056"));
  // Gated: its slots open and close a gate, no link operation.
  EXPECT_THAT(lines, Contains("nictune_probe_slots_total{hook=\"drops\"} 40"));
  EXPECT_THAT(lines, Contains("nictune_probe_link_cpu_seconds_total{hook=\"drops\"} 0"));
  s.bpf.reset();
  exporter.Update(s, {}, {});
  EXPECT_TRUE(Samples(exporter.Text(), "nictune_probe_slots_total").empty());
  EXPECT_TRUE(Samples(exporter.Text(), "nictune_probe_link_cpu_seconds_total").empty());
}

TEST(MetricsExporterTest, SeriesOfVanishedIrqsDevicesAndSourcesAreRemoved) {
  MetricsExporter exporter;
  model::Snapshot s = FromFixtures();
  s.bpf = driver::BpfCounters{.irqs = {{.irq = 34, .cpu = 0, .count = 5, .time_ns = 10}}};
  exporter.Update(s, {}, {});
  ASSERT_FALSE(Samples(exporter.Text(), "nictune_interrupts_total{").empty());
  ASSERT_FALSE(Samples(exporter.Text(), "nictune_irq_handler_calls_total{").empty());

  // irq 31 was freed, veth0 deleted, the probes detached, /proc/softirqs unreadable.
  auto& lines = s.interrupts->lines;
  std::erase_if(lines, [](const procfs::InterruptLine& l) { return l.id == "31"; });
  s.devices->clear();
  s.bpf.reset();
  s.softirqs.reset();
  exporter.Update(s, {}, {});
  const std::string text = exporter.Text();
  EXPECT_THAT(text, Not(HasSubstr("irq=\"31\"")));
  EXPECT_THAT(text, HasSubstr("irq=\"32\""));
  EXPECT_THAT(text, Not(HasSubstr("veth0")));
  EXPECT_TRUE(Samples(text, "nictune_irq_handler_calls_total{").empty());
  EXPECT_TRUE(Samples(text, "nictune_softirqs_total{").empty());
}

TEST(MetricsExporterTest, EmulatedNicCountersPerDeviceVanishWithTheNic) {
  MetricsExporter exporter;
  model::Snapshot s;
  driver::emulated::EmulatedNicCounters counters;
  counters.interrupts = 324;
  counters.delivered = 9000;
  counters.missed = 7;
  s.emulated_nics = {{.device = "emu0", .counters = counters}};
  exporter.Update(s, {}, {});
  const std::string text = exporter.Text();
  EXPECT_THAT(Lines(text), Contains("nictune_emulated_nic_interrupts_total{device=\"emu0\"} 324"));
  EXPECT_THAT(Lines(text),
              Contains("nictune_emulated_nic_delivered_packets_total{device=\"emu0\"} 9000"));
  EXPECT_THAT(Lines(text),
              Contains("nictune_emulated_nic_missed_packets_total{device=\"emu0\"} 7"));
  // The NIC stopped answering: its series go rather than repeat the last count.
  s.emulated_nics.clear();
  exporter.Update(s, {}, {});
  EXPECT_TRUE(Samples(exporter.Text(), "nictune_emulated_nic_").empty()) << exporter.Text();
}

model::SocketWindow SocketInWindow(uint64_t cookie, uint64_t full, double fill) {
  return {.key = {.cookie = cookie, .protocol = 17, .local_port = static_cast<uint16_t>(cookie)},
          .rcvbuf = 212992,
          .peak_fill = fill,
          .rcvqueue_full = full};
}

driver::SocketFill SocketCounters(uint64_t cookie, uint64_t enqueues) {
  return {.key = {.cookie = cookie,
                  .protocol = 17,
                  .local_port = static_cast<uint16_t>(cookie),
                  .netns_inode = 4026531840u},
          .enqueues = enqueues,
          .rcvbuf = 212992};
}

std::set<std::string> ExportedSockets(const std::string& text) {
  std::set<std::string> sockets;
  for (const auto& line : Samples(text, "nictune_socket_enqueues_total{")) {
    const auto start = line.find("socket=\"") + 8;
    sockets.insert(line.substr(start, line.find('"', start) - start));
  }
  return sockets;
}

TEST(MetricsExporterTest, OnlyTheTopSocketsByDropsThenFillGetSeries) {
  MetricsExporter exporter({.max_sockets = 2});
  model::Snapshot s;
  s.bpf = driver::BpfCounters{.sockets = {SocketCounters(1001, 10), SocketCounters(1002, 20),
                                          SocketCounters(1003, 30), SocketCounters(1004, 40),
                                          SocketCounters(1005, 50)}};
  model::Window w;
  w.sockets = {SocketInWindow(1001, 0, 0.9), SocketInWindow(1002, 7, 0.5),
               SocketInWindow(1003, 0, 0.6), SocketInWindow(1004, 0, 0.99),
               SocketInWindow(1005, 0, 0.1)};
  w.sockets[3].drain_gap_seen_below_s = 0.012;  // the probe timed its reads, in 12 ms slots
  w.sockets[3].longest_drain_gap_s = 0.002;
  w.sockets[3].open_drain_wait_s = 0.003;  // its reader 3 ms into a pause
  exporter.Update(s, w, {});
  std::string text = exporter.Text();
  EXPECT_EQ(ExportedSockets(text), (std::set<std::string>{"1002", "1004"}));
  EXPECT_THAT(Lines(text), Contains("nictune_socket_enqueues_total{netns=\"4026531840\",port="
                                    "\"1002\",proto=\"udp\",socket=\"1002\"} 20"));
  EXPECT_THAT(Lines(text), Contains("nictune_socket_receive_buffer_peak_fill_ratio{netns="
                                    "\"4026531840\",port=\"1004\",proto=\"udp\",socket=\"1004\"} "
                                    "0.99"));

  // The drain gap where a read was timed (1004's reads, say: the wait still open is the longer),
  // none where none was (1002's).
  EXPECT_THAT(Lines(text), Contains("nictune_socket_drain_gap_seconds{netns=\"4026531840\",port="
                                    "\"1004\",proto=\"udp\",socket=\"1004\"} 0.003"));
  EXPECT_THAT(text, Not(HasSubstr("nictune_socket_drain_gap_seconds{netns=\"4026531840\",port="
                                  "\"1002\"")));

  // Next window socket 1005 overflows and 1004 went quiet: 1004's series go.
  w.sockets = {SocketInWindow(1002, 1, 0.5), SocketInWindow(1005, 3, 1.0)};
  exporter.Update(s, w, {});
  text = exporter.Text();
  EXPECT_EQ(ExportedSockets(text), (std::set<std::string>{"1002", "1005"}));
  EXPECT_THAT(text, Not(HasSubstr("socket=\"1004\"")));
}

TEST(MetricsExporterTest, DropsAreSeriesPerReasonProtocolAndDeviceWhateverThePortsAndNamespaces) {
  MetricsExporter exporter;
  const auto drop = [](std::string reason, uint16_t port, uint64_t cookie, uint64_t count) {
    return model::DropWindow{.reason = reason == "NO_SOCKET" ? 2u : 6u,
                             .reason_name = reason,
                             .protocol = 0x0800,
                             .l4_protocol = 17,
                             .device = "veth1",
                             .local_port = port,
                             .socket_cookie = cookie,
                             .count = count};
  };
  model::Window w{.seconds = 1};
  w.drops = {drop("NO_SOCKET", 31337, 0, 4), drop("NO_SOCKET", 31338, 0, 6),
             drop("SOCKET_RCVBUFF", 5000, 77, 9), drop("SOCKET_RCVBUFF", 5000, 78, 1)};
  // Two containers' eth0, and drops that found the probe's map full.
  model::DropWindow container_a = drop("NO_SOCKET", 53, 0, 5);
  container_a.device = "eth0@netns 4026532001";
  container_a.other_namespace = true;
  model::DropWindow container_b = container_a;
  container_b.device = "eth0@netns 4026532002";
  container_b.count = 2;
  model::DropWindow unattributed{
      .reason = 2, .reason_name = "NO_SOCKET", .count = 8, .map_full = true};
  // Receive-buffer drops only Udp.RcvbufErrors counted: the sample saw none, so no device.
  model::DropWindow unseen{.reason_name = "SOCKET_RCVBUFF",
                           .protocol = 0x0800,
                           .l4_protocol = 17,
                           .count = 3,
                           .unseen_by_sample = true};
  w.drops.insert(w.drops.end(), {container_a, container_b, unattributed, unseen});
  exporter.Update({}, w, {});
  exporter.Update({}, w, {});  // a second window adds up
  const auto lines = Samples(exporter.Text(), "nictune_skb_drops_total{");
  EXPECT_THAT(lines, testing::UnorderedElementsAre(
                         "nictune_skb_drops_total{device=\"veth1\",proto=\"udp\","
                         "reason=\"NO_SOCKET\"} 20",
                         "nictune_skb_drops_total{device=\"veth1\",proto=\"udp\","
                         "reason=\"SOCKET_RCVBUFF\"} 20",
                         "nictune_skb_drops_total{device=\"other_namespaces\",proto=\"udp\","
                         "reason=\"NO_SOCKET\"} 14",
                         "nictune_skb_drops_total{device=\"unattributed\",proto=\"unattributed\","
                         "reason=\"NO_SOCKET\"} 16",
                         "nictune_skb_drops_total{device=\"unattributed\",proto=\"udp\","
                         "reason=\"SOCKET_RCVBUFF\"} 6"));
}

TEST(MetricsExporterTest, MapPressureIsExportedPerMap) {
  MetricsExporter exporter;
  model::Snapshot s;
  s.bpf = driver::BpfCounters{
      .maps = {
          {.map = "drop_counts", .entries = 8192, .capacity = 8192, .no_room = 31, .pruned = 5}}};
  exporter.Update(s, {}, {});
  const auto lines = Lines(exporter.Text());
  EXPECT_THAT(lines, Contains("nictune_bpf_map_entries{map=\"drop_counts\"} 8192"));
  EXPECT_THAT(lines, Contains("nictune_bpf_map_capacity_entries{map=\"drop_counts\"} 8192"));
  EXPECT_THAT(lines, Contains("nictune_bpf_map_no_room_total{map=\"drop_counts\"} 31"));
  EXPECT_THAT(lines, Contains("nictune_bpf_map_pruned_keys_total{map=\"drop_counts\"} 5"));
}

TEST(MetricsExporterTest, NapiWorkHistogramHasABucketForAWholeBudget) {
  MetricsExporter exporter;
  model::NapiWindow napi{.napi_id = 8193,
                         .device = "eth9",
                         .polls = 10,
                         .polls_per_s = 10,
                         .work_per_s = 200,
                         .packets_per_poll = 20,
                         .budget_exhausted_fraction = 0.2,
                         .budget = 64,
                         .tx_completions_per_s = 5};
  napi.work_histogram.assign(driver::kNapiWorkBuckets, 0);
  napi.work_histogram[0] = 3;   // polls that found nothing
  napi.work_histogram[3] = 4;   // le 4
  napi.work_histogram[50] = 1;  // le 63
  napi.work_histogram[64] = 2;  // le 64: the whole budget
  model::Window w{.seconds = 1};
  w.napis = {napi};
  exporter.Update({}, w, {});
  const auto lines = Lines(exporter.Text());
  const std::string labels = "device=\"eth9\",napi_id=\"8193\"";
  EXPECT_THAT(lines, Contains("nictune_napi_polls_total{" + labels + "} 10"));
  EXPECT_THAT(lines, Contains("nictune_napi_packets_total{" + labels + "} 200"));
  EXPECT_THAT(lines, Contains("nictune_napi_budget_exhausted_total{" + labels + "} 2"));
  EXPECT_THAT(lines, Contains("nictune_napi_budget_packets{" + labels + "} 64"));
  const std::string bucket = "nictune_napi_poll_work_packets_bucket{" + labels + ",le=\"";
  EXPECT_THAT(lines, Contains(bucket + "0\"} 3"));
  EXPECT_THAT(lines, Contains(bucket + "2\"} 3"));
  EXPECT_THAT(lines, Contains(bucket + "4\"} 7"));
  EXPECT_THAT(lines, Contains(bucket + "63\"} 8"));
  EXPECT_THAT(lines, Contains(bucket + "64\"} 10"));
  EXPECT_THAT(lines, Contains(bucket + "+Inf\"} 10"));
  EXPECT_THAT(lines, Contains("nictune_napi_poll_work_packets_sum{" + labels + "} 200"));
  EXPECT_THAT(lines, Contains("nictune_napi_poll_work_packets_count{" + labels + "} 10"));
}

// Containers' NAPI instances (a veth end in each) are one series, however many containers run.
TEST(MetricsExporterTest, OtherNamespacesNapisAreOneSeries) {
  MetricsExporter exporter;
  const auto napi = [](uint32_t id, std::string device, bool other_namespace) {
    model::NapiWindow n{.napi_id = id, .device = std::move(device), .polls = 10,
                        .polls_per_s = 10, .work_per_s = 30, .budget = 64};
    n.other_namespace = other_namespace;
    return n;
  };
  model::Window w{.seconds = 1};
  w.napis = {napi(8193, "eth9", false), napi(8200, "eth0@netns 4026532001", true),
             napi(8201, "eth0@netns 4026532002", true), napi(8202, "eth0@netns 4026532003", true)};
  exporter.Update({}, w, {});
  EXPECT_THAT(Samples(exporter.Text(), "nictune_napi_polls_total{"),
              testing::UnorderedElementsAre(
                  "nictune_napi_polls_total{device=\"eth9\",napi_id=\"8193\"} 10",
                  "nictune_napi_polls_total{device=\"other_namespaces\"} 30"));
}

TEST(MetricsExporterTest, ThreadedNapiPollersCpuTimeAddsUpTheWindowsShares) {
  MetricsExporter exporter;
  const auto poller = [](uint32_t pid, std::string device, std::optional<uint32_t> napi_id,
                         double share) {
    return model::NapiPollerWindow{
        .poller = {.pid = pid, .device = std::move(device), .queue = 0, .napi_id = napi_id},
        .cpu_share = share};
  };
  model::Window w{.seconds = 2};
  // eth1's instance 8193, and an emulated NIC's two queues, whose TAP instances have no id.
  w.napi_pollers = {poller(700, "eth1", 8193, 0.25), poller(801, "emu0", std::nullopt, 0.125),
                    poller(802, "emu0", std::nullopt, 0.25)};
  // Two containers' veths, whose pollers are known by their names alone.
  for (const uint32_t pid : {950u, 951u}) {
    w.napi_pollers.push_back({.poller = {.pid = pid, .other_namespace = true}, .cpu_share = 0.5});
  }
  exporter.Update({}, w, {});
  // The instance's poller exited and another took its instance.
  w.napi_pollers = {poller(900, "eth1", 8193, 0.5)};
  exporter.Update({}, w, {});
  EXPECT_THAT(Samples(exporter.Text(), "nictune_napi_poller_cpu_seconds_total{"),
              testing::UnorderedElementsAre(
                  "nictune_napi_poller_cpu_seconds_total{device=\"eth1\",napi_id=\"8193\"} 1.5",
                  "nictune_napi_poller_cpu_seconds_total{device=\"emu0\"} 0.75",
                  "nictune_napi_poller_cpu_seconds_total{device=\"other_namespaces\"} 2"));
}

TEST(MetricsExporterTest, AgentCostAndProbeRunTimes) {
  MetricsExporter exporter;
  AgentCost cost{.process = ProcessUsage{.cpu_seconds = 1.5,
                                         .resident_bytes = 8 << 20,
                                         .virtual_bytes = 64 << 20,
                                         .open_fds = 12,
                                         .max_fds = 1024},
                 .probes = {{.name = "napi_poll", .run_cnt = 1000, .run_time_ns = 35'000}},
                 .sampling_seconds = 0.00025};
  exporter.Update({}, {}, cost);
  const auto lines = Lines(exporter.Text());
  EXPECT_THAT(lines,
              Contains("nictune_build_info{version=\"" + std::string(agent::Version()) + "\"} 1"));
  EXPECT_THAT(lines, Contains("process_cpu_seconds_total 1.5"));
  EXPECT_THAT(lines, Contains("process_resident_memory_bytes 8388608"));
  EXPECT_THAT(lines, Contains("process_virtual_memory_bytes 67108864"));
  EXPECT_THAT(lines, Contains("process_open_fds 12"));
  EXPECT_THAT(lines, Contains("process_max_fds 1024"));
  EXPECT_THAT(lines, Contains(::testing::StartsWith("process_start_time_seconds 1")));
  EXPECT_THAT(lines, Contains("nictune_bpf_program_runs_total{program=\"napi_poll\"} 1000"));
  EXPECT_THAT(lines,
              Contains("nictune_bpf_program_run_seconds_total{program=\"napi_poll\"} 3.5e-05"));
  EXPECT_THAT(lines, Contains("nictune_sampling_duration_seconds 0.00025"));
}

TEST(ProcessUsageTest, ReadsThisProcessesCpuTimeAndResidentMemory) {
  // Burn some CPU so that the reading has something to show.
  volatile double x = 0;
  for (int i = 0; i < 20'000'000; ++i) x = x + 1.0;
  const auto usage = ReadProcessUsage();
  ASSERT_TRUE(usage.ok()) << usage.status();
  EXPECT_GT(usage->cpu_seconds, 0.0);
  // A gtest binary maps its code and heap: more than a megabyte, less than a few gigabytes.
  EXPECT_GT(usage->resident_bytes, 1u << 20);
  EXPECT_LT(usage->resident_bytes, uint64_t{4} << 30);
}

}  // namespace
}  // namespace nictune::metrics
