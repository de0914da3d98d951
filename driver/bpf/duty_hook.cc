// SPDX-License-Identifier: Apache-2.0
#include "driver/bpf/duty_hook.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <time.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "driver/bpf/hook_events.h"
#include "driver/bpf/saturating_difference.h"
#include "driver/errno_text.h"

namespace nictune::driver::bpf {
namespace {

uint64_t ClockNs(clockid_t clock) {
  timespec now{};
  clock_gettime(clock, &now);
  return static_cast<uint64_t>(now.tv_sec) * 1'000'000'000u + static_cast<uint64_t>(now.tv_nsec);
}

}  // namespace

uint64_t MonotonicNs() { return ClockNs(CLOCK_MONOTONIC); }

absl::StatusOr<std::unique_ptr<DutyHook>> DutyHook::TakeOver(LoadedProbe& probe, HookSpec spec,
                                                             std::unique_ptr<HookGate> gate) {
  absl::StatusOr<int> events_fd = probe.MapFd(NICTUNE_HOOK_EVENTS_MAP_NAME);
  if (!events_fd.ok()) return events_fd.status();
  absl::StatusOr<HookEventCounter> events = HookEventCounter::Map(*events_fd, spec.name.c_str());
  if (!events.ok()) return events.status();
  // A concern without a gate map is slotted by its links only.
  const int gate_fd = probe.MapFd(NICTUNE_HOOK_GATE_MAP_NAME).value_or(-1);
  absl::StatusOr<std::vector<HandlerLink>> links = probe.TakeOverHandlers(probe.AttachedHandlers());
  if (!links.ok()) return links.status();
  return std::unique_ptr<DutyHook>(new DutyHook(std::move(spec), *std::move(links), std::move(gate),
                                                *std::move(events), gate_fd));
}

DutyHook::DutyHook(HookSpec spec, std::vector<HandlerLink> links, std::unique_ptr<HookGate> gate,
                   HookEventCounter events, int gate_fd)
    : spec_(std::move(spec)),
      links_(std::move(links)),
      gate_(std::move(gate)),
      events_(std::move(events)),
      gate_fd_(gate_fd) {
  // Attached by the probe's load: the handlers run from now on.
  const uint64_t now = MonotonicNs();
  attached_since_ns_ = now;
  counted_since_ns_ = now;
}

DutyHook::~DutyHook() {
  for (HandlerLink& link : links_) {
    if (link.link != nullptr) bpf_link__destroy(link.link);
    link.link = nullptr;
  }
}

bool DutyHook::IsEnd(const HandlerLink& link) const {
  const std::string handler = bpf_program__name(link.program);
  return std::any_of(spec_.end_handlers.begin(), spec_.end_handlers.end(),
                     [&](const std::string& end) { return handler.rfind(end, 0) == 0; });
}

absl::Status DutyHook::SetGated(bool gated) {
  if (gated == gated_) return absl::OkStatus();
  if (!gated) {
    // Measuring whole: the links stay, as an attached hook's. Closed: it leaves detached, the
    // links going before Attach and Open make it measure again.
    gated_ = false;
    if (gate_open_) return absl::OkStatus();
    DetachStarts();
    DetachEnds();
    return absl::OkStatus();
  }
  if (!gateable()) {
    return absl::FailedPreconditionError(
        absl::StrCat("BPF ", spec_.name, ": gate: its programs have none"));
  }
  if (attached()) {  // measuring whole: it goes on until DetachStarts closes the gate
    gated_ = true;
    return absl::OkStatus();
  }
  if (gate_open_) {
    if (absl::Status closed = WriteGate(false); !closed.ok()) return closed;
  }
  if (absl::Status attached = AttachLinks(); !attached.ok()) return attached;
  gated_ = true;
  std::lock_guard<std::mutex> lock(mutex_);
  if (counted_since_ns_ == 0) counted_since_ns_ = MonotonicNs();
  return absl::OkStatus();
}

absl::Status DutyHook::Attach() {
  if (gated_) {
    if (gate_open_) return absl::OkStatus();
    if (absl::Status open = WriteGate(true); !open.ok()) return open;
    std::lock_guard<std::mutex> lock(mutex_);
    ++stats_.gate_opens;
    BeginMeasuringLocked(MonotonicNs());
    return absl::OkStatus();
  }
  // Links to attach, with a gate map: closed while they are (Open opens it, in a new stretch,
  // so that pairs begun before are not ended by what follows).
  if (gate_fd_ >= 0 && gate_open_ && !attached()) {
    if (absl::Status closed = WriteGate(false); !closed.ok()) return closed;
    std::lock_guard<std::mutex> lock(mutex_);
    EndMeasuringLocked(MonotonicNs());
  }
  if (absl::Status attached = AttachLinks(); !attached.ok()) return attached;
  std::lock_guard<std::mutex> lock(mutex_);
  const uint64_t now = MonotonicNs();
  if (gate_fd_ < 0) BeginMeasuringLocked(now);
  if (counted_since_ns_ == 0) counted_since_ns_ = now;
  return absl::OkStatus();
}

void DutyHook::BeginMeasuringLocked(uint64_t now_ns) {
  if (attached_since_ns_ != 0) return;
  attached_since_ns_ = now_ns;
  ++stats_.measure_starts;
}

void DutyHook::EndMeasuringLocked(uint64_t now_ns) {
  if (attached_since_ns_ == 0) return;
  attached_ns_ += SaturatingDifference(now_ns, attached_since_ns_);
  last_stretch_ = {attached_since_ns_, now_ns};
  attached_since_ns_ = 0;
}

absl::Status DutyHook::AttachLinks() {
  const bool ends_detached =
      std::any_of(links_.begin(), links_.end(),
                  [this](const HandlerLink& l) { return IsEnd(l) && l.link == nullptr; });
  if (gate_ != nullptr && ends_detached) {
    if (absl::Status stale = gate_->BeforeAttach(); !stale.ok()) return stale;
  }
  for (const bool ends : {true, false}) {
    for (HandlerLink& link : links_) {
      if (IsEnd(link) != ends || link.link != nullptr) continue;
      if (absl::Status attached = AttachLink(link); !attached.ok()) {
        DetachStarts();
        DetachEnds();
        return attached;
      }
    }
  }
  return absl::OkStatus();
}

absl::Status DutyHook::Open(uint64_t weight) {
  if (gate_ != nullptr) {
    if (absl::Status opened = gate_->Open(weight); !opened.ok()) return opened;
  }
  if (gated_ || gate_fd_ < 0 || gate_open_ || !attached()) return absl::OkStatus();
  if (absl::Status open = WriteGate(true); !open.ok()) return open;
  std::lock_guard<std::mutex> lock(mutex_);
  BeginMeasuringLocked(MonotonicNs());
  return absl::OkStatus();
}

void DutyHook::Close() {
  if (gate_ != nullptr) gate_->Close().IgnoreError();  // reported by the next Open
}

void DutyHook::CloseGate() {
  if (gate_fd_ < 0 || !gate_open_ || !WriteGate(false).ok()) return;
  std::lock_guard<std::mutex> lock(mutex_);
  EndMeasuringLocked(MonotonicNs());
}

void DutyHook::DetachStarts() {
  Close();
  if (gated_) {
    // A gate that cannot be closed stays open, and its time stays measured time.
    if (!gate_open_ || !WriteGate(false).ok()) return;
    std::lock_guard<std::mutex> lock(mutex_);
    EndMeasuringLocked(MonotonicNs());
    return;
  }
  CloseGate();  // the measuring ends before the link operations
  bool any = false;
  for (HandlerLink& link : links_) {
    if (IsEnd(link) || link.link == nullptr) continue;
    DetachLink(link);
    any = true;
  }
  if (!any) return;
  std::lock_guard<std::mutex> lock(mutex_);
  const uint64_t now = MonotonicNs();
  EndMeasuringLocked(now);
  if (counted_since_ns_ != 0) {
    counted_ns_ += SaturatingDifference(now, counted_since_ns_);
    counted_since_ns_ = 0;
  }
}

void DutyHook::DetachEnds() {
  if (gated_) return;
  for (HandlerLink& link : links_) {
    if (IsEnd(link) && link.link != nullptr) DetachLink(link);
  }
}

bool DutyHook::attached() const {
  if (gated_) return gate_open_;
  return std::all_of(links_.begin(), links_.end(),
                     [](const HandlerLink& l) { return l.link != nullptr; });
}

bool DutyHook::measuring() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return attached_since_ns_ != 0;
}

