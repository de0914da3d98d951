// NetdevTopology over the netdev generic-netlink family: NETDEV_CMD_NAPI_GET and
// NETDEV_CMD_QUEUE_GET dumps. Read-only.
#pragma once

#include <memory>

#include "absl/status/statusor.h"
#include "driver/netlink/netdev_topology.h"

struct nlmsghdr;

namespace nictune::driver::netlink {

// Opens a socket in the calling thread's network namespace and resolves the "netdev" family.
// A kernel without the family still gives a topology: its calls answer Unimplemented, so that
// one code path decides "use the fallback".
absl::StatusOr<std::unique_ptr<NetdevTopology>> OpenNetdevNetlink();

// Parsers of one dump message (exposed for tests and fuzzers).
absl::StatusOr<NapiInfo> ParseNapiMessage(const nlmsghdr& message);
absl::StatusOr<NetdevQueue> ParseQueueMessage(const nlmsghdr& message);

}  // namespace nictune::driver::netlink
