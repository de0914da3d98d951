// SPDX-License-Identifier: Apache-2.0
// A hook's event counter (hook_events.h): an array of one cache line per CPU that its programs
// add to and that user space maps into memory, so that the probe budget's rechecks (ten a second,
// every hook) read it without a system call.
#pragma once

#include <bpf/libbpf.h>

#include <cstddef>
#include <cstdint>
#include <span>

#include "absl/status/statusor.h"
#include "driver/bpf/hook_events.h"

namespace nictune::driver::bpf {

// Before its object loads: one entry per possible CPU (the programs index it by CPU id). Objects
// without the counter are left as they are.
absl::Status SizeHookEventCounter(bpf_object* object);

class HookEventCounter {
 public:
  // Maps the loaded counter read-only; fails naming the map, the operation and the errno.
  static absl::StatusOr<HookEventCounter> Map(int map_fd, const char* concern);
  HookEventCounter(HookEventCounter&& other) noexcept;
  HookEventCounter& operator=(HookEventCounter&&) = delete;
  HookEventCounter(const HookEventCounter&) = delete;
  HookEventCounter& operator=(const HookEventCounter&) = delete;
  ~HookEventCounter();

  // Every CPU's events so far.
  uint64_t Total() const;

 private:
  HookEventCounter(void* mapping, size_t length, size_t cpus)
      : mapping_(mapping), length_(length), cpus_(cpus) {}
  std::span<const nictune_hook_events_cpu> PerCpu() const;

  void* mapping_ = nullptr;
  size_t length_ = 0;
  size_t cpus_ = 0;
};

}  // namespace nictune::driver::bpf
