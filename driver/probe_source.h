// The agent's view of the kernel-side probes (driver/bpf). Only driver/ includes libbpf; the agent
// and the tests see the probes through this interface and the plain structs below.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"

namespace nictune::driver {

// One BPF program (or a group that must attach together) and what happened to it at load.
struct ProbeStatus {
  std::string name;         // e.g. "napi_poll"
  std::string attach_type;  // "tp_btf", "raw_tp", or "" when disabled
  bool attached = false;
  std::string reason;       // why it is disabled (verifier message, missing tracepoint, ...)
  // A per-packet concern (txshare, sockfill, truesize): loaded, but its programs run only while
  // SetPerPacketProbes(true); its maps (and counters) are kept while it is off.
  bool per_packet = false;
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
  std::string device;        // "backlog" for the per-CPU backlog NAPI (RPS, loopback, netif_rx)
  uint64_t polls = 0;
  uint64_t work = 0;              // sum of packets processed (rx work reported by the driver)
  uint64_t budget_exhausted = 0;  // polls with work >= budget
  uint32_t last_budget = 0;
  uint64_t tx_completions = 0;  // skbs consumed inside this napi's NET_RX polls (tx share)
  std::vector<uint64_t> work_histogram;  // kNapiWorkBuckets entries
};

struct DropCounter {
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
  uint64_t enqueues = 0;          // sk_data_ready events
  uint64_t rcvqueue_full = 0;     // sock_rcvqueue_full events
  uint64_t udp_queue_failures = 0;  // udp_fail_queue_rcv_skb events
  uint32_t rcvbuf = 0;            // sk_rcvbuf at the last event
  uint32_t peak_rmem_alloc = 0;   // peak: highest rmem_alloc seen since the previous Read()
  double peak_fill = 0;           // peak: peak_rmem_alloc / rcvbuf
  uint64_t truesize_sum = 0;      // sum over enqueues of rmem_alloc / queued packets (bytes)
  uint64_t truesize_samples = 0;
};

// Log2 histogram of skb->truesize on receive: bucket b counts truesize in [2^b, 2^(b+1)).
inline constexpr int kTruesizeBuckets = 20;

struct TruesizeHistogram {
  int32_t ifindex = 0;
  uint32_t netns_inode = 0;  // network namespace of the device
  std::string device;
  uint32_t sample_every = 1;  // one packet in sample_every is recorded
  uint64_t samples = 0;
  uint64_t bytes = 0;  // sum of sampled truesize
  std::vector<uint64_t> buckets;  // kTruesizeBuckets entries
};

// The duty cycle of the softirq timing programs (softirq_entry/exit) since the probes were opened
// (driver/bpf/README.md "Softirq timing, duty-cycled"). Softirqs that start while timing is off
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

struct BpfCounters {
  uint64_t monotonic_ns = 0;  // CLOCK_MONOTONIC when read
  std::vector<IrqCpuCounter> irqs;
  std::vector<SoftirqCpuCounter> softirqs;
  std::vector<NapiCounter> napis;
  std::vector<DropCounter> drops;
  std::vector<SocketFill> sockets;  // the top sockets the LRU map still holds
  std::vector<TruesizeHistogram> truesize;
  // Events the fixed-size maps could not place (so totals can be checked for completeness).
  uint64_t irq_events_beyond_bound = 0;  // irq numbers beyond the per-irq array, all together
  uint64_t drops_unrecorded = 0;         // drops that found the drop key map full
  // Tx share: completions in NET_RX that no napi_poll followed, and skbs skipped because another
  // CPU deferred their free to this one (skb_defer_free_flush; they are receive buffers).
  uint64_t tx_completions_unattributed = 0;
  uint64_t tx_completions_deferred_rx = 0;
  SoftirqDutyCounters softirq_duty;
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
  uint32_t truesize_sample_every = 64;  // sampling for the per-packet truesize histogram
  uint32_t socket_fill_threshold_pct = 50;  // record socket fill only at or above this fill
  uint32_t max_sockets = 1024;        // LRU socket map size
  // irq:softirq_raise feeds only SoftirqCpuCounter::raised; it runs several times per packet, so
  // it is opt-in (raised stays 0 without it).
  bool softirq_raise = false;
  // The per-packet programs (consume_skb for the tx share, sk_data_ready/sock_rcvqueue_full for
  // socket fill, netif_receive_skb for truesize) cost most of the probes' overhead on a packet
  // flood; they start detached unless this is set, and SetPerPacketProbes switches them.
  bool per_packet_probes = false;
  // Softirq timing: about this many softirqs a second per CPU get their two clock reads, every
  // one below that rate. Above twice that rate on the busiest CPU, softirq_entry/exit are
  // attached for short slots only (softirq_duty_cycle, while the per-packet probes are off;
  // counts then come from /proc/softirqs, driver/bpf/softirq_duty_plan.h); attached whole, the
  // programs time one in up to 2^softirq_max_sample_shift per CPU above it (0: every one).
  uint32_t softirq_timed_per_s = 10000;
  uint32_t softirq_max_sample_shift = 3;
  // Duty-cycle softirq_entry/exit (false: attached whole, every softirq counted by the probes).
  bool softirq_duty_cycle = true;
};

// Loads and attaches every program the running kernel can run. Fails only when BPF cannot be
// used at all (no privilege, no BTF); single programs that fail are reported in Status().
absl::StatusOr<std::unique_ptr<ProbeSource>> OpenBpfProbes(const ProbeOptions& options);

}  // namespace nictune::driver
