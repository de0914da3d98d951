// SPDX-License-Identifier: Apache-2.0
// nictuned takes flags only. abseil's parser hands back what is not a flag and would let the agent
// start anyway: `nictuned version` or `nictuned check` would run the service, and `--once false`
// would mean --once. A stray argument is a usage error instead.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace nictune::service {

// The usage error for the arguments abseil left over (`positional`, the program's name first, as
// ParseCommandLine returns them), naming the first stray one and how to get help; nullopt when
// there is none. `argv` is the command line as given, to tell a boolean flag's spaced value
// (`--once false`) from a word of its own.
std::optional<std::string> StrayArgumentError(const std::vector<char*>& positional,
                                              const std::vector<std::string>& argv);

}  // namespace nictune::service
