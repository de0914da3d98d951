// SPDX-License-Identifier: Apache-2.0
// `nictune recommend --as=shell|sysctl.d` on an agent's answer: only the changes, each after a
// comment naming it, and in the sysctl.d form only the host sysctls.
#include "agent/cli/recommend_commands.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace nictune::cli {
namespace {

using Json = nlohmann::json;

const Json kSet = {
    {"recommendations",
     Json::array({{{"knob", "rx_usecs"}, {"target", "eth0"}, {"current", 8}, {"recommended", 50}},
                  {{"knob", "netdev_budget"},
                   {"target", "host"},
                   {"current", 300},
                   {"recommended", 600}},
                  {{"knob", "rmem_max"},
                   {"target", "host"},
                   {"current", 212992},
                   {"recommended", 212992}}})}};

TEST(RecommendCommandsTest, ShellHasOneCommandPerChange) {
  EXPECT_EQ(RenderRecommendationsAsShell(kSet),
            "# rx_usecs on eth0: 8 -> 50\n"
            "ethtool -C eth0 rx-usecs 50\n"
            "# netdev_budget on host: 300 -> 600\n"
            "sysctl -w net.core.netdev_budget=600\n");
  EXPECT_EQ(RenderRecommendationsAsShell(Json{{"recommendations", Json::array()}}),
            "# nothing to change\n");
}

TEST(RecommendCommandsTest, SysctlConfHoldsTheHostSysctlsAndNamesTheRest) {
  EXPECT_EQ(RenderRecommendationsAsSysctlConf(kSet),
            "# nictune's recommended host sysctls, e.g. for /etc/sysctl.d/60-nictune.conf\n"
            "# not a sysctl (nictune recommend --as=shell): rx_usecs on eth0 -> 50\n"
            "# netdev_budget on host: 300 -> 600\n"
            "net.core.netdev_budget = 600\n");
}

}  // namespace
}  // namespace nictune::cli
