// SPDX-License-Identifier: Apache-2.0
#include "tuner/interval_plan.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "tuner/count_text.h"
#include "tuner/limits.h"
#include "tuner/rates.h"
#include "tuner/stalls.h"

namespace nictune::tuner {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// A plan whose worst socket's drain gap was not measured over the range that moves it: the
// drops it predicts hold only if the reader pauses no longer than seen.
constexpr double kUnseenDrainGapConfidence = 0.7;

// Largest multiple of step not above limit_us, within [0, cap_us]; -1 when limit_us < 0.
int64_t FloorToStep(double limit_us, int64_t step, int64_t cap_us) {
  if (!(limit_us >= 0)) return -1;
  const double bounded = std::min(limit_us, static_cast<double>(cap_us));
  return static_cast<int64_t>(std::floor(bounded / static_cast<double>(step))) * step;
}

// Smallest multiple of step not below limit_us, at most cap_us.
int64_t CeilToStep(double limit_us, int64_t step, int64_t cap_us) {
  const double bounded = std::clamp(limit_us, 0.0, static_cast<double>(cap_us));
  const int64_t up = static_cast<int64_t>(std::ceil(bounded / static_cast<double>(step))) * step;
  return std::min(up, cap_us);
}

// One socket's inputs to the burst model.
struct SocketModel {
  const SocketObservation* socket = nullptr;
  FillInputs fill_inputs;  // the mean rate: the plain fill math a person redoes first
  FillResult fill;
  BurstInputs burst;
  double usable_packets = 0;
  // Where the fill math's rate came from, when not the socket's own count: " (the queue's ...)".
  std::string rate_note;
  // The longest interval whose single NAPI cycle fits (the gap not counted): an upper bound on
  // every drop-free interval, exact where the gap is shorter; < 0 when none.
  double one_cycle_limit_s = -1;
};

// A delivery of WholePacketsWithin(rate, cycle) fits while rate * (cycle + kClockResolutionS) <
// floor(usable): the supremum of the intervals whose one cycle fits.
double OneCycleLimit(const SocketModel& m) {
  const BurstInputs& b = m.burst;
  const double whole = std::floor(m.usable_packets);
  if (whole < 1 || b.socket_rate_pps <= 0) return -1;
  const double cycle = whole / b.socket_rate_pps - kClockResolutionS;
  if (!b.reader_waits_for_napi) return cycle;
  const double load = b.queue_rate_pps * b.packet_cost_s;
  if (load >= kSaturatedSoftirqLoad) return -1;
  return cycle * (1 - load) - b.interrupt_cost_s;
}

// Relative slack for comparing a hold against its limit computed from the same numbers.
constexpr double kRoundingSlack = 1 + 1e-9;

bool SocketFits(const SocketModel& m, double interval_s) {
  const Burst b = BurstAt(m.burst, interval_s);
  return !b.saturated && b.packets_held <= m.usable_packets * kRoundingSlack;
}

// The most a socket may hold at a longer interval than the cost floor's when the buffer must grow
// anyway: the floor's hold plus a packet (the floor's deliveries and a longer interval's round to
// whole packets apart), and from twice the floor on PolicyConfig::grown_buffer_slack of it when
// that is more. Behind a drain gap the hold grows slowly with u, so this buys many times fewer
// interrupts; without one it grows in proportion to u and qualifies only for a few packets.
double NearFloorHold(double held_at_floor, double slack, bool halves_interrupts) {
  return held_at_floor + (halves_interrupts ? std::max(1.0, slack * held_at_floor) : 1.0);
}

// When the buffer must grow anyway: the longest multiple of step in (floor_us, top_us] at which
// no socket holds more than NearFloorHold of what it holds at floor_us (with a drain gap the hold
// is not monotonic in u). 0 when none.
int64_t LongestIntervalNearFloorHold(const std::vector<SocketModel>& models, int64_t floor_us,
                                     int64_t top_us, int64_t step, double slack) {
  std::vector<double> held_at_floor;
  for (const SocketModel& m : models) {
    held_at_floor.push_back(BurstAt(m.burst, static_cast<double>(floor_us) * 1e-6).packets_held);
  }
  for (int64_t u = top_us; u > floor_us; u -= step) {
    const bool halves_interrupts = u >= 2 * floor_us;
    bool near = true;
    for (size_t i = 0; i < models.size() && near; ++i) {
      const Burst b = BurstAt(models[i].burst, static_cast<double>(u) * 1e-6);
      near = !b.saturated &&
             b.packets_held <=
                 NearFloorHold(held_at_floor[i], slack, halves_interrupts) * kRoundingSlack;
    }
    if (near) return u;
  }
  return 0;
}

// The packets' worth whose floor WholePacketsWithin takes, shown to 2 decimals toward zero so
// that the printed floor is the one taken (0.999 prints 0.99, not 1.00).
double WorthShown(double rate_pps, double span_s) {
  return std::floor(rate_pps * (span_s + kClockResolutionS) * 100) / 100;
}

// How packets_held came about (burst_model.h), numbers substituted.
std::string HeldFormula(const BurstInputs& in, const Burst& b) {
  if (b.deliveries_per_gap <= 1 && !b.held_by_bursts) {
    return absl::StrFormat(
        "1 delivery: floor(%.0f pps x %.2f us cycle = %.2f) + 1 = %s (drain gap %.2f us)",
        in.socket_rate_pps, Us(b.cycle_s), WorthShown(in.socket_rate_pps, b.cycle_s),
        PacketsText(b.packets_held, 0), Us(in.drain_gap_s));
  }
  std::string out = absl::StrFormat(
      "%.0f deliveries complete in the drain gap %.2f us + %.2f us of softirq (1 + floor(%.2f us "
      "/ %.2f us apart)), each floor(%.2f) + 1 = %s (cycle %.2f us)",
      b.deliveries_per_gap, Us(in.drain_gap_s), Us(b.processing_s),
      Us(in.drain_gap_s + b.processing_s), Us(b.delivery_s),
      WorthShown(in.socket_rate_pps, b.cycle_s), PacketsText(b.packets_per_delivery, 0),
      Us(b.cycle_s));
  if (b.held_by_bursts && in.max_packets_per_gap > 0) {
    absl::StrAppend(&out, absl::StrFormat(
                              ", but at most %.0f packets come in a drain gap and %.0f pps in "
                              "the %.2f us of the cycle and softirq around it",
                              in.max_packets_per_gap, in.socket_rate_pps,
                              Us(b.span_s - in.drain_gap_s)));
  }
  if (b.held_by_bursts && in.burst_s > 0) {
    absl::StrAppend(
        &out, absl::StrFormat(", but bursts of at most %.2f us at least %.2f us apart bring no "
                              "more than floor(%.0f pps * %.2f us bursting) + 1 in the %.2f us "
                              "from a cycle before the gap to the last delivery's end",
                              Us(in.burst_s), Us(in.burst_pause_s), in.socket_rate_pps,
                              Us(b.bursting_s), Us(b.span_s)));
  }
  absl::StrAppend(&out, " = ", PacketsText(b.packets_held, 0));
  return out;
}

// A plan in the making: what the stages below share, and what the formula repeats.
struct Planning {
  const QueueObservation& queue;
  const PolicyConfig& config;
  IntervalPlan plan;
  std::vector<SocketModel> models;
  double floor_us = 0;    // the cost floor
  double queue_peak = 0;  // the queue's peak rate, the sockets' included
  double ring_peak = 0;   // one ring's share of it
  // Sockets dropped at the current static interval beyond the queue's stalls; the ring's are
  // plan.ring_dropped_at_current.
  bool sockets_dropped_at_current = false;
  bool DroppedAtCurrent() const {
    return sockets_dropped_at_current || plan.ring_dropped_at_current;
  }
  // (1 - dropped_backoff) * current when sockets or the ring dropped at it
  double observed_cap_s = kInf;
  std::string cost_source = "measured";
  const char* packet_cost_source = "measured";
  const SocketModel* worst = nullptr;
};

// The interrupt-rate ceiling from what an interrupt costs (the cost also lengthens each cycle),
// and the softirq time per packet.
absl::Status SetCosts(Planning& p, absl::Duration window) {
  const QueueObservation& q = p.queue;
  IntervalPlan& plan = p.plan;
  const double interrupt_rate = PerSecond(q.interrupts, window);
  if (q.interrupt_cost_s > 0) {
    plan.interrupt_cost_s = q.interrupt_cost_s;
    plan.interrupt_cost_measured = true;
  } else if (interrupt_rate > 0 && q.cpu.hardirq > 0) {
    // The split is the serving CPUs' mean; the interrupts are every vector's on all of them.
    const double cpus = std::max<uint32_t>(1, q.serving_cpus);
    plan.interrupt_cost_s = q.cpu.hardirq * cpus / interrupt_rate;
    plan.interrupt_cost_measured = true;
    p.cost_source = cpus > 1 ? absl::StrFormat("hardirq share * %.0f CPUs / interrupt rate", cpus)
                             : std::string("hardirq share / interrupt rate");
  } else {
    plan.interrupt_cost_s = kDefaultInterruptCostSeconds;
    p.cost_source = "assumed, not measured";
  }
  absl::StatusOr<InterruptCeiling> ceiling =
      ComputeInterruptCeiling(plan.interrupt_cost_s, p.config.interrupt_cpu_share);
  if (!ceiling.ok()) return ceiling.status();
  plan.ceiling = *ceiling;
  p.floor_us = Us(plan.ceiling.min_interval_s);
  if (q.packet_cost_s > 0) {
    plan.packet_cost_s = q.packet_cost_s;
  } else if (q.cpu.softirq + q.napi_poller_cpu > 0 && plan.rx_rate_pps > 0) {
    // Threaded NAPI polls in kernel threads: their time is the polls' that the softirq share
    // no longer holds.
    plan.packet_cost_s = (q.cpu.softirq + q.napi_poller_cpu) / plan.rx_rate_pps;
    p.packet_cost_source = q.napi_poller_cpu > 0
                               ? "(softirq share + NAPI poller thread share) / rx rate"
                               : "softirq share / rx rate";
  } else {
    p.packet_cost_source = "unknown, taken as 0";
  }
  return absl::OkStatus();
}

// A socket's arrivals come from a probe the probe budget may run in slots (a sample, scaled up),
// the queue's packets from the NIC's own counters. A socket whose sample is below the queue's
// rate by less than this share takes the whole queue: the exact count is the better figure, and
// the plan no longer moves with the sample's noise (per-second samples of a steady 20,000 pps
// read 17,400 to 20,600 on the emulated NIC). A sample above one queue's rate is kept, since a
// socket may be fed by more queues than that one; above a whole device's, it is that noise too.
constexpr double kWholeQueueTolerance = 0.10;

bool TakesTheWholeQueue(double socket_rate_pps, double queue_rate_pps) {
  return queue_rate_pps > 0 &&
         std::abs(socket_rate_pps - queue_rate_pps) <= kWholeQueueTolerance * queue_rate_pps;
}

// A sample's count comes in clumps of about one delivery's worth (a socket takes its share of
// each interrupt's packets together), so `seen` packets are seen / clump independent events, and
// the socket's rate may lie this many standard errors above the sample. A 0.5% slot of a 2 s
// window saw 64 of a 10000 pps socket's packets in clumps of 16 and read 6445 pps.
constexpr double kSampleSigmas = 2;

struct PlannedRate {
  double rate_pps = 0;
  double peak_pps = 0;
  std::string note;  // SocketModel::rate_note
};

// How far a socket's sampled count may stray, as a share of it: +inf where it saw nothing.
double SampleSpread(double seen, double clump) {
  if (seen <= 0) return std::numeric_limits<double>::infinity();
  return kSampleSigmas * std::sqrt(std::max(clump, 1.0) / seen);
}

void TakeTheQueue(const Planning& p, PlannedRate& r) {
  r.rate_pps = p.plan.rx_rate_pps;
  r.peak_pps =
      p.queue.queue < 0 ? p.plan.rx_peak_rate_pps : std::max(r.peak_pps, p.plan.rx_peak_rate_pps);
}

// A socket's rate counted over part of the window, and how far it may stray.
struct Sample {
  double spread = 0;
  std::string text;  // "the socket's sampled 6445 pps, 64 packets seen over 0.5% ..."
};

Sample SampleOf(const Planning& p, const SocketObservation& s, double own_rate,
                absl::Duration window) {
  const double vector_rate = PerSecond(p.queue.interrupts, window) / RxRings(p.queue);
  const double clump = std::max(vector_rate > 0 ? own_rate / vector_rate : 1, 1.0);
  // Its drops are the kernel's count over the whole window, not packets the slots saw: a socket
  // whose slots saw none of its packets, scaled from its drops alone, was planned at 518 pps on a
  // 10000 pps queue.
  const double enqueued = static_cast<double>(s.packets - std::min(s.drops, s.packets));
  const double seen = enqueued * std::max(s.arrivals_share, 0.0);
  return Sample{
      .spread = SampleSpread(seen, clump),
      // Two significant digits: slots are often a few hundredths of a percent of the window.
      .text = seen <= 0 ? absl::StrFormat("none of the socket's packets fell in the probe's "
                                          "slots, %.2g%% of the window",
                                          100 * s.arrivals_share)
                        : absl::StrFormat("the socket's sampled %.0f pps, %.0f packets seen over "
                                          "%.1f%% of the window in clumps of %.0f",
                                          own_rate, seen, 100 * s.arrivals_share, clump)};
}

// A sampled rate: below the queue's, planned at its upper bound, or at the queue's rate where that
// bound reaches 90% of it; above a whole device's (a socket fed by more queues than one of them
// may well exceed that one's), at the device's where its lower bound does not exceed it.
PlannedRate SampledRate(const Planning& p, const SocketObservation& s, double own_rate,
                        absl::Duration window) {
  const double queue_rate = p.plan.rx_rate_pps;
  PlannedRate r{.rate_pps = own_rate, .peak_pps = s.peak_rate_pps, .note = ""};
  if (own_rate >= queue_rate && p.queue.queue >= 0) return r;
  const Sample sample = SampleOf(p, s, own_rate, window);
  if (own_rate >= queue_rate) {
    const double low = std::max(own_rate * (1 - sample.spread), 0.0);
    if (low > queue_rate) return r;
    TakeTheQueue(p, r);
    r.note =
        absl::StrFormat(" (the device's rx rate: %s, may be as low as %.0f pps)", sample.text, low);
    return r;
  }
  const double high = own_rate * (1 + sample.spread);
  // A socket that neither arrived in its slots nor dropped received nothing to plan for.
  if (!std::isfinite(high) && s.drops == 0) return r;
  if (!std::isfinite(high)) {
    TakeTheQueue(p, r);
    r.note =
        absl::StrFormat(" (the queue's rx rate, the most that can have arrived: %s)", sample.text);
  } else if (high >= (1 - kWholeQueueTolerance) * queue_rate) {
    TakeTheQueue(p, r);
    r.note =
        absl::StrFormat(" (the queue's rx rate: %s, may be up to %.0f pps)", sample.text, high);
  } else {
    r.rate_pps = high;
    r.note = absl::StrFormat(" (%s, at its bound)", sample.text);
  }
  return r;
}

// The socket's arrival rate for the fill math: its own count where it is whole and exact enough,
// else the queue's rate (the most that can have arrived) or what the sample allows.
PlannedRate SocketRate(const Planning& p, const SocketObservation& s, absl::Duration window) {
  const double own_rate = PerSecond(s.packets, window);
  const double queue_rate = p.plan.rx_rate_pps;
  PlannedRate r{.rate_pps = own_rate, .peak_pps = s.peak_rate_pps, .note = ""};
  if (!s.arrivals_measured) {
    // A floor made of drops alone would read a socket that keeps up with a flood as a trickle.
    r.rate_pps = std::max(own_rate, queue_rate);
    r.note = s.seconds_unseen > 0
                 ? absl::StrFormat(
                       " (the queue's rx rate: the probe's slots missed the socket in this "
                       "window; its buffer and reader as seen %.1f s ago)",
                       s.seconds_unseen)
                 : std::string(
                       " (the queue's rx rate: the socket's own arrivals were not counted in "
                       "this window)");
    return r;
  }
  if (TakesTheWholeQueue(own_rate, queue_rate) && (own_rate < queue_rate || p.queue.queue < 0)) {
    TakeTheQueue(p, r);
    r.note = absl::StrFormat(
        " (the queue's rx rate: the socket's sampled %.0f pps is within %.0f%% of it)", own_rate,
        kWholeQueueTolerance * 100);
    return r;
  }
  // A whole count is exact; above one queue's rate, a socket may be fed by more queues.
  if (s.arrivals_share >= 1 || queue_rate <= 0) return r;
  return SampledRate(p, s, own_rate, window);
}

// Every socket with packets and a truesize: its fill math and its burst model's inputs.
absl::Status ModelSockets(Planning& p, absl::Duration window) {
  for (const SocketObservation& s : p.queue.sockets) {
    const double truesize =
        s.truesize_mean_bytes > 0 ? s.truesize_mean_bytes : s.truesize_p99_bytes;
    SocketModel m;
    m.socket = &s;
    const PlannedRate planned = SocketRate(p, s, window);
    const double rate = planned.rate_pps;
    const double peak = planned.peak_pps;
    m.rate_note = planned.note;
    // An unknown buffer (0: the /proc/net/udp fallback has no size) is no capacity to plan at.
    if (rate <= 0 || truesize <= 0 || s.rcvbuf_bytes == 0) continue;
    m.fill_inputs = {.rate_pps = rate,
                     .truesize_bytes = truesize,
                     .rcvbuf_bytes = static_cast<double>(s.rcvbuf_bytes),
                     .drain_gap_s = s.drain_gap_s,
                     .margin = p.config.margin};
    absl::StatusOr<FillResult> fill = ComputeFill(m.fill_inputs);
    if (!fill.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("socket ", s.name, " on ", p.queue.device,
                                                     ": ", fill.status().message()));
    }
    m.fill = *fill;
    m.burst = {.socket_rate_pps = std::max(m.fill_inputs.rate_pps, peak),
               .queue_rate_pps = 0,
               .packet_cost_s = p.plan.packet_cost_s,
               .interrupt_cost_s = p.plan.interrupt_cost_s,
               .drain_gap_s = s.drain_gap_s,
               .burst_s = s.burst_s,
               .burst_pause_s = s.burst_pause_s,
               .max_packets_per_gap = s.max_packets_per_gap,
               .reader_waits_for_napi = s.reader_shares_softirq_cpu};
    m.burst.queue_rate_pps = std::max(p.plan.rx_peak_rate_pps, m.burst.socket_rate_pps);
    m.usable_packets = UsablePackets(m.fill.capacity_packets, p.config.margin);
    m.one_cycle_limit_s = OneCycleLimit(m);
    p.models.push_back(m);
  }
  return absl::OkStatus();
}

