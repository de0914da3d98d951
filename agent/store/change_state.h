// SPDX-License-Identifier: Apache-2.0
// Names of the change-journal states as the database, REST API and CLI spell them, and which
// state may follow which.
#pragma once

#include <optional>

#include "absl/strings/string_view.h"
#include "agent/store/records.h"

namespace nictune::store {

absl::string_view ChangeStateName(ChangeState state);
std::optional<ChangeState> ParseChangeState(absl::string_view name);

// Pending changes still owe the kernel its original value (restore on exit, replay after a crash
// in the same boot).
bool IsPending(ChangeState state);

// journaled -> applied | restored | released (the write failed: nothing to undo)
// applied   -> verified | rolled_back | restored | released
// verified  -> rolled_back | restored | released
// Final states accept nothing.
bool IsAllowedTransition(ChangeState from, ChangeState to);

}  // namespace nictune::store
