// SPDX-License-Identifier: Apache-2.0
#include "agent/collect/snapshot_collector.h"

#include <time.h>

#include <algorithm>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "agent/procfs/napi_threads.h"
#include "agent/procfs/read_file.h"
#include "agent/procfs/schedstat.h"
#include "agent/procfs/snmp.h"
#include "driver/kernel_name.h"

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
                                     std::string bpf_unavailable_reason,
                                     driver::SocketCensusSource* sockets,
                                     driver::LinkStatisticsSource* links, SnapshotClock clock)
    : paths_(std::move(paths)),
      probes_(probes),
      bpf_unavailable_reason_(std::move(bpf_unavailable_reason)),
      sockets_(sockets),
      links_(links),
      clock_(std::move(clock)) {}

void SnapshotCollector::WatchNapiPollers(std::vector<model::NapiPoller> pollers) {
  absl::erase_if(napi_poller_comm_, [&pollers](const auto& entry) {
    return std::none_of(pollers.begin(), pollers.end(),
                        [&entry](const model::NapiPoller& p) { return p.pid == entry.first; });
  });
  napi_pollers_ = std::move(pollers);
}

// A poller that is gone (its device went, or threaded NAPI was switched off) is left out: the
// topology names the new ones at its next reading. A pid whose task is not a NAPI poller is left
// out and said. Any other failure is the source's error.
void SnapshotCollector::CollectNapiPollers(model::Snapshot& s) {
  if (napi_pollers_.empty()) return;
  SourceState state{.name = "napi pollers", .source = Source::kProcfs};
  std::vector<std::string> errors;
  std::vector<std::string> not_pollers;  // pids whose task is not named napi/...
  size_t gone = 0;
  for (const model::NapiPoller& poller : napi_pollers_) {
    auto comm = napi_poller_comm_.find(poller.pid);
    if (comm == napi_poller_comm_.end()) {
      absl::StatusOr<std::string> name =
          procfs::ReadFile(absl::StrCat(paths_.proc, "/", poller.pid, "/comm"), 4096);
      if (absl::IsNotFound(name.status())) {
        ++gone;
        continue;
      }
      if (!name.ok()) {
        errors.emplace_back(name.status().message());
        continue;
      }
      comm = napi_poller_comm_.emplace(poller.pid, procfs::IsNapiThreadName(*name)).first;
    }
    if (!comm->second) {
      not_pollers.push_back(absl::StrCat(poller.pid));
      continue;
    }
    absl::StatusOr<uint64_t> run_ns = procfs::ReadTaskRunNs(paths_.proc, poller.pid);
    if (run_ns.ok()) {
      s.napi_pollers.push_back({.poller = poller, .run_ns = *run_ns});
    } else if (absl::IsNotFound(run_ns.status())) {
      ++gone;
    } else {
      errors.emplace_back(run_ns.status().message());
    }
  }
  state.in_use = !s.napi_pollers.empty();
  state.detail = absl::StrCat("threaded NAPI pollers' time on a CPU (/proc/PID/schedstat): ",
                              s.napi_pollers.size(), " of ", napi_pollers_.size(), " read");
  if (gone > 0) absl::StrAppend(&state.detail, ", ", gone, " gone");
  if (!not_pollers.empty()) {
    absl::StrAppend(&state.detail, "; not NAPI pollers (another pid namespace?): pid ",
                    absl::StrJoin(not_pollers, ", "));
  }
  if (!errors.empty()) absl::StrAppend(&state.detail, "; ", absl::StrJoin(errors, "; "));
  s.sources.push_back(std::move(state));
}

