// SPDX-License-Identifier: Apache-2.0
#include "driver/bpf/hook_gates.h"

#include <bpf/bpf.h>

#include <cerrno>
#include <vector>

#include "absl/strings/str_cat.h"
#include "driver/bpf/irq.h"
#include "driver/bpf/per_cpu_map.h"
#include "driver/bpf/saturating_difference.h"
#include "driver/bpf/softirq_timing.h"
#include "driver/errno_text.h"

namespace nictune::driver::bpf {

static_assert(sizeof(nictune_softirq_timing) == 24);
static_assert(sizeof(nictune_irq_start) == 16);

SoftirqTimingGate::SoftirqTimingGate(int timing_map_fd)
    : timing_map_fd_(timing_map_fd), start_ns_(MonotonicNs()) {
  open_since_ns_ = start_ns_;
}

absl::Status SoftirqTimingGate::BeforeAttach() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ++attachments_;
  }
  return Write(epoch_ + 1, true, weight_);
}

absl::Status SoftirqTimingGate::Open(uint64_t weight) { return Write(epoch_, false, weight); }

absl::Status SoftirqTimingGate::Close() { return Write(epoch_, true, weight_); }

uint64_t SoftirqTimingGate::OpenNs(uint64_t now_ns) const {
  std::lock_guard<std::mutex> lock(mutex_);
  uint64_t open = open_ns_;
  if (open_since_ns_ != 0) open += SaturatingDifference(now_ns, open_since_ns_);
  return open;
}

uint64_t SoftirqTimingGate::attachments() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return attachments_;
}

absl::Status SoftirqTimingGate::Write(uint64_t epoch, bool closed, uint64_t weight) {
  if (epoch == epoch_ && closed == closed_ && weight == weight_) return absl::OkStatus();
  const uint32_t zero = 0;
  const nictune_softirq_timing timing{.epoch = epoch, .closed = closed ? 1u : 0u, .weight = weight};
  if (bpf_map_update_elem(timing_map_fd_, &zero, &timing, BPF_ANY) != 0) {
    return absl::InternalError(
        absl::StrCat("BPF softirq map softirq_timing: update: ", ErrnoText(errno)));
  }
  const uint64_t now = MonotonicNs();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (closed && !closed_) {
      open_ns_ += SaturatingDifference(now, open_since_ns_);
      open_since_ns_ = 0;
    } else if (!closed && closed_) {
      open_since_ns_ = now;
    }
  }
  epoch_ = epoch;
  closed_ = closed;
  weight_ = weight;
  return absl::OkStatus();
}

absl::Status IrqStartGate::BeforeAttach() {
  absl::StatusOr<int> cpus = PossibleCpus();
  if (!cpus.ok()) return cpus.status();
  const std::vector<nictune_irq_start> zeros(static_cast<size_t>(*cpus), nictune_irq_start{});
  const uint32_t zero = 0;
  if (bpf_map_update_elem(start_map_fd_, &zero, zeros.data(), BPF_ANY) != 0) {
    return absl::InternalError(absl::StrCat("BPF irq map irq_start: update: ", ErrnoText(errno)));
  }
  return absl::OkStatus();
}

}  // namespace nictune::driver::bpf
