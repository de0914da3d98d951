// SPDX-License-Identifier: Apache-2.0
// main() for every nictune test binary. Under CI=true a skipped test is a failure: the privileged
// layers (BPF, namespaces, e2e) must really run there.
#include <cstdlib>
#include <cstring>
#include <iostream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

int main(int argc, char** argv) {
  testing::InitGoogleMock(&argc, argv);
  const int rc = RUN_ALL_TESTS();
  const char* ci = std::getenv("CI");
  const bool in_ci = ci != nullptr && std::strcmp(ci, "true") == 0;
  const int skipped = testing::UnitTest::GetInstance()->skipped_test_count();
  if (in_ci && skipped > 0) {
    std::cerr << "CI=true: " << skipped << " test(s) skipped; in CI a skip is a failure\n";
    return 1;
  }
  return rc;
}
