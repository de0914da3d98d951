// SPDX-License-Identifier: Apache-2.0
// The gates of the hooks that pair a start with an end (duty_hook.h): what the softirq and irq
// programs are told, or have cleared, around each attach and detach.
#pragma once

#include <cstdint>
#include <mutex>

#include "absl/status/status.h"
#include "driver/bpf/duty_hook.h"

namespace nictune::driver::bpf {

// softirq_timing (softirq_timing.h): the epoch moves on before softirq_exit is attached again,
// so that what an unseen exit left is stale; timing stays closed while links change (the
// kernel's text patching interrupts every CPU and would land in timed softirqs), and opens with
// the weight each timed softirq stands for.
class SoftirqTimingGate final : public HookGate {
 public:
  // Timing is open from the map's initial value (epoch 0, open, weight 1) when this starts.
  explicit SoftirqTimingGate(int timing_map_fd);

  absl::Status BeforeAttach() override;
  absl::Status Open(uint64_t weight) override;
  absl::Status Close() override;

  // CLOCK_MONOTONIC time timing was open since the gate started, and the times the pair was
  // attached again, as of `now_ns`.
  uint64_t OpenNs(uint64_t now_ns) const;
  uint64_t start_ns() const { return start_ns_; }
  uint64_t attachments() const;

 private:
  absl::Status Write(uint64_t epoch, bool closed, uint64_t weight);

  const int timing_map_fd_;
  const uint64_t start_ns_;
  uint64_t epoch_ = 0;
  bool closed_ = false;
  uint64_t weight_ = 0;

  mutable std::mutex mutex_;    // what readers on other threads see
  uint64_t open_ns_ = 0;        // cumulative, up to open_since_ns_
  uint64_t open_since_ns_ = 0;  // 0 while closed
  uint64_t attachments_ = 0;
};

// irq_start (irq.h): zeroed on every CPU before irq_handler_exit is attached again, so that an
// entry whose exit went unseen while detached is not timed to a later exit of the same irq.
class IrqStartGate final : public HookGate {
 public:
  explicit IrqStartGate(int start_map_fd) : start_map_fd_(start_map_fd) {}
  absl::Status BeforeAttach() override;
  absl::Status Open(uint64_t) override { return absl::OkStatus(); }
  absl::Status Close() override { return absl::OkStatus(); }

 private:
  const int start_map_fd_;
};

}  // namespace nictune::driver::bpf
