// SPDX-License-Identifier: Apache-2.0
// The sampling loop's clock: absolute CLOCK_MONOTONIC deadlines, so a slow step shortens the
// next wait instead of shifting every later sample, and a wait that a signal can end
// (sigtimedwait on signals blocked in every thread).
#pragma once

#include <signal.h>
#include <time.h>

#include <cstdint>
#include <optional>

#include "absl/time/time.h"

namespace nictune::service {

// Blocks SIGINT, SIGTERM and SIGHUP in the calling thread (and the threads it starts later) and
// returns the set to wait on.
sigset_t BlockServiceSignals();

// Waits until `deadline` (CLOCK_MONOTONIC) unless one of `signals` comes first; returns it.
std::optional<int> WaitUntil(const sigset_t& signals, const timespec& deadline);

timespec MonotonicNow();
timespec AddDuration(timespec t, absl::Duration d);
bool Before(const timespec& a, const timespec& b);

// Advances `deadline` by one interval, then past every later deadline that `now` has already
// passed; returns how many were skipped (missed intervals).
uint64_t AdvanceDeadline(timespec& deadline, const timespec& now, absl::Duration interval);

}  // namespace nictune::service
