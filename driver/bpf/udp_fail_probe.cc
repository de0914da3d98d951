// SPDX-License-Identifier: Apache-2.0
// UDP queueing failures per socket, merged into the socket fill entries.
#include <algorithm>

#include "driver/bpf/per_cpu_map.h"
#include "driver/bpf/probes.h"
#include "driver/bpf/udp_fail.h"
#include "udp_fail.skel.h"  // generated into the build tree by bpftool

namespace nictune::driver::bpf {

static_assert(sizeof(nictune_udp_fail) == 40);

std::unique_ptr<LoadedProbe> LoadUdpFailProbe(const ProbeOptions& options) {
  const uint32_t max_sockets = std::max(options.max_sockets, 1u);
  return LoadedProbe::Load("udp_fail",
                           SkeletonOpener<udp_fail>("udp_fail",
                                                    [max_sockets](udp_fail& skeleton) {
                                                      bpf_map__set_max_entries(
                                                          skeleton.maps.udp_failures, max_sockets);
                                                    }),
                           {});
}

absl::Status ReadUdpFailProbe(const LoadedProbe& probe, BpfCounters& counters) {
  absl::StatusOr<int> fd = probe.MapFd("udp_failures");
  if (!fd.ok()) return fd.status();
  uint64_t keys = 0;
  absl::Status read = ForEachPerCpuHashEntry<uint64_t, nictune_udp_fail>(
      *fd, "udp_failures",
      [&counters, &keys](const uint64_t& cookie, std::span<const nictune_udp_fail> per_cpu) {
        ++keys;
        SocketKey key;
        key.cookie = cookie;
        uint64_t failures = 0;
        for (const nictune_udp_fail& cpu : per_cpu) {
          failures += cpu.count;
          if (cpu.socket.cookie == 0) continue;
          key.family = cpu.socket.family;
          key.protocol = static_cast<uint8_t>(cpu.socket.protocol);
          key.local_port = cpu.socket.local_port;
          key.netns_inode = cpu.socket.netns_inode;
        }
        auto same_socket = [cookie](const SocketFill& fill) { return fill.key.cookie == cookie; };
        auto it = std::find_if(counters.sockets.begin(), counters.sockets.end(), same_socket);
        if (it == counters.sockets.end()) {
          SocketFill fill;
          fill.key = key;
          counters.sockets.push_back(fill);
          it = counters.sockets.end() - 1;
        }
        it->udp_queue_failures += failures;
      });
  if (!read.ok()) return read;
  return AddMapPressure(*fd, "udp_failures", keys, counters);
}

}  // namespace nictune::driver::bpf
