// SPDX-License-Identifier: Apache-2.0
// How a test runs the real nictuned inside one of its network namespaces (ip netns exec, which
// also gives it that namespace's sysfs), with a NamespaceProcRoot as its --proc_root so that apply
// mode's host-wide sysctls are the test's copies, and its log (stderr) on stdout, where
// BackgroundProgram lets the test watch it.
#pragma once

#include <string>
#include <vector>

namespace nictune::testing_support {

// argv for BackgroundProgram::Start: `wrapper` (e.g. setpriv and its options; may be empty) runs
// `nictuned` with --proc_root=proc_root and `flags`.
std::vector<std::string> NictunedInNamespace(const std::string& netns, const std::string& nictuned,
                                             const std::string& proc_root,
                                             const std::vector<std::string>& flags,
                                             const std::vector<std::string>& wrapper = {});

}  // namespace nictune::testing_support
