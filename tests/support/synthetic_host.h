// SPDX-License-Identifier: Apache-2.0
// A made-up host laid out as procfs and sysfs text under a temporary directory in /dev/shm (memory,
// as procfs and sysfs are: rewriting files on a disk would flush them on every interval), for
// measuring how
// the agent's per-interval work grows with the number of queues and CPUs (tests/bench/
// agent_scaling_bench.cc) without a machine that has them. One device whose queues each have an
// MSI-X vector named the ixgbe way ("syn0-TxRx-3"), other irqs (16 unless asked), and every file the snapshot
// collector, the queue map and the host-knob reader open. /proc/net/snmp and netstat are this
// host's own, with their counters moved on every interval.
//
// Advance() rewrites the counter files as they would read one interval (one second) later, so
// every rate the agent computes is non-zero; the numbers are plausible, not a recording.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace nictune::testing_support {

struct SyntheticHostShape {
  int queues = 4;  // combined rx/tx queues of the device, one irq each
  int cpus = 2;
  std::string device = "syn0";
  int32_t ifindex = 2;
  uint32_t first_queue_irq = 100;  // queue q's irq is first_queue_irq + q
  // Irqs 1 ... other_irqs serve no queue (timers, disks): each fires on every CPU. Keep them below
  // first_queue_irq.
  uint32_t other_irqs = 16;
};

class SyntheticHost {
 public:
  // Writes the whole tree for the interval before the first one.
  static absl::StatusOr<SyntheticHost> Create(const SyntheticHostShape& shape);

  // Rewrites the counter files one interval later.
  absl::Status Advance();

  const SyntheticHostShape& shape() const { return shape_; }
  std::string proc_root() const { return dir_->path + "/proc"; }
  std::string sys_root() const { return dir_->path + "/sys"; }
  // Intervals since Create (the counters grow linearly with it).
  uint64_t tick() const { return tick_; }
  // The CPU that queue q's irq is delivered to.
  int QueueCpu(int queue) const { return queue % shape_.cpus; }

 private:
  // Removes the tree with everything in it when the host goes away.
  struct Tree {
    std::string path;
    ~Tree();
  };

  SyntheticHost(SyntheticHostShape shape, std::unique_ptr<Tree> dir, std::string snmp,
                std::string netstat)
      : shape_(std::move(shape)),
        dir_(std::move(dir)),
        snmp_template_(std::move(snmp)),
        netstat_template_(std::move(netstat)) {}

  absl::Status WriteStaticFiles() const;
  absl::Status WriteCounters() const;
  std::string Interrupts() const;
  std::string Softirqs() const;
  std::string SoftnetStat() const;
  std::string Stat() const;

  SyntheticHostShape shape_;
  std::unique_ptr<Tree> dir_;
  std::string snmp_template_;
  std::string netstat_template_;
  uint64_t tick_ = 0;
};

// Adds `delta` to every non-negative number on the value lines ("Udp: 26 0 ...") of /proc/net/snmp
// or netstat text, leaving the header lines and negative values (MaxConn -1) alone.
std::string AdvanceSnmpCounters(const std::string& text, uint64_t delta);

}  // namespace nictune::testing_support
