// SPDX-License-Identifier: Apache-2.0
// ethtool over generic netlink (family "ethtool", Linux 5.6+): COALESCE_GET/SET and
// RINGS_GET/SET. Errors come back as statuses from ErrnoStatus: EOPNOTSUPP is Unimplemented, a
// missing device NotFound, a kernel without the family NotFound from the family lookup.
//
// A SET sends only the fields present in its settings argument, so that a write of one knob never
// re-asserts (and races with) the others.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "driver/netlink/ethtool_settings.h"
#include "driver/netlink/genl_socket.h"

struct nlmsghdr;

namespace nictune::driver::netlink {

class EthtoolNetlink {
 public:
  // Resolves the "ethtool" family on `socket`. NotFound when the kernel has no such family.
  static absl::StatusOr<EthtoolNetlink> Open(GenlSocket socket);

  absl::StatusOr<CoalesceSettings> GetCoalesce(const std::string& device);
  absl::StatusOr<RingSettings> GetRings(const std::string& device);

  // COALESCE_SET of the present fields of `change` (device and source are ignored). A field the
  // SET message cannot carry is InvalidArgument; nothing present is InvalidArgument too.
  absl::Status SetCoalesce(const std::string& device, const CoalesceSettings& change);
  // RINGS_SET of the present rx, rx_mini, rx_jumbo and tx fields of `change`.
  absl::Status SetRings(const std::string& device, const RingSettings& change);

 private:
  EthtoolNetlink(GenlSocket socket, GenlFamily family)
      : socket_(std::move(socket)), family_(std::move(family)) {}

  GenlSocket socket_;
  GenlFamily family_;
};

// Parsers of one reply message (exposed for tests and fuzzers).
absl::StatusOr<CoalesceSettings> ParseCoalesceReply(const nlmsghdr& message,
                                                    const std::string& device);
absl::StatusOr<RingSettings> ParseRingsReply(const nlmsghdr& message, const std::string& device);

// Appends the SET attributes for the present fields of `change` to `message` (after the request
// header nest); exposed so tests can check that only those fields are sent. InvalidArgument when
// a present field has no SET attribute or no field is present.
absl::Status PutCoalesceChange(nlmsghdr& message, const CoalesceSettings& change,
                               const std::string& device);
absl::Status PutRingsChange(nlmsghdr& message, const RingSettings& change,
                            const std::string& device);

}  // namespace nictune::driver::netlink
