// SPDX-License-Identifier: Apache-2.0
// The inputs of the discrete-event simulator: traffic, NIC ring, interrupt moderation, NAPI,
// per-event CPU costs, the receiving socket and the application that drains it. Plain data; times
// are integer nanoseconds so that a run is exact and repeatable for a given seed.
#pragma once

#include <cstdint>
#include <optional>

#include "absl/status/status.h"

namespace nictune::tuner {

// The largest value of the kernel's int knobs and fields (sk_rcvbuf, the NAPI budgets).
inline constexpr int64_t kKernelIntMax = 2147483647;

enum class ArrivalPattern {
  kConstant,  // evenly spaced at rate_pps (a paced sender, a line-rate stream)
  kPoisson,   // exponential gaps with mean 1 / rate_pps (many independent senders)
  kOnOff,     // bursts: evenly spaced at a peak rate during on_ns, silent during off_ns
};

struct ArrivalConfig {
  ArrivalPattern pattern = ArrivalPattern::kConstant;
  double rate_pps = 0;  // mean rate over the run; for kOnOff the peak is rate * (on + off) / on
  int64_t on_ns = 0;    // kOnOff only
  int64_t off_ns = 0;   // kOnOff only
};

// How many bytes the kernel charges the socket per packet (skb->truesize). A driver that receives
// into fixed page-split buffers charges whole buffers plus the sk_buff itself, whatever the frame
// size: e.g. ixgbe's 2048-byte half pages, 1536 bytes usable, give 2048 + 256 = 2304 for a
// 1514-byte frame. A scenario that measured truesize gives it directly.
struct FrameConfig {
  int64_t frame_bytes = 1514;
  std::optional<int64_t> truesize_bytes;  // measured value; overrides the buffer model
  int64_t rx_buffer_bytes = 2048;         // one rx descriptor's buffer
  int64_t rx_buffer_usable_bytes = 1536;  // what a buffer holds after headroom and skb_shared_info
  int64_t skb_overhead_bytes = 256;       // SKB_DATA_ALIGN(sizeof(struct sk_buff))
};

enum class ModerationKind {
  kStatic,         // ethtool -C rx-usecs N rx-frames M adaptive-rx off
  kIxgbeAdaptive,  // ixgbe/ixgbevf adaptive ITR: lowest / low / bulk latency classes
  kDim,            // lib/dim net_dim: profile table walked by a throughput comparison
};

struct StaticModeration {
  int64_t rx_usecs = 0;   // 0: interrupt on every packet that finds the interrupt armed
  int64_t rx_frames = 0;  // 0: no frame threshold
};

// ixgbe's adaptive ITR as published (ixgbe_update_itr / ixgbe_set_itr before the 2017 rewrite):
// per interrupt, bytes per microsecond of the last interval pick a class; the interrupt rate moves
// 10% of the way towards the class's rate. Seed 001 raised the bulk class from 8K (125 us) to
// 12K (84 us) ints/s so that one interval's burst fits a 212992-byte socket.
// The bulk class before seed 001's patch: IXGBE_8K_ITR.
inline constexpr int64_t kIxgbeBulkLatencyBeforeSeed001Usecs = 125;

struct IxgbeAdaptiveConfig {
  int64_t lowest_latency_usecs = 10;  // IXGBE_100K_ITR
  int64_t low_latency_usecs = 50;     // IXGBE_20K_ITR (also the starting interval)
  int64_t bulk_latency_usecs = 84;    // IXGBE_12K_ITR (seed 001)
  int64_t low_bytes_per_usec = 10;    // lowest <-> low threshold
  int64_t high_bytes_per_usec = 20;   // low <-> bulk threshold
};

enum class DimPeriodMode {
  kStartFromEqe,  // the timer starts at the first completion (profile usec 1, 8, 64, 128, 256)
  kStartFromCqe,  // the timer restarts at every completion (2, 8, 16, 32, 64 us)
};

struct DimConfig {
  DimPeriodMode mode = DimPeriodMode::kStartFromEqe;
  int start_profile = 1;  // NET_DIM_DEF_PROFILE_EQE / _CQE
};

struct ModerationConfig {
  ModerationKind kind = ModerationKind::kStatic;
  StaticModeration fixed;
  IxgbeAdaptiveConfig ixgbe;
  DimConfig dim;
};

enum class NapiPollMode {
  // Linux NAPI: a poll keeps taking packets while the ring has them, up to the weight; a poll
  // that used its whole weight is polled again in the same softirq run (the "loop while work
  // remains" driver of seed 000).
  kRepollWhileWork,
  // One pass per interrupt: a poll takes only what was in the ring when it started, then
  // re-enables the interrupt; packets that came meanwhile raise a new interrupt (if_dc before
  // seed 000's patch).
  kSinglePass,
};

struct NapiConfig {
  int64_t weight = 64;          // dev_weight: packets per poll
  int64_t netdev_budget = 300;  // packets per softirq run
  int64_t budget_usecs = 8000;  // netdev_budget_usecs: time per softirq run
  NapiPollMode mode = NapiPollMode::kRepollWhileWork;
  // After a time_squeeze the rest runs later (ksoftirqd); an application on the same CPU gets
  // this long first. 0: the softirq continues at once.
  int64_t squeeze_yield_ns = 0;
};

// CPU time of each step on the CPU that serves the queue's interrupt.
struct CostModel {
  int64_t hardirq_ns = 0;  // per interrupt: entry, driver handler, napi_schedule, exit
  int64_t poll_ns = 0;     // per NAPI poll call (driver bookkeeping, ring refill)
  int64_t packet_ns = 0;   // per packet in softirq: descriptor, skb, GRO, IP, UDP enqueue
};

enum class AppPlacement {
  kOwnCpu,  // the reader runs on another CPU, concurrently with the softirq
  // The reader shares the softirq's CPU and runs only while no hard IRQ or softirq work is
  // pending: it drains only between interrupts.
  kSameCpuAsSoftirq,
};

struct AppConfig {
  AppPlacement placement = AppPlacement::kOwnCpu;
  int64_t read_ns = 0;            // per datagram (recvmsg + the application's own work)
  int64_t read_batch = 1;         // datagrams per wakeup (recvmmsg vlen)
  int64_t batch_overhead_ns = 0;  // per batch (syscall entry, wakeup)
  // Scheduling gaps: the reader is off CPU for gap_ns once in every gap_period_ns, at a seeded
  // random point of the period unrelated to the traffic's phase (sim_gaps.h). 0: no gaps.
  int64_t gap_ns = 0;
  int64_t gap_period_ns = 0;
};

// Rx descriptors a scenario may have: beyond any NIC's (8K-16K), so that a what-if about a device
// whose ring is unknown can run with one that never limits (a delivery of 10 Mpps for 100 ms).
inline constexpr int64_t kMaxSimRingSize = int64_t{1} << 20;

struct SimScenario {
  ArrivalConfig arrivals;
  FrameConfig frame;
  int64_t ring_size = 512;  // rx descriptors; a packet that finds them all in use is missed
  ModerationConfig moderation;
  NapiConfig napi;
  CostModel cost;
  int64_t rcvbuf_bytes = 212992;  // sk_rcvbuf
  AppConfig app;
  int64_t duration_ns = 1'000'000'000;
  uint64_t seed = 1;
};

// The kernel's charge per packet for this scenario (truesize_bytes if given, else the buffer
// model). Call only on a validated scenario.
int64_t TruesizeBytes(const FrameConfig& frame);

// InvalidArgument naming the field, its value and the allowed range for anything the simulator
// cannot run (negative times, zero ring, rates that are not finite, ...).
absl::Status ValidateScenario(const SimScenario& scenario);

}  // namespace nictune::tuner
