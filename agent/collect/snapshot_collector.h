// Takes Snapshots: reads every procfs/sysfs source and the BPF probes, recording for each source
// whether it was read and, if not, the error. One failing source never fails the snapshot.
#pragma once

#include <functional>
#include <string>

#include "agent/model/snapshot.h"
#include "driver/probe_source.h"

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
  SnapshotCollector(CollectorPaths paths, driver::ProbeSource* probes,
                    std::string bpf_unavailable_reason, SnapshotClock clock = SystemClock());

  model::Snapshot Collect();

 private:
  CollectorPaths paths_;
  driver::ProbeSource* probes_;
  std::string bpf_unavailable_reason_;
  SnapshotClock clock_;
};

}  // namespace nictune::collect