// The packets that arrived for the socket over the window, as the plan takes them: what its planned
// rate brings, or its own count where that is more. Where no probe counted its arrivals, or its
// slots saw none of them, its count is its drops alone, which would put every drop beyond the
// stalls, and the back-off below would shorten the interval window after window while the stalls
// alone drop.
double PlannedArrivals(const SocketModel& m, absl::Duration window) {
  return std::max(static_cast<double>(m.socket->packets),
                  m.fill_inputs.rate_pps * absl::ToDoubleSeconds(window));
}

// Whether the socket dropped more than the packets that arrived for it while the queue's
// delivery was stalled: those reach it in one late burst at any interval, and say nothing of it.
bool DroppedBeyondStalls(const SocketModel& m, const QueueObservation& q, absl::Duration window) {
  return static_cast<double>(m.socket->drops) >
         StalledArrivals(PlannedArrivals(m, window), q.stall_s, window);
}

// Whether the ring overflowed more often than the queue's stalls explain: a stall of s seconds
// fills the ring with what arrives meanwhile, at any interval. Arrivals are the packets received
// and those the full ring missed.
bool RingDroppedBeyondStalls(const QueueObservation& q, absl::Duration window) {
  const double arrivals = static_cast<double>(q.rx_packets) + static_cast<double>(q.drops.ring);
  return static_cast<double>(q.drops.ring) > StalledArrivals(arrivals, q.stall_s, window);
}

