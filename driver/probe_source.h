// SPDX-License-Identifier: Apache-2.0
// The agent's view of the kernel-side probes (driver/bpf). Only driver/ includes libbpf; the agent
// and the tests see the probes through this interface and the plain structs below.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "driver/probe_budget_default.h"

namespace nictune::driver {

// One BPF program (or a group that must attach together) and what happened to it at load.
struct ProbeStatus {
  std::string name;         // e.g. "napi_poll"
  std::string attach_type;  // "tp_btf", "raw_tp", or "" when disabled
  bool attached = false;
  std::string reason;  // why it is disabled (verifier message, missing tracepoint, ...)
  // A per-packet concern (txshare, sockfill, truesize): loaded, but its programs run only while
  // SetPerPacketProbes(true); its maps (and counters) are kept while it is off.
  bool per_packet = false;
  // A per-packet concern that is off until switched on (not attached, and not for a fault): the
  // agent switches it on while a socket is under pressure.
  bool waiting = false;
};

// Counters below are cumulative since the probes were attached, except where marked "peak":
// peaks are maxima since the previous Read() and reset by it.

struct IrqCpuCounter {
  uint32_t irq = 0;
  uint32_t cpu = 0;
  uint64_t count = 0;
  uint64_t time_ns = 0;  // handler time, irq_handler_entry -> irq_handler_exit
};

struct SoftirqCpuCounter {
  uint32_t vector = 0;  // NET_RX = 3, NET_TX = 2, ... (the kernel's softirq numbers)
  uint32_t cpu = 0;
  // softirq_entry events while softirq_entry was attached (every one unless duty-cycled:
  // SoftirqDutyCounters).
  uint64_t count = 0;
  // softirq_entry -> softirq_exit of the timed softirqs, each weighted by the duty cycle's slot
  // weight << shift when one in 2^shift was timed: exact while every softirq is timed.
  uint64_t time_ns = 0;
  uint64_t raised = 0;        // softirq_raise events
  uint64_t timed = 0;         // softirqs timed (the sample)
  uint64_t timed_weight = 0;  // sum of the timed ones' weights (== timed: none skipped)
};

// Work histogram buckets: index w holds polls that did exactly w packets of work for
// w < kNapiWorkBuckets - 1; the last bucket holds all polls with more work.
inline constexpr int kNapiWorkBuckets = 66;

struct NapiCounter {
  uint32_t napi_id = 0;  // 0 for drivers without a napi id (threaded/legacy); then keyed by ifindex
  int32_t ifindex = 0;
  uint32_t netns_inode = 0;  // network namespace of the device (ifindex is unique only inside it)
  // Without a napi id, the pid of the instance's poller thread when it is threaded (0: none): what
  // tells a device's NAPIs without ids apart (tun's queues).
  uint32_t thread_pid = 0;
  std::string device;  // "backlog" for the per-CPU backlog NAPI (RPS, loopback, netif_rx)
  uint64_t polls = 0;
  uint64_t work = 0;              // sum of packets processed (rx work reported by the driver)
  uint64_t budget_exhausted = 0;  // polls with work >= budget
  uint32_t last_budget = 0;
  uint64_t tx_completions = 0;           // skbs consumed inside this napi's NET_RX polls (tx share)
  std::vector<uint64_t> work_histogram;  // kNapiWorkBuckets entries
};

// Where a drop count comes from. The probe's key map is bounded (driver/bpf/README.md "Bounded
// maps"): keys idle for a while are pruned, and a drop that finds the map full is still counted.
enum class DropOrigin {
  kKey,         // a key the map holds now: reason, protocol, device, port and socket
  kPrunedKeys,  // the last counts of keys pruned from the map, summed per reason, protocol and
                // device (local_port and socket_cookie 0)
  kMapFull,     // drops that found the map full: the reason alone (no protocol or device)
};

struct DropCounter {
  DropOrigin origin = DropOrigin::kKey;
  uint32_t reason = 0;      // enum skb_drop_reason value, subsystem bits included
  std::string reason_name;  // from the running kernel's BTF, e.g. "SOCKET_RCVBUFF"
  uint16_t protocol = 0;    // skb->protocol in host order (ETH_P_IP = 0x0800, ...)
  uint8_t l4_protocol = 0;  // IPPROTO_UDP, IPPROTO_TCP, 0 if unknown
  int32_t ifindex = 0;
  uint32_t netns_inode = 0;  // network namespace of skb->dev, 0 when the skb had no device
  std::string device;        // skb->dev's name when it lives in our network namespace
  uint16_t local_port = 0;  // the socket's port when known, else the destination port; 0 if unknown
  uint64_t socket_cookie = 0;  // rx_sk where the kernel gives it, else skb->sk; 0 if none
  uint64_t count = 0;
};

struct SocketKey {
  uint64_t cookie = 0;  // bpf_get_socket_cookie
  uint16_t family = 0;
  uint8_t protocol = 0;
  uint16_t local_port = 0;
  uint32_t netns_inode = 0;
};

struct SocketFill {
  SocketKey key;
  uint64_t enqueues = 0;            // sk_data_ready events
  uint64_t rcvqueue_full = 0;       // sock_rcvqueue_full events
  uint64_t udp_queue_failures = 0;  // udp_fail_queue_rcv_skb events
  uint32_t rcvbuf = 0;              // sk_rcvbuf at the last event
  uint32_t peak_rmem_alloc = 0;     // peak: highest rmem_alloc seen since the previous Read()
  double peak_fill = 0;             // peak: peak_rmem_alloc / rcvbuf
  uint64_t truesize_sum = 0;        // sum over enqueues of rmem_alloc / queued packets (bytes)
  uint64_t truesize_samples = 0;
  // peak: the longest time data waited unread that a read ended, since the previous Read(); 0
  // when no read ended a wait (or the kernel has no sock_recv_length)
  uint64_t longest_drain_gap_ns = 0;
  uint64_t drain_waits_ended = 0;  // reads that ended a wait
  // A wait still open at this read, as long as it has lasted (the reader has not read since): 0
  // when none is, or the probe is not measuring, which would not see the read that ended it.
  uint64_t open_drain_wait_ns = 0;
};

// Log2 histogram of skb->truesize on receive: bucket b counts truesize in [2^b, 2^(b+1)).
inline constexpr int kTruesizeBuckets = 20;

struct TruesizeHistogram {
  int32_t ifindex = 0;
  uint32_t netns_inode = 0;  // network namespace of the device
  std::string device;
  uint32_t sample_every = 1;  // one packet in sample_every is recorded
  uint64_t samples = 0;
  uint64_t bytes = 0;             // sum of sampled truesize
  std::vector<uint64_t> buckets;  // kTruesizeBuckets entries
};

// The duty cycle of the softirq timing programs (softirq_entry/exit) since the probes were opened
// (driver/bpf/README.md "The probe budget"). Softirqs that start while timing is off
// (the pair detached, or attached at a slot's edges) are not timed, and while the pair is
// detached not counted by the probes either: a window in which untimed_ns moved takes its counts
// from /proc/softirqs and scales the timed ones (agent/model/softirq_time.h).
struct SoftirqDutyCounters {
  uint64_t untimed_ns = 0;   // CLOCK_MONOTONIC time timing was off, cumulative
  uint64_t attachments = 0;  // times the pair was attached again: slots, or going whole
  // The link operations, the wall time the attaching thread spent in them and its CPU time (the
  // kernel patches the tracepoint's static key and static call when it gains its first or loses
  // its last program, waiting for every CPU; before a tracepoint gains one again it may wait for
  // an RCU grace period, asleep).
  uint64_t link_attaches = 0;
  uint64_t link_attach_ns = 0;
  uint64_t link_attach_cpu_ns = 0;
  uint64_t link_detaches = 0;
  uint64_t link_detach_ns = 0;
  uint64_t link_detach_cpu_ns = 0;
};

// One hook of the probe budget (driver/bpf/README.md "The probe budget"): a concern's programs,
// attached whole or measuring in slots as the budget allows. Figures a hook counts were seen only
// while it measured: over a window, the share of the window's time attached_ns grew by is what
// they cover, and the agent scales them by it.
// The probe budget's hooks, one per concern of the probes, as HookDuty::hook names them.
inline constexpr std::string_view kProbeHookNames[] = {
    "irq", "softirq", "napi", "txshare", "drops", "udp_fail", "sockfill", "truesize"};

struct HookDuty {
  std::string hook;  // one of kProbeHookNames
  // CLOCK_MONOTONIC time it measured, cumulative: its event handlers attached and, for a hook
  // whose programs have a gate, its gate open.
  uint64_t attached_ns = 0;
  uint64_t events = 0;  // events its programs saw, cumulative
  uint64_t slots = 0;   // times it began to measure: slots (by links or gate), going whole
  // CPU time of the link operations (attach and detach) to the thread that made them.
  uint64_t link_cpu_ns = 0;
  // The current plan: "whole", "slotted", "gated" or "detached"; the rate and cost it was planned
  // with.
  std::string mode;
  double share = 1;  // of each period its slot covers (1 whole, 0 detached)
  double events_per_s = 0;
  double cost_ns_per_event = 0;
  bool cost_measured = false;  // from a calibration on this host, not the default
};

struct ProbeBudgetCounters {
  double budget_cpu_share = 0;  // 0: no limit
  // What the current plan was made with: the budget less what earlier plans overspent, as
  // measured (driver/bpf/probe_spend_account.h); 0: no limit.
  double planning_cpu_share = 0;
  double planned_ns_per_s = 0;  // what the current plan costs, link operations included
  bool over_budget = false;     // even the shortest slots cost more than the budget
  uint64_t calibrations = 0;    // windows run with the kernel's BPF statistics on
};

// How full one of the probes' hash maps is: what /metrics and the status call map pressure.
struct MapPressure {
  std::string map;        // the BPF map's name, e.g. "drop_counts"
  uint64_t entries = 0;   // keys it holds after this read's pruning
  uint64_t capacity = 0;  // its max_entries
  uint64_t no_room = 0;   // events that found it full since the probes loaded (still counted
                          // elsewhere, e.g. DropOrigin::kMapFull)
  uint64_t pruned = 0;    // keys pruned since the probes loaded
};

struct BpfCounters {
  uint64_t monotonic_ns = 0;  // CLOCK_MONOTONIC when read
  uint32_t netns_inode = 0;   // the reader's own network namespace, 0 if unknown
  std::vector<IrqCpuCounter> irqs;
  std::vector<SoftirqCpuCounter> softirqs;
  std::vector<NapiCounter> napis;
  std::vector<DropCounter> drops;
  std::vector<SocketFill> sockets;  // the top sockets the LRU map still holds
  // Reads end the sockets' waits: the socket-fill probe is loaded with its read handler (the
  // kernel has sock:sock_recv_length). False: no drain gap is timed, whatever the probe runs.
  bool drain_gap_timed = false;
  std::vector<TruesizeHistogram> truesize;
  // Events the fixed-size maps could not place (so totals can be checked for completeness).
  uint64_t irq_events_beyond_bound = 0;  // irq numbers beyond the per-irq array, all together
  // Tx share: completions in NET_RX that no napi_poll followed, and skbs skipped because another
  // CPU deferred their free to this one (skb_defer_free_flush; they are receive buffers).
  uint64_t tx_completions_unattributed = 0;
  uint64_t tx_completions_deferred_rx = 0;
  std::vector<MapPressure> maps;
  SoftirqDutyCounters softirq_duty;
  std::vector<HookDuty> hooks;
  ProbeBudgetCounters budget;
};

// Per-program run-time statistics from kernel.bpf_stats_enabled (zero when disabled).
struct ProbeCost {
  std::string name;
  uint64_t run_cnt = 0;
  uint64_t run_time_ns = 0;
};

class ProbeSource {
 public:
  virtual ~ProbeSource() = default;
  virtual std::vector<ProbeStatus> Status() const = 0;
  virtual absl::StatusOr<BpfCounters> Read() = 0;
  virtual std::vector<ProbeCost> Cost() const = 0;
  // Attaches (true) or detaches (false) the per-packet programs at run time, keeping their maps:
  // counters stop while off and continue from the kept values when on again. Call it from the
  // thread that calls Read().
  virtual absl::Status SetPerPacketProbes(bool on) {
    return absl::UnimplementedError(
        absl::StrCat("SetPerPacketProbes(", on ? "true" : "false", "): not supported here"));
  }
};

struct ProbeOptions {
  uint32_t truesize_sample_every = 64;      // sampling for the per-packet truesize histogram
  uint32_t socket_fill_threshold_pct = 50;  // record socket fill only at or above this fill
  uint32_t max_sockets = 1024;              // LRU socket map size
  // irq:softirq_raise feeds only SoftirqCpuCounter::raised; it runs several times per packet, so
  // it is opt-in (raised stays 0 without it).
  bool softirq_raise = false;
  // The per-packet programs (consume_skb for the tx share, sk_data_ready/sock_rcvqueue_full for
  // socket fill and sock_recv_length, a read, for its drain gap, netif_receive_skb for truesize)
  // cost most of the probes' overhead on a packet flood; they start detached unless this is set,
  // and SetPerPacketProbes switches them.
  bool per_packet_probes = false;
  // Softirq timing: about this many softirqs a second per CPU get their two clock reads, every
  // one below that rate; above it the programs time one in up to 2^softirq_max_sample_shift per
  // CPU (0: every one). Whether the pair runs whole or in slots is the probe budget's choice.
  uint32_t softirq_timed_per_s = 10000;
  uint32_t softirq_max_sample_shift = 3;
  // Let the probe budget slot softirq_entry/exit (false: attached whole whatever the budget,
  // every softirq counted by the probes).
  bool softirq_duty_cycle = true;
  // The probe budget: the share of one CPU that every program together may use (nullopt: no
  // limit, every hook attached whole). Hooks whose cost fits stay whole; the costliest run in
  // short slots spread over each period (driver/bpf/README.md "The probe budget").
  std::optional<double> budget_cpu_share = kDefaultProbeBudget;
};

// Loads and attaches every program the running kernel can run. Fails only when BPF cannot be
// used at all (no privilege, no BTF); single programs that fail are reported in Status().
absl::StatusOr<std::unique_ptr<ProbeSource>> OpenBpfProbes(const ProbeOptions& options);

}  // namespace nictune::driver
