// SPDX-License-Identifier: Apache-2.0
// A Window is what happened between two snapshots: rates per second, shares of CPU time and
// histograms, per CPU, irq, NAPI instance, device, socket and drop reason. Every group names the
// source its figures came from.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "agent/model/snapshot.h"
#include "agent/model/source.h"

namespace nictune::model {

// Shares of one CPU's time over the window, each in [0, 1].
struct CpuSplit {
  double user = 0;  // user + nice
  double system = 0;
  double hardirq = 0;
  double softirq = 0;
  double idle = 0;  // idle + iowait
  double steal = 0;
};

struct CpuWindow {
  int cpu = 0;
  std::optional<CpuSplit> split;  // /proc/stat ticks (procfs)
  // BPF-measured time shares (handler time / window length), more exact than tick sampling.
  std::optional<double> bpf_hardirq_share;
  std::optional<double> bpf_net_rx_share;
  std::optional<double> bpf_net_tx_share;
  std::optional<double> bpf_softirq_share;  // all vectors
  // Where the bpf softirq shares come from: "bpf" when every softirq was timed, "bpf, timed 6%
  // of the time" or "bpf, sampled 1/8" when they are scaled from a sample
  // (agent/model/softirq_time.h).
  std::string bpf_softirq_source;
  // /proc/softirqs
  std::optional<double> net_rx_softirqs_per_s;
  std::optional<double> net_tx_softirqs_per_s;
  // /proc/net/softnet_stat
  std::optional<double> softnet_processed_per_s;
  std::optional<double> softnet_dropped_per_s;
  std::optional<double> time_squeeze_per_s;
  std::optional<uint32_t> backlog_len;
};

// One softirq vector on one CPU, from the BPF probes' timing (bpf_softirq_source says how).
struct SoftirqWindow {
  uint32_t vector = 0;  // the kernel's number: NET_TX = 2, NET_RX = 3, ...
  int cpu = 0;
  uint64_t count = 0;  // the probes' count, or /proc/softirqs' while they were duty-cycled
  double time_ns = 0;  // of all `count`
};

struct IrqWindow {
  uint32_t irq = 0;
  std::string actions;  // handler names from /proc/interrupts, e.g. "virtio2-input.0"
  std::string chip;
  uint64_t count = 0;  // interrupts in the window, all CPUs
  double per_s = 0;
  // (cpu, rate) of the CPUs that took any, by CPU: a vector, since a large host's windows hold
  // thousands of irqs on dozens of CPUs each.
  std::vector<std::pair<int, double>> per_cpu_per_s;
  Source source = Source::kProcfs;
  // From BPF when attached: handler time.
  std::optional<double> handler_time_share;  // summed over CPUs, fraction of one CPU
  std::optional<double> mean_handler_ns;
};

// How a figure was measured when the probe budget had its programs attached for part of the
// window (driver/bpf/README.md "The probe budget"): the share of the window they were attached
// (1: every event seen), and where the total the sample was scaled to came from: "coverage" (the
// sample divided by that share) or an exact kernel counter ("rx_packets", "Udp.RcvbufErrors").
struct Coverage {
  double share = 1;
  std::string scaled_to;  // "" when nothing was scaled
};

struct NapiWindow {
  uint32_t napi_id = 0;
  int32_t ifindex = 0;
  uint32_t thread_pid = 0;  // without a napi id: the poller thread of a threaded instance
  std::string device;
  uint64_t polls = 0;
  double polls_per_s = 0;
  double work_per_s = 0;                 // packets per second the polls reported
  double peak_work_per_s = 0;  // a tuner window's highest interval work_per_s; 0: one interval
  double packets_per_poll = 0;           // mean work per poll
  double budget_exhausted_fraction = 0;  // polls that used their whole budget / polls
  uint32_t budget = 0;
  double tx_completions_per_s = 0;
  double rx_share = 0;  // rx work / (rx work + tx completions) in the polls, 1 when no tx work
  std::vector<uint64_t> work_histogram;  // polls by work done in the window, as sampled
  Coverage coverage;
  bool other_namespace = false;  // the device is in a network namespace other than the agent's
};

// A threaded NAPI poller's time on a CPU over the window, in seconds per second (1: a whole CPU).
struct NapiPollerWindow {
  NapiPoller poller;
  double cpu_share = 0;
};

struct DeviceWindow {
  std::string name;
  int32_t ifindex = 0;
  std::string driver;
  int rx_queues = 0;
  int tx_queues = 0;
  std::map<std::string, double> per_s;  // statistics/<name> per second, e.g. rx_packets
  // A tuner window's highest rate of rx_packets over one sampling interval
  // (service::WindowAggregator): what a burst brings while it lasts. 0 in an interval's own
  // window, where per_s is the only rate.
  double peak_rx_packets_per_s = 0;
};

// The drop reason of a full receive buffer, as DropWindow::reason_name holds it (the kernel's
// SKB_DROP_REASON_ prefix stripped).
inline constexpr absl::string_view kSocketRcvbuffReason = "SOCKET_RCVBUFF";

struct DropWindow {
  uint32_t reason = 0;
  std::string reason_name;
  uint16_t protocol = 0;
  uint8_t l4_protocol = 0;
  int32_t ifindex = 0;
  std::string device;
  uint16_t local_port = 0;
  uint64_t socket_cookie = 0;
  uint64_t count = 0;
  double per_s = 0;
  Coverage coverage;
  uint32_t netns_inode = 0;      // of the device, 0 when the skb had none
  bool other_namespace = false;  // the device is in a network namespace other than the agent's
  // Found the probe's key map full: only the reason is known (driver::DropOrigin::kMapFull).
  bool map_full = false;
  // Counted by the kernel alone (Udp.RcvbufErrors) in a window whose sample saw none of them:
  // the reason and protocol are known, the device is not.
  bool unseen_by_sample = false;
  // Its (reason, proto, device) came once the drop series cap was full
  // (agent/metrics/drop_series_cap.h): /metrics and history count it in the overflow series.
  bool beyond_series_cap = false;
};

struct SocketWindow {
  driver::SocketKey key;
  double enqueues_per_s = 0;
  uint32_t rcvbuf = 0;
  double peak_fill = 0;  // peak rmem_alloc / rcvbuf within the window
  // The longest time data waited unread that a read ended within the window (the probe's, where
  // it measured); 0 when it saw no read end a wait.
  double longest_drain_gap_s = 0;
  // A wait still open at the window's end, as long as it had lasted: a reader stuck in a pause,
  // which says nothing yet of the buffer that would hold the pause (the tuner plans with the
  // ended ones). 0: none, or the probe was not measuring then.
  double open_drain_wait_s = 0;
  // Waits longer than this could not be timed: the probe times a wait only within one stretch of
  // its watching, a slot while the probe budget samples it. +inf while it watched the window
  // through; 0 when it timed none (detached, no read tracepoint, or a socket only the census
  // listed).
  double drain_gap_seen_below_s = 0;
  // Bytes per queued packet, as the kernel charged it: this window's packets, or, in a window
  // the sampled probe did not measure, every packet it measured of the socket so far.
  std::optional<double> mean_truesize;
  uint64_t rcvqueue_full = 0;
  uint64_t udp_queue_failures = 0;
  // Of enqueues and queue-full events (the peak fill is a sample's peak); share 0 for a socket
  // only the kernel's own counters listed.
  Coverage coverage;
  // The kernel's own counters (sock_diag) where they listed the socket: exact, whatever the
  // probes saw. kernel_drops is absent when the window's start did not list the socket either.
  std::optional<uint64_t> kernel_drops;  // sk_drops moved in the window
  std::optional<double> fill;            // rmem_alloc / rcvbuf at the window's end
  uint32_t rmem_alloc = 0;               // bytes queued at the window's end
  // A tuner window's highest arrivals (agent/model/socket_arrivals.h) over one of its sampling
  // intervals whose probe saw at least half of it; 0 = none did, or an interval's own window.
  double peak_arrivals_per_s = 0;
};

// What the socket's data waited longest in the window, ended by a read or still waiting at its
// end: what the drain-gap series show.
inline double LongestDrainWait(const SocketWindow& s) {
  return std::max(s.longest_drain_gap_s, s.open_drain_wait_s);
}

struct TruesizeWindow {
  int32_t ifindex = 0;
  std::string device;
  uint64_t samples = 0;
  double mean_bytes = 0;
  double p50_bytes = 0;  // upper bound of the log2 bucket that holds the quantile
  double p99_bytes = 0;
  std::vector<uint64_t> buckets;
  bool other_namespace = false;  // the device is in a network namespace other than the agent's
};

// One receive queue of an emulated NIC (below), over the NIC's span.
struct NicQueueWindow {
  uint32_t queue = 0;
  uint32_t napi_thread = 0;  // pid of the kernel thread that polls the queue (NapiWindow)
  uint64_t interrupts = 0;
  double interrupts_per_s = 0;
  double delivered_per_s = 0;
  double missed_per_s = 0;
};

// One emulated NIC (driver/emulated) over the window, from its own counters: the interrupts it
// raised, which no /proc/interrupts line or irq tracepoint sees for a TAP. Rates divide by the
// NIC's own clock between the two readings (each reading is taken a moment after the snapshot's
// other sources, so the agent's window length would be off by that much).
struct EmulatedNicWindow {
  std::string device;
  double seconds = 0;  // the NIC's clock between the two readings
  uint64_t interrupts = 0;
  double interrupts_per_s = 0;
  double delivered_per_s = 0;  // frames the TAP took
  double missed_per_s = 0;     // ring overflows
  uint64_t stalls = 0;  // interrupts late by more than kStallNs (driver/emulated/counters.h)
  double stall_seconds = 0;  // their lateness summed: the time delivery was held off
  std::vector<NicQueueWindow> queues;  // empty when either reading lacks its queues
  Source source = Source::kEmulatedNic;
};

// One hook of the probe budget over the window.
struct ProbeWindow {
  std::string hook;
  std::string mode;         // "whole", "slotted", "gated" or "detached" at the window's end
  double coverage = 1;      // share of the window its programs were attached
  double events_per_s = 0;  // while attached
  double cost_ns_per_event = 0;
  bool cost_measured = false;
};

struct ProbeBudgetWindow {
  double cpu_share = 0;  // the budget; 0: no limit
  // What the current plan was made with: the budget less what earlier plans overspent as
  // measured; below cpu_share while the probes repay a debt.
  double planning_cpu_share = 0;
  double planned_cpu_share = 0;  // of one CPU, the current plan's
  bool over_budget = false;
};

struct Window {
  int64_t start_unix_ns = 0;
  int64_t end_unix_ns = 0;
  double seconds = 0;
  std::vector<CpuWindow> cpus;
  std::vector<SoftirqWindow> softirqs;  // (vector, cpu) the probes or /proc/softirqs saw
  std::vector<IrqWindow> irqs;          // numbered irqs that fired in the window
  std::vector<NapiWindow> napis;
  std::vector<DeviceWindow> devices;
  std::vector<DropWindow> drops;
  std::vector<SocketWindow> sockets;
  std::vector<TruesizeWindow> truesize;
  std::vector<EmulatedNicWindow> emulated_nics;
  std::vector<NapiPollerWindow> napi_pollers;  // those read at both ends of the window
  // Protocol counters per second, keyed "Section.Name" (e.g. "Udp.RcvbufErrors"), from
  // /proc/net/snmp and /proc/net/netstat; only counters that moved.
  std::map<std::string, double> protocol_per_s;
  // The same, of each other network namespace whose /proc/net/snmp the socket census read from
  // inside it (its Udp section only), by namespace inode.
  std::map<uint32_t, std::map<std::string, double>> netns_protocol_per_s;
  std::vector<ProbeWindow> probes;  // the probe budget's hooks (empty without BPF)
  std::optional<ProbeBudgetWindow> probe_budget;
  std::vector<SourceState> sources;  // of the later snapshot
};

// Fails when the snapshots are out of order or taken at the same instant.
absl::StatusOr<Window> ComputeWindow(const Snapshot& before, const Snapshot& after);

}  // namespace nictune::model