// Drops seen at the current static interval outweigh the model (e.g. random arrivals, whose count
// per interval the margin does not cover for a small socket; a ring whose peak the samples
// missed): the plan stays below that interval, unless the queue's stalls explain them.
void CapForDropsAtCurrent(Planning& p, absl::Duration window) {
  const CoalesceState& c = p.queue.coalesce;
  const bool static_interval = c.rx_usecs_supported && !c.adaptive_rx && c.rx_usecs > 0;
  if (!static_interval) return;
  p.sockets_dropped_at_current =
      std::any_of(p.models.begin(), p.models.end(),
                  [&](const SocketModel& m) { return DroppedBeyondStalls(m, p.queue, window); });
  p.plan.ring_dropped_at_current = RingDroppedBeyondStalls(p.queue, window);
  const bool dropped = p.queue.drops.ring > 0 ||
                       std::any_of(p.models.begin(), p.models.end(),
                                   [](const SocketModel& m) { return m.socket->drops > 0; });
  p.plan.drops_within_stalls = dropped && !p.DroppedAtCurrent();
  if (p.DroppedAtCurrent()) {
    p.observed_cap_s = (1 - p.config.dropped_backoff) * static_cast<double>(c.rx_usecs) * 1e-6;
  }
}

// The queue's peak, CPU saturation, the ring's limit and the cap drops at the current interval
// set.
void SetLimits(Planning& p, absl::Duration window) {
  IntervalPlan& plan = p.plan;
  p.queue_peak = std::accumulate(
      p.models.begin(), p.models.end(), plan.rx_peak_rate_pps,
      [](double acc, const SocketModel& m) { return std::max(acc, m.burst.queue_rate_pps); });
  plan.cpu_saturated = p.queue_peak * plan.packet_cost_s >= kSaturatedSoftirqLoad;
  // The ring holds rx_ring_size descriptors from the first packet of an interval until the poll
  // takes them, an interrupt's cost later; NAPI then drains faster than packets come (load < 1).
  const CoalesceState& c = p.queue.coalesce;
  plan.ring_limit_s = kInf;
  // Each ring takes its share of a whole-device observation's packets (RSS spreads flows), but a
  // socket's flow lands on one ring whole. What comes to a ring is what it received and what it
  // missed: a ring that overflows delivers only what it holds, so rx_packets alone says less
  // than arrives (a 32-descriptor ring at 8000 us passed 4000 of 10000 pps).
  const double received = static_cast<double>(p.queue.rx_packets);
  const double missed = static_cast<double>(p.queue.drops.ring);
  const double arriving_peak = received > 0 ? plan.rx_peak_rate_pps * (received + missed) / received
                                            : missed / absl::ToDoubleSeconds(window);
  p.ring_peak = arriving_peak / RxRings(p.queue);
  for (const SocketModel& m : p.models)
    p.ring_peak = std::max(p.ring_peak, m.burst.socket_rate_pps);
  plan.ring_peak_rate_pps = p.ring_peak;
  if (c.rx_ring_size > 0 && p.ring_peak > 0) {
    plan.ring_limit_s =
        (1 - p.config.margin) * c.rx_ring_size / p.ring_peak - plan.interrupt_cost_s;
  }
  CapForDropsAtCurrent(p, window);
  plan.constrained = !p.models.empty() || plan.ring_limit_s < kInf || p.observed_cap_s < kInf;
}

