// SPDX-License-Identifier: Apache-2.0
// One hook of the probe budget (probe_budget_plan.h): the programs of one concern, taken over
// from its LoadedProbe, which the duty cycle (probe_duty_cycle.h) attaches and detaches as a
// unit. A hook counts its events in its own per-CPU counter (hook_events.h), and knows how long
// its event handlers were attached: the share of the time a window's figures were seen in.
//
// Handlers that end an event begun by another (softirq_exit, irq_handler_exit) are attached first
// and detached last, a tail after the others, so that an event seen to start is seen to end. A
// gate, where the concern has one, is told of each step (softirq timing's epoch and weight).
//
// A hook whose programs check a gate map (hook_events.h) may be gated instead: its links stay
// and the slot opens and closes the gate, so a slot costs two map writes rather than a link
// operation a handler. Its events are counted all the while, so its rate is exact.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "driver/bpf/hook_event_counter.h"
#include "driver/bpf/loaded_probe.h"

namespace nictune::driver::bpf {

// What a concern does around its links, beyond attaching them.
class HookGate {
 public:
  virtual ~HookGate() = default;
  // Before the end handlers are attached again: what they may find from before is made stale.
  virtual absl::Status BeforeAttach() = 0;
  // The hook is attached: events from now on are measured, each standing for `weight`.
  virtual absl::Status Open(uint64_t weight) = 0;
  // Before the detach: events that start from now on are not measured.
  virtual absl::Status Close() = 0;
};

struct HookSpec {
  std::string name;                       // "softirq", "napi", "irq", "drops", ...
  std::vector<std::string> end_handlers;  // e.g. "on_softirq_exit": attached first, detached last
  std::vector<std::string> needs;         // hooks that must run whenever this one does
  bool per_packet = false;                // wanted only while SetPerPacketProbes(true)
  double default_runs_per_event = 1;      // program runs an event makes (the pair: 2)
};

// Cumulative link operations and their cost to the thread that made them, and the gate's
// openings while gated.
struct LinkStats {
  // Times it began to measure after it had stopped: a slot's attach or gate opening, or going
  // whole. Link operations that measure nothing (attaching the links of a closed gate, a failed
  // attach) are not starts.
  uint64_t measure_starts = 0;
  uint64_t gate_opens = 0;
  uint64_t attaches = 0;
  uint64_t attach_ns = 0;
  uint64_t attach_cpu_ns = 0;
  uint64_t detaches = 0;
  uint64_t detach_ns = 0;
  uint64_t detach_cpu_ns = 0;
};

// The programs' own counters from the kernel (kernel.bpf_stats, while enabled).
struct RunStats {
  uint64_t run_cnt = 0;
  uint64_t run_time_ns = 0;
};

// A stretch of a hook's measuring, and a moment (CLOCK_MONOTONIC) at which it measured in it.
struct StretchAt {
  uint32_t stretch = 0;
  uint64_t at_ns = 0;
};

class DutyHook {
 public:
  // Takes every attached handler of `probe` (loaded and attached; it must outlive the hook).
  // `gate` may be null.
  static absl::StatusOr<std::unique_ptr<DutyHook>> TakeOver(LoadedProbe& probe, HookSpec spec,
                                                            std::unique_ptr<HookGate> gate);
  ~DutyHook();
  DutyHook(const DutyHook&) = delete;
  DutyHook& operator=(const DutyHook&) = delete;

  const HookSpec& spec() const { return spec_; }
  const std::string& name() const { return spec_.name; }
  int link_operations() const { return 2 * static_cast<int>(links_.size()); }
  // Its programs check a gate and it has no end handlers: it can be gated.
  bool gateable() const { return gate_fd_ >= 0 && spec_.end_handlers.empty(); }
  // Its programs check a gate: attached, it measures from Open on, not from the attach.
  bool has_gate() const { return gate_fd_ >= 0; }
  bool gated() const { return gated_; }
  // Gated: every handler attached, the gate closed (Attach opens it and DetachStarts closes it).
  // Not gated: the links as Attach and the detaches leave them, the gate open from Open to
  // DetachStarts; a gated hook whose gate was closed is detached, its gate left closed. A gate
  // write or attach that fails on the way to gated leaves it not gated.
  absl::Status SetGated(bool gated);

