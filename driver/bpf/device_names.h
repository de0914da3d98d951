// Names of network devices seen by the probes, which may live in other network namespaces.
#pragma once

#include <cstdint>
#include <string>

namespace nictune::driver::bpf {

// Inode of this process's network namespace (/proc/self/ns/net), 0 if unknown.
uint32_t OwnNetnsInode();

// The device's name when it is in our namespace (if_indextoname), else `fallback` (the name the
// probe read in the kernel), else "ifindex N@netns M".
std::string DeviceName(int32_t ifindex, uint32_t netns_inode, const std::string& fallback);

}  // namespace nictune::driver::bpf