bool AllFit(const Planning& p, double interval_s) {
  if (p.plan.cpu_saturated || interval_s > p.plan.ring_limit_s * kRoundingSlack) return false;
  return std::all_of(p.models.begin(), p.models.end(),
                     [&](const SocketModel& m) { return SocketFits(m, interval_s); });
}

// Below the cost floor, sockets that dropped at the current static interval keep the choice
// below that interval (IntervalPlan::held_for_drops): the longest drop-free interval where there
// is one, else the current one (no interval stops the drops, so none is worth more interrupts).
// A saturated CPU is left the floor: fewer interrupts are its relief.
void HoldForDrops(Planning& p, int64_t longest_drop_free_us) {
  IntervalPlan& plan = p.plan;
  if (!p.DroppedAtCurrent() || plan.cpu_saturated) return;
  const int64_t held_us = longest_drop_free_us >= 0
                              ? longest_drop_free_us
                              : FloorToStep(static_cast<double>(p.queue.coalesce.rx_usecs),
                                            plan.granularity_us, plan.cap_us);
  if (held_us >= plan.interval_us) return;
  plan.unheld_interval_us = plan.interval_us;
  plan.interval_us = held_us;
  plan.near_floor_buffer_interval_us = 0;
  plan.held_for_drops = true;
  plan.drop_free = AllFit(p, static_cast<double>(held_us) * 1e-6);
}