  // End handlers first (after the gate's BeforeAttach), then the others, the gate left closed.
  // Idempotent. On failure nothing of the hook stays attached and the error names the handler.
  // Gated: the hook's gate opens instead. Not gated, with a gate map: the links are attached
  // with the gate closed (a failed write fails the attach), and it measures from Open on;
  // without one, from the attach on.
  absl::Status Attach();
  // The gate opens (events from now on are measured, each standing for `weight`; an attached
  // hook's gate map opens, in a new stretch, hook_events.h) or closes. Every hook of a slot is
  // attached before any opens, and closed before any detaches: each link operation patches text
  // on every CPU, which holds the traffic up and would land in what is measured.
  absl::Status Open(uint64_t weight);
  void Close();
  // Its gate map closes and the measuring ends, gated or not: before a slot's link operations.
  // A gate that cannot be closed measures on until the links go.
  void CloseGate();
  // The handlers that start events go (the gate and the gate map close first if open, and the
  // measuring ends before the link operations). Gated: the hook's gate closes instead.
  void DetachStarts();
  // The end handlers go (a tail after DetachStarts); nothing while gated.
  void DetachEnds();
  // Not gated: its links attached; gated: its gate open.
  bool attached() const;
  // Measuring: attached, and with a gate, its gate open (a hook by links opens it at Open).
  bool measuring() const;
  // While it measures, its gate's value (the stretch that programs pairing two events stamp,
  // hook_events.h) and the time now, in it; nullopt while it does not measure, or has no gate.
  // Call it as attached(): on the thread that attaches and detaches the hook, or under its lock
  // (ProbeDutyCycle::MeasuringNow).
  std::optional<StretchAt> MeasuringNow() const;

  // Events counted so far (every CPU), as of `now_ns` (CLOCK_MONOTONIC) how long the hook
  // measured (its start handlers attached and, with a gate, its gate open), and how long its
  // events were counted (its start handlers attached, gate open or not).
  uint64_t Events() const;
  uint64_t AttachedNs(uint64_t now_ns) const;
  uint64_t CountedNs(uint64_t now_ns) const;
  LinkStats link_stats() const;
  RunStats Runs() const;

 private:
  DutyHook(HookSpec spec, std::vector<HandlerLink> links, std::unique_ptr<HookGate> gate,
           HookEventCounter events, int gate_fd);
  bool IsEnd(const HandlerLink& link) const;
  absl::Status AttachLinks();
  absl::Status AttachLink(HandlerLink& link);
  void DetachLink(HandlerLink& link);
  // Moves the gate to the next value that is open (a new stretch, even when it was open) or
  // closed (hook_events.h).
  absl::Status WriteGate(bool open);
  // Measuring from `now_ns` on, unless it already is, and no longer from `now_ns`; under mutex_.
  void BeginMeasuringLocked(uint64_t now_ns);
  void EndMeasuringLocked(uint64_t now_ns);

  const HookSpec spec_;
  std::vector<HandlerLink> links_;
  std::unique_ptr<HookGate> gate_;
  const HookEventCounter events_;
  const int gate_fd_;  // -1: the programs have no gate
  bool gated_ = false;
  uint32_t gate_value_ = 0;  // the map's initial value: open
  bool gate_open_ = true;

  mutable std::mutex mutex_;  // what follows, for readers on other threads
  LinkStats stats_;
  uint64_t attached_ns_ = 0;        // measuring, cumulative, up to attached_since_ns_
  uint64_t attached_since_ns_ = 0;  // when it last began to measure, 0 if not measuring
  std::pair<uint64_t, uint64_t> last_stretch_{0, 0};  // the last measuring's begin and end
  uint64_t counted_ns_ = 0;         // counting, cumulative, up to counted_since_ns_
  uint64_t counted_since_ns_ = 0;   // when the start handlers were last attached, 0 if not
};

uint64_t MonotonicNs();

}  // namespace nictune::driver::bpf
