// SPDX-License-Identifier: Apache-2.0
// Reading BPF maps from user space: per-CPU maps give one value per possible CPU for each key.
#pragma once

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <cerrno>
#include <cstring>
#include <span>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_format.h"
#include "driver/probe_source.h"

namespace nictune::driver::bpf {

// Number of possible CPUs (the per-CPU value count the kernel copies out), or an error.
absl::StatusOr<int> PossibleCpus();

absl::Status MapReadError(const char* map_name, const char* operation, int error_number);

// Adds the map's pressure to `counters.maps`: `entries` keys held now (counted by the caller's
// walk), its capacity from the kernel. LRU maps make room by evicting the least recently used
// key (a socket or device gone), so nothing finds them full.
absl::Status AddMapPressure(int map_fd, const char* map_name, uint64_t entries,
                            BpfCounters& counters);

// Calls visit(key, values) for each key of a per-CPU array; values has one entry per CPU.
template <typename Value, typename Visit>
absl::Status ForEachPerCpuArrayEntry(int map_fd, const char* map_name, uint32_t entries,
                                     Visit visit) {
  static_assert(sizeof(Value) % 8 == 0, "per-CPU values are copied in 8-byte strides");
  absl::StatusOr<int> cpus = PossibleCpus();
  if (!cpus.ok()) return cpus.status();
  const size_t cpu_count = static_cast<size_t>(*cpus);
  // One batch syscall for the whole array where the kernel has it (5.6+): the irq array is large.
  std::vector<uint32_t> keys(entries);
  std::vector<Value> all_values(entries * cpu_count);
  uint32_t out_batch = 0;
  uint32_t count = entries;
  const int batch = bpf_map_lookup_batch(map_fd, nullptr, &out_batch, keys.data(),
                                         all_values.data(), &count, nullptr);
  if (batch == 0 || errno == ENOENT) {
    for (uint32_t i = 0; i < count; ++i) {
      visit(keys[i], std::span<const Value>(all_values.data() + i * cpu_count, cpu_count));
    }
    return absl::OkStatus();
  }
  constexpr int kKernelNotSupported = 524;  // ENOTSUPP: kernel-internal, not in <cerrno>
  if (errno != EINVAL && errno != EOPNOTSUPP && errno != kKernelNotSupported)
    return MapReadError(map_name, "lookup_batch", errno);
  std::vector<Value> values(cpu_count);
  for (uint32_t key = 0; key < entries; ++key) {
    if (bpf_map_lookup_elem(map_fd, &key, values.data()) != 0)
      return MapReadError(map_name, "lookup", errno);
    visit(key, std::span<const Value>(values));
  }
  return absl::OkStatus();
}

// Walks a hash's keys: look_up(key) reads the key's value and visits it, or returns false with
// errno set. Keys deleted while we walk are skipped (the walk restarts nothing: counters are
// cumulative).
template <typename Key, typename LookUp>
absl::Status WalkHashKeys(int map_fd, const char* map_name, LookUp look_up) {
  Key key;
  Key next;
  std::memset(&key, 0, sizeof(key));
  const void* previous = nullptr;
  while (bpf_map_get_next_key(map_fd, previous, &next) == 0) {
    if (!look_up(next) && errno != ENOENT) return MapReadError(map_name, "lookup", errno);
    key = next;
    previous = &key;
  }
  if (errno != ENOENT) return MapReadError(map_name, "get_next_key", errno);
  return absl::OkStatus();
}

// Calls visit(key, values) for each key of a per-CPU hash; values has one entry per CPU.
template <typename Key, typename Value, typename Visit>
absl::Status ForEachPerCpuHashEntry(int map_fd, const char* map_name, Visit visit) {
  static_assert(sizeof(Value) % 8 == 0, "per-CPU values are copied in 8-byte strides");
  absl::StatusOr<int> cpus = PossibleCpus();
  if (!cpus.ok()) return cpus.status();
  std::vector<Value> values(static_cast<size_t>(*cpus));
  return WalkHashKeys<Key>(map_fd, map_name, [&](const Key& key) {
    if (bpf_map_lookup_elem(map_fd, &key, values.data()) != 0) return false;
    visit(key, std::span<const Value>(values));
    return true;
  });
}

// Calls visit(key, value) for each key of a hash shared by every CPU.
template <typename Key, typename Value, typename Visit>
absl::Status ForEachHashEntry(int map_fd, const char* map_name, Visit visit) {
  Value value;
  return WalkHashKeys<Key>(map_fd, map_name, [&](const Key& key) {
    if (bpf_map_lookup_elem(map_fd, &key, &value) != 0) return false;
    visit(key, static_cast<const Value&>(value));
    return true;
  });
}

}  // namespace nictune::driver::bpf
