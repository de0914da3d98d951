// SPDX-License-Identifier: Apache-2.0
// A real store and change journal in a fresh directory under /tmp, for the tests of what reads
// them (the history and changes routes, the CLI's views of them). Both close before their
// directory is removed, also when a test fails half way.
#pragma once

#include <memory>
#include <string>
#include <utility>

#include "absl/status/statusor.h"
#include "agent/store/journal.h"
#include "agent/store/store.h"
#include "tests/support/temp_dir.h"

namespace nictune::testing_support {

struct TempStore {
  static absl::StatusOr<TempStore> Open(const std::string& prefix) {
    absl::StatusOr<TempDir> dir = TempDir::Create(prefix);
    if (!dir.ok()) return dir.status();
    absl::StatusOr<std::unique_ptr<store::Journal>> journal =
        store::Journal::Open(dir->path(), absl::Seconds(5), absl::Now());
    if (!journal.ok()) return journal.status();
    absl::StatusOr<std::unique_ptr<store::Store>> opened = store::Store::Open(dir->path(), {});
    if (!opened.ok()) return opened.status();
    return TempStore{*std::move(dir), *std::move(journal), *std::move(opened)};
  }

  TempDir dir;  // declared first: destroyed after the store and journal
  std::unique_ptr<store::Journal> journal;
  std::unique_ptr<store::Store> store;
};

}  // namespace nictune::testing_support
