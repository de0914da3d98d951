// SPDX-License-Identifier: Apache-2.0
// The kernel's own UDP counters of a test's network namespace, which the drop tests compare the
// probes with. Header-only, as counter_sums.h: each privileged test is its own binary.
#pragma once

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "agent/procfs/snmp.h"
#include "tests/support/netns_host.h"

namespace nictune::bpf_tests {

// `Udp: RcvbufErrors` of /proc/net/snmp inside `netns`.
inline absl::StatusOr<int64_t> UdpRcvbufErrors(const testing_support::NetworkNamespace& netns) {
  absl::StatusOr<std::string> text = netns.ReadProcNet("snmp");
  if (!text.ok()) return text.status();
  absl::StatusOr<procfs::SnmpCounters> snmp =
      procfs::ParseSnmp(*text, "/proc/net/snmp in netns " + netns.name());
  if (!snmp.ok()) return snmp.status();
  const auto udp = snmp->find("Udp");
  if (udp == snmp->end() || !udp->second.contains("RcvbufErrors")) {
    return absl::NotFoundError("/proc/net/snmp in netns " + netns.name() +
                               ": no Udp: RcvbufErrors");
  }
  return udp->second.at("RcvbufErrors");
}

}  // namespace nictune::bpf_tests
