// SPDX-License-Identifier: Apache-2.0
#include "driver/bpf/per_cpu_map.h"

#include "absl/status/statusor.h"

namespace nictune::driver::bpf {

absl::StatusOr<int> PossibleCpus() {
  const int cpus = libbpf_num_possible_cpus();
  if (cpus <= 0) {
    return absl::InternalError(
        absl::StrFormat("/sys/devices/system/cpu/possible: read possible CPUs: %s (errno %d)",
                        std::strerror(-cpus), -cpus));
  }
  return cpus;
}

absl::Status MapReadError(const char* map_name, const char* operation, int error_number) {
  return absl::InternalError(absl::StrFormat("BPF map %s: %s: %s (errno %d)", map_name, operation,
                                             std::strerror(error_number), error_number));
}

absl::Status AddMapPressure(int map_fd, const char* map_name, uint64_t entries,
                            BpfCounters& counters) {
  bpf_map_info info{};
  uint32_t length = sizeof(info);
  if (bpf_obj_get_info_by_fd(map_fd, &info, &length) != 0) {
    return MapReadError(map_name, "get_info", errno);
  }
  counters.maps.push_back(
      MapPressure{.map = map_name, .entries = entries, .capacity = info.max_entries});
  return absl::OkStatus();
}

}  // namespace nictune::driver::bpf
