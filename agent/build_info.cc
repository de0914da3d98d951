// SPDX-License-Identifier: Apache-2.0
#include "agent/build_info.h"

namespace nictune::agent {

std::string_view Version() { return NICTUNE_VERSION; }

}  // namespace nictune::agent
