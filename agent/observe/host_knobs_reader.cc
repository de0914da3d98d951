// SPDX-License-Identifier: Apache-2.0
#include "agent/observe/host_knobs_reader.h"

#include <cstdint>

#include "absl/strings/str_cat.h"
#include "agent/observe/sysfs_integer.h"

namespace nictune::observe {

absl::StatusOr<HostKnobsReading> ReadHostKnobs(const std::string& proc_root) {
  HostKnobsReading reading;
  tuner::HostKnobs& k = reading.knobs;
  const struct {
    const char* file;  // under PROC_ROOT/sys/net
    int64_t* value;
  } kFiles[] = {
      {"core/netdev_budget", &k.netdev_budget},
      {"core/netdev_budget_usecs", &k.netdev_budget_usecs},
      {"core/dev_weight", &k.dev_weight},
      {"core/dev_weight_rx_bias", &k.dev_weight_rx_bias},
      {"core/dev_weight_tx_bias", &k.dev_weight_tx_bias},
      {"core/rmem_default", &k.rmem_default},
      {"core/rmem_max", &k.rmem_max},
      {"ipv4/udp_rmem_min", &k.udp_rmem_min},
  };
  for (const auto& f : kFiles) {
    const std::string path = absl::StrCat(proc_root, "/sys/net/", f.file);
    absl::StatusOr<std::optional<int64_t>> value = ReadIntegerFile(path);
    if (!value.ok()) return value.status();
    if (value->has_value()) {
      *f.value = **value;
    } else {
      reading.missing.push_back(path);
    }
  }
  return reading;
}

}  // namespace nictune::observe
