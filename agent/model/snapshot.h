// SPDX-License-Identifier: Apache-2.0
// A Snapshot is the raw, cumulative counters of one instant, exactly as the sources gave them.
// Rates come only from the difference of two snapshots (window.h).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "agent/model/source.h"
#include "agent/procfs/interrupts.h"
#include "agent/procfs/net_devices.h"
#include "agent/procfs/snmp.h"
#include "agent/procfs/softirqs.h"
#include "agent/procfs/softnet_stat.h"
#include "agent/procfs/stat.h"
#include "driver/emulated/counters.h"
#include "driver/probe_source.h"
#include "driver/socket_memory.h"

namespace nictune::model {

// One emulated NIC's counters (driver/emulated, its control socket's GET counters) when the
// snapshot was taken: a TAP has no /proc/interrupts line, so the NIC's own interrupt counter is
// the one to read, as a driver's would be.
struct EmulatedNicReading {
  std::string device;
  driver::emulated::EmulatedNicCounters counters;
  std::vector<driver::emulated::EmulatedNicCounters> queues;  // per receive queue, when read
};

// A kernel thread that polls a device's NAPI instances (threaded NAPI: sysfs `threaded` 1 or 2),
// as netdev netlink's napi-get or the device's own counters name it. Its polls run as the thread's
// system time, where /proc/stat's softirq split does not see them.
struct NapiPoller {
  uint32_t pid = 0;
  std::string device;               // empty for another namespace's
  int queue = -1;                   // the rx queue it polls; -1 = not known
  std::optional<uint32_t> napi_id;  // absent where the kernel gave the instance none (a TAP's)
  // A poller of a device in a network namespace other than the agent's, found by its name alone
  // (agent/procfs/napi_threads.h): neither its device nor its instance is known.
  bool other_namespace = false;
};

// A poller's time on a CPU since it started (/proc/PID/schedstat), when the snapshot was taken.
struct NapiPollerTime {
  NapiPoller poller;
  uint64_t run_ns = 0;
};

struct Snapshot {
  uint64_t monotonic_ns = 0;  // CLOCK_MONOTONIC: rates divide by differences of this
  int64_t unix_ns = 0;        // wall clock, for display and storage only

  // Each input is absent when its source could not be read; sources says why.
  std::optional<procfs::InterruptTable> interrupts;
  std::optional<procfs::SoftirqTable> softirqs;
  std::optional<std::vector<procfs::SoftnetRow>> softnet;
  std::optional<procfs::SnmpCounters> snmp;
  std::optional<procfs::SnmpCounters> netstat;
  std::optional<procfs::ProcStat> stat;
  std::optional<std::vector<procfs::NetDevice>> devices;
  std::optional<driver::BpfCounters> bpf;
  std::optional<driver::SocketCensus> udp_sockets;  // sock_diag, every namespace
  // The Udp (snmp) and TcpExt (netstat) counters of each other network namespace the census
  // entered, by namespace inode.
  std::map<uint32_t, procfs::SnmpCounters> netns_protocols;
  std::vector<EmulatedNicReading> emulated_nics;  // those that answered (--emulated_nic)
  std::vector<NapiPollerTime> napi_pollers;       // the watched pollers still running

  std::vector<SourceState> sources;
};

}  // namespace nictune::model
