// SPDX-License-Identifier: Apache-2.0
// The journal rows of this boot that still owe one knob its original value, and what the value
// the kernel holds now says about who set it. RestoreAll and the start-up resolution both decide
// from this, so a knob left in any half-state by a crash resolves the same way.
//
// How the actuator writes (actuator.h) fixes what a crash can leave behind. For one knob, a write
// of V2 over our earlier V1 (row A, applied) goes: journal row B (original O) -> write V2 -> mark B
// applied V2 -> mark A superseded. A crash leaves, with the kernel value:
//   before B is journaled               A(V1)              kernel V1      ours
//   B journaled, kernel not yet written A(V1) B(journaled) kernel V1      ours (A's value)
//   kernel written, B not yet marked    A(V1) B(journaled) kernel V2      half-written: B's
//                                                                         value is in no row
//   B marked, A not yet superseded      A(V1) B(V2)        kernel V2      ours (B's value)
// and the very first write of a knob is the same without A (a half-written first change holds a
// value in no row; a journaled-only one holds the original). So the kernel value is the original,
// a value some row recorded, or, only when the newest row never got its value, the value that
// row's write left; anything else was written by someone else after our last write.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "agent/store/records.h"
#include "driver/knobs/knob_access.h"

namespace nictune::actuate {

struct PendingKnob {
  driver::knobs::KnobAddress address;
  int64_t original = 0;                   // the oldest row's: the value before our first write
  std::vector<store::ChangeRecord> rows;  // oldest first
};

struct PendingByKnob {
  std::vector<PendingKnob> knobs;  // in the order of each knob's oldest row
  // Rows naming a knob this binary does not know: nothing can read or write them.
  std::vector<store::ChangeRecord> unknown_knob;
};

PendingByKnob GroupPendingByKnob(const std::vector<store::ChangeRecord>& pending);

enum class KernelHolds {
  kOriginal,      // nothing is owed
  kOurValue,      // a value one of the rows recorded as written
  kHalfWritten,   // the newest row never recorded its value: our interrupted write left this
  kSomeoneElses,  // a person (or another tool) wrote it after us: never overwrite it
};

KernelHolds ClassifyKernelValue(const PendingKnob& knob, int64_t kernel_value);

// The newest value a row recorded as written; nullopt when no row got that far.
std::optional<int64_t> LastRecordedValue(const PendingKnob& knob);

}  // namespace nictune::actuate
