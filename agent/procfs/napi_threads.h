// SPDX-License-Identifier: Apache-2.0
// The host's threaded NAPI pollers by their names: the children of kthreadd (pid 2, whose
// /proc/2/task/2/children lists every kernel thread; CONFIG_PROC_CHILDREN) whose comm starts
// "napi/". Netdev netlink names only its own namespace's pollers; this finds every other
// namespace's too (a container's veth), whose threads, like every kernel thread, the agent's pid
// namespace sees. A comm is cut at 15 bytes, so it names neither device nor instance reliably.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace nictune::procfs {

// Whether a task's comm is a threaded NAPI poller's: "napi/DEV-ID", cut at 15 bytes.
bool IsNapiThreadName(std::string_view comm);

// The pids of /proc/2/task/2/children: "12 34 56 " (a space after each).
absl::StatusOr<std::vector<uint32_t>> ParseChildPids(std::string_view text, std::string_view path);

// The pids of PROC_ROOT's kernel threads whose comm starts "napi/", sorted. A thread that exits
// while it is read is left out; NotFound when the kernel lists no children (no
// CONFIG_PROC_CHILDREN).
absl::StatusOr<std::vector<uint32_t>> ReadNapiThreadPids(const std::string& proc_root);

}  // namespace nictune::procfs
