#include "driver/bpf/softirq_duty_cycle.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <time.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <random>
#include <span>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "driver/bpf/per_cpu_map.h"
#include "driver/bpf/softirq.h"
#include "driver/bpf/softirq_timing.h"
#include "driver/errno_text.h"

namespace nictune::driver::bpf {

static_assert(sizeof(nictune_softirq_timing) == 24);

namespace {

// steady_clock is CLOCK_MONOTONIC on Linux (libstdc++), the clock BpfCounters are stamped with.
using Clock = std::chrono::steady_clock;

uint64_t NowNs() {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch())
          .count());
}

// CPU time of the calling thread: what a link operation costs this thread (the kernel's waits
// for the other CPUs' acknowledgements of its text patching included, since it spins for them).
uint64_t ThreadCpuNs() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<uint64_t>(now.tv_sec) * 1'000'000'000u + static_cast<uint64_t>(now.tv_nsec);
}

uint64_t ToNs(absl::Duration d) { return static_cast<uint64_t>(absl::ToInt64Nanoseconds(d)); }

uint64_t Saturating(uint64_t a, uint64_t b) { return a > b ? a - b : 0; }

std::string Rate(std::optional<double> busiest_per_s) {
  if (!busiest_per_s) return "softirq rate not measured yet";
  return absl::StrFormat("%.0f softirqs/s on the busiest CPU", *busiest_per_s);
}

}  // namespace

absl::StatusOr<std::unique_ptr<SoftirqDutyCycle>> SoftirqDutyCycle::Start(
    LoadedProbe& softirq, const SoftirqDutyOptions& options) {
  absl::StatusOr<int> timing_fd = softirq.MapFd("softirq_timing");
  if (!timing_fd.ok()) return timing_fd.status();
  absl::StatusOr<int> counts_fd = softirq.MapFd("softirq_cpus");
  if (!counts_fd.ok()) return counts_fd.status();
  absl::StatusOr<std::vector<HandlerLink>> taken =
      softirq.TakeOverHandlers({"on_softirq_entry", "on_softirq_exit"});
  if (!taken.ok()) return taken.status();
  std::unique_ptr<SoftirqDutyCycle> cycle(new SoftirqDutyCycle(
      options, std::move((*taken)[0]), std::move((*taken)[1]), *timing_fd, *counts_fd));
  cycle->thread_ = std::thread([raw = cycle.get()] { raw->Run(); });
  return cycle;
}

SoftirqDutyCycle::SoftirqDutyCycle(const SoftirqDutyOptions& options, HandlerLink entry,
                                   HandlerLink exit, int timing_map_fd, int counts_map_fd)
    : options_(options),
      timing_map_fd_(timing_map_fd),
      counts_map_fd_(counts_map_fd),
      entry_(std::move(entry)),
      exit_(std::move(exit)) {
  // Attached by the probe's load, timing from the map's initial value (epoch 0, open).
  start_ns_ = NowNs();
  timing_since_ns_ = start_ns_;
  entry_since_ns_ = start_ns_;
  schedule_ = absl::StrCat("softirq_entry/exit attached whole (", Rate(std::nullopt), ")");
}

SoftirqDutyCycle::~SoftirqDutyCycle() {
  {
    std::lock_guard<std::mutex> lock(stop_mutex_);
    stopping_ = true;
  }
  stop_signal_.notify_all();
  if (thread_.joinable()) thread_.join();
  std::lock_guard<std::mutex> lock(link_mutex_);
  for (HandlerLink* handler : {&entry_, &exit_}) {
    if (handler->link != nullptr) bpf_link__destroy(handler->link);
    handler->link = nullptr;
  }
}

absl::Status SoftirqDutyCycle::HoldWhole(bool whole) {
  std::lock_guard<std::mutex> lock(link_mutex_);
  held_ = whole;
  if (!whole) return absl::OkStatus();
  const absl::Status timing = AttachAndOpenLocked(1);
  NoteError(timing);
  std::lock_guard<std::mutex> state(state_mutex_);
  schedule_ = "softirq_entry/exit held attached whole while the per-packet probes run";
  return timing;
}

SoftirqDutyCounters SoftirqDutyCycle::Counters(uint64_t monotonic_ns) const {
  std::lock_guard<std::mutex> lock(state_mutex_);
  SoftirqDutyCounters counters = counters_;
  uint64_t timing = timing_ns_;
  if (timing_since_ns_ != 0) timing += Saturating(monotonic_ns, timing_since_ns_);
  counters.untimed_ns = Saturating(Saturating(monotonic_ns, start_ns_), timing);
  return counters;
}

std::string SoftirqDutyCycle::Describe() const {
  std::lock_guard<std::mutex> lock(state_mutex_);
  if (last_error_.empty()) return schedule_;
  return absl::StrCat(schedule_, "; last error: ", last_error_);
}