// The longest drop-free interval, and the choice: it when not below the cost floor; else the
// floor, or the longest interval whose buffer is about the floor's (the buffer must grow).
void ChooseInterval(Planning& p) {
  IntervalPlan& plan = p.plan;
  // Every drop-free interval lies below each socket's one-cycle limit and the ring's. There the
  // model is monotonic unless a drain gap reaches the interval; then the longest drop-free
  // multiple of the granularity is searched downwards (at most cap / granularity steps).
  double upper_s = std::min(plan.ring_limit_s, p.observed_cap_s);
  for (const SocketModel& m : p.models) upper_s = std::min(upper_s, m.one_cycle_limit_s);
  int64_t longest_us = -1;
  for (int64_t u = FloorToStep(Us(upper_s), plan.granularity_us, plan.cap_us); u >= 0;
       u -= plan.granularity_us) {
    if (AllFit(p, static_cast<double>(u) * 1e-6)) {
      longest_us = u;
      break;
    }
  }
  plan.some_interval_fits = longest_us >= 0;
  if (!plan.constrained) {
    plan.max_interval_s = kInf;
  } else if (upper_s >= 0 && upper_s < p.observed_cap_s && AllFit(p, upper_s / kRoundingSlack)) {
    plan.max_interval_s = upper_s;  // a supremum: just below it every socket fits
  } else {
    plan.max_interval_s = longest_us >= 0 ? static_cast<double>(longest_us) * 1e-6 : 0;
  }
  if (longest_us >= 0 && static_cast<double>(longest_us) >= p.floor_us) {
    plan.interval_us = longest_us;
    plan.drop_free = true;
  } else {
    plan.interval_us = CeilToStep(p.floor_us, plan.granularity_us, plan.cap_us);
    plan.drop_free = AllFit(p, static_cast<double>(plan.interval_us) * 1e-6);
    if (!plan.drop_free && !plan.cpu_saturated) {
      plan.near_floor_buffer_interval_us = LongestIntervalNearFloorHold(
          p.models, plan.interval_us,
          FloorToStep(Us(std::min(plan.ring_limit_s, p.observed_cap_s)), plan.granularity_us,
                      plan.cap_us),
          plan.granularity_us, p.config.grown_buffer_slack);
      plan.interval_us = std::max(plan.interval_us, plan.near_floor_buffer_interval_us);
    }
    HoldForDrops(p, longest_us);
  }
  // Each of the observation's rings interrupts on its own vector, at most once an interval: a
  // whole-device observation of N rings counts N vectors' interrupts.
  const double rings = RxRings(p.queue);
  plan.predicted_interrupt_rate =
      plan.interval_us > 0
          ? std::min(rings * 1e6 / static_cast<double>(plan.interval_us), plan.rx_rate_pps)
          : plan.rx_rate_pps;
}

// The buffer that holds what the socket must hold at the interval.
SocketNeed NeedOf(const Planning& p, const SocketModel& m, double interval_s) {
  const Burst b = BurstAt(m.burst, interval_s);
  SocketNeed need{
      .socket = m.socket->name,
      .rcvbuf_locked = m.socket->rcvbuf_locked,
      .rcvbuf_bytes = m.fill_inputs.rcvbuf_bytes,
      .needed_bytes = b.saturated ? kInf
                                  : RcvbufForPackets(b.packets_held, m.fill_inputs.truesize_bytes,
                                                     p.config.margin)};
  need.formula = absl::StrFormat(
      "rcvbuf_needed = %s / (1 - %.2f) * %.0f B = %.0f B (socket %s, now %.0f B)",
      PacketsText(b.packets_held, 0), p.config.margin,
      // Bytes are whole: the least that holds the packets.
      m.fill_inputs.truesize_bytes, std::ceil(need.needed_bytes), need.socket, need.rcvbuf_bytes);
  return need;
}

