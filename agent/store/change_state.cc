// SPDX-License-Identifier: Apache-2.0
#include "agent/store/change_state.h"

namespace nictune::store {

absl::string_view ChangeStateName(ChangeState state) {
  switch (state) {
    case ChangeState::kJournaled:
      return "journaled";
    case ChangeState::kApplied:
      return "applied";
    case ChangeState::kVerified:
      return "verified";
    case ChangeState::kRolledBack:
      return "rolled_back";
    case ChangeState::kRestored:
      return "restored";
    case ChangeState::kReleased:
      return "released";
  }
  return "unknown";
}

std::optional<ChangeState> ParseChangeState(absl::string_view name) {
  for (ChangeState state :
       {ChangeState::kJournaled, ChangeState::kApplied, ChangeState::kVerified,
        ChangeState::kRolledBack, ChangeState::kRestored, ChangeState::kReleased}) {
    if (ChangeStateName(state) == name) return state;
  }
  return std::nullopt;
}

bool IsPending(ChangeState state) {
  return state == ChangeState::kJournaled || state == ChangeState::kApplied ||
         state == ChangeState::kVerified;
}

bool IsAllowedTransition(ChangeState from, ChangeState to) {
  switch (from) {
    case ChangeState::kJournaled:
      // A journaled row's write may have reached the kernel before a crash kept it from being
      // marked applied, so putting its original back is a rollback like any other.
      return to == ChangeState::kApplied || to == ChangeState::kRolledBack ||
             to == ChangeState::kRestored || to == ChangeState::kReleased;
    case ChangeState::kApplied:
      return to == ChangeState::kVerified || to == ChangeState::kRolledBack ||
             to == ChangeState::kRestored || to == ChangeState::kReleased;
    case ChangeState::kVerified:
      return to == ChangeState::kRolledBack || to == ChangeState::kRestored ||
             to == ChangeState::kReleased;
    case ChangeState::kRolledBack:
    case ChangeState::kRestored:
    case ChangeState::kReleased:
      return false;
  }
  return false;
}

}  // namespace nictune::store