std::optional<StretchAt> DutyHook::MeasuringNow() const {
  if (gate_fd_ < 0 || !gate_open_ || !attached()) return std::nullopt;
  return StretchAt{.stretch = gate_value_, .at_ns = MonotonicNs()};
}

absl::Status DutyHook::WriteGate(bool open) {
  uint32_t value = gate_value_ + 1;
  if (((value & NICTUNE_HOOK_GATE_CLOSED_BIT) == 0) != open) ++value;
  const uint32_t zero = 0;
  if (bpf_map_update_elem(gate_fd_, &zero, &value, BPF_ANY) != 0) {
    return absl::InternalError(absl::StrCat("BPF ", spec_.name, ": write ",
                                            NICTUNE_HOOK_GATE_MAP_NAME, ": ", ErrnoText(errno)));
  }
  gate_value_ = value;
  gate_open_ = open;
  return absl::OkStatus();
}

uint64_t DutyHook::Events() const { return events_.Total(); }

uint64_t DutyHook::AttachedNs(uint64_t now_ns) const {
  std::lock_guard<std::mutex> lock(mutex_);
  uint64_t total = attached_ns_;
  if (attached_since_ns_ != 0) return total + SaturatingDifference(now_ns, attached_since_ns_);
  // Asked as of a moment before its last stretch ended (a reader that took the time, then read
  // the maps while a slot ended): the part of that stretch after the moment is not yet measured.
  const auto [began_ns, ended_ns] = last_stretch_;
  if (now_ns < ended_ns) total -= SaturatingDifference(ended_ns, std::max(now_ns, began_ns));
  return total;
}