// The worst socket (the one that fills furthest at the chosen interval) and the buffer that makes
// the interval drop-free for it; every socket's need.
void DescribeWorst(Planning& p) {
  IntervalPlan& plan = p.plan;
  const double interval_s = static_cast<double>(plan.interval_us) * 1e-6;
  double worst_ratio = -1;
  for (const SocketModel& m : p.models) {
    const Burst b = BurstAt(m.burst, interval_s);
    const double ratio = m.usable_packets > 0 ? b.packets_held / m.usable_packets : kInf;
    if (p.worst == nullptr || ratio > worst_ratio) {
      p.worst = &m;
      worst_ratio = ratio;
    }
  }
  if (p.worst == nullptr) return;
  // Held below the floor for the live sockets' sake, the buffers are sized for the interval the
  // plan takes once new sockets have them.
  const double need_interval_s =
      plan.held_for_drops ? static_cast<double>(plan.unheld_interval_us) * 1e-6 : interval_s;
  for (const SocketModel& m : p.models) plan.socket_needs.push_back(NeedOf(p, m, need_interval_s));
  const SocketModel& w = *p.worst;
  plan.worst_socket = w.socket->name;
  plan.worst_inputs = w.fill_inputs;
  plan.worst_fill = w.fill;
  plan.worst_burst_inputs = w.burst;
  plan.worst_drain_gap_seen_below_s = w.socket->drain_gap_seen_below_s;
  plan.worst_burst = BurstAt(w.burst, interval_s);
  plan.worst_usable_packets = w.usable_packets;
  plan.reader_softirq_load = w.burst.reader_waits_for_napi ? plan.worst_burst.softirq_load : 0;
}

// Why no interval and no buffer makes the queue drop-free, when that is so.
void SetUnresolved(Planning& p) {
  IntervalPlan& plan = p.plan;
  if (plan.cpu_saturated) {
    plan.unresolved = absl::StrFormat(
        "CPU saturated: %s %.0f pps * %.3f us = %.2f of a CPU at the peak rate (>= %.2f); no "
        "interval or buffer keeps up: spread the queue over more CPUs (RSS) or lower the "
        "per-packet cost",
        p.queue.napi_poller_cpu > 0 ? "the softirq and the NAPI pollers need" : "the softirq needs",
        p.queue_peak, Us(plan.packet_cost_s), p.queue_peak * plan.packet_cost_s,
        kSaturatedSoftirqLoad);
  } else if (Us(plan.ring_limit_s) < static_cast<double>(plan.interval_us)) {
    plan.unresolved = absl::StrFormat(
        "ring overrun: %u descriptors hold %.2f us at the peak rate, below the cost floor %.2f us; "
        "a bigger ring (ethtool -G) or a higher interrupt CPU share is needed",
        p.queue.coalesce.rx_ring_size, Us(plan.ring_limit_s), p.floor_us);
  }
}

// The worst socket's part of the formula: the fill math, the usable packets, the cycle and the
// hold at the chosen interval.
void WorstSocketFormula(Planning& p) {
  IntervalPlan& plan = p.plan;
  std::string& f = plan.formula;
  const FillInputs& in = plan.worst_inputs;
  const FillResult& r = plan.worst_fill;
  const BurstInputs& bi = plan.worst_burst_inputs;
  const Burst& b = plan.worst_burst;
  absl::StrAppend(
      &f, absl::StrFormat("C = %.0f B / %.0f B = %.2f packets; T_fill = %.2f / %.0f "
                          "pps%s = %.2f us; fill bound u_max = (1 - %.2f) * %.2f us - %.2f us "
                          "= %.2f us (for an even flow; counted below in the whole packets each "
                          "delivery brings)",
                          in.rcvbuf_bytes, in.truesize_bytes, r.capacity_packets,
                          r.capacity_packets, in.rate_pps, p.worst->rate_note, Us(r.fill_time_s),
                          in.margin, Us(r.fill_time_s), Us(in.drain_gap_s), Us(r.max_interval_s)));
  absl::StrAppend(&f, absl::StrFormat("; per interrupt: usable = (1 - %.2f) * %.2f = %.2f packets "
                                      "at the peak %.0f pps",
                                      in.margin, r.capacity_packets, plan.worst_usable_packets,
                                      bi.socket_rate_pps));
  if (bi.reader_waits_for_napi) {
    absl::StrAppend(
        &f, absl::StrFormat("; the reader waits for the NAPI cycle: load = %.0f pps * %.3f us "
                            "(%s) = %.3f, cycle = (u + %.2f us) / (1 - %.3f)",
                            bi.queue_rate_pps, Us(bi.packet_cost_s), p.packet_cost_source,
                            b.softirq_load, Us(bi.interrupt_cost_s), b.softirq_load));
    plan.inputs.push_back({"reader_softirq_load", b.softirq_load, "fraction"});
    plan.inputs.push_back({"packet_cost", Us(bi.packet_cost_s), "us"});
  }
  if (!b.saturated) {
    absl::StrAppend(&f, "; at u = ", plan.interval_us, " us: ", HeldFormula(bi, b), " ",
                    b.packets_held <= plan.worst_usable_packets * kRoundingSlack ? "<=" : ">",
                    absl::StrFormat(" %.2f", plan.worst_usable_packets));
  }
  // Deliveries hold whole packets, so the drop-free interval usually lies a little below the fill
  // bound (above it where a drain gap shorter than a delivery's cycle costs nothing); said here,
  // the two do not read as a contradiction.
  if (plan.some_interval_fits && std::isfinite(plan.max_interval_s)) {
    absl::StrAppend(&f, absl::StrFormat("; drop-free up to u = %.2f us (whole packets per "
                                        "delivery, every socket and the ring)",
                                        Us(plan.max_interval_s)));
  }
  plan.inputs.push_back({"socket_rate", in.rate_pps, "pps"});
  plan.inputs.push_back({"socket_peak_rate", bi.socket_rate_pps, "pps"});
  plan.inputs.push_back({"truesize", in.truesize_bytes, "B"});
  plan.inputs.push_back({"rcvbuf", in.rcvbuf_bytes, "B"});
  plan.inputs.push_back({"drain_gap", Us(in.drain_gap_s), "us"});
  if (bi.burst_s > 0) {
    plan.inputs.push_back({"burst", Us(bi.burst_s), "us"});
    plan.inputs.push_back({"burst_pause", Us(bi.burst_pause_s), "us"});
  }
  if (bi.max_packets_per_gap > 0) {
    plan.inputs.push_back({"max_packets_per_gap", bi.max_packets_per_gap, "packets"});
  }
  plan.inputs.push_back({"margin", in.margin, "fraction"});
}

