// SPDX-License-Identifier: Apache-2.0
// The netdev generic-netlink family: NetdevTopology over the NETDEV_CMD_NAPI_GET and
// NETDEV_CMD_QUEUE_GET dumps (read-only), and NapiConfig for one NAPI instance's settings
// (napi-get by id, napi-set, Linux 6.13+).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "driver/netlink/genl_socket.h"
#include "driver/netlink/netdev_topology.h"

struct nlmsghdr;

namespace nictune::driver::netlink {

// Opens a socket in the calling thread's network namespace and resolves the "netdev" family.
// A kernel without the family still gives a topology: its calls answer Unimplemented, so that
// one code path decides "use the fallback".
absl::StatusOr<std::unique_ptr<NetdevTopology>> OpenNetdevNetlink();

// What one napi-set changes: only the present settings are sent.
struct NapiConfigChange {
  uint32_t napi_id = 0;
  std::optional<uint32_t> defer_hard_irqs;         // 0 .. INT32_MAX
  std::optional<uint64_t> gro_flush_timeout_ns;    // any
  std::optional<uint64_t> irq_suspend_timeout_ns;  // any
};

// napi-get (do, by id) and napi-set on NAPI instances of the calling thread's network namespace.
// Whether the kernel has each command is read from the family's op list (CTRL_CMD_GETFAMILY) at
// Open(); a kernel without the family or command answers Unimplemented "... not supported by
// this kernel (...)", the state callers report as unsupported.
class NapiConfig {
 public:
  static absl::StatusOr<NapiConfig> Open();

  // napi-get for one id: NotFound when no NAPI has it.
  absl::StatusOr<NapiInfo> Get(uint32_t napi_id);
  // napi-set of the present fields; InvalidArgument when none is present or a value is out of
  // the kernel's range.
  absl::Status Set(const NapiConfigChange& change);

 private:
  NapiConfig(GenlSocket socket, std::optional<GenlFamily> family, std::string missing_reason)
      : socket_(std::move(socket)),
        family_(std::move(family)),
        missing_reason_(std::move(missing_reason)) {}

  GenlSocket socket_;
  std::optional<GenlFamily> family_;
  std::string missing_reason_;
};

// Appends napi-set's attributes for `change` (exposed so tests can check what is sent).
// InvalidArgument, and nothing appended, when no setting is present or one is out of range.
absl::Status PutNapiChange(nlmsghdr& message, const NapiConfigChange& change);

// Parsers of one dump message (exposed for tests and fuzzers).
absl::StatusOr<NapiInfo> ParseNapiMessage(const nlmsghdr& message);
absl::StatusOr<NetdevQueue> ParseQueueMessage(const nlmsghdr& message);

}  // namespace nictune::driver::netlink