model::Snapshot SnapshotCollector::Collect() {
  model::Snapshot s;
  const std::string& proc = paths_.proc;
  // The monotonic stamp is taken between the procfs reads and the BPF read so that both sit
  // within the few hundred microseconds a collection takes.
  ReadSource(
      proc + "/interrupts", Source::kProcfs,
      [](std::string_view t, std::string_view p) { return procfs::ParseInterrupts(t, p); },
      s.interrupts, s.sources);
  ReadSource(
      proc + "/softirqs", Source::kProcfs,
      [](std::string_view t, std::string_view p) { return procfs::ParseSoftirqs(t, p); },
      s.softirqs, s.sources);
  ReadSource(
      proc + "/net/softnet_stat", Source::kProcfs,
      [](std::string_view t, std::string_view p) { return procfs::ParseSoftnetStat(t, p); },
      s.softnet, s.sources);
  ReadSource(
      proc + "/net/snmp", Source::kProcfs,
      [](std::string_view t, std::string_view p) { return procfs::ParseSnmp(t, p); }, s.snmp,
      s.sources);
  ReadSource(
      proc + "/net/netstat", Source::kProcfs,
      [](std::string_view t, std::string_view p) { return procfs::ParseSnmp(t, p); }, s.netstat,
      s.sources);
  ReadSource(
      proc + "/stat", Source::kProcfs,
      [](std::string_view t, std::string_view p) { return procfs::ParseProcStat(t, p); }, s.stat,
      s.sources);

  CollectDevices(s);
  CollectNapiPollers(s);

  s.monotonic_ns = clock_.monotonic_ns();
  s.unix_ns = clock_.unix_ns();

  SourceState bpf{.name = "bpf", .source = Source::kBpf};
  if (probes_ == nullptr) {
    bpf.detail = bpf_unavailable_reason_;
  } else if (auto counters = probes_->Read(); counters.ok()) {
    s.bpf = *std::move(counters);
    bpf.in_use = true;
    std::vector<std::string> disabled;
    std::vector<std::string> waiting;
    for (const auto& p : probes_->Status()) {
      if (p.waiting) {
        waiting.push_back(p.name);
      } else if (!p.attached) {
        disabled.push_back(absl::StrCat(p.name, " (", p.reason, ")"));
      }
    }
    std::vector<std::string> detail;
    if (!disabled.empty())
      detail.push_back(absl::StrCat("disabled: ", absl::StrJoin(disabled, "; ")));
    if (!waiting.empty()) {
      detail.push_back(absl::StrCat("on demand: ", absl::StrJoin(waiting, ", "),
                                    " (while a socket is under pressure)"));
    }
    bpf.detail = absl::StrJoin(detail, "; ");
  } else {
    bpf.detail = std::string(counters.status().message());
  }
  s.sources.push_back(std::move(bpf));
  if (sockets_ != nullptr) CollectSockets(s);
  return s;
}

void SnapshotCollector::CollectDevices(model::Snapshot& s) {
  const std::string net = paths_.sys + "/class/net";
  SourceState devices{.name = net, .source = Source::kSysfs};
  absl::StatusOr<std::vector<procfs::NetDevice>> read =
      procfs::ReadNetDevices(net, {.statistics = links_ == nullptr});
  if (read.ok()) {
    s.devices = *std::move(read);
    devices.in_use = true;
  } else {
    devices.detail = std::string(read.status().message());
  }
  const size_t devices_source = s.sources.size();
  s.sources.push_back(std::move(devices));
  if (links_ == nullptr || !s.devices.has_value() || FillLinkStatistics(s)) return;
  if (read = procfs::ReadNetDevices(net); read.ok()) {
    s.devices = *std::move(read);
  } else {
    s.devices.reset();
    s.sources[devices_source].in_use = false;
    s.sources[devices_source].detail = std::string(read.status().message());
  }
}

bool SnapshotCollector::FillLinkStatistics(model::Snapshot& s) {
  SourceState state{.name = "rtnetlink RTM_GETSTATS", .source = Source::kRtnetlink};
  absl::StatusOr<std::vector<driver::LinkStatistics>> links = links_->Read();
  if (!links.ok()) {
    state.detail = absl::StrCat(links.status().message(), "; statistics read from sysfs");
    s.sources.push_back(std::move(state));
    return false;
  }
  if (std::string other = OtherNamespacesDevice(*s.devices); !other.empty()) {
    state.detail = absl::StrCat(other,
                                ": sysfs lists another network namespace's devices; "
                                "statistics read from sysfs");
    s.sources.push_back(std::move(state));
    return false;
  }
  absl::flat_hash_map<int32_t, const driver::LinkStatistics*> by_ifindex;
  for (const driver::LinkStatistics& link : *links) by_ifindex[link.ifindex] = &link;
  std::vector<std::string> missing;
  for (procfs::NetDevice& device : *s.devices) {
    const auto found = by_ifindex.find(device.ifindex);
    if (found == by_ifindex.end()) {
      missing.push_back(device.name);
      continue;
    }
    for (size_t i = 0; i < driver::kLinkStatisticCount; ++i) {
      device.statistics.emplace(driver::kLinkStatisticNames[i], found->second->counters[i]);
    }
  }
  // A device registered between the sysfs listing and the dump: the files have its counters.
  state.in_use = missing.empty();
  if (!missing.empty()) {
    state.detail = absl::StrCat("not in the dump: ", absl::StrJoin(missing, ", "),
                                "; statistics read from sysfs");
  }
  s.sources.push_back(std::move(state));
  return missing.empty();
}

