// SPDX-License-Identifier: Apache-2.0
// The figure catalog is the one place a figure is written: dashboards/metrics.txt lists its rows,
// the exporter's families carry its help and only its labels, names carry its units, and the
// series budget is the formula docs/metrics.md writes down.
#include "agent/metrics/figure_catalog.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "agent/metrics/exporter.h"
#include "agent/metrics/series_budget.h"
#include "agent/metrics/protocol_counters.h"
#include "agent/model/window.h"
#include "agent/model/window_json.h"
#include "agent/procfs/interrupts.h"
#include "agent/procfs/read_file.h"
#include "agent/procfs/snmp.h"
#include "agent/procfs/softirqs.h"
#include "agent/procfs/softnet_stat.h"
#include "agent/procfs/stat.h"
#include "gmock/gmock.h"
#include "driver/link_statistics.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/support/build_paths.h"
#include "tests/support/metric_families.h"

namespace nictune::metrics {
namespace {

std::string Fixture(const std::string& name) {
  std::ifstream in(testing_support::FixturesDir() + "/" + name);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

constexpr uint64_t kSecond = 1'000'000'000;

// The recorded 2-CPU host's procfs at 100 s of uptime, as both tests' earlier snapshot starts.
model::Snapshot RecordedHostSnapshot() {
  model::Snapshot snapshot;
  snapshot.monotonic_ns = 100 * kSecond;
  snapshot.unix_ns = 1'700'000'000 * static_cast<int64_t>(kSecond);
  snapshot.interrupts = *procfs::ParseInterrupts(Fixture("interrupts/x86_64_6.18_2cpu.txt"));
  snapshot.softirqs = *procfs::ParseSoftirqs(Fixture("softirqs/x86_64_6.18_2cpu.txt"));
  snapshot.softnet = *procfs::ParseSoftnetStat(Fixture("softnet_stat/x86_64_6.18_2cpu_15col.txt"));
  snapshot.stat = *procfs::ParseProcStat(Fixture("stat/x86_64_6.18_2cpu.txt"));
  return snapshot;
}

// An exporter fed a recorded 2-CPU host's procfs and a window with a flow's NAPI polls, drops
// and a full socket, so that most families have samples.
std::string FedExposition() {
  model::Snapshot before = RecordedHostSnapshot();
  before.snmp = procfs::SnmpCounters{{"Udp", {{"RcvbufErrors", 10}, {"InDatagrams", 100}}}};
  model::Snapshot after = before;
  after.monotonic_ns += 2 * kSecond;
  after.unix_ns += 2 * static_cast<int64_t>(kSecond);
  after.snmp = procfs::SnmpCounters{{"Udp", {{"RcvbufErrors", 30}, {"InDatagrams", 900}}}};
  absl::StatusOr<model::Window> window = model::ComputeWindow(before, after);
  EXPECT_TRUE(window.ok()) << window.status();
  if (!window.ok()) return "";
  window->napis = {{.napi_id = 8193,
                    .device = "veth1",
                    .polls = 400,
                    .polls_per_s = 200,
                    .work_per_s = 400,
                    .budget = 64,
                    .work_histogram = std::vector<uint64_t>(10, 40)}};
  window->drops = {{.reason = 6,
                    .reason_name = "SOCKET_RCVBUFF",
                    .protocol = 0x0800,
                    .l4_protocol = 17,
                    .device = "veth1",
                    .count = 20,
                    .per_s = 10}};
  MetricsExporter exporter;
  exporter.Update(after, *window, {});
  return exporter.Text();
}

// The family a sample line belongs to: its name, less a histogram's suffix.
const Figure* FigureOfSample(const std::string& name) {
  if (const Figure* figure = FindFigure(name)) return figure;
  for (const std::string suffix : {"_bucket", "_sum", "_count"}) {
    if (!name.ends_with(suffix)) continue;
    const Figure* figure = FindFigure(name.substr(0, name.size() - suffix.size()));
    if (figure != nullptr && figure->kind == FigureKind::kHistogram) return figure;
  }
  return nullptr;
}

TEST(FigureCatalogTest, TheShippedListIsTheCatalog) {
  absl::StatusOr<std::string> text =
      procfs::ReadFile(testing_support::SourceDir() + "/dashboards/metrics.txt");
  ASSERT_TRUE(text.ok()) << text.status();
  absl::StatusOr<testing_support::MetricFamilies> listed =
      testing_support::ParseFamilyList(*text, "dashboards/metrics.txt");
  ASSERT_TRUE(listed.ok()) << listed.status();
  testing_support::MetricFamilies catalog;
  for (const Figure& figure : FigureCatalog()) {
    catalog[figure.name] = std::string(KindName(figure.kind));
  }
  EXPECT_EQ(*listed, catalog);
  EXPECT_GT(catalog.size(), 100u);
}

TEST(FigureCatalogTest, EveryExportedFamilyHasItsRowsKindHelpAndLabels) {
  const std::string exposition = FedExposition();
  std::set<std::string> families_seen;
  for (absl::string_view line : absl::StrSplit(exposition, '\n')) {
    if (line.empty()) continue;
    if (absl::ConsumePrefix(&line, "# HELP ")) {
      const std::string name(line.substr(0, line.find(' ')));
      const Figure* figure = FindFigure(name);
      ASSERT_NE(figure, nullptr) << name << " is exported but not in the catalog";
      EXPECT_EQ(line.substr(line.find(' ') + 1), figure->help) << name;
      families_seen.insert(name);
      continue;
    }
    if (absl::ConsumePrefix(&line, "# TYPE ")) {
      const std::vector<std::string> fields = absl::StrSplit(line, ' ');
      ASSERT_EQ(fields.size(), 2u) << line;
      const Figure* figure = FindFigure(fields[0]);
      ASSERT_NE(figure, nullptr) << fields[0];
      EXPECT_EQ(fields[1], KindName(figure->kind)) << fields[0];
      continue;
    }
    const size_t name_end = line.find_first_of("{ ");
    const std::string sample_name(line.substr(0, name_end));
    const Figure* figure = FigureOfSample(sample_name);
    ASSERT_NE(figure, nullptr) << line;
    std::set<std::string> allowed;
    for (const FigureLabel& label : figure->labels) allowed.insert(label.name);
    if (figure->kind == FigureKind::kHistogram) allowed.insert("le");
    if (name_end == absl::string_view::npos || line[name_end] != '{') continue;
    const absl::string_view labels = line.substr(name_end + 1, line.find('}') - name_end - 1);
    for (absl::string_view pair : absl::StrSplit(labels, "\",", absl::SkipEmpty())) {
      const std::string label(pair.substr(0, pair.find('=')));
      EXPECT_TRUE(allowed.contains(label)) << sample_name << " has label " << label
                                           << ", which its catalog row does not list";
    }
  }
  // The recorded host and the window feed the procfs, NAPI, drop and agent families at least
  // (prometheus-cpp leaves a family without series out).
  EXPECT_GE(families_seen.size(), 20u);
  for (const char* fed : {"nictune_interrupts_total", "nictune_napi_poll_work_packets",
                          "nictune_skb_drops_total", "nictune_netstat_udp_rcvbuf_errors_total"}) {
    EXPECT_TRUE(families_seen.contains(fed)) << fed;
  }
}

TEST(FigureCatalogTest, AUnitIsWhatTheNameSays) {
  for (const Figure& figure : FigureCatalog()) {
    if (figure.unit.empty()) continue;
    EXPECT_TRUE(absl::StrContains(figure.name, "_" + figure.unit)) << figure.name;
  }
  for (const Figure& figure : FigureCatalog()) {
    EXPECT_EQ(figure.kind == FigureKind::kCounter, absl::EndsWith(figure.name, "_total"))
        << figure.name << ": a counter's name ends in _total, and only a counter's";
    EXPECT_EQ(figure.kind == FigureKind::kHistogram, !figure.boundaries.empty()) << figure.name;
  }
}

// A window in which every part was seen: the recorded host's procfs, every protocol counter and
// device statistic moving, and the probes' parts, each with one entry.
model::Window WholeWindow() {
  model::Snapshot before = RecordedHostSnapshot();
  procfs::SnmpCounters counters;
  for (const ProtocolCounterName& counter : kProtocolCounters) {
    counters[std::string(counter.section)][std::string(counter.name)] = 1;
  }
  before.snmp = before.netstat = counters;
  procfs::NetDevice device{.name = "veth1", .ifindex = 3};
  for (const std::string_view file : driver::kLinkStatisticNames) device.statistics[std::string(file)] = 1;
  before.devices = {device};
  model::Snapshot after = before;
  after.monotonic_ns += 2 * kSecond;
  after.unix_ns += 2 * static_cast<int64_t>(kSecond);
  for (auto& [section, names] : counters) {
    for (auto& [name, value] : names) value = 3;
  }
  after.snmp = after.netstat = counters;
  for (auto& [file, value] : after.devices->front().statistics) value = 5;
  absl::StatusOr<model::Window> window = model::ComputeWindow(before, after);
  EXPECT_TRUE(window.ok()) << window.status();
  if (!window.ok()) return {};
  // Identical procfs readings: rates of 0, and parts that only a rise lists are added here.
  if (window->cpus.empty()) window->cpus.emplace_back();
  if (window->irqs.empty()) window->irqs.push_back({.irq = 24});
  model::CpuWindow& cpu = window->cpus.at(0);
  cpu.split.emplace();
  cpu.bpf_hardirq_share = cpu.bpf_softirq_share = 0.01;
  cpu.softnet_processed_per_s = cpu.softnet_dropped_per_s = cpu.time_squeeze_per_s = 1;
  cpu.backlog_len = 0;
  cpu.net_rx_softirqs_per_s = 10;
  window->irqs.at(0).handler_time_share = 0.001;
  window->napis = {{.napi_id = 8193, .device = "veth1", .work_histogram = {1}}};
  window->drops = {{.reason_name = "SOCKET_RCVBUFF", .count = 20, .per_s = 10}};
  window->sockets = {
      {.drain_gap_seen_below_s = 0.01, .mean_truesize = 768, .kernel_drops = 2, .fill = 0.5}};
  window->truesize = {{.device = "veth1"}};
  window->emulated_nics = {{.device = "tap0"}};
  window->napi_pollers = {{.poller = {.pid = 700, .device = "veth1", .napi_id = 8193}}};
  window->probes = {{.hook = "napi"}};
  window->probe_budget = model::ProbeBudgetWindow{};
  return *window;
}

// Steps of a JSON Pointer in which `*` is any element or key: whether a value is there.
bool Resolves(const nlohmann::json& at, std::span<const std::string> steps) {
  if (steps.empty()) return !at.is_null();
  if (steps.front() == "*") {
    if (!at.is_array() && !at.is_object()) return false;
    return std::any_of(at.begin(), at.end(),
                       [&](const nlohmann::json& item) { return Resolves(item, steps.subspan(1)); });
  }
  if (!at.is_object() || !at.contains(steps.front())) return false;
  return Resolves(at.at(steps.front()), steps.subspan(1));
}

// A figure the probes give names its hook, and its help the series of that hook's coverage; a
// figure of the kernel's own counters names none.
TEST(FigureCatalogTest, EachProbeFigureNamesTheHookWhoseCoverageItHas) {
  const auto under = [](const Figure& figure, std::initializer_list<std::string_view> prefixes) {
    return std::any_of(prefixes.begin(), prefixes.end(),
                       [&](std::string_view prefix) { return figure.json.starts_with(prefix); });
  };
  size_t hooked = 0;
  for (const Figure& figure : FigureCatalog()) {
    if (under(figure, {"/napis/", "/drops/", "/truesize/", "/irqs/*/handler", "/cpus/*/time_share/",
                       "/sockets/*/peak_fill", "/sockets/*/longest_drain_wait_s",
                       "/sockets/*/mean_truesize"})) {
      EXPECT_FALSE(figure.hook.empty()) << figure.name << " (" << figure.json << ")";
    }
    if (under(figure, {"/protocol_per_s/", "/devices/", "/cpus/*/softnet/", "/cpus/*/softirqs/",
                       "/cpus/*/split/", "/irqs/*/per_s", "/sockets/*/kernel_drops",
                       "/sockets/*/rmem_alloc", "/emulated_nics/", "/napi_pollers/"})) {
      EXPECT_TRUE(figure.hook.empty()) << figure.name << " (" << figure.json << ")";
    }
    if (figure.hook.empty()) continue;
    ++hooked;
    EXPECT_NE(std::find(std::begin(driver::kProbeHookNames), std::end(driver::kProbeHookNames),
                        figure.hook),
              std::end(driver::kProbeHookNames))
        << figure.name << ": " << figure.hook << " is no hook of the probe budget";
    EXPECT_THAT(figure.help,
                ::testing::HasSubstr("nictune_probe_coverage_ratio{hook=\"" + figure.hook + "\"}"))
        << figure.name;
  }
  EXPECT_EQ(hooked, 20u) << "every family of the probes but their own bookkeeping";
}

TEST(FigureCatalogTest, EachRowsJsonPointerNamesItsFigureInTheWindowJson) {
  const nlohmann::json window = model::WindowToJson(WholeWindow());
  size_t rows_with_json = 0;
  for (const Figure& figure : FigureCatalog()) {
    if (figure.json.empty()) continue;
    ++rows_with_json;
    ASSERT_TRUE(figure.json.starts_with("/")) << figure.name << ": " << figure.json;
    const std::vector<std::string> steps = absl::StrSplit(figure.json.substr(1), '/');
    EXPECT_TRUE(Resolves(window, steps)) << figure.name << ": " << figure.json
                                         << " is not in the window JSON";
  }
  // Every procfs, sysfs and probe figure of an interval: the rows without one are the agent's
  // own, the tuner's, the actuator's and the probes' lifetime figures.
  EXPECT_GE(rows_with_json, 80u);
}

// docs/metrics.md "Series budget", term by term.
size_t WrittenFormula(const HostShape& s, const SeriesOptions& o) {
  const size_t c = o.per_cpu ? s.cpus : 1;
  const size_t irq_series = o.interrupts_per_cpu ? s.irqs * s.cpus : s.irqs;
  const size_t drops =
      std::min(s.drop_reasons * (10 * (s.devices + 2) + 2), o.max_drop_series + 1);
  return 45 * c + 3 * irq_series + 24 * s.devices + 18 * (s.napis + 1) + drops + 9 * o.max_sockets +
         16 * (s.devices + 1) + 21 * (s.devices + s.emulated_nics) + 6 * s.napis + 88 +
         4 * s.emulated_nics + 192;
}

TEST(FigureCatalogTest, TheBudgetIsTheWrittenFormula) {
  const HostShape two_cpus{
      .cpus = 2, .irqs = 20, .devices = 3, .napis = 5, .drop_reasons = 4, .emulated_nics = 0};
  const HostShape large{
      .cpus = 64, .irqs = 4096, .devices = 66, .napis = 65, .drop_reasons = 9, .emulated_nics = 2};
  for (const HostShape& shape : {two_cpus, large}) {
    for (const SeriesOptions& options :
         {SeriesOptions{}, SeriesOptions{.max_sockets = 3, .interrupts_per_cpu = true},
          SeriesOptions{.per_cpu = false}, SeriesOptions{.max_drop_series = 1000}}) {
      EXPECT_EQ(BudgetFor(shape, options).total, WrittenFormula(shape, options))
          << shape.cpus << " CPUs, per_cpu " << options.per_cpu << ", interrupts_per_cpu "
          << options.interrupts_per_cpu;
    }
  }
  // Per family: a histogram by its sample names.
  const SeriesBudget budget = BudgetFor(two_cpus, SeriesOptions{});
  EXPECT_EQ(budget.Of("nictune_napi_poll_work_packets_bucket"), (5u + 1) * 10);
  EXPECT_EQ(budget.Of("nictune_network_receive_bytes_total"), 3u);
  // 4 reasons x 52 attributions on 3 devices would be 208: the cap and the overflow series.
  EXPECT_EQ(budget.Of("nictune_skb_drops_total"), 64u + 1);
  EXPECT_EQ(
      BudgetFor(two_cpus, SeriesOptions{.max_drop_series = 1000}).Of("nictune_skb_drops_total"),
      4u * 52);
  // Whatever the drops, docs/benchmarks.md's 2-CPU host (one device, 4 queues, 16 other irqs)
  // stays within 820 series: 743 with one drop reason, 776 with all 130 of the kernel's.
  const HostShape one_reason{.cpus = 2, .irqs = 20, .devices = 1, .napis = 4, .drop_reasons = 1};
  HostShape every_reason = one_reason;
  every_reason.drop_reasons = 130;
  EXPECT_EQ(BudgetFor(one_reason, SeriesOptions{}).total, 743u);
  EXPECT_EQ(BudgetFor(every_reason, SeriesOptions{}).total, 743u - 32 + 65);
  EXPECT_LE(BudgetFor(every_reason, SeriesOptions{}).total, 820u);
  EXPECT_EQ(budget.Of("nictune_no_such_family"), 0u);
}

}  // namespace
}  // namespace nictune::metrics
