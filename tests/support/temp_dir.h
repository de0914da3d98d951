// SPDX-License-Identifier: Apache-2.0
// A fresh directory under /tmp for one test, removed with everything in it when its owner goes
// away, also when the test fails half way.
#pragma once

#include <string>

#include "absl/status/statusor.h"

namespace nictune::testing_support {

class TempDir {
 public:
  // mkdtemp("/tmp/<prefix>XXXXXX").
  static absl::StatusOr<TempDir> Create(const std::string& prefix);
  TempDir(TempDir&& other) noexcept;
  TempDir& operator=(TempDir&&) = delete;
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir();

  const std::string& path() const { return path_; }

 private:
  explicit TempDir(std::string path) : path_(std::move(path)) {}
  std::string path_;  // empty once moved from
};

}  // namespace nictune::testing_support
