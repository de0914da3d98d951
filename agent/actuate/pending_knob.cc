// SPDX-License-Identifier: Apache-2.0
#include "agent/actuate/pending_knob.h"

#include <string>

#include "absl/container/flat_hash_map.h"
#include "agent/actuate/knob_key.h"

namespace nictune::actuate {

PendingByKnob GroupPendingByKnob(const std::vector<store::ChangeRecord>& pending) {
  PendingByKnob grouped;
  absl::flat_hash_map<std::string, size_t> index_of;
  for (const store::ChangeRecord& row : pending) {
    std::optional<tuner::Knob> knob = ParseKnobName(row.knob);
    if (!knob) {
      grouped.unknown_knob.push_back(row);
      continue;
    }
    const driver::knobs::KnobAddress address{*knob, row.target};
    auto [it, inserted] = index_of.try_emplace(KnobKey(address), grouped.knobs.size());
    if (inserted) grouped.knobs.push_back({address, row.original, {}});
    grouped.knobs[it->second].rows.push_back(row);
  }
  return grouped;
}

KernelHolds ClassifyKernelValue(const PendingKnob& knob, int64_t kernel_value) {
  if (kernel_value == knob.original) return KernelHolds::kOriginal;
  for (const store::ChangeRecord& row : knob.rows) {
    if (row.new_value == kernel_value) return KernelHolds::kOurValue;
  }
  if (!knob.rows.empty() && !knob.rows.back().new_value.has_value()) {
    return KernelHolds::kHalfWritten;
  }
  return KernelHolds::kSomeoneElses;
}

std::optional<int64_t> LastRecordedValue(const PendingKnob& knob) {
  for (auto it = knob.rows.rbegin(); it != knob.rows.rend(); ++it) {
    if (it->new_value.has_value()) return it->new_value;
  }
  return std::nullopt;
}

}  // namespace nictune::actuate
