// SPDX-License-Identifier: Apache-2.0
// Receive-buffer fill per socket: enqueues, high-water rmem_alloc, truesize estimate.
#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "driver/bpf/per_cpu_map.h"
#include "driver/bpf/probes.h"
#include "driver/bpf/sockfill.h"
#include "driver/bpf/tracepoint_arguments.h"
#include "sockfill.skel.h"  // generated into the build tree by bpftool

namespace nictune::driver::bpf {

static_assert(sizeof(nictune_socket_key) == 24);
static_assert(sizeof(nictune_socket_fill) == 72);
static_assert(sizeof(nictune_socket_drain) == 32);

namespace {

// How long a wait still open had lasted at `measuring.at_ns`: only one begun in that stretch, in
// which no read was missed up to then; 0 otherwise (and for one begun after it). The moment is the
// one the stretch was read at, not the map's: a slot that ends during the walk would otherwise
// stretch its waits past the reads it no longer sees.
uint64_t OpenWaitNs(const nictune_socket_drain& drain, std::optional<StretchAt> measuring) {
  if (!measuring || drain.stretch != measuring->stretch) return 0;
  if (drain.waiting_since_ns == 0 || drain.waiting_since_ns >= measuring->at_ns) return 0;
  return measuring->at_ns - drain.waiting_since_ns;
}

// Merges each tracked socket's drain gap into its fill, by cookie. Entries of sockets whose fill
// the LRU dropped are left out: a gap without the socket's packets plans nothing.
absl::Status ReadDrainGaps(const LoadedProbe& probe, uint32_t current,
                           std::optional<StretchAt> measuring, BpfCounters& counters) {
  absl::StatusOr<int> fd = probe.MapFd("socket_drain");
  if (!fd.ok()) return fd.status();
  std::map<uint64_t, SocketFill*> by_cookie;
  for (SocketFill& fill : counters.sockets) by_cookie[fill.key.cookie] = &fill;
  uint64_t keys = 0;
  absl::Status read = ForEachHashEntry<uint64_t, nictune_socket_drain>(
      *fd, "socket_drain",
      [&by_cookie, &keys, current, measuring](const uint64_t& cookie,
                                              const nictune_socket_drain& drain) {
        ++keys;
        const auto fill = by_cookie.find(cookie);
        if (fill == by_cookie.end()) return;
        fill->second->drain_waits_ended = drain.waits_ended;
        if (drain.gap_generation == current)
          fill->second->longest_drain_gap_ns = drain.longest_gap_ns;
        fill->second->open_drain_wait_ns = OpenWaitNs(drain, measuring);
      });
  if (!read.ok()) return read;
  return AddMapPressure(*fd, "socket_drain", keys, counters);
}

}  // namespace

std::unique_ptr<LoadedProbe> LoadSockfillProbe(const ProbeOptions& options) {
  const ProbeOptions copy = options;
  // Reads end a wait only on kernels with sock:sock_recv_length (6.4 on); elsewhere the drain
  // gap stays unmeasured and the rest of the concern runs.
  std::vector<std::string> unused;
  if (!TracepointArguments("sock_recv_length").has_value()) unused.push_back("on_sock_recv_length");
  return LoadedProbe::Load(
      "sockfill",
      SkeletonOpener<sockfill>("sockfill",
                               [copy](sockfill& skeleton) {
                                 skeleton.rodata->fill_threshold_pct =
                                     copy.socket_fill_threshold_pct;
                                 const uint32_t sockets = std::max(copy.max_sockets, 1u);
                                 bpf_map__set_max_entries(skeleton.maps.socket_fill, sockets);
                                 bpf_map__set_max_entries(skeleton.maps.socket_drain, sockets);
                               }),
      unused);
}

absl::Status ReadSockfillProbe(const LoadedProbe& probe, std::optional<StretchAt> measuring,
                               BpfCounters& counters) {
  absl::StatusOr<int> fd = probe.MapFd("socket_fill");
  if (!fd.ok()) return fd.status();
  sockfill* skeleton = probe.skeleton<sockfill>();
  volatile uint32_t* generation = &skeleton->bss->generation;
  const uint32_t current = *generation;
  uint64_t keys = 0;
  absl::Status read = ForEachPerCpuHashEntry<uint64_t, nictune_socket_fill>(
      *fd, "socket_fill",
      [&counters, &keys, current](const uint64_t& cookie,
                                  std::span<const nictune_socket_fill> per_cpu) {
        ++keys;
        SocketFill fill;
        fill.key.cookie = cookie;
        for (const nictune_socket_fill& cpu : per_cpu) {
          if (cpu.socket.cookie == 0) continue;  // this CPU never saw the socket
          fill.key.family = cpu.socket.family;
          fill.key.protocol = static_cast<uint8_t>(cpu.socket.protocol);
          fill.key.local_port = cpu.socket.local_port;
          fill.key.netns_inode = cpu.socket.netns_inode;
          fill.enqueues += cpu.enqueues;
          fill.rcvqueue_full += cpu.rcvqueue_full;
          fill.truesize_sum += cpu.truesize_sum;
          fill.truesize_samples += cpu.truesize_samples;
          fill.rcvbuf = std::max(fill.rcvbuf, cpu.rcvbuf);
          if (cpu.peak_generation == current)
            fill.peak_rmem_alloc = std::max(fill.peak_rmem_alloc, cpu.peak_rmem_alloc);
        }
        if (fill.rcvbuf > 0)
          fill.peak_fill = static_cast<double>(fill.peak_rmem_alloc) / fill.rcvbuf;
        counters.sockets.push_back(std::move(fill));
      });
  // The unused variant of a handler (and the handler on a kernel without the tracepoint) is
  // not loaded and has no descriptor.
  counters.drain_gap_timed = bpf_program__fd(skeleton->progs.on_sock_recv_length_btf) >= 0 ||
                             bpf_program__fd(skeleton->progs.on_sock_recv_length_raw) >= 0;
  absl::Status gaps = read.ok() ? ReadDrainGaps(probe, current, measuring, counters) : read;
  // Peaks restart from here: entries still carrying `current` are stale from the next read on.
  *generation = current + 1;
  if (!gaps.ok()) return gaps;
  return AddMapPressure(*fd, "socket_fill", keys, counters);
}

}  // namespace nictune::driver::bpf
