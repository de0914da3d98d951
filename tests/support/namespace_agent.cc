// SPDX-License-Identifier: Apache-2.0
#include "tests/support/namespace_agent.h"

namespace nictune::testing_support {

std::vector<std::string> NictunedInNamespace(const std::string& netns, const std::string& nictuned,
                                             const std::string& proc_root,
                                             const std::vector<std::string>& flags,
                                             const std::vector<std::string>& wrapper) {
  // The shell only moves stderr onto stdout and execs: the agent keeps the process (and its pid).
  std::vector<std::string> argv = {
      "ip", "netns", "exec", netns, "/bin/sh", "-c", "exec \"$0\" \"$@\" 2>&1"};
  argv.insert(argv.end(), wrapper.begin(), wrapper.end());
  argv.push_back(nictuned);
  argv.push_back("--proc_root=" + proc_root);
  argv.insert(argv.end(), flags.begin(), flags.end());
  return argv;
}

}  // namespace nictune::testing_support
