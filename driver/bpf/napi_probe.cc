// NAPI polls, work, budget exhaustion and work histogram per NAPI instance.
#include <algorithm>
#include <cstring>
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

std::unique_ptr<LoadedProbe> LoadNapiProbe(const LoadedProbe& softirq) {
  ObjectOpener open = SkeletonOpener<napi>("napi", nullptr);
  // Without the softirq probe no consume is ever pending: napi then keeps its own, idle copy.
  if (softirq.attached()) open = SharingMaps("napi", std::move(open), {{&softirq, "txshare_cpu"}});
  return LoadedProbe::Load("napi", open, {});
}

absl::Status ReadNapiProbe(const LoadedProbe& probe, BpfCounters& counters) {
  absl::StatusOr<int> fd = probe.MapFd("napi_stats");
  if (!fd.ok()) return fd.status();
  return ForEachPerCpuHashEntry<nictune_napi_key, nictune_napi_stats>(
      *fd, "napi_stats",
      [&counters](const nictune_napi_key& key, std::span<const nictune_napi_stats> per_cpu) {
        NapiCounter napi;
        napi.napi_id = key.napi_id;
        napi.work_histogram.assign(kNapiWorkBuckets, 0);
        std::string kernel_name;
        for (const nictune_napi_stats& stats : per_cpu) {
          if (stats.polls == 0) continue;
          napi.polls += stats.polls;
          napi.work += stats.work;
          napi.budget_exhausted += stats.budget_exhausted;
          napi.last_budget = std::max(napi.last_budget, stats.last_budget);
          for (int bucket = 0; bucket < kNapiWorkBuckets; ++bucket)
            napi.work_histogram[static_cast<size_t>(bucket)] += stats.work_histogram[bucket];
          if (stats.device[0] != '\0') {
            napi.ifindex = stats.ifindex;
            napi.netns_inode = stats.netns_inode;
            kernel_name.assign(stats.device, strnlen(stats.device, sizeof(stats.device)));
          }
        }
        const bool backlog = key.napi_id == 0 && key.ifindex == 0;
        napi.device = backlog ? "backlog" : DeviceName(napi.ifindex, napi.netns_inode, kernel_name);
        counters.napis.push_back(std::move(napi));
      });
}

}  // namespace nictune::driver::bpf
