#include "agent/collect/snapshot_collector.h"

#include <time.h>

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "agent/procfs/read_file.h"

namespace nictune::collect {
namespace {

using model::Source;
using model::SourceState;

uint64_t ClockNs(clockid_t id) {
  timespec ts{};
  clock_gettime(id, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000u + static_cast<uint64_t>(ts.tv_nsec);
}

// Reads and parses one file into `into`, and records the outcome as a source.
template <typename T, typename Parse>
void ReadSource(const std::string& path, Source kind, Parse parse, std::optional<T>& into,
                std::vector<SourceState>& sources) {
  SourceState state{.name = path, .source = kind};
  absl::StatusOr<std::string> text = procfs::ReadFile(path);
  if (!text.ok()) {
    state.detail = std::string(text.status().message());
  } else if (absl::StatusOr<T> parsed = parse(*text, path); !parsed.ok()) {
    state.detail = std::string(parsed.status().message());
  } else {
    into = *std::move(parsed);
    state.in_use = true;
  }
  sources.push_back(std::move(state));
}

}  // namespace

SnapshotClock SystemClock() {
  return {.monotonic_ns = [] { return ClockNs(CLOCK_MONOTONIC); },
          .unix_ns = [] { return static_cast<int64_t>(ClockNs(CLOCK_REALTIME)); }};
}

SnapshotCollector::SnapshotCollector(CollectorPaths paths, driver::ProbeSource* probes,
                                     std::string bpf_unavailable_reason, SnapshotClock clock)
    : paths_(std::move(paths)),
      probes_(probes),
      bpf_unavailable_reason_(std::move(bpf_unavailable_reason)),
      clock_(std::move(clock)) {}

model::Snapshot SnapshotCollector::Collect() {
  model::Snapshot s;
  const std::string& proc = paths_.proc;
  // The monotonic stamp is taken between the procfs reads and the BPF read so that both sit
  // within the few hundred microseconds a collection takes.
  ReadSource(proc + "/interrupts", Source::kProcfs,
             [](std::string_view t, std::string_view p) { return procfs::ParseInterrupts(t, p); },
             s.interrupts, s.sources);
  ReadSource(proc + "/softirqs", Source::kProcfs,
             [](std::string_view t, std::string_view p) { return procfs::ParseSoftirqs(t, p); },
             s.softirqs, s.sources);
  ReadSource(proc + "/net/softnet_stat", Source::kProcfs,
             [](std::string_view t, std::string_view p) { return procfs::ParseSoftnetStat(t, p); },
             s.softnet, s.sources);
  ReadSource(proc + "/net/snmp", Source::kProcfs,
             [](std::string_view t, std::string_view p) { return procfs::ParseSnmp(t, p); },
             s.snmp, s.sources);
  ReadSource(proc + "/net/netstat", Source::kProcfs,
             [](std::string_view t, std::string_view p) { return procfs::ParseSnmp(t, p); },
             s.netstat, s.sources);
  ReadSource(proc + "/stat", Source::kProcfs,
             [](std::string_view t, std::string_view p) { return procfs::ParseProcStat(t, p); },
             s.stat, s.sources);

  const std::string net = paths_.sys + "/class/net";
  SourceState devices{.name = net, .source = Source::kSysfs};
  if (auto read = procfs::ReadNetDevices(net); read.ok()) {
    s.devices = *std::move(read);
    devices.in_use = true;
  } else {
    devices.detail = std::string(read.status().message());
  }
  s.sources.push_back(std::move(devices));

  s.monotonic_ns = clock_.monotonic_ns();
  s.unix_ns = clock_.unix_ns();

  SourceState bpf{.name = "bpf", .source = Source::kBpf};
  if (probes_ == nullptr) {
    bpf.detail = bpf_unavailable_reason_;
  } else if (auto counters = probes_->Read(); counters.ok()) {
    s.bpf = *std::move(counters);
    bpf.in_use = true;
    std::vector<std::string> disabled;
    for (const auto& p : probes_->Status()) {
      if (!p.attached) disabled.push_back(absl::StrCat(p.name, " (", p.reason, ")"));
    }
    if (!disabled.empty()) bpf.detail = absl::StrCat("disabled: ", absl::StrJoin(disabled, "; "));
  } else {
    bpf.detail = std::string(counters.status().message());
  }
  s.sources.push_back(std::move(bpf));
  return s;
}

}  // namespace nictune::collect
