// SPDX-License-Identifier: Apache-2.0
#include "tests/support/test_env.h"

#include <cstdlib>

#include "absl/strings/numbers.h"

namespace nictune::testing_support {

int EnvInt(const char* name, int fallback) {
  const char* text = std::getenv(name);
  int value = 0;
  return text != nullptr && absl::SimpleAtoi(text, &value) ? value : fallback;
}

}  // namespace nictune::testing_support