// Who dropped at the current interval, for the formula.
const char* WhatDropped(const Planning& p) {
  if (p.sockets_dropped_at_current && p.plan.ring_dropped_at_current) {
    return "sockets and the ring dropped";
  }
  return p.plan.ring_dropped_at_current ? "the ring dropped" : "sockets dropped";
}

// The queue's part: the ring, the drops at the current interval, the cost floor.
void QueueFormula(Planning& p) {
  IntervalPlan& plan = p.plan;
  std::string& f = plan.formula;
  const CoalesceState& c = p.queue.coalesce;
  if (plan.ring_limit_s < kInf) {
    absl::StrAppend(
        &f, f.empty() ? "" : "; ",
        absl::StrFormat("ring limit = (1 - %.2f) * %u / %.0f pps%s%s - %.2f us = %.2f us",
                        p.config.margin, c.rx_ring_size, p.ring_peak,
                        p.queue.drops.ring > 0
                            ? absl::StrFormat(" (arriving: %u received and %u missed)",
                                              p.queue.rx_packets, p.queue.drops.ring)
                            : std::string(),
                        p.queue.rx_rings > 1
                            ? absl::StrFormat(" (one ring's: the device's %.0f pps over %u rings, "
                                              "or a socket's flow)",
                                              plan.rx_peak_rate_pps, p.queue.rx_rings)
                            : std::string(),
                        Us(plan.interrupt_cost_s), Us(plan.ring_limit_s)));
    plan.inputs.push_back({"rx_ring_size", static_cast<double>(c.rx_ring_size), "descriptors"});
  }
  if (p.DroppedAtCurrent()) {
    // Drops at an interval the model holds: what a person carrying the plan out by hand should
    // watch for, as the controller does (an ineffective step).
    const bool model_holds_current =
        p.sockets_dropped_at_current && AllFit(p, static_cast<double>(c.rx_usecs) * 1e-6);
    absl::StrAppend(
        &f, absl::StrFormat("; %s at the current %u us%s: the interval stays below "
                            "(1 - %.2f) * %u us = %.2f us",
                            WhatDropped(p), c.rx_usecs,
                            model_holds_current
                                ? ", which the model holds (random arrivals beyond an even flow, "
                                  "or a reader's pauses the probes did not time: if a shorter "
                                  "interval leaves the drops as they are, they are not the "
                                  "interval's)"
                                : "",
                            p.config.dropped_backoff, c.rx_usecs, Us(p.observed_cap_s)));
  } else if (plan.drops_within_stalls) {
    absl::StrAppend(&f, absl::StrFormat("; drops at the current %u us no more than arrived in "
                                        "%.2f ms of stalled delivery: not the interval's doing",
                                        c.rx_usecs, p.queue.stall_s * 1e3));
  }
  plan.inputs.push_back({"rx_rate", plan.rx_rate_pps, "pps"});
  plan.inputs.push_back({"rx_peak_rate", p.queue_peak, "pps"});
  plan.inputs.push_back({"interrupt_cost", Us(plan.interrupt_cost_s), "us"});
  absl::StrAppend(
      &f, f.empty() ? "" : "; ",
      // %g: a share below 0.01 (--tuner_interrupt_cpu_share=0.0004) must not print 0.00.
      absl::StrFormat("cost floor = %.2f us / %g = %.2f us (ceiling %.0f ints/s, cost %s)",
                      Us(plan.interrupt_cost_s), p.config.interrupt_cpu_share, p.floor_us,
                      plan.ceiling.max_rate, p.cost_source));
}

// Why a hold below the floor lasts, and what ends it: neither a live socket's buffer nor the ring
// is the tuner's to grow.
std::string HeldBecause(const Planning& p) {
  std::string why;
  if (p.sockets_dropped_at_current) {
    why =
        "while the sockets that dropped keep their buffers: a longer interval would add to "
        "their drops; the buffer must grow for the floor (rmem_default reaches new sockets, "
        "SO_RCVBUF is the application's)";
  }
  if (p.plan.ring_dropped_at_current) {
    const uint32_t ring = p.queue.coalesce.rx_ring_size;
    absl::StrAppend(&why, why.empty() ? "" : "; ", "while the ring",
                    ring > 0 ? absl::StrFormat(" of %u descriptors", ring) : std::string(),
                    " drops at the current interval: a longer one would add to its drops; the "
                    "ring must grow for the floor (ethtool -G)");
  }
  return why;
}

