// SPDX-License-Identifier: Apache-2.0
// Other programs that tune what nictune tunes, found running by their process names in /proc
// (tuned, bpftune, irqbalance; what each touches is in other_tuners.cc). nictuned names them in
// its status and its log at start and at each reload: two tuners on one knob undo each other
// (docs/deployment.md "Other tuners"). Under systemd's ProtectProc=invisible, /proc shows only
// the processes nictuned may trace, so other services cannot be looked for: that is said, not
// taken for "none".
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace nictune::observe {

struct OtherTuner {
  std::string name;     // "tuned", "bpftune", "irqbalance"
  int pid = 0;
  std::string overlap;  // what of nictune's it touches, in words
};

// Each known tuner running under proc_root, in pid order; processes that go away while it reads
// are skipped. FailedPrecondition when proc_root cannot be listed or hides pid 1 (it then hides
// other services too), naming why.
absl::StatusOr<std::vector<OtherTuner>> FindOtherTuners(const std::string& proc_root);

}  // namespace nictune::observe
