// SPDX-License-Identifier: Apache-2.0
// The label and bucket sets the exporter fixes, read by the families that use them
// (procfs_series.cc, bpf_series.cc) and by the series budget (series_budget.cc).
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <vector>

#include "absl/strings/string_view.h"
#include "driver/probe_source.h"

namespace nictune::metrics {

// The /proc/stat modes of nictune_cpu_seconds_total, node_exporter's: guest time is already inside
// user and nice.
inline constexpr absl::string_view kCpuModes[] = {"user", "nice",    "system", "idle",
                                                  "iowait", "irq", "softirq", "steal"};

// Packets per poll: every power of two up to the default weight, and the weight itself, so that
// "used the whole budget" is its own bucket (63 < work <= 64).
inline const std::vector<double> kNapiWorkBoundaries = {0, 1, 2, 4, 8, 16, 32, 63, 64};

// The probes' truesize bucket b holds [2^b, 2^(b+1)) bytes, i.e. at most 2^(b+1) - 1: exact
// boundaries from 255 bytes (everything smaller folds into the first) to 1 MiB - 1.
inline constexpr size_t kFirstTruesizeBucket = 7;
inline std::vector<double> TruesizeBoundaries() {
  std::vector<double> out;
  for (size_t b = kFirstTruesizeBucket; b < driver::kTruesizeBuckets; ++b) {
    out.push_back(static_cast<double>((uint64_t{2} << b) - 1));
  }
  return out;
}

}  // namespace nictune::metrics
