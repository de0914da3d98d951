// SPDX-License-Identifier: Apache-2.0
// Settings a test takes from its environment (longer runs on request, a seed to repeat a run).
#pragma once

namespace nictune::testing_support {

// The integer in environment variable `name`, or `fallback` when it is unset or not an integer.
int EnvInt(const char* name, int fallback);

}  // namespace nictune::testing_support
