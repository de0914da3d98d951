// SPDX-License-Identifier: Apache-2.0
// nictune's procfs counters on nictuned's /metrics against node_exporter's metrics for the same
// counters (softnet, netstat, interrupts), as a user joining the two would read them.
//
// Both exporters run inside the receiving test host's network namespace (so that its netstat
// counters see the test's UDP flow and nothing else), each on a port of that namespace's loopback.
// Both read the same procfs files, so the honest expectation is that each value is the kernel's
// counter at the moment that exporter read it. The test brackets those moments with its own reads
// of the same files: nictuned's by the reads just before and after the sampling it reports
// (/api/v1/status: last_sample and last_sampling_seconds), node_exporter's by reads just before
// and after the scrape; every value must lie inside its bracket. What remains between the two
// exporters is the kernel's movement between their read times: nictuned serves the values of its
// last interval, node_exporter reads at scrape time. Three points: before a bounded UDP flow,
// during it (node_exporter scraped half an interval after nictuned's sample, the mean lag of an
// unsynchronised scrape), and after it; the differences, and the flow window's increments of
// each, are printed.
#include <signal.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <deque>
#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "agent/metrics/protocol_counters.h"
#include "agent/procfs/interrupts.h"
#include "agent/procfs/read_file.h"
#include "agent/procfs/snmp.h"
#include "agent/procfs/softnet_stat.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/support/build_paths.h"
#include "tests/support/exposition_samples.h"
#include "tests/support/load_average.h"
#include "tests/support/loopback_http.h"
#include "tests/support/loopback_port.h"
#include "tests/support/netns_host.h"
#include "tests/support/node_exporter.h"
#include "tests/support/privileges.h"
#include "tests/support/serving_nictuned.h"
#include "tests/support/temp_dir.h"
#include "tests/support/udp_flow.h"

