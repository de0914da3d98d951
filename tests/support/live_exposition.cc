// SPDX-License-Identifier: Apache-2.0
#include "tests/support/live_exposition.h"

#include <memory>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "agent/collect/snapshot_collector.h"
#include "agent/metrics/process_usage.h"
#include "agent/model/window.h"
#include "driver/probe_source.h"
#include "driver/socket_memory.h"

namespace nictune::testing_support {
namespace {

absl::Status Prefixed(const absl::Status& status, absl::string_view step) {
  return absl::Status(status.code(), absl::StrCat(step, ": ", status.message()));
}

}  // namespace

absl::Status ExportWindowOfFlow(UdpFlow& flow, metrics::MetricsExporter& exporter) {
  // The socket series come from a per-packet probe: off unless asked for.
  absl::StatusOr<std::unique_ptr<driver::ProbeSource>> probes =
      driver::OpenBpfProbes({.per_packet_probes = true});
  if (!probes.ok()) return Prefixed(probes.status(), "opening the BPF probes");
  // The per-socket kernel counters come from sock_diag in every namespace, the flow's among them.
  std::unique_ptr<driver::SocketCensusSource> sockets = driver::OpenSockDiagCensus({}, "/proc");
  collect::SnapshotCollector collector({}, probes->get(), "", sockets.get());

  const model::Snapshot before = collector.Collect();
  absl::StatusOr<UdpFlowResult> result = flow.Run();
  if (!result.ok()) return Prefixed(result.status(), "running the UDP flow");
  // The receiving softirq may still be finishing the flow's last packets.
  absl::SleepFor(absl::Milliseconds(50));
  const absl::Time sampling_start = absl::Now();
  const model::Snapshot after = collector.Collect();
  const double sampling_seconds = absl::ToDoubleSeconds(absl::Now() - sampling_start);

  absl::StatusOr<model::Window> window = model::ComputeWindow(before, after);
  if (!window.ok()) return Prefixed(window.status(), "window around the flow");
  absl::StatusOr<metrics::ProcessUsage> usage = metrics::ReadProcessUsage();
  if (!usage.ok()) return Prefixed(usage.status(), "this process's usage");
  exporter.Update(
      after, *window,
      {.process = *usage, .probes = (*probes)->Cost(), .sampling_seconds = sampling_seconds});
  return absl::OkStatus();
}

}  // namespace nictune::testing_support
