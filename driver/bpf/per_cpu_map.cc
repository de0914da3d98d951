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

}  // namespace nictune::driver::bpf
