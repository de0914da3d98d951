// Dropped skbs by reason, protocol, device, L4 protocol, local port and socket.
#include <bpf/btf.h>

#include <cstring>

#include "driver/bpf/device_names.h"
#include "driver/bpf/drops.h"
#include "driver/bpf/per_cpu_map.h"
#include "driver/bpf/probes.h"
#include "drops.skel.h"  // generated into the build tree by bpftool

namespace nictune::driver::bpf {

static_assert(sizeof(nictune_drop_key) == 48);
static_assert(sizeof(nictune_drops_cpu) == 8);

namespace {

// Arguments of the kfree_skb tracepoint on the running kernel, from its BTF prototype
// (void *__data, skb, location, reason[, rx_sk]); 0 when unknown.
int KfreeSkbArguments() {
  btf* vmlinux = btf__load_vmlinux_btf();
  if (vmlinux == nullptr) return 0;
  int arguments = 0;
  const int id = btf__find_by_name_kind(vmlinux, "btf_trace_kfree_skb", BTF_KIND_TYPEDEF);
  if (id > 0) {
    const btf_type* type = btf__type_by_id(vmlinux, static_cast<uint32_t>(id));
    while (type != nullptr && (btf_is_typedef(type) || btf_is_ptr(type)))
      type = btf__type_by_id(vmlinux, type->type);
    if (type != nullptr && btf_is_func_proto(type)) arguments = btf_vlen(type) - 1;
  }
  btf__free(vmlinux);
  return arguments;
}

}  // namespace

std::unique_ptr<LoadedProbe> LoadDropsProbe() {
  // Kernels since 6.12 pass rx_sk as the fourth argument; older ones have three.
  const bool has_rx_sk = KfreeSkbArguments() >= 4;
  return LoadedProbe::Load("drops", SkeletonOpener<drops>("drops", nullptr),
                           {has_rx_sk ? "on_kfree_skb_no_rx_sk" : "on_kfree_skb"});
}

absl::Status ReadDropsProbe(const LoadedProbe& probe, const DropReasonNames* reasons,
                            BpfCounters& counters) {
  absl::StatusOr<int> cpu_fd = probe.MapFd("drops_cpu");
  if (!cpu_fd.ok()) return cpu_fd.status();
  absl::Status cpu_read = ForEachPerCpuArrayEntry<nictune_drops_cpu>(
      *cpu_fd, "drops_cpu", 1, [&counters](uint32_t, std::span<const nictune_drops_cpu> cpus) {
        for (const nictune_drops_cpu& cpu : cpus) counters.drops_unrecorded += cpu.unrecorded;
      });
  if (!cpu_read.ok()) return cpu_read;

  absl::StatusOr<int> fd = probe.MapFd("drop_counts");
  if (!fd.ok()) return fd.status();
  return ForEachPerCpuHashEntry<nictune_drop_key, uint64_t>(
      *fd, "drop_counts",
      [&counters, reasons](const nictune_drop_key& key, std::span<const uint64_t> per_cpu) {
        DropCounter drop;
        drop.reason = key.reason;
        drop.reason_name =
            reasons != nullptr ? reasons->Name(key.reason) : absl::StrCat("UNKNOWN_", key.reason);
        drop.protocol = key.protocol;
        drop.l4_protocol = key.l4_protocol;
        drop.ifindex = key.ifindex;
        drop.netns_inode = key.netns_inode;
        drop.device = DeviceName(key.ifindex, key.netns_inode,
                                 std::string(key.device, strnlen(key.device, sizeof key.device)));
        drop.local_port = key.local_port;
        drop.socket_cookie = key.socket_cookie;
        for (uint64_t count : per_cpu) drop.count += count;
        counters.drops.push_back(std::move(drop));
      });
}

}  // namespace nictune::driver::bpf
