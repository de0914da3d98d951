// SPDX-License-Identifier: Apache-2.0
// Tx completions inside NET_RX polls, attributed to the NAPI instance that polled.
#include <iterator>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "driver/bpf/device_names.h"
#include "driver/bpf/kernel_symbols.h"
#include "driver/bpf/napi.h"
#include "driver/bpf/per_cpu_map.h"
#include "driver/bpf/probes.h"
#include "driver/bpf/txshare.h"
#include "txshare.skel.h"  // generated into the build tree by bpftool

namespace nictune::driver::bpf {

static_assert(sizeof(nictune_txshare_cpu) == 40);
static_assert(sizeof(nictune_code_range) == 16);

namespace {

// Receive buffers that other CPUs hand back (skb_attempt_defer_free) are freed by this function
// inside NET_RX, between polls; their consume_skb events are not tx completions.
constexpr const char* kDeferredFreeFunctions[] = {"skb_defer_free_flush"};
static_assert(std::size(kDeferredFreeFunctions) <= NICTUNE_TXSHARE_EXCLUDED_RANGES);

}  // namespace

std::unique_ptr<LoadedProbe> LoadTxshareProbe(const LoadedProbe& softirq, const LoadedProbe& napi) {
  absl::StatusOr<std::string> kallsyms = ReadKallsyms();
  std::vector<CodeRange> ranges;
  if (kallsyms.ok()) {
    for (const char* function : kDeferredFreeFunctions) {
      absl::StatusOr<CodeRange> range = FindFunctionRange(*kallsyms, function);
      if (range.ok()) ranges.push_back(*range);
    }
  }
  // The NET_RX flag and the attribution to polls run in the softirq and napi objects' programs.
  std::unique_ptr<LoadedProbe> probe = LoadedProbe::Load(
      "txshare",
      SharingMaps(
          "txshare",
          SkeletonOpener<txshare>("txshare",
                                  [ranges](txshare& skeleton) {
                                    for (size_t i = 0;
                                         i < ranges.size() && i < NICTUNE_TXSHARE_EXCLUDED_RANGES;
                                         ++i) {
                                      skeleton.rodata->excluded_callers[i].start = ranges[i].start;
                                      skeleton.rodata->excluded_callers[i].end = ranges[i].end;
                                    }
                                  }),
          {{&softirq, "txshare_cpu"}, {&softirq, "softirq_timing"}, {&napi, "tx_completions"}}),
      {});
  return probe;
}

absl::Status ReadTxshareProbe(const LoadedProbe& probe, BpfCounters& counters) {
  absl::StatusOr<int> cpu_fd = probe.MapFd("txshare_cpu");
  if (!cpu_fd.ok()) return cpu_fd.status();
  absl::Status cpu_read = ForEachPerCpuArrayEntry<nictune_txshare_cpu>(
      *cpu_fd, "txshare_cpu", 1, [&counters](uint32_t, std::span<const nictune_txshare_cpu> cpus) {
        for (const nictune_txshare_cpu& cpu : cpus) {
          counters.tx_completions_unattributed += cpu.unattributed;
          counters.tx_completions_deferred_rx += cpu.excluded;
        }
      });
  if (!cpu_read.ok()) return cpu_read;

  absl::StatusOr<int> fd = probe.MapFd("tx_completions");
  if (!fd.ok()) return fd.status();
  uint64_t keys = 0;
  absl::Status read = ForEachPerCpuHashEntry<nictune_napi_key, uint64_t>(
      *fd, "tx_completions",
      [&counters, &keys](const nictune_napi_key& key, std::span<const uint64_t> per_cpu) {
        ++keys;
        uint64_t total = 0;
        for (uint64_t count : per_cpu) total += count;
        for (NapiCounter& napi : counters.napis) {
          const bool same = key.napi_id != 0 ? napi.napi_id == key.napi_id
                                             : (napi.napi_id == 0 && napi.ifindex == key.ifindex &&
                                                napi.netns_inode == key.netns_inode &&
                                                napi.thread_pid == key.thread_pid);
          if (same) {
            napi.tx_completions += total;
            return;
          }
        }
        // The NAPI probe is off or has not seen this instance: report the tx share alone.
        NapiCounter napi;
        napi.napi_id = key.napi_id;
        napi.ifindex = key.ifindex;
        napi.netns_inode = key.netns_inode;
        napi.thread_pid = key.thread_pid;
        napi.device = key.napi_id == 0 && key.ifindex == 0
                          ? "backlog"
                          : DeviceName(key.ifindex, key.netns_inode, "");
        napi.tx_completions = total;
        napi.work_histogram.assign(kNapiWorkBuckets, 0);
        counters.napis.push_back(std::move(napi));
      });
  if (!read.ok()) return read;
  return AddMapPressure(*fd, "tx_completions", keys, counters);
}

}  // namespace nictune::driver::bpf
