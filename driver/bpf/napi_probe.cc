// SPDX-License-Identifier: Apache-2.0
// NAPI polls, work, budget exhaustion and work histogram per NAPI instance.
#include <algorithm>
#include <cstring>
#include <map>
#include <string>
#include <tuple>
#include <utility>

#include "driver/bpf/device_names.h"
#include "driver/bpf/napi.h"
#include "driver/bpf/per_cpu_map.h"
#include "driver/bpf/probes.h"
#include "napi.skel.h"  // generated into the build tree by bpftool

namespace nictune::driver::bpf {

static_assert(sizeof(nictune_napi_key) == 16);
static_assert(sizeof(nictune_napi_stats) == 56 + 8 * NICTUNE_NAPI_WORK_BUCKETS);
static_assert(NICTUNE_NAPI_WORK_BUCKETS == kNapiWorkBuckets);
static_assert(sizeof(nictune_napi_slot) == 24 + sizeof(nictune_napi_stats));

std::unique_ptr<LoadedProbe> LoadNapiProbe(const LoadedProbe& softirq) {
  ObjectOpener open = SkeletonOpener<napi>("napi", nullptr);
  // Without the softirq probe no consume is ever pending: napi then keeps its own, idle copy.
  if (softirq.attached()) open = SharingMaps("napi", std::move(open), {{&softirq, "txshare_cpu"}});
  return LoadedProbe::Load("napi", open, {});
}

namespace {

// One NAPI instance's counters summed over CPUs and over both maps (an instance may sit in the
// direct-mapped slot on one CPU and in the hash on another).
struct NapiTotals {
  NapiCounter counter;
  std::string kernel_name;
};

using NapiKeyTuple = std::tuple<uint32_t, int32_t, uint32_t, uint32_t>;

void Accumulate(const nictune_napi_key& key, const nictune_napi_stats& stats,
                std::map<NapiKeyTuple, NapiTotals>& totals) {
  if (stats.polls == 0) return;
  NapiTotals& total = totals[{key.napi_id, key.ifindex, key.netns_inode, key.thread_pid}];
  NapiCounter& napi = total.counter;
  if (napi.work_histogram.empty()) {
    napi.napi_id = key.napi_id;
    napi.thread_pid = key.thread_pid;
    napi.work_histogram.assign(kNapiWorkBuckets, 0);
  }
  napi.polls += stats.polls;
  napi.work += stats.work;
  napi.budget_exhausted += stats.budget_exhausted;
  napi.last_budget = std::max(napi.last_budget, stats.last_budget);
  for (int bucket = 0; bucket < kNapiWorkBuckets; ++bucket)
    napi.work_histogram[static_cast<size_t>(bucket)] += stats.work_histogram[bucket];
  if (stats.device[0] != '\0') {
    napi.ifindex = stats.ifindex;
    napi.netns_inode = stats.netns_inode;
    total.kernel_name.assign(stats.device, strnlen(stats.device, sizeof(stats.device)));
  }
}

}  // namespace

absl::Status ReadNapiProbe(const LoadedProbe& probe, BpfCounters& counters) {
  std::map<NapiKeyTuple, NapiTotals> totals;
  absl::StatusOr<int> slots_fd = probe.MapFd("napi_slots");
  if (!slots_fd.ok()) return slots_fd.status();
  absl::Status slots = ForEachPerCpuArrayEntry<nictune_napi_slot>(
      *slots_fd, "napi_slots", NICTUNE_NAPI_FAST_SLOTS,
      [&totals](uint32_t, std::span<const nictune_napi_slot> per_cpu) {
        for (const nictune_napi_slot& slot : per_cpu)
          if (slot.claimed != 0) Accumulate(slot.key, slot.stats, totals);
      });
  if (!slots.ok()) return slots;
  absl::StatusOr<int> fd = probe.MapFd("napi_stats");
  if (!fd.ok()) return fd.status();
  uint64_t keys = 0;
  absl::Status hashed = ForEachPerCpuHashEntry<nictune_napi_key, nictune_napi_stats>(
      *fd, "napi_stats",
      [&totals, &keys](const nictune_napi_key& key, std::span<const nictune_napi_stats> per_cpu) {
        ++keys;
        for (const nictune_napi_stats& stats : per_cpu) Accumulate(key, stats, totals);
      });
  if (!hashed.ok()) return hashed;
  if (absl::Status pressure = AddMapPressure(*fd, "napi_stats", keys, counters); !pressure.ok()) {
    return pressure;
  }
  for (auto& [key, total] : totals) {
    NapiCounter& napi = total.counter;
    const bool backlog = napi.napi_id == 0 && std::get<1>(key) == 0;
    napi.device =
        backlog ? "backlog" : DeviceName(napi.ifindex, napi.netns_inode, total.kernel_name);
    counters.napis.push_back(std::move(napi));
  }
  return absl::OkStatus();
}

}  // namespace nictune::driver::bpf
