// SPDX-License-Identifier: Apache-2.0
// Sampled log2 histogram of rx skb->truesize per device.
#include <algorithm>
#include <cstring>

#include "driver/bpf/device_names.h"
#include "driver/bpf/per_cpu_map.h"
#include "driver/bpf/probes.h"
#include "driver/bpf/truesize.h"
#include "truesize.skel.h"  // generated into the build tree by bpftool

namespace nictune::driver::bpf {

static_assert(sizeof(nictune_truesize_key) == 8);
static_assert(sizeof(nictune_truesize_histogram) == 32 + 8 * NICTUNE_TRUESIZE_BUCKETS);
static_assert(NICTUNE_TRUESIZE_BUCKETS == kTruesizeBuckets);

std::unique_ptr<LoadedProbe> LoadTruesizeProbe(const ProbeOptions& options) {
  const uint32_t sample_every = std::max(options.truesize_sample_every, 1u);
  return LoadedProbe::Load("truesize",
                           SkeletonOpener<truesize>("truesize",
                                                    [sample_every](truesize& skeleton) {
                                                      skeleton.rodata->sample_every = sample_every;
                                                    }),
                           {});
}

absl::Status ReadTruesizeProbe(const LoadedProbe& probe, BpfCounters& counters) {
  absl::StatusOr<int> fd = probe.MapFd("truesize_histograms");
  if (!fd.ok()) return fd.status();
  const uint32_t sample_every = probe.skeleton<truesize>()->rodata->sample_every;
  uint64_t keys = 0;
  absl::Status read = ForEachPerCpuHashEntry<nictune_truesize_key, nictune_truesize_histogram>(
      *fd, "truesize_histograms",
      [&counters, &keys, sample_every](const nictune_truesize_key& key,
                                       std::span<const nictune_truesize_histogram> per_cpu) {
        ++keys;
        TruesizeHistogram histogram;
        histogram.ifindex = key.ifindex;
        histogram.netns_inode = key.netns_inode;
        histogram.sample_every = sample_every;
        histogram.buckets.assign(kTruesizeBuckets, 0);
        std::string kernel_name;
        for (const nictune_truesize_histogram& cpu : per_cpu) {
          histogram.samples += cpu.samples;
          histogram.bytes += cpu.bytes;
          for (int bucket = 0; bucket < kTruesizeBuckets; ++bucket)
            histogram.buckets[static_cast<size_t>(bucket)] += cpu.buckets[bucket];
          if (cpu.device[0] != '\0')
            kernel_name.assign(cpu.device, strnlen(cpu.device, sizeof(cpu.device)));
        }
        histogram.device = DeviceName(key.ifindex, key.netns_inode, kernel_name);
        counters.truesize.push_back(std::move(histogram));
      });
  if (!read.ok()) return read;
  return AddMapPressure(*fd, "truesize_histograms", keys, counters);
}

}  // namespace nictune::driver::bpf
