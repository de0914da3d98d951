// Attaches and detaches the softirq probe's softirq_entry/exit programs on the schedule of
// softirq_duty_plan.h, from a thread of its own: at every period it measures the busiest CPU's
// softirq rate from the probe's own counts (they move only while softirq_entry is attached) and
// either keeps the pair attached or runs one slot.
//
// A slot, in the one-entry map softirq_timing (driver/bpf/softirq_timing.h): move the epoch on with
// timing closed, attach softirq_exit, then softirq_entry; open timing, weighting each softirq
// timed by the inverse of the slot's share of the period; after the slot's length close it
// again; after exit_tail (SoftirqDutyOptions) detach softirq_entry, then softirq_exit. So only
// softirqs that start while timing is open are timed, those shorter than the tail to their end,
// and none has the kernel's text patching of an attach or detach (interrupts on every CPU) in its
// time. The epoch marks what an exit that went unseen (a softirq longer than the tail, the NET_RX
// flag) left behind as stale in the next slot.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "driver/bpf/loaded_probe.h"
#include "driver/bpf/softirq_duty_plan.h"
#include "driver/probe_source.h"

namespace nictune::driver::bpf {

class SoftirqDutyCycle {
 public:
  // Takes softirq_entry and softirq_exit over from `softirq` (loaded and attached; it must
  // outlive this) and starts the schedule with the pair attached and timing.
  static absl::StatusOr<std::unique_ptr<SoftirqDutyCycle>> Start(LoadedProbe& softirq,
                                                                 const SoftirqDutyOptions& options);
  // Stops the thread and detaches the pair.
  ~SoftirqDutyCycle();
  SoftirqDutyCycle(const SoftirqDutyCycle&) = delete;
  SoftirqDutyCycle& operator=(const SoftirqDutyCycle&) = delete;

  // While held, the pair stays attached whole and timing (the tx share needs the NET_RX flag of
  // every softirq); holding returns once it is, or with the error.
  absl::Status HoldWhole(bool whole);

  // The counters as of `monotonic_ns` (CLOCK_MONOTONIC, e.g. BpfCounters::monotonic_ns).
  SoftirqDutyCounters Counters(uint64_t monotonic_ns) const;
  // What the schedule does now, for the probe's status, e.g. "softirq_entry/exit duty-cycled:
  // timing 2.597ms of every 200ms (1.3%) at 770000 softirqs/s on the busiest CPU".
  std::string Describe() const;

 private:
  SoftirqDutyCycle(const SoftirqDutyOptions& options, HandlerLink entry, HandlerLink exit,
                   int timing_map_fd, int counts_map_fd);

  void Run();
  // Sleeps until `deadline_ns` (CLOCK_MONOTONIC); false when the cycle is stopping.
  bool WaitUntil(uint64_t deadline_ns);
  // The busiest CPU's softirqs per second while softirq_entry was attached since the last call.
  std::optional<double> MeasureBusiestRate(uint64_t now_ns);
  void Describe(const SoftirqDutyPlan& plan, std::optional<double> busiest_per_s);

  // The steps of a slot, under link_mutex_. Attaching (softirq_exit first, moving the epoch on,
  // then softirq_entry) leaves timing closed. OpenLocked opens it, each softirq timed standing for
  // `weight` (1 while whole; the inverse of a slot's share of its period); AttachAndOpenLocked
  // does both, as a slot does when the pair is detached.
  absl::Status AttachPairLocked();
  absl::Status OpenLocked(uint64_t weight);
  absl::Status AttachAndOpenLocked(uint64_t weight);
  // Unless held: close timing; detach both (softirq_entry first).
  void Close();
  void DetachPair();
  absl::Status WriteTiming(uint64_t epoch, bool closed, uint64_t weight);
  absl::Status AttachLink(HandlerLink& handler);
  void DetachLink(HandlerLink& handler);
  bool Timing();
  void NoteError(const absl::Status& status);

  const SoftirqDutyOptions options_;
  const int timing_map_fd_;
  const int counts_map_fd_;

  // Link and timing changes: the thread and HoldWhole.
  std::mutex link_mutex_;
  HandlerLink entry_;
  HandlerLink exit_;
  bool held_ = false;
  // softirq_timing's fields (its initial value: epoch 0, open, weight 0 = 1).
  uint64_t epoch_ = 0;
  bool closed_ = false;
  uint64_t weight_ = 0;

  // What the readers see (Counters, Describe); held only briefly, never across a syscall.
  mutable std::mutex state_mutex_;
  uint64_t start_ns_ = 0;
  SoftirqDutyCounters counters_;    // untimed_ns is derived from the fields below
  uint64_t timing_ns_ = 0;          // cumulative time timing was open, up to timing_since_ns_
  uint64_t timing_since_ns_ = 0;    // when timing last opened, 0 while closed
  uint64_t entry_attached_ns_ = 0;  // the same for softirq_entry attached (the counts move)
  uint64_t entry_since_ns_ = 0;
  std::string schedule_;  // Describe()'s text
  std::string last_error_;

  // The thread's own: the counts per CPU and softirq_entry's attached time at the last period.
  std::vector<uint64_t> last_counts_;
  uint64_t last_entry_attached_ns_ = 0;

  std::mutex stop_mutex_;
  std::condition_variable stop_signal_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace nictune::driver::bpf