void SoftirqDutyCycle::Run() {
  std::mt19937_64 random(std::random_device{}());
  std::uniform_real_distribution<double> phase(0.0, 1.0);
  const uint64_t period_ns = ToNs(options_.period);
  const uint64_t recheck_ns = ToNs(options_.whole_recheck);
  const uint64_t tail_ns = ToNs(options_.exit_tail);
  uint64_t period_start = NowNs();
  uint64_t next_period = period_start + recheck_ns;
  MeasureBusiestRate(period_start);  // the baseline of the first period's rate
  while (WaitUntil(next_period)) {
    // A late wake-up (a loaded host) starts the next period late rather than squeezing it.
    period_start = std::max(next_period, NowNs());
    next_period = period_start + period_ns;
    const std::optional<double> busiest = MeasureBusiestRate(period_start);
    const SoftirqDutyPlan plan = PlanSoftirqDuty(busiest, phase(random), options_);
    Describe(plan, busiest);
    if (plan.whole) {
      std::lock_guard<std::mutex> lock(link_mutex_);
      NoteError(AttachAndOpenLocked(1));
      next_period = period_start + recheck_ns;
      continue;
    }
    // Each softirq timed in the slot stands for those of the period outside it.
    const uint64_t weight = std::clamp<uint64_t>(
        static_cast<uint64_t>(std::llround(1 / plan.share)), 1, NICTUNE_SOFTIRQ_MAX_SLOT_WEIGHT);
    if (Timing()) {
      // Timing from the last period (whole): that goes on as this period's slot.
      std::lock_guard<std::mutex> lock(link_mutex_);
      NoteError(OpenLocked(held_ ? 1 : weight));
    } else {
      if (!WaitUntil(period_start + ToNs(plan.slot_start))) break;
      std::lock_guard<std::mutex> lock(link_mutex_);
      NoteError(AttachAndOpenLocked(held_ ? 1 : weight));
    }
    if (!WaitUntil(NowNs() + ToNs(plan.slot_length))) break;
    Close();
    // Softirqs timed before the close end within the tail, before the detach's text patching.
    if (!WaitUntil(NowNs() + tail_ns)) break;
    DetachPair();
  }
}

void SoftirqDutyCycle::Describe(const SoftirqDutyPlan& plan, std::optional<double> busiest_per_s) {
  {
    std::lock_guard<std::mutex> lock(link_mutex_);
    if (held_) return;  // HoldWhole's text stands
  }
  std::lock_guard<std::mutex> lock(state_mutex_);
  if (plan.whole) {
    schedule_ = absl::StrCat("softirq_entry/exit attached whole (", Rate(busiest_per_s), ")");
    return;
  }
  schedule_ =
      absl::StrFormat("softirq_entry/exit duty-cycled: timing %s of every %s (%.2g%%) at %s",
                      absl::FormatDuration(plan.slot_length), absl::FormatDuration(options_.period),
                      100 * plan.share, Rate(busiest_per_s));
}

bool SoftirqDutyCycle::WaitUntil(uint64_t deadline_ns) {
  std::unique_lock<std::mutex> lock(stop_mutex_);
  const Clock::time_point deadline{std::chrono::nanoseconds(deadline_ns)};
  stop_signal_.wait_until(lock, deadline, [this] { return stopping_; });
  return !stopping_;
}

std::optional<double> SoftirqDutyCycle::MeasureBusiestRate(uint64_t now_ns) {
  std::vector<uint64_t> counts;
  absl::Status read = ForEachPerCpuArrayEntry<nictune_softirq_cpu>(
      counts_map_fd_, "softirq_cpus", 1,
      [&counts](uint32_t, std::span<const nictune_softirq_cpu> per_cpu) {
        for (const nictune_softirq_cpu& cpu : per_cpu) {
          uint64_t total = 0;
          for (const nictune_softirq_vector& vector : cpu.vectors) total += vector.count;
          counts.push_back(total);
        }
      });
  if (!read.ok()) {
    NoteError(read);
    return std::nullopt;
  }
  uint64_t attached_ns = 0;
  {
    std::lock_guard<std::mutex> lock(state_mutex_);
    attached_ns = entry_attached_ns_;
    if (entry_since_ns_ != 0) attached_ns += Saturating(now_ns, entry_since_ns_);
  }
  const uint64_t attached_since_last = attached_ns - last_entry_attached_ns_;
  std::optional<double> busiest;
  // Under 0.1 ms attached the counts say little (and a first call has no baseline).
  constexpr uint64_t kShortestMeasure = 100'000;
  if (last_counts_.size() == counts.size() && attached_since_last >= kShortestMeasure) {
    uint64_t most = 0;
    for (size_t cpu = 0; cpu < counts.size(); ++cpu) {
      most = std::max(most, counts[cpu] - last_counts_[cpu]);
    }
    busiest = static_cast<double>(most) * 1e9 / static_cast<double>(attached_since_last);
  }
  last_counts_ = std::move(counts);
  last_entry_attached_ns_ = attached_ns;
  return busiest;
}

bool SoftirqDutyCycle::Timing() {
  std::lock_guard<std::mutex> lock(link_mutex_);
  return entry_.link != nullptr && !closed_;
}