// When no interval is drop-free: why, or that the buffer must grow and at which interval.
void GrowthFormula(Planning& p) {
  IntervalPlan& plan = p.plan;
  std::string& f = plan.formula;
  if (!plan.unresolved.empty()) {
    absl::StrAppend(&f, "; ", plan.unresolved);
    return;
  }
  if (plan.held_for_drops) {
    absl::StrAppend(&f,
                    absl::StrFormat("; held at %d us, below the cost floor %.2f us, %s",
                                    plan.interval_us, p.floor_us, HeldBecause(p)),
                    absl::StrFormat(", and interrupts take more than %g of a CPU meanwhile",
                                    p.config.interrupt_cpu_share));
    return;
  }
  if (!plan.constrained || plan.drop_free) return;
  absl::StrAppend(&f, plan.some_interval_fits
                          ? absl::StrFormat("; the longest drop-free interval %.2f us is below "
                                            "the cost floor",
                                            Us(plan.max_interval_s))
                          : std::string("; no interval fits the socket"),
                  ": the buffer must grow");
  if (plan.near_floor_buffer_interval_us <= 0 || p.worst == nullptr) return;
  const int64_t floor_step_us = CeilToStep(p.floor_us, plan.granularity_us, plan.cap_us);
  const double held_at_floor =
      BurstAt(plan.worst_burst_inputs, static_cast<double>(floor_step_us) * 1e-6).packets_held;
  const bool halves = plan.interval_us >= 2 * floor_step_us;
  absl::StrAppend(
      &f, absl::StrFormat("; at %d us no socket holds more than at the cost floor %d us plus %s "
                          "(%s: %s <= %.0f + %.2f): about the same buffer with %s interrupts",
                          plan.interval_us, floor_step_us,
                          halves ? absl::StrFormat("max(1, %.2f of it) packets",
                                                   p.config.grown_buffer_slack)
                                 : std::string("a packet"),
                          plan.worst_socket, PacketsText(plan.worst_burst.packets_held, 0),
                          held_at_floor,
                          NearFloorHold(held_at_floor, p.config.grown_buffer_slack, halves) -
                              held_at_floor,
                          halves ? "far fewer" : "fewer"));
}

}  // namespace

absl::StatusOr<IntervalPlan> PlanInterval(const QueueObservation& queue, absl::Duration window,
                                          const PolicyConfig& config, uint32_t granularity_us,
                                          int64_t max_us) {
  Planning p{.queue = queue, .config = config};
  IntervalPlan& plan = p.plan;
  plan.granularity_us = std::max<int64_t>(1, granularity_us);
  plan.cap_us = std::max<int64_t>(0, max_us) / plan.granularity_us * plan.granularity_us;
  plan.rx_rate_pps = PerSecond(queue.rx_packets, window);
  plan.rx_peak_rate_pps = std::max(plan.rx_rate_pps, queue.rx_peak_rate_pps);
  if (absl::Status s = SetCosts(p, window); !s.ok()) return s;
  if (absl::Status s = ModelSockets(p, window); !s.ok()) return s;
  SetLimits(p, window);
  ChooseInterval(p);
  DescribeWorst(p);
  SetUnresolved(p);
  // The arithmetic, in the order a person would redo it.
  if (p.worst != nullptr) WorstSocketFormula(p);
  QueueFormula(p);
  GrowthFormula(p);
  return std::move(p.plan);
}

absl::StatusOr<IntervalPlan> PlanQueueInterval(const QueueObservation& queue,
                                               absl::Duration window,
                                               const PolicyConfig& config) {
  const bool hardware = queue.coalesce.rx_usecs_supported;
  // Hardware rx-usecs in the driver's steps up to its maximum; the software timer in 1 us steps
  // up to gro_flush_timeout's cap.
  const uint32_t granularity = hardware ? queue.coalesce.rx_usecs_granularity : 1;
  int64_t max_us =
      hardware ? TunerRange(Knob::kRxUsecs).max : TunerRange(Knob::kGroFlushTimeout).max / 1000;
  if (hardware && queue.coalesce.rx_usecs_max > 0) {
    max_us = std::min<int64_t>(max_us, queue.coalesce.rx_usecs_max);
  }
  return PlanInterval(queue, window, config, granularity, max_us);
}

Confidence WithDrainGapCoverage(Confidence confidence, const IntervalPlan& plan) {
  if (plan.worst_socket.empty()) return confidence;
  const double reach_s = (1 - plan.worst_inputs.margin) * plan.worst_fill.fill_time_s;
  const double seen_below_s = plan.worst_drain_gap_seen_below_s;
  if (!(seen_below_s < reach_s)) return confidence;
  const std::string why =
      seen_below_s <= 0
          ? absl::StrFormat(
                "the reader's pauses (drain gaps) of %s were not timed (planned as %.0f us; "
                "a pause up to %.0f us would change the plan)",
                plan.worst_socket, Us(plan.worst_inputs.drain_gap_s), Us(reach_s))
          : absl::StrFormat(
                "the reader's pauses (drain gaps) of %s were timed only up to %.0f us, the "
                "probe's slots; a pause up to %.0f us would change the plan",
                plan.worst_socket, Us(seen_below_s), Us(reach_s));
  return Discount(confidence, kUnseenDrainGapConfidence, why.c_str());
}

Confidence TowardLongerGaps(const Confidence& measured, const Confidence& planned,
                            absl::string_view verb) {
  if (planned.value >= measured.value) return planned;
  Confidence c = measured;
  absl::StrAppend(&c.reason, "; a drain gap longer than the probe's slots saw would only ", verb,
                  " it further");
  return c;
}

}  // namespace nictune::tuner
