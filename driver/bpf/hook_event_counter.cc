// SPDX-License-Identifier: Apache-2.0
#include "driver/bpf/hook_event_counter.h"

#include <bpf/bpf.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_format.h"
#include "driver/bpf/per_cpu_map.h"

namespace nictune::driver::bpf {
namespace {

absl::Status CounterError(const char* concern, const char* operation, int error_number) {
  return absl::InternalError(absl::StrFormat("BPF %s: %s %s: %s (errno %d)", concern, operation,
                                             NICTUNE_HOOK_EVENTS_MAP_NAME,
                                             std::strerror(error_number), error_number));
}

}  // namespace

absl::Status SizeHookEventCounter(bpf_object* object) {
  bpf_map* counter = bpf_object__find_map_by_name(object, NICTUNE_HOOK_EVENTS_MAP_NAME);
  if (counter == nullptr) return absl::OkStatus();
  absl::StatusOr<int> cpus = PossibleCpus();
  if (!cpus.ok()) return cpus.status();
  if (const int error = bpf_map__set_max_entries(counter, static_cast<uint32_t>(*cpus));
      error != 0) {
    return CounterError(bpf_object__name(object), "size", -error);
  }
  return absl::OkStatus();
}

absl::StatusOr<HookEventCounter> HookEventCounter::Map(int map_fd, const char* concern) {
  bpf_map_info info{};
  uint32_t info_length = sizeof(info);
  if (bpf_obj_get_info_by_fd(map_fd, &info, &info_length) != 0) {
    return CounterError(concern, "get_info", errno);
  }
  if (info.value_size != sizeof(nictune_hook_events_cpu) ||
      (info.map_flags & BPF_F_MMAPABLE) == 0) {
    return absl::FailedPreconditionError(absl::StrFormat(
        "BPF %s: %s: value of %u bytes, flags %#x: not the mappable per-CPU counter of "
        "hook_events.h",
        concern, NICTUNE_HOOK_EVENTS_MAP_NAME, info.value_size, info.map_flags));
  }
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  const size_t bytes = size_t{info.max_entries} * sizeof(nictune_hook_events_cpu);
  const size_t length = (bytes + page - 1) / page * page;
  void* mapping = mmap(nullptr, length, PROT_READ, MAP_SHARED, map_fd, 0);
  if (mapping == MAP_FAILED) return CounterError(concern, "mmap", errno);
  return HookEventCounter(mapping, length, info.max_entries);
}

HookEventCounter::HookEventCounter(HookEventCounter&& other) noexcept
    : mapping_(other.mapping_), length_(other.length_), cpus_(other.cpus_) {
  other.mapping_ = nullptr;
  other.length_ = 0;
  other.cpus_ = 0;
}

HookEventCounter::~HookEventCounter() {
  if (mapping_ != nullptr) munmap(mapping_, length_);
}

std::span<const nictune_hook_events_cpu> HookEventCounter::PerCpu() const {
  return {static_cast<const nictune_hook_events_cpu*>(mapping_), cpus_};
}

uint64_t HookEventCounter::Total() const {
  uint64_t total = 0;
  // The programs add on their own CPUs as this reads: each load sees a whole count, old or new.
  for (const nictune_hook_events_cpu& cpu : PerCpu()) {
    total += __atomic_load_n(&cpu.events, __ATOMIC_RELAXED);
  }
  return total;
}

}  // namespace nictune::driver::bpf
