// SPDX-License-Identifier: Apache-2.0
// Names of network devices seen by the probes, which may live in other network namespaces.
#pragma once

#include <cstdint>
#include <string>

namespace nictune::driver::bpf {

// Inode of this process's network namespace (/proc/self/ns/net), 0 if unknown.
uint32_t OwnNetnsInode();

// `fallback` (the name the probe read in the kernel) when there is one: as it is for a device of
// our namespace or of a namespace whose name no device of ours has, "NAME@netns M" otherwise.
// Without it, the name of ifindex N in our namespace (if_indextoname), else "ifindex N@netns M".
std::string DeviceName(int32_t ifindex, uint32_t netns_inode, const std::string& fallback);

}  // namespace nictune::driver::bpf
