// SPDX-License-Identifier: Apache-2.0
// /proc/net/snmp and /proc/net/netstat: pairs of "Proto: names" / "Proto: values" lines.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace nictune::procfs {

// section ("Udp", "TcpExt", ...) -> counter name ("RcvbufErrors") -> value. Some values are
// signed (Tcp: MaxConn -1), so values are int64.
using SnmpCounters = std::map<std::string, std::map<std::string, int64_t>, std::less<>>;

absl::StatusOr<SnmpCounters> ParseSnmp(std::string_view text, std::string_view path);

}  // namespace nictune::procfs
