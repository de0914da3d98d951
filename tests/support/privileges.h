// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>

namespace nictune::testing_support {

// Empty when this process may load BPF programs and create network namespaces; otherwise the
// reason it may not. Tests call GTEST_SKIP() << reason; under CI=true the test main fails skips.
std::string WhyNotPrivileged();

}  // namespace nictune::testing_support
