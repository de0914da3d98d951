// SPDX-License-Identifier: Apache-2.0
// Where the build and the sources are, found at run time from the running program's own path.
// No absolute path is compiled into a test, so a compiler cache serves a checkout in another
// folder (CI clones afresh each run) as well as this one.
#pragma once

#include <string>

namespace nictune::testing_support {

// The build folder: the nearest folder at or above the running executable's that holds
// CMakeCache.txt. Empty, with a message on stderr, when there is none.
const std::string& BinaryDir();

// The source checkout that build was configured from (CMakeCache.txt's CMAKE_HOME_DIRECTORY).
const std::string& SourceDir();

// The unit tests' recorded kernel files: tests/unit/fixtures in the source checkout.
const std::string& FixturesDir();

}  // namespace nictune::testing_support
