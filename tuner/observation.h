// SPDX-License-Identifier: Apache-2.0
// The tuner's input: what the agent measured over one window, per receive queue (or whole device
// when queues are not told apart) and host-wide. The agent adapts its Window to this type; the
// tuner never depends on the agent. Counts are deltas over the window (u64, as the agent computed
// them); the tuner turns them into rates and rejects rates no NIC can produce (wrapped counters).
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "absl/time/time.h"

namespace nictune::tuner {

// Fractions of the CPUs serving the queue (0..1 each; the rest is system and iowait).
struct CpuSplit {
  double hardirq = 0;
  double softirq = 0;
  double user = 0;
  double idle = 0;
  double steal = 0;  // the hypervisor ran something else: nothing on the CPU ran, IRQs included
};

// One application socket fed by the queue; the worst one decides the queue's limits.
struct SocketObservation {
  std::string name;                // e.g. "udp 0.0.0.0:5001 pid 812 (netserver)"
  uint64_t packets = 0;            // arrived for the socket in the window: enqueued + drops
  // Its enqueues were counted in the window (its probe ran for some of it). When not (the
  // per-packet probes off, or slotted out of the window), `packets` holds its drops alone, a
  // floor: the plan takes the queue's rx rate for it, the most that can have arrived.
  bool arrivals_measured = true;
  // The share of the window its arrivals were counted over (the probe's slots): `packets` is the
  // count seen scaled up by it, and the fewer packets seen, the wider the rate may stray.
  double arrivals_share = 1;
  double truesize_mean_bytes = 0;  // mean skb->truesize charged per packet
  double truesize_p99_bytes = 0;
  uint64_t rcvbuf_bytes = 0;  // sk_rcvbuf; 0 = unknown (left out of the fill math)
  double peak_fill = 0;       // highest rmem_alloc / sk_rcvbuf seen, 0..1
  uint64_t drops = 0;         // dropped because the receive buffer was full
  double drain_gap_s = 0;     // longest time the application left the socket undrained
  // Longer waits than this could not be measured (the agent's probe times a wait only within one
  // of its slots while it samples): drain_gap_s is then a floor. +inf: any wait was seen; 0:
  // none was timed, and drain_gap_s is no measurement.
  double drain_gap_seen_below_s = std::numeric_limits<double>::infinity();
  // How long the reader has not read at the window's end (a wait still open); 0 = it read, or
  // unknown. Longer than the socket's fill time, it is a stalled reader (stalled_reader.h).
  double open_drain_wait_s = 0;
  // The traffic's shape: the longest stretch of arrivals at up to peak_rate_pps and the shortest
  // pause between two such stretches. Bursts shorter than a drain gap bring less than the peak
  // rate times the gap. 0 = unknown (the peak is taken to last).
  double burst_s = 0;
  double burst_pause_s = 0;
  // The most packets that arrived for the socket within any stretch as long as drain_gap_s: what
  // a gap can pile up, whatever the traffic's shape. 0 = unknown (the agent does not measure it
  // yet: the peak rate over the gap, or the bursts' share of it, is used).
  double max_packets_per_gap = 0;
  bool rcvbuf_locked = false;  // the application set SO_RCVBUF (rmem_default does not apply)
  // The reader runs on a CPU that serves the queue's softirq: it drains only between NAPI cycles,
  // so packets that arrive while a cycle runs land in the same burst.
  bool reader_shares_softirq_cpu = false;
  // Highest arrival rate over one sampling interval of the window: what overflows a socket is the
  // rate while a burst lasts, not the mean. 0 = unknown (the mean is used).
  double peak_rate_pps = 0;
  // 0: this window saw the socket. Else seconds since a window last did: the probe's slots
  // missed it since, and its figures are that window's, its arrivals not counted.
  double seconds_unseen = 0;
};

struct DropCounts {
  uint64_t socket = 0;     // receive buffer full (all sockets on the queue)
  uint64_t ring = 0;       // rx ring overflow / rx_missed
  uint64_t backlog = 0;    // netdev_max_backlog exceeded (softnet_stat dropped)
  uint64_t proto_mem = 0;  // protocol memory pressure (udp_mem / tcp_mem)
};

// ethtool coalescing as read, with what the driver supports.
struct CoalesceState {
  bool rx_usecs_supported = false;
  bool rx_frames_supported =
      false;  // the driver interrupts at rx-frames or rx-usecs, whichever first
  bool adaptive_rx_supported = false;
  uint32_t rx_usecs = 0;
  uint32_t rx_frames = 0;
  bool adaptive_rx = false;
  uint32_t rx_usecs_granularity = 1;  // the driver rounds to multiples of this (ixgbe: 2 us)
  uint32_t rx_usecs_max = 0;          // the driver's maximum; 0 = unknown
  uint32_t rx_frames_max = 0;         // 0 = unknown
  uint32_t rx_ring_size = 0;          // descriptors; 0 = unknown
  uint32_t rx_ring_max = 0;           // the driver's maximum; 0 = unknown
};

// Per-device software interrupt mitigation (sysfs napi_defer_hard_irqs, gro_flush_timeout).
struct DeferState {
  bool supported = false;
  uint32_t napi_defer_hard_irqs = 0;
  uint64_t gro_flush_timeout_ns = 0;
};

struct QueueObservation {
  std::string device;  // "eth0"
  int queue = -1;      // rx queue index; -1 = the whole device
  std::vector<SocketObservation> sockets;
  uint64_t rx_packets = 0;              // received on the queue
  uint64_t interrupts = 0;              // hard interrupts of the queue's vector
  uint64_t polls = 0;                   // NAPI polls
  uint64_t polls_budget_exhausted = 0;  // polls that used their whole weight
  uint64_t rx_work = 0;                 // packets received inside polls
  uint64_t tx_work = 0;                 // tx completions inside polls
  uint64_t time_squeeze = 0;            // softirq runs cut short by netdev_budget(_usecs)
  DropCounts drops;
  CpuSplit cpu;
  // The CPUs `cpu` is the mean of, and the rx rings the observation spans: a whole-device
  // observation of a multi-queue NIC (queue -1) counts every ring's packets and every vector's
  // interrupts together, on all their CPUs, while each ring holds rx_ring_size descriptors.
  uint32_t serving_cpus = 1;
  uint32_t rx_rings = 1;
  double interrupt_cost_s = 0;  // measured hard IRQ + fixed poll time per interrupt; 0 = unknown
  // Measured softirq time per received packet; 0 = unknown ((cpu.softirq + napi_poller_cpu) /
  // rx rate is used).
  double packet_cost_s = 0;
  // The share of a CPU each of the queue's threaded NAPI pollers ran, their mean (kernel threads
  // that poll in place of the softirq when the device's `threaded` is on): polls that cpu.softirq
  // does not hold. 0 where the device polls in softirq or no poller of it was read.
  double napi_poller_cpu = 0;
  uint32_t napi_pollers = 0;    // the pollers read
  double rx_peak_rate_pps = 0;  // highest rx rate over one sampling interval; 0 = unknown
  // Seconds of the window in which the queue's delivery was held off: the serving CPUs' steal
  // time, or an emulated NIC's interrupt lateness past its stall threshold. Packets that arrive
  // meanwhile reach the socket in one late burst, whatever the coalescing.
  double stall_s = 0;
  CoalesceState coalesce;
  DeferState defer;
  // The device's sysfs `threaded`: 0 its NAPI polls run in softirq, 1 in kernel threads, 2 in
  // threads that busy-poll; -1 unknown, or a device without NAPI instances (a veth without GRO,
  // a TAP), which cannot poll in threads.
  int32_t napi_threaded = -1;
};

// The rings (and interrupt vectors) an observation spans: at least the one.
inline double RxRings(const QueueObservation& q) { return q.rx_rings > 0 ? q.rx_rings : 1; }

// Host-wide knobs as read (net.core.*, net.ipv4.udp_rmem_min).
struct HostKnobs {
  int64_t netdev_budget = 300;
  int64_t netdev_budget_usecs = 2000;
  int64_t dev_weight = 64;
  int64_t dev_weight_rx_bias = 1;
  int64_t dev_weight_tx_bias = 1;
  int64_t rmem_default = 212992;
  int64_t rmem_max = 212992;
  int64_t udp_rmem_min = 4096;
};

struct Observation {
  absl::Duration window;  // length of the window the counts cover
  uint32_t samples = 0;   // sampling intervals that went into it (confidence)
  HostKnobs host;
  std::vector<QueueObservation> queues;
  // The host's idle time over the window in CPUs: each CPU's idle share, summed. 0 when /proc/stat
  // could not be read.
  double idle_cpus = 0;
};

}  // namespace nictune::tuner