namespace nictune {
namespace {

using testing_support::BackgroundProgram;
using testing_support::ExposedSample;

const std::string kNictuned = absl::StrCat(testing_support::BinaryDir(), "/agent/nictuned");
constexpr absl::Duration kInterval = absl::Seconds(1);  // nictuned's default --interval
// How often the test reads the kernel while it waits for nictuned's next sample: the width of
// nictuned's bracket is about this plus one status request.
constexpr absl::Duration kPoll = absl::Milliseconds(5);
// last_sampling_seconds is the collection's duration on the steady clock; last_sample the wall
// clock after the procfs reads. The slack covers the two clocks' disagreement over milliseconds.
constexpr absl::Duration kClockSlack = absl::Milliseconds(2);

// Values keyed by node_exporter's series, e.g. node_softnet_processed_total{cpu="1"}.
using SeriesValues = std::map<std::string, double>;

struct SoftnetColumn {
  const char* nictune;
  const char* node;
  uint32_t procfs::SoftnetRow::*column;
};
constexpr SoftnetColumn kSoftnetColumns[] = {
    {"nictune_softnet_processed_total", "node_softnet_processed_total",
     &procfs::SoftnetRow::processed},
    {"nictune_softnet_dropped_total", "node_softnet_dropped_total", &procfs::SoftnetRow::dropped},
    {"nictune_softnet_times_squeezed_total", "node_softnet_times_squeezed_total",
     &procfs::SoftnetRow::time_squeeze},
};

std::string CpuSeries(absl::string_view family, absl::string_view cpu) {
  return absl::StrCat(family, "{cpu=\"", cpu, "\"}");
}
std::string InterruptSeries(absl::string_view irq, absl::string_view cpu) {
  return absl::StrCat("node_interrupts_total{cpu=\"", cpu, "\",type=\"", irq, "\"}");
}

// The group a series belongs to, for the report.
std::string GroupOf(const std::string& series) {
  if (absl::StartsWith(series, "node_softnet_")) return "softnet";
  if (absl::StartsWith(series, "node_netstat_")) return "netstat";
  return "interrupts";
}

// The test's own read of the files both exporters read, with the wall clock around it.
struct KernelReading {
  absl::Time start;
  absl::Time end;
  SeriesValues values;
};

// Reads softnet_stat, interrupts, and snmp/netstat of the calling thread's network namespace.
absl::StatusOr<KernelReading> ReadKernel() {
  KernelReading reading{.start = absl::Now()};
  absl::StatusOr<std::string> softnet_text = procfs::ReadFile("/proc/net/softnet_stat");
  absl::StatusOr<std::string> interrupts_text = procfs::ReadFile("/proc/interrupts");
  absl::StatusOr<std::string> snmp_text = procfs::ReadFile("/proc/thread-self/net/snmp");
  absl::StatusOr<std::string> netstat_text = procfs::ReadFile("/proc/thread-self/net/netstat");
  reading.end = absl::Now();
  for (const auto* text : {&softnet_text, &interrupts_text, &snmp_text, &netstat_text}) {
    if (!text->ok()) return text->status();
  }
  absl::StatusOr<std::vector<procfs::SoftnetRow>> softnet = procfs::ParseSoftnetStat(*softnet_text);
  if (!softnet.ok()) return softnet.status();
  for (const procfs::SoftnetRow& row : *softnet) {
    for (const SoftnetColumn& column : kSoftnetColumns) {
      reading.values[CpuSeries(column.node, std::to_string(row.cpu))] = row.*column.column;
    }
  }
  absl::StatusOr<procfs::InterruptTable> interrupts = procfs::ParseInterrupts(*interrupts_text);
  if (!interrupts.ok()) return interrupts.status();
  for (const procfs::InterruptLine& line : interrupts->lines) {
    // nictune exports the numbered lines that ever fired, node_exporter every line; the numbered
    // ones that fired are what both have.
    if (!line.irq || line.total == 0) continue;
    for (size_t i = 0; i < line.per_cpu.size() && i < interrupts->cpu_ids.size(); ++i) {
      reading.values[InterruptSeries(line.id, std::to_string(interrupts->cpu_ids[i]))] =
          static_cast<double>(line.per_cpu[i]);
    }
  }
  absl::StatusOr<procfs::SnmpCounters> snmp = procfs::ParseSnmp(*snmp_text, "snmp");
  absl::StatusOr<procfs::SnmpCounters> netstat = procfs::ParseSnmp(*netstat_text, "netstat");
  if (!snmp.ok()) return snmp.status();
  if (!netstat.ok()) return netstat.status();
  for (const metrics::ProtocolCounterName& counter : metrics::kProtocolCounters) {
    const procfs::SnmpCounters& table = counter.section == "TcpExt" ? *netstat : *snmp;
    const auto section = table.find(std::string(counter.section));
    if (section == table.end()) continue;
    const auto value = section->second.find(std::string(counter.name));
    if (value == section->second.end()) continue;  // this kernel has no such counter
    reading.values[metrics::NodeExporterProtocolCounterMetric(counter)] =
        static_cast<double>(value->second);
  }
  return reading;
}

// node_exporter's exposition, the series the kernel reading has.
SeriesValues NodeSeries(const std::vector<ExposedSample>& samples) {
  SeriesValues values;
  for (const ExposedSample& sample : samples) {
    const auto label = [&](const char* name) {
      const auto it = sample.labels.find(name);
      return it == sample.labels.end() ? std::string() : it->second;
    };
    if (absl::StartsWith(sample.name, "node_softnet_")) {
      values[CpuSeries(sample.name, label("cpu"))] = sample.value;
    } else if (sample.name == "node_interrupts_total") {
      values[InterruptSeries(label("type"), label("cpu"))] = sample.value;
    } else if (absl::StartsWith(sample.name, "node_netstat_")) {
      values[sample.name] = sample.value;
    }
  }
  return values;
}

// nictuned's exposition, renamed to node_exporter's series by nictune's stated correspondence:
// nictune_softnet_X_total{cpu} = node_softnet_X_total{cpu}; nictune_interrupts_total{irq,cpu} =
// node_interrupts_total{type=irq,cpu}; nictune_netstat_<snake>_total = node_netstat_Section_Name.
SeriesValues NictuneSeries(const std::vector<ExposedSample>& samples) {
  std::map<std::string, std::string> renamed;
  for (const SoftnetColumn& column : kSoftnetColumns) renamed[column.nictune] = column.node;
  for (const metrics::ProtocolCounterName& counter : metrics::kProtocolCounters) {
    renamed[metrics::ProtocolCounterMetric(counter)] =
        metrics::NodeExporterProtocolCounterMetric(counter);
  }
  SeriesValues values;
  for (const ExposedSample& sample : samples) {
    const auto label = [&](const char* name) {
      const auto it = sample.labels.find(name);
      return it == sample.labels.end() ? std::string() : it->second;
    };
    if (sample.name == "nictune_interrupts_total") {
      values[InterruptSeries(label("irq"), label("cpu"))] = sample.value;
      continue;
    }
    const auto node = renamed.find(sample.name);
    if (node == renamed.end()) continue;
    values[absl::StartsWith(node->second, "node_softnet_") ? CpuSeries(node->second, label("cpu"))
                                                           : node->second] = sample.value;
  }
  return values;
}

struct Endpoints {
  std::string network_namespace;
  uint16_t nictuned_port = 0;
  uint16_t node_exporter_port = 0;
};

// One comparison: both exporters' values and the kernel's around each one's reads.
struct Point {
  std::string title;
  absl::Time nictune_read;  // nictuned's sample (the end of its procfs reads)
  KernelReading nictune_before;
  KernelReading nictune_after;
  SeriesValues nictune;
  absl::Time node_read;  // the middle of the scrape
  KernelReading node_before;
  KernelReading node_after;
  SeriesValues node;
};

struct StatusSample {
  int64_t samples = 0;
  absl::Time last_sample;
  absl::Duration sampling;
};

absl::StatusOr<StatusSample> ReadStatus(uint16_t port) {
  absl::StatusOr<nlohmann::json> status = testing_support::GetJsonLoopback(port, "/api/v1/status");
  if (!status.ok()) return status.status();
  const nlohmann::json& sampling = status->value("sampling", nlohmann::json::object());
  StatusSample sample{.samples = sampling.value("samples", int64_t{0}),
                      .sampling = absl::Seconds(sampling.value("last_sampling_seconds", 0.0))};
  const std::string last = sampling.value("last_sample", std::string());
  std::string error;
  if (sample.samples > 0 &&
      !absl::ParseTime(absl::RFC3339_full, last, &sample.last_sample, &error)) {
    return absl::DataLossError(
        absl::StrCat("/api/v1/status sampling.last_sample \"", last, "\": ", error));
  }
  return sample;
}

absl::StatusOr<SeriesValues> Scrape(uint16_t port, absl::string_view what,
                                    SeriesValues (*series)(const std::vector<ExposedSample>&)) {
  absl::StatusOr<testing_support::HttpReply> reply =
      testing_support::HttpGetLoopback(port, "/metrics", absl::Seconds(5));
  if (!reply.ok()) return reply.status();
  if (reply->status != 200) {
    return absl::UnavailableError(absl::StrCat(what, " /metrics: HTTP ", reply->status));
  }
  absl::StatusOr<std::vector<ExposedSample>> samples =
      testing_support::ParseExposedSamples(reply->body, absl::StrCat(what, " /metrics"));
  if (!samples.ok()) return samples.status();
  return series(*samples);
}

// On a thread inside the exporters' namespace: waits for nictuned's first sample whose reads
// began after `not_before`, takes its /metrics while the test's reads bracket that sample, then
// scrapes node_exporter `node_lag` after that sample, bracketed by reads just before and after.
absl::StatusOr<Point> MeasureIn(const Endpoints& endpoints, absl::Time not_before,
                                absl::Duration node_lag) {
  Point point;
  std::deque<KernelReading> recent;  // the reads of the last half second, oldest first
  std::optional<int64_t> seen;
  const absl::Time give_up = absl::Now() + 4 * kInterval;
  while (absl::Now() < give_up) {
    absl::StatusOr<KernelReading> reading = ReadKernel();
    if (!reading.ok()) return reading.status();
    recent.push_back(*std::move(reading));
    while (recent.size() > 100) recent.pop_front();
    absl::StatusOr<StatusSample> status = ReadStatus(endpoints.nictuned_port);
    if (!status.ok()) return status.status();
    const bool fresh = seen && status->samples > *seen;
    seen = status->samples;
    const absl::Time reads_began = status->last_sample - status->sampling - kClockSlack;
    if (!fresh || reads_began < not_before) {
      absl::SleepFor(kPoll);
      continue;
    }
    // The latest read that ended before nictuned's reads began.
    const auto before = std::find_if(recent.rbegin(), recent.rend(),
                                     [&](const KernelReading& r) { return r.end < reads_began; });
    if (before == recent.rend()) continue;  // the sample came before the first read: the next
    absl::StatusOr<SeriesValues> nictune =
        Scrape(endpoints.nictuned_port, "nictuned", NictuneSeries);
    if (!nictune.ok()) return nictune.status();
    absl::StatusOr<StatusSample> again = ReadStatus(endpoints.nictuned_port);
    if (!again.ok()) return again.status();
    // /metrics is published before the status, so it could already belong to the next sample
    // only once that sample's deadline, an interval after this one, has come.
    if (again->samples != status->samples || absl::Now() > status->last_sample + kInterval / 2) {
      continue;
    }
    absl::StatusOr<KernelReading> after = ReadKernel();
    if (!after.ok()) return after.status();
    point.nictune_read = status->last_sample;
    point.nictune_before = *before;
    point.nictune_after = *std::move(after);
    point.nictune = *std::move(nictune);

    absl::SleepFor(status->last_sample + node_lag - absl::Now());
    absl::StatusOr<KernelReading> node_before = ReadKernel();
    if (!node_before.ok()) return node_before.status();
    absl::StatusOr<SeriesValues> node =
        Scrape(endpoints.node_exporter_port, "node_exporter", NodeSeries);
    if (!node.ok()) return node.status();
    absl::StatusOr<KernelReading> node_after = ReadKernel();
    if (!node_after.ok()) return node_after.status();
    point.node_before = *std::move(node_before);
    point.node_after = *std::move(node_after);
    point.node_read = point.node_before.end + (point.node_after.start - point.node_before.end) / 2;
    point.node = *std::move(node);
    return point;
  }
  return absl::DeadlineExceededError(absl::StrCat(
      "nictuned took no sample after ", absl::FormatTime(not_before), " within ",
      absl::FormatDuration(4 * kInterval), " (samples seen: ", seen.value_or(-1), ")"));
}

absl::StatusOr<Point> Measure(const Endpoints& endpoints, const std::string& title,
                              absl::Time not_before, absl::Duration node_lag) {
  absl::StatusOr<Point> point = absl::InternalError("not measured");
  absl::Status ran = testing_support::RunInNamedNamespace(
      endpoints.network_namespace, [&] { point = MeasureIn(endpoints, not_before, node_lag); });
  if (!ran.ok()) return ran;
  if (point.ok()) point->title = title;
  return point;
}

double ValueOr(const SeriesValues& values, const std::string& series, double otherwise) {
  const auto it = values.find(series);
  return it == values.end() ? otherwise : it->second;
}

// Every series the kernel reading before nictuned's sample has is on both exporters, and each
// exporter's value lies between the test's reads around that exporter's read.
void ExpectWithinReadTimes(const Point& point) {
  SCOPED_TRACE(point.title);
  for (const auto& [series, lowest] : point.nictune_before.values) {
    const double nan = std::nan("");
    const double nictune = ValueOr(point.nictune, series, nan);
    const double node = ValueOr(point.node, series, nan);
    const double nictune_highest = ValueOr(point.nictune_after.values, series, nan);
    const double node_lowest = ValueOr(point.node_before.values, series, nan);
    const double node_highest = ValueOr(point.node_after.values, series, nan);
    EXPECT_TRUE(nictune >= lowest && nictune <= nictune_highest)
        << series << ": nictuned " << nictune << ", the kernel read " << lowest << " before and "
        << nictune_highest << " after its sample";
    EXPECT_TRUE(node >= node_lowest && node <= node_highest)
        << series << ": node_exporter " << node << ", the kernel read " << node_lowest
        << " before and " << node_highest << " after the scrape";
  }
}

// Per group how many series are equal on both; then every series that is not, with what the
// kernel's counter did between the two exporters' reads.
void PrintPoint(const Point& point) {
  std::cout << absl::StrFormat(
      "\n### %s: node_exporter read %.1f ms after nictuned's sample (the test's reads around "
      "nictuned's: %.1f ms apart, around the scrape: %.1f ms)\n\n",
      point.title, absl::ToDoubleMilliseconds(point.node_read - point.nictune_read),
      absl::ToDoubleMilliseconds(point.nictune_after.start - point.nictune_before.end),
      absl::ToDoubleMilliseconds(point.node_after.start - point.node_before.end));
  std::map<std::string, std::pair<int, int>> groups;  // group -> (series, equal)
  std::string rows;
  for (const auto& [series, value] : point.nictune_before.values) {
    const double difference = ValueOr(point.node, series, 0) - ValueOr(point.nictune, series, 0);
    auto& [count, equal] = groups[GroupOf(series)];
    ++count;
    if (difference == 0) {
      ++equal;
      continue;
    }
    // At least what the kernel counted from after nictuned's read to before the scrape, at most
    // from before the one to after the other.
    absl::StrAppendFormat(&rows, "| %s | %.0f | %.0f | %.0f | %.0f-%.0f |\n", series,
                          ValueOr(point.node, series, 0), ValueOr(point.nictune, series, 0),
                          difference,
                          ValueOr(point.node_before.values, series, 0) -
                              ValueOr(point.nictune_after.values, series, 0),
                          ValueOr(point.node_after.values, series, 0) - value);
  }
  std::vector<std::string> summary;
  for (const auto& [group, counts] : groups) {
    summary.push_back(absl::StrCat(group, " ", counts.second, " of ", counts.first));
  }
  std::cout << "equal on both: " << absl::StrJoin(summary, ", ") << "\n\n";
  if (rows.empty()) return;
  std::cout << "| series | node_exporter | nictune | difference | kernel counted between the "
               "reads |\n|---|---:|---:|---:|---:|\n"
            << rows;
}

// The flow window's increments, first point to last, of the series that moved.
void PrintIncrements(const Point& first, const Point& last) {
  std::cout << absl::StrFormat(
      "\n### Increments from \"%s\" to \"%s\" (series that moved)\n\n| series | node_exporter | "
      "nictune | difference | of the increment |\n|---|---:|---:|---:|---:|\n",
      first.title, last.title);
  for (const auto& [series, value] : last.node) {
    if (!first.node.contains(series) || !first.nictune.contains(series) ||
        !last.nictune.contains(series)) {
      continue;
    }
    const double node = value - first.node.at(series);
    const double nictune = last.nictune.at(series) - first.nictune.at(series);
    if (node == 0 && nictune == 0) continue;
    const double difference = node - nictune;
    std::cout << absl::StrFormat("| %s | %.0f | %.0f | %.0f | %.2f%% |\n", series, node, nictune,
                                 difference, node != 0 ? 100.0 * difference / node : 100.0);
  }
}

// The node_exporter collectors that read what nictune's procfs series read; netstat with the
// fields nictune exports (its default set lacks most of them), interrupts (off by default).
std::vector<std::string> NodeExporterFlags() {
  std::vector<std::string> fields;
  for (const metrics::ProtocolCounterName& counter : metrics::kProtocolCounters) {
    fields.push_back(absl::StrCat(counter.section, "_", counter.name));
  }
  return {"--collector.disable-defaults",
          "--web.disable-exporter-metrics",
          "--collector.softnet",
          "--collector.interrupts",
          "--collector.netstat",
          absl::StrCat("--collector.netstat.fields=^(", absl::StrJoin(fields, "|"), ")$")};
}

TEST(NodeExporterAgreement, SoftnetNetstatAndInterruptCountersAreTheKernelsAtEachExportersRead) {
  if (auto why = testing_support::WhyNotPrivileged(); !why.empty()) GTEST_SKIP() << why;
  absl::StatusOr<std::unique_ptr<testing_support::VethHosts>> hosts =
      testing_support::VethHosts::Create({.napi_on_b = true});
  ASSERT_TRUE(hosts.ok()) << hosts.status();
  absl::StatusOr<testing_support::TempDir> dir =
      testing_support::TempDir::Create("nictune-node-exporter-");
  ASSERT_TRUE(dir.ok()) << dir.status();
  Endpoints endpoints{.network_namespace = (*hosts)->b().name()};
  ASSERT_TRUE((*hosts)
                  ->b()
                  .RunInside([&] {
                    absl::StatusOr<uint16_t> first = testing_support::FreeLoopbackPort();
                    absl::StatusOr<uint16_t> second = testing_support::FreeLoopbackPort();
                    if (first.ok()) endpoints.nictuned_port = *first;
                    if (second.ok()) endpoints.node_exporter_port = *second;
                  })
                  .ok());
  ASSERT_NE(endpoints.nictuned_port, 0);
  ASSERT_NE(endpoints.node_exporter_port, 0);
  ASSERT_NE(endpoints.nictuned_port, endpoints.node_exporter_port);

  absl::StatusOr<BackgroundProgram> node_exporter =
      testing_support::StartNodeExporter({.port = endpoints.node_exporter_port,
                                          .network_namespace = endpoints.network_namespace,
                                          .flags = NodeExporterFlags()},
                                         absl::Seconds(10));
  ASSERT_TRUE(node_exporter.ok()) << node_exporter.status();
  // --bpf=false: the compared series come from procfs alone, and the probes' read would only
  // lengthen each sample's read window. The tuner is irrelevant here (observe mode).
  std::optional<absl::StatusOr<BackgroundProgram>> nictuned;
  ASSERT_TRUE((*hosts)
                  ->b()
                  .RunInside([&] {
                    nictuned.emplace(testing_support::StartServingNictuned(
                        {"ip", "netns", "exec", endpoints.network_namespace, kNictuned,
                         absl::StrCat("--listen=127.0.0.1:", endpoints.nictuned_port),
                         "--socket=", "--state_dir=" + dir->path(), "--bpf=false", "--mode=observe",
                         "--metrics_interrupts_per_cpu",
                         absl::StrCat("--interval=", absl::FormatDuration(kInterval))},
                        endpoints.nictuned_port, absl::Seconds(20),
                        testing_support::NictunedReady::kFirstSample));
                  })
                  .ok());
  ASSERT_TRUE(nictuned.has_value() && nictuned->ok()) << nictuned->status();

  absl::StatusOr<testing_support::UdpFlow> flow =
      testing_support::UdpFlow::Open(**hosts,
                                     {.rcvbuf_bytes = 32768,
                                      .batch = 32,
                                      .drain_gap = absl::Milliseconds(2),
                                      .run_time = absl::Seconds(8)},
                                     {.packets = 300000,
                                      .payload_bytes = 64,
                                      .packets_per_second = 100000,
                                      .max_duration = absl::Seconds(4)});
  ASSERT_TRUE(flow.ok()) << flow.status();

  absl::StatusOr<Point> before =
      Measure(endpoints, "before the flow", absl::Now(), absl::ZeroDuration());
  ASSERT_TRUE(before.ok()) << before.status();
  const absl::Time flow_start = absl::Now();
  absl::StatusOr<testing_support::UdpFlowResult> result = absl::InternalError("not run");
  std::thread sender([&] { result = flow->Run(); });
  absl::StatusOr<Point> during =
      Measure(endpoints, "during the flow, scraped half an interval later",
              flow_start + absl::Milliseconds(100), kInterval / 2);
  sender.join();
  const absl::Time flow_end = absl::Now();
  ASSERT_TRUE(during.ok()) << during.status();
  ASSERT_TRUE(result.ok()) << result.status();
  absl::StatusOr<Point> after =
      Measure(endpoints, "after the flow", flow_end, absl::ZeroDuration());
  ASSERT_TRUE(after.ok()) << after.status();

  for (const Point* point : {&*before, &*during, &*after}) {
    ExpectWithinReadTimes(*point);
    PrintPoint(*point);
  }
  PrintIncrements(*before, *after);
  std::cout << absl::StrFormat(
      "\nflow: %d datagrams sent in %.2f s, %d read by the receiver, %d dropped by its socket; "
      "the mid-flow scrape came %.2f s after the flow started, %.2f s before it ended; load "
      "average %s\n",
      result->sent.sent, absl::ToDoubleSeconds(result->sent.elapsed), result->received.received,
      result->received.kernel_drops, absl::ToDoubleSeconds(during->node_read - flow_start),
      absl::ToDoubleSeconds(flow_end - during->node_read), testing_support::LoadAverage());

  // The flow is in the compared counters, and the private namespace's UDP counters, which only
  // the flow moves, come out the same on both, as the receiver's own socket counted them.
  const auto increment = [&](const SeriesValues Point::*side, const std::string& series) {
    return ValueOr((*after).*side, series, 0) - ValueOr((*before).*side, series, 0);
  };
  // A counter nictune names that the kernel does not have is a misspelt section or name.
  for (const metrics::ProtocolCounterName& counter : metrics::kProtocolCounters) {
    EXPECT_TRUE(
        after->nictune_before.values.contains(metrics::NodeExporterProtocolCounterMetric(counter)))
        << counter.section << " " << counter.name << ": not in "
        << metrics::ProtocolCounterFile(counter) << " (agent/metrics/protocol_counters.h)";
  }
  ASSERT_GT(result->received.kernel_drops, 0u) << "the receiver's socket dropped nothing";
  for (const SeriesValues Point::*side : {&Point::nictune, &Point::node}) {
    const char* who = side == &Point::nictune ? "nictuned" : "node_exporter";
    EXPECT_EQ(increment(side, "node_netstat_Udp_RcvbufErrors"),
              static_cast<double>(result->received.kernel_drops))
        << who;
    EXPECT_EQ(increment(side, "node_netstat_Udp_InDatagrams"),
              static_cast<double>(result->received.received))
        << who;
    double processed = 0;
    for (const auto& [series, value] : (*after).*side) {
      if (absl::StartsWith(series, "node_softnet_processed_total")) {
        processed += increment(side, series);
      }
    }
    EXPECT_GE(processed,
              static_cast<double>(result->received.received + result->received.kernel_drops))
        << who << ": every datagram the socket saw went through a receive softirq";
  }

  ASSERT_TRUE((*nictuned)->Signal(SIGTERM).ok());
  absl::StatusOr<testing_support::ProgramOutput> exited = (*nictuned)->Wait(absl::Seconds(10));
  ASSERT_TRUE(exited.ok()) << exited.status();
  EXPECT_EQ(exited->exit_code, 0) << exited->err;
}

}  // namespace
}  // namespace nictune
