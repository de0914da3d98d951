// ethtool over generic netlink (family "ethtool", Linux 5.6+): read-only COALESCE_GET and
// RINGS_GET. Errors come back as statuses from ErrnoStatus: EOPNOTSUPP is Unimplemented, a
// missing device NotFound, a kernel without the family NotFound from the family lookup.
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

}  // namespace nictune::driver::netlink