std::string SnapshotCollector::OtherNamespacesDevice(
    const std::vector<procfs::NetDevice>& devices) {
  for (const procfs::NetDevice& device : devices) {
    const auto known = same_namespace_names_.find(device.ifindex);
    if (known != same_namespace_names_.end() && known->second == device.name) continue;
    absl::StatusOr<std::string> name = links_->DeviceName(device.ifindex);
    // A device gone since the listing is the dump's to miss, not a sign of another namespace.
    if (absl::IsNotFound(name.status())) continue;
    const std::string here = name.ok() ? driver::KernelNameText(*name) : "";
    if (here != device.name) {
      return absl::StrCat("ifindex ", device.ifindex, " is ", device.name, " in sysfs and ",
                          name.ok() ? here : std::string(name.status().message()),
                          " in the agent's namespace");
    }
    same_namespace_names_[device.ifindex] = device.name;
  }
  return "";
}

namespace {

// One section of a namespace's counters file, parsed, into `kept`; a file that is empty (not
// read) or does not parse adds nothing, as an unreadable one.
void KeepSection(const std::string& text, uint32_t netns, absl::string_view file,
                 absl::string_view section, procfs::SnmpCounters& kept) {
  if (text.empty()) return;
  absl::StatusOr<procfs::SnmpCounters> counters =
      procfs::ParseSnmp(text, absl::StrCat("netns ", netns, " net/", file));
  if (!counters.ok()) return;
  const auto found = counters->find(std::string(section));
  if (found != counters->end()) kept.insert(*found);
}

// Each other namespace's Udp (snmp) and TcpExt (netstat) counters, parsed; the texts are not
// kept.
void KeepNamespaceProtocolCounters(driver::SocketCensus& census, model::Snapshot& s) {
  for (const driver::NamespaceCountersText& text : census.counters) {
    procfs::SnmpCounters kept;
    KeepSection(text.snmp, text.netns_inode, "snmp", "Udp", kept);
    KeepSection(text.netstat, text.netns_inode, "netstat", "TcpExt", kept);
    if (!kept.empty()) s.netns_protocols[text.netns_inode] = std::move(kept);
  }
  census.counters.clear();
}

}  // namespace

void SnapshotCollector::CollectSockets(model::Snapshot& s) {
  SourceState state{.name = "sock_diag", .source = Source::kSockDiag};
  if (absl::StatusOr<driver::SocketCensus> census = sockets_->Read(); census.ok()) {
    state.in_use = true;
    state.detail = absl::StrCat(
        census->sockets_seen, census->sockets_seen == 1 ? " UDP socket in " : " UDP sockets in ",
        census->namespaces, census->namespaces == 1 ? " network namespace" : " network namespaces");
    if (census->namespaces_unread > 0) {
      absl::StrAppend(&state.detail, ", ", census->namespaces_unread, " not read");
    }
    if (census->truncated) {
      absl::StrAppend(&state.detail, "; the ", census->sockets.size(),
                      " most dropping and fullest kept");
    }
    if (census->namespaces_by_fallback > 0) {
      absl::StrAppend(&state.detail, "; ", census->namespaces_by_fallback, " read from ",
                      census->fallback_note, " (no buffer sizes there)");
    }
    KeepNamespaceProtocolCounters(*census, s);
    s.udp_sockets = *std::move(census);
  } else {
    state.detail = std::string(census.status().message());
  }
  s.sources.push_back(std::move(state));
}

}  // namespace nictune::collect
