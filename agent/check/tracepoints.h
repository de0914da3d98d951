// SPDX-License-Identifier: Apache-2.0
// Whether the kernel has each tracepoint the probes attach to (driver/probe_tracepoints.h), for
// `nictuned --check`: looked up before any program loads, so that a host without the probes'
// privileges still learns which of them could run there.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace nictune::check {

struct TracepointPresence {
  std::string name;     // "napi:napi_poll"
  std::string concern;  // the probe that attaches to it: "napi"
  std::string without_it;  // what the probe goes without where it is missing; empty: all of it
  bool present = false;
};

// Each tracepoint, found as tracefs's events/GROUP/EVENT when `tracefs` is its mount point, else
// as the kernel BTF's btf_trace_EVENT type (what a tp_btf program attaches by) in the file at
// `btf_path`; an error naming both when neither can be read.
absl::StatusOr<std::vector<TracepointPresence>> CheckTracepoints(
    const absl::StatusOr<std::string>& tracefs, const std::string& btf_path);

}  // namespace nictune::check
