// SPDX-License-Identifier: Apache-2.0
// One reply of a sock_diag dump, parsed: its own file and library (nictune_netlink_parse), so that
// its fuzzer links the parser and nothing else of driver/.
#pragma once

#include <cstdint>

#include "absl/status/statusor.h"
#include "driver/socket_memory.h"

struct nlmsghdr;

namespace nictune::driver::netlink {

// One inet_diag reply: the socket's identity and its memory figures. InvalidArgument (naming
// what is short) when the reply is too short for an inet_diag_msg; a reply without
// INET_DIAG_SKMEMINFO has zero memory figures. `netns_inode` is stored as given.
absl::StatusOr<SocketMemory> ParseInetDiagReply(const nlmsghdr& reply, uint32_t netns_inode);

}  // namespace nictune::driver::netlink