uint64_t DutyHook::CountedNs(uint64_t now_ns) const {
  std::lock_guard<std::mutex> lock(mutex_);
  uint64_t total = counted_ns_;
  if (counted_since_ns_ != 0) total += SaturatingDifference(now_ns, counted_since_ns_);
  return total;
}

LinkStats DutyHook::link_stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stats_;
}

RunStats DutyHook::Runs() const {
  RunStats runs;
  for (const HandlerLink& link : links_) {
    bpf_prog_info info;
    std::memset(&info, 0, sizeof(info));
    uint32_t length = sizeof(info);
    if (bpf_obj_get_info_by_fd(bpf_program__fd(link.program), &info, &length) == 0) {
      runs.run_cnt += info.run_cnt;
      runs.run_time_ns += info.run_time_ns;
    }
  }
  return runs;
}

absl::Status DutyHook::AttachLink(HandlerLink& link) {
  const uint64_t before = MonotonicNs();
  const uint64_t cpu_before = ClockNs(CLOCK_THREAD_CPUTIME_ID);
  bpf_link* attached = bpf_program__attach(link.program);
  const int error_number = errno;
  const uint64_t after = MonotonicNs();
  const uint64_t cpu_after = ClockNs(CLOCK_THREAD_CPUTIME_ID);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ++stats_.attaches;
    stats_.attach_ns += after - before;
    stats_.attach_cpu_ns += SaturatingDifference(cpu_after, cpu_before);
  }
  if (attached == nullptr) {
    return absl::InternalError(absl::StrCat("BPF ", spec_.name, ": attach ", link.tracepoint, ": ",
                                            ErrnoText(error_number)));
  }
  link.link = attached;
  return absl::OkStatus();
}

void DutyHook::DetachLink(HandlerLink& link) {
  const uint64_t before = MonotonicNs();
  const uint64_t cpu_before = ClockNs(CLOCK_THREAD_CPUTIME_ID);
  bpf_link__destroy(link.link);
  link.link = nullptr;
  const uint64_t after = MonotonicNs();
  const uint64_t cpu_after = ClockNs(CLOCK_THREAD_CPUTIME_ID);
  std::lock_guard<std::mutex> lock(mutex_);
  ++stats_.detaches;
  stats_.detach_ns += after - before;
  stats_.detach_cpu_ns += SaturatingDifference(cpu_after, cpu_before);
}

}  // namespace nictune::driver::bpf