absl::Status SoftirqDutyCycle::AttachPairLocked() {
  if (exit_.link == nullptr) {
    // softirq_exit was detached: exits may have gone unseen, so what their entries left is
    // marked stale by a new epoch before any exit runs again.
    if (absl::Status moved = WriteTiming(epoch_ + 1, true, weight_); !moved.ok()) return moved;
    if (absl::Status attached = AttachLink(exit_); !attached.ok()) return attached;
  }
  if (entry_.link == nullptr) {
    if (absl::Status closed = WriteTiming(epoch_, true, weight_); !closed.ok()) return closed;
    if (absl::Status attached = AttachLink(entry_); !attached.ok()) return attached;
    std::lock_guard<std::mutex> lock(state_mutex_);
    ++counters_.attachments;
  }
  return absl::OkStatus();
}

absl::Status SoftirqDutyCycle::OpenLocked(uint64_t weight) {
  return WriteTiming(epoch_, false, weight);
}

absl::Status SoftirqDutyCycle::AttachAndOpenLocked(uint64_t weight) {
  if (absl::Status attached = AttachPairLocked(); !attached.ok()) return attached;
  return OpenLocked(weight);
}

void SoftirqDutyCycle::Close() {
  std::lock_guard<std::mutex> lock(link_mutex_);
  if (held_) return;
  NoteError(WriteTiming(epoch_, true, weight_));
}

void SoftirqDutyCycle::DetachPair() {
  std::lock_guard<std::mutex> lock(link_mutex_);
  if (held_) return;
  if (!closed_) {
    if (absl::Status closed = WriteTiming(epoch_, true, weight_); !closed.ok()) {
      NoteError(closed);
      return;  // detaching with timing open would time the detach's interruptions
    }
  }
  if (entry_.link != nullptr) DetachLink(entry_);
  if (exit_.link != nullptr) DetachLink(exit_);
}

absl::Status SoftirqDutyCycle::WriteTiming(uint64_t epoch, bool closed, uint64_t weight) {
  if (epoch == epoch_ && closed == closed_ && weight == weight_) return absl::OkStatus();
  const uint32_t zero = 0;
  const nictune_softirq_timing timing{.epoch = epoch, .closed = closed ? 1u : 0u, .weight = weight};
  if (bpf_map_update_elem(timing_map_fd_, &zero, &timing, BPF_ANY) != 0) {
    return absl::InternalError(
        absl::StrCat("BPF softirq map softirq_timing: update: ", ErrnoText(errno)));
  }
  const uint64_t now = NowNs();
  {
    std::lock_guard<std::mutex> lock(state_mutex_);
    if (closed && !closed_) {
      timing_ns_ += Saturating(now, timing_since_ns_);
      timing_since_ns_ = 0;
    } else if (!closed && closed_) {
      timing_since_ns_ = now;
    }
  }
  epoch_ = epoch;
  closed_ = closed;
  weight_ = weight;
  return absl::OkStatus();
}

absl::Status SoftirqDutyCycle::AttachLink(HandlerLink& handler) {
  const uint64_t before = NowNs();
  const uint64_t cpu_before = ThreadCpuNs();
  bpf_link* link = bpf_program__attach(handler.program);
  const int error_number = errno;
  const uint64_t after = NowNs();
  const uint64_t cpu_after = ThreadCpuNs();
  std::lock_guard<std::mutex> lock(state_mutex_);
  ++counters_.link_attaches;
  counters_.link_attach_ns += after - before;
  counters_.link_attach_cpu_ns += Saturating(cpu_after, cpu_before);
  if (link == nullptr) {
    return absl::InternalError(
        absl::StrCat("BPF softirq: attach ", handler.tracepoint, ": ", ErrnoText(error_number)));
  }
  handler.link = link;
  if (&handler == &entry_) entry_since_ns_ = after;
  return absl::OkStatus();
}

void SoftirqDutyCycle::DetachLink(HandlerLink& handler) {
  const uint64_t before = NowNs();
  const uint64_t cpu_before = ThreadCpuNs();
  const int error = bpf_link__destroy(handler.link);
  const uint64_t after = NowNs();
  const uint64_t cpu_after = ThreadCpuNs();
  handler.link = nullptr;
  std::lock_guard<std::mutex> lock(state_mutex_);
  ++counters_.link_detaches;
  counters_.link_detach_ns += after - before;
  counters_.link_detach_cpu_ns += Saturating(cpu_after, cpu_before);
  if (&handler == &entry_) {
    entry_attached_ns_ += Saturating(before + (after - before) / 2, entry_since_ns_);
    entry_since_ns_ = 0;
  }
  if (error != 0) {
    last_error_ = absl::StrCat("BPF softirq: detach ", handler.tracepoint, ": ", ErrnoText(-error));
  }
}

void SoftirqDutyCycle::NoteError(const absl::Status& status) {
  std::lock_guard<std::mutex> lock(state_mutex_);
  last_error_ = std::string(status.message());  // cleared by the next success
}

}  // namespace nictune::driver::bpf
