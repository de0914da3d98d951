// A Window is what happened between two snapshots: rates per second, shares of CPU time and
// histograms, per CPU, irq, NAPI instance, device, socket and drop reason. Every group names the
// source its figures came from.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
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
  std::map<int, double> per_cpu_per_s;  // only CPUs that took any
  Source source = Source::kProcfs;
  // From BPF when attached: handler time.
  std::optional<double> handler_time_share;  // summed over CPUs, fraction of one CPU
  std::optional<double> mean_handler_ns;
};

struct NapiWindow {
  uint32_t napi_id = 0;
  int32_t ifindex = 0;
  std::string device;
  uint64_t polls = 0;
  double polls_per_s = 0;
  double work_per_s = 0;                 // packets per second the polls reported
  double packets_per_poll = 0;           // mean work per poll
  double budget_exhausted_fraction = 0;  // polls that used their whole budget / polls
  uint32_t budget = 0;
  double tx_completions_per_s = 0;
  double rx_share = 0;  // rx work / (rx work + tx completions) in the polls, 1 when no tx work
  std::vector<uint64_t> work_histogram;  // polls by work done in the window
};

struct DeviceWindow {
  std::string name;
  int32_t ifindex = 0;
  std::string driver;
  int rx_queues = 0;
  int tx_queues = 0;
  std::map<std::string, double> per_s;  // statistics/<name> per second, e.g. rx_packets
};

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
};

struct SocketWindow {
  driver::SocketKey key;
  double enqueues_per_s = 0;
  uint32_t rcvbuf = 0;
  double peak_fill = 0;                 // peak rmem_alloc / rcvbuf within the window
  std::optional<double> mean_truesize;  // bytes per queued packet, as the kernel charged it
  uint64_t rcvqueue_full = 0;
  uint64_t udp_queue_failures = 0;
};

struct TruesizeWindow {
  int32_t ifindex = 0;
  std::string device;
  uint64_t samples = 0;
  double mean_bytes = 0;
  double p50_bytes = 0;  // upper bound of the log2 bucket that holds the quantile
  double p99_bytes = 0;
  std::vector<uint64_t> buckets;
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
  uint64_t stalls = 0;         // interrupts more than 1 ms late (driver/emulated/counters.h)
  Source source = Source::kEmulatedNic;
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
  // Protocol counters per second, keyed "Section.Name" (e.g. "Udp.RcvbufErrors"), from
  // /proc/net/snmp and /proc/net/netstat; only counters that moved.
  std::map<std::string, double> protocol_per_s;
  std::vector<SourceState> sources;  // of the later snapshot
};

// Fails when the snapshots are out of order or taken at the same instant.
absl::StatusOr<Window> ComputeWindow(const Snapshot& before, const Snapshot& after);

}  // namespace nictune::model
