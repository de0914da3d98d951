// SPDX-License-Identifier: Apache-2.0
// Takes Snapshots: reads every procfs/sysfs source and the BPF probes, recording for each source
// whether it was read and, if not, the error. One failing source never fails the snapshot.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "agent/model/snapshot.h"
#include "driver/link_statistics.h"
#include "driver/probe_source.h"
#include "driver/socket_memory.h"

namespace nictune::collect {

struct CollectorPaths {
  // Roots of the proc and sys filesystems: "/proc" and "/sys" on a host, "/host/proc" when the
  // agent runs in a container that mounts the host's.
  std::string proc = "/proc";
  std::string sys = "/sys";
};

// The clocks a snapshot is stamped with: CLOCK_MONOTONIC and CLOCK_REALTIME in ns.
struct SnapshotClock {
  std::function<uint64_t()> monotonic_ns;
  std::function<int64_t()> unix_ns;
};
SnapshotClock SystemClock();

class SnapshotCollector {
 public:
  // probes may be null (BPF unavailable); bpf_unavailable_reason then says why, for the status.
  // sockets may be null: no per-socket counters. links may be null: each device's statistics
  // are read from its sysfs files.
  SnapshotCollector(CollectorPaths paths, driver::ProbeSource* probes,
                    std::string bpf_unavailable_reason,
                    driver::SocketCensusSource* sockets = nullptr,
                    driver::LinkStatisticsSource* links = nullptr,
                    SnapshotClock clock = SystemClock());

  model::Snapshot Collect();

  // The threaded NAPI pollers each Collect reads (/proc/PID/schedstat) from now on.
  void WatchNapiPollers(std::vector<model::NapiPoller> pollers);

 private:
  void CollectNapiPollers(model::Snapshot& s);
  void CollectDevices(model::Snapshot& s);
  // Fills the devices' statistics from one rtnetlink dump; false when it could not (the
  // reason is in the sources), and the caller reads the sysfs files instead.
  bool FillLinkStatistics(model::Snapshot& s);
  // "" when every listed device has the name rtnetlink's namespace gives its ifindex (each pair
  // checked once); else which one differs: sysfs then describes another namespace (the host's
  // /sys in a container with a network namespace of its own), whose counters the dump's would
  // be mistaken for.
  std::string OtherNamespacesDevice(const std::vector<procfs::NetDevice>& devices);
  void CollectSockets(model::Snapshot& s);

  CollectorPaths paths_;
  driver::ProbeSource* probes_;
  std::string bpf_unavailable_reason_;
  driver::SocketCensusSource* sockets_;
  driver::LinkStatisticsSource* links_;
  absl::flat_hash_map<int32_t, std::string> same_namespace_names_;  // by ifindex, checked
  std::vector<model::NapiPoller> napi_pollers_;
  // Whether each watched pid's comm is a NAPI poller's (napi/...), read once while it is watched:
  // a pid of another pid namespace than PROC_ROOT's, or one reused, names another task.
  absl::flat_hash_map<uint32_t, bool> napi_poller_comm_;
  SnapshotClock clock_;
};

}  // namespace nictune::collect
