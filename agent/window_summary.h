// SPDX-License-Identifier: Apache-2.0
// A one-line human summary of a Window, for the log and systemd's STATUS=.
#pragma once

#include <string>

#include "agent/model/window.h"

namespace nictune::agent {

std::string SummarizeWindow(const model::Window& window);

}  // namespace nictune::agent
