// SPDX-License-Identifier: Apache-2.0
#include "agent/model/window.h"

#include <algorithm>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "agent/model/window_parts.h"

namespace nictune::model {
namespace internal {

CpuWindow& CpuEntry(Window& out, int cpu) {
  auto it = std::find_if(out.cpus.begin(), out.cpus.end(),
                         [cpu](const CpuWindow& c) { return c.cpu == cpu; });
  if (it != out.cpus.end()) return *it;
  out.cpus.push_back(CpuWindow{.cpu = cpu});
  return out.cpus.back();
}

}  // namespace internal

absl::StatusOr<Window> ComputeWindow(const Snapshot& before, const Snapshot& after) {
  if (after.monotonic_ns <= before.monotonic_ns) {
    return absl::InvalidArgumentError(absl::StrCat("window: snapshot at ", after.monotonic_ns,
                                                   " ns is not after the one at ",
                                                   before.monotonic_ns, " ns"));
  }
  Window w;
  w.start_unix_ns = before.unix_ns;
  w.end_unix_ns = after.unix_ns;
  w.seconds = static_cast<double>(after.monotonic_ns - before.monotonic_ns) / 1e9;
  w.sources = after.sources;
  internal::AddProcfsCpus(before, after, w.seconds, w);
  internal::AddProcfsIrqs(before, after, w.seconds, w);
  internal::AddDevices(before, after, w.seconds, w);
  internal::AddProtocols(before, after, w.seconds, w);
  internal::AddEmulatedNics(before, after, w.seconds, w);
  internal::AddNapiPollers(before, after, w.seconds, w);
  if (before.bpf && after.bpf) {
    internal::AddSoftirqTimes(before, after, w.seconds, w);
    internal::AddBpf(*before.bpf, *after.bpf, w.seconds, w);
  }
  internal::AddSocketCensus(before, after, w);
  return w;
}

}  // namespace nictune::model
