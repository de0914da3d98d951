// SPDX-License-Identifier: Apache-2.0
// Turning an errno from a netlink exchange (or an ethtool ioctl) into an absl::Status that names
// the family, the command, the target and the errno, so that callers can branch on the code.
#pragma once

#include <string>
#include <string_view>

#include "absl/status/status.h"

namespace nictune::driver::netlink {

// What a request was about, for error messages: "ethtool netlink COALESCE_GET eth0".
struct RequestContext {
  std::string_view family;   // "ethtool", "netdev", "nlctrl"
  std::string_view command;  // "COALESCE_GET", "napi-get"
  std::string_view target;   // device name, family name, or empty for dumps of everything
};

// "<family> netlink <command>[ <target>]".
std::string DescribeRequest(const RequestContext& context);

// Maps err (positive errno) to a status code: EOPNOTSUPP -> Unimplemented, ENOENT/ENODEV ->
// NotFound, EPERM/EACCES -> PermissionDenied, EINVAL/ERANGE -> InvalidArgument, EAGAIN/EINTR/
// ETIMEDOUT/EBUSY -> Unavailable, others -> Internal. The message is
// "<what>: <strerror> (errno N)" followed by ": <detail>" when detail (the kernel's extended ack
// text) is not empty.
absl::Status ErrnoStatus(std::string_view what, int err, std::string_view detail = {});

}  // namespace nictune::driver::netlink
