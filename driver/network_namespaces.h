// SPDX-License-Identifier: Apache-2.0
// The network namespaces the agent can see, and work done inside one: a netlink socket opened by
// a thread that has joined a namespace stays in it, so one short-lived thread per namespace opens
// the socket the agent then reads that namespace through.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace nictune::driver {

struct NetworkNamespaceRef {
  uint32_t inode = 0;
  std::string path;  // a file that names it: /run/netns/NAME or /proc/PID/ns/net
};

// The inode of the namespace `path` names (/proc/self/ns/net: the caller's).
absl::StatusOr<uint32_t> NetworkNamespaceInode(const std::string& path);

// Every distinct namespace, each once: the caller's own first, then those named under `run_netns`
// ("/run/netns", which `ip netns add` keeps), then those of processes under `proc_root` ("/proc"). Processes and
// names that vanish while they are read are skipped; so is a directory that does not exist.
std::vector<NetworkNamespaceRef> ListNetworkNamespaces(const std::string& proc_root,
                                                       const std::string& run_netns);

// The calling thread's network namespace's /proc/net/`file` ("snmp", "udp"), whole, at most
// `max_bytes` of it: a larger file is an error, not a truncated text. The error names the path and
// the errno.
absl::StatusOr<std::string> ReadThreadProcNet(const std::string& file, size_t max_bytes);

// Runs `fn` on a thread of its own that has joined the namespace `path` names; the caller's
// threads stay where they are. The error names the path and the errno of open or setns.
absl::Status RunInNetworkNamespace(const std::string& path, absl::FunctionRef<void()> fn);

}  // namespace nictune::driver
