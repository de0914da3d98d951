// SPDX-License-Identifier: Apache-2.0
// Dropped skbs by reason, protocol, device, L4 protocol, local port and socket; idle keys pruned
// (DropKeyAging), and drops that found the map full by reason alone.
#include <cerrno>
#include <cstring>
#include <map>
#include <span>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "driver/bpf/device_names.h"
#include "driver/bpf/drops.h"
#include "driver/bpf/per_cpu_map.h"
#include "driver/bpf/probes.h"
#include "driver/bpf/tracepoint_arguments.h"
#include "drops.skel.h"  // generated into the build tree by bpftool

namespace nictune::driver::bpf {

static_assert(sizeof(nictune_drop_key) == 48);
static_assert(sizeof(nictune_drops_cpu) == 8 * NICTUNE_DROP_REASON_SLOTS);

std::unique_ptr<LoadedProbe> LoadDropsProbe() {
  // Kernels since 6.12 pass rx_sk as the fourth argument; older ones have three.
  const bool has_rx_sk = TracepointArguments("kfree_skb").value_or(0) >= 4;
  return LoadedProbe::Load("drops", SkeletonOpener<drops>("drops", nullptr),
                           {has_rx_sk ? "on_kfree_skb_no_rx_sk" : "on_kfree_skb"});
}

namespace {

// The device's name as the agent shows it: looked up once per read for each (ifindex,
// namespace, kernel name), since many keys share a device and the lookup costs system calls.
class DeviceNamesOfOneRead {
 public:
  const std::string& Of(const nictune_drop_key& key) {
    const std::string kernel_name(key.device, strnlen(key.device, sizeof key.device));
    auto [it, inserted] =
        names_.try_emplace(std::tuple(key.ifindex, key.netns_inode, kernel_name), std::string());
    if (inserted) it->second = DeviceName(key.ifindex, key.netns_inode, kernel_name);
    return it->second;
  }

 private:
  std::map<std::tuple<int32_t, uint32_t, std::string>, std::string> names_;
};

DropCounter CounterOf(const nictune_drop_key& key, uint64_t count, DropOrigin origin,
                      const DropReasonNames* reasons, DeviceNamesOfOneRead& names) {
  return DropCounter{
      .origin = origin,
      .reason = key.reason,
      .reason_name =
          reasons != nullptr ? reasons->Name(key.reason) : absl::StrCat("UNKNOWN_", key.reason),
      .protocol = key.protocol,
      .l4_protocol = key.l4_protocol,
      .ifindex = key.ifindex,
      .netns_inode = key.netns_inode,
      .device = names.Of(key),
      .local_port = key.local_port,
      .socket_cookie = key.socket_cookie,
      .count = count};
}

uint64_t Sum(std::span<const uint64_t> per_cpu) {
  uint64_t total = 0;
  for (const uint64_t count : per_cpu) total += count;
  return total;
}

// Drops that found the map full, by reason slot; the last slot holds every larger reason.
absl::Status ReadMapFull(const LoadedProbe& probe, const DropReasonNames* reasons,
                         uint64_t& no_room, BpfCounters& counters) {
  absl::StatusOr<int> fd = probe.MapFd("drops_cpu");
  if (!fd.ok()) return fd.status();
  std::vector<uint64_t> slots(NICTUNE_DROP_REASON_SLOTS, 0);
  absl::Status read = ForEachPerCpuArrayEntry<nictune_drops_cpu>(
      *fd, "drops_cpu", 1, [&slots](uint32_t, std::span<const nictune_drops_cpu> cpus) {
        for (const nictune_drops_cpu& cpu : cpus) {
          for (size_t slot = 0; slot < slots.size(); ++slot) slots[slot] += cpu.map_full[slot];
        }
      });
  if (!read.ok()) return read;
  for (uint32_t slot = 0; slot < slots.size(); ++slot) {
    if (slots[slot] == 0) continue;
    no_room += slots[slot];
    const bool last = slot + 1 == slots.size();
    counters.drops.push_back(DropCounter{
        .origin = DropOrigin::kMapFull,
        .reason = slot,
        .reason_name = last              ? absl::StrCat("REASON_", slot, "_OR_ABOVE")
                       : reasons != nullptr ? reasons->Name(slot)
                                            : absl::StrCat("UNKNOWN_", slot),
        .count = slots[slot]});
  }
  return absl::OkStatus();
}

// Removes a key and returns its last total, atomically where the kernel can (5.14+ for per-CPU
// hashes): an increment racing the removal by nanoseconds is the only count that can be lost.
absl::StatusOr<uint64_t> Prune(int fd, const nictune_drop_key& key, std::vector<uint64_t>& values) {
  nictune_drop_key copy = key;
  if (bpf_map_lookup_and_delete_elem(fd, &copy, values.data()) == 0) return Sum(values);
  if (errno == ENOENT) return 0;
  if (bpf_map_lookup_elem(fd, &copy, values.data()) != 0) {
    if (errno == ENOENT) return 0;
    return MapReadError("drop_counts", "lookup", errno);
  }
  if (bpf_map_delete_elem(fd, &copy) != 0 && errno != ENOENT) {
    return MapReadError("drop_counts", "delete", errno);
  }
  return Sum(values);
}

}  // namespace

absl::Status ReadDropsProbe(const LoadedProbe& probe, const DropReasonNames* reasons,
                            DropKeyAging& aging, uint64_t now_ns, BpfCounters& counters) {
  MapPressure pressure{.map = "drop_counts", .capacity = aging.capacity()};
  if (absl::Status full = ReadMapFull(probe, reasons, pressure.no_room, counters); !full.ok()) {
    return full;
  }
  absl::StatusOr<int> fd = probe.MapFd("drop_counts");
  if (!fd.ok()) return fd.status();
  std::vector<std::pair<nictune_drop_key, uint64_t>> held;
  absl::Status walk = ForEachPerCpuHashEntry<nictune_drop_key, uint64_t>(
      *fd, "drop_counts", [&held](const nictune_drop_key& key, std::span<const uint64_t> per_cpu) {
        held.emplace_back(key, Sum(per_cpu));
      });
  if (!walk.ok()) return walk;

  const std::vector<size_t> idle = aging.SelectIdle(held, now_ns);
  absl::StatusOr<int> cpus = PossibleCpus();
  if (!cpus.ok()) return cpus.status();
  std::vector<uint64_t> values(static_cast<size_t>(*cpus));
  std::vector<bool> pruned(held.size(), false);
  for (const size_t i : idle) {
    absl::StatusOr<uint64_t> last = Prune(*fd, held[i].first, values);
    if (!last.ok()) return last.status();
    aging.Retire(held[i].first, *last, now_ns);
    pruned[i] = true;
  }
  size_t kept = 0;
  for (size_t i = 0; i < held.size(); ++i) {
    if (!pruned[i]) held[kept++] = held[i];
  }
  held.resize(kept);

  DeviceNamesOfOneRead names;
  for (const auto& [key, total] : held) {
    counters.drops.push_back(CounterOf(key, total, DropOrigin::kKey, reasons, names));
  }
  for (const auto& [group, total] : aging.PrunedGroups(held, now_ns)) {
    counters.drops.push_back(CounterOf(group, total, DropOrigin::kPrunedKeys, reasons, names));
  }
  pressure.entries = held.size();
  pressure.pruned = aging.pruned();
  counters.maps.push_back(std::move(pressure));
  return absl::OkStatus();
}

}  // namespace nictune::driver::bpf
