// SPDX-License-Identifier: Apache-2.0
// `nictune recommend --as=ethtool|sysctl|tuned` on an agent's answer: only the changes, each
// after a comment naming it; in the sysctl.d form only the host sysctls; in the tuned profile each
// in its plugin's section, and what a profile cannot hold named with the reason.
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
            "# not a sysctl (nictune recommend --as=ethtool): rx_usecs on eth0 -> 50\n"
            "# netdev_budget on host: 300 -> 600\n"
            "net.core.netdev_budget = 600\n");
}

TEST(RecommendCommandsTest, TunedProfilePutsEachKnobInItsPluginAndNamesWhatItCannotHold) {
  const Json set = {
      {"recommendations",
       Json::array(
           {{{"knob", "rx_usecs"}, {"target", "eth1"}, {"current", 8}, {"recommended", 50}},
            {{"knob", "adaptive_rx"}, {"target", "eth1"}, {"current", 1}, {"recommended", 0}},
            {{"knob", "rx_usecs"}, {"target", "eth0"}, {"current", 8}, {"recommended", 64}},
            {{"knob", "netdev_budget"}, {"target", "host"}, {"current", 300}, {"recommended", 600}},
            {{"knob", "gro_flush_timeout"},
             {"target", "eth0"},
             {"current", 0},
             {"recommended", 20000}},
            {{"knob", "napi_defer_hard_irqs"},
             {"target", "eth0 napi 8193"},
             {"current", 0},
             {"recommended", 2}},
            {{"knob", "rx_usecs"}, {"target", "a;b"}, {"current", 8}, {"recommended", 50}},
            {{"knob", "so_rcvbuf"},
             {"target", "udp 0.0.0.0:9000"},
             {"current", 212992},
             {"recommended", 425984}}})}};
  EXPECT_EQ(RenderRecommendationsAsTunedProfile(set),
            "# nictune's recommendations as a tuned profile, e.g. /etc/tuned/nictune/tuned.conf, "
            "then\n"
            "# `tuned-adm profile nictune`; include=PROFILE under [main] keeps the one in use now\n"
            "[main]\n"
            "summary=nictune's recommended coalescing, NAPI and socket buffer settings\n"
            "\n[sysctl]\n"
            "net.core.netdev_budget=600\n"
            "\n[nictune_eth0]\ntype=net\ndevices=eth0\ncoalesce=rx-usecs 64\n"
            "\n[nictune_eth1]\ntype=net\ndevices=eth1\ncoalesce=rx-usecs 50 adaptive-rx off\n"
            "\n[sysfs]\n"
            "/sys/class/net/eth0/gro_flush_timeout=20000\n"
            "\n# not in the profile: napi_defer_hard_irqs on eth0 napi 8193: one NAPI instance is "
            "set over netlink only (napi-set) -> 2\n"
            "# not in the profile: rx_usecs on a;b: the name is not one plain word in tuned's "
            "syntax -> 50\n"
            "# not in the profile: so_rcvbuf on udp 0.0.0.0:9000: the application's "
            "setsockopt(SO_RCVBUF), not the host's -> 425984\n");
}

// An emulated NIC's device is a TAP, which refuses ethtool -C: its coalescing is set over its
// control socket; its other knobs are the kernel's own.
const Json kEmulatedSet = {
    {"recommendations",
     Json::array(
         {{{"knob", "rx_usecs"}, {"target", "emu0"}, {"current", 8000}, {"recommended", 50}},
          {{"knob", "adaptive_rx"}, {"target", "emu0"}, {"current", 1}, {"recommended", 0}},
          {{"knob", "gro_flush_timeout"},
           {"target", "emu0"},
           {"current", 0},
           {"recommended", 20000}},
          {{"knob", "rx_usecs"}, {"target", "eth0"}, {"current", 8}, {"recommended", 50}}})},
    {"emulated_nics",
     Json::array({{{"device", "emu0"}, {"control_socket", "/run/nictune-demo/emu0.sock"}},
                  {{"device", "emu1"}, {"control_socket", "/tmp/a,dir/emu1.sock"}}})}};

TEST(RecommendCommandsTest, AnEmulatedNicsCoalescingIsSetOverItsControlSocket) {
  EXPECT_EQ(RenderRecommendationsAsShell(kEmulatedSet),
            "# rx_usecs on emu0: 8000 -> 50\n"
            "printf 'SET rx_usecs 50\\n' | socat - UNIX-CONNECT:/run/nictune-demo/emu0.sock\n"
            "# adaptive_rx on emu0: 1 -> 0\n"
            "printf 'SET adaptive_rx 0\\n' | socat - UNIX-CONNECT:/run/nictune-demo/emu0.sock\n"
            "# gro_flush_timeout on emu0: 0 -> 20000\n"
            "echo 20000 > /sys/class/net/emu0/gro_flush_timeout\n"
            "# rx_usecs on eth0: 8 -> 50\n"
            "ethtool -C eth0 rx-usecs 50\n");
  // socat reads ',' and ':' in an address as its own syntax, whatever the shell's quotes.
  Json odd_path = kEmulatedSet;
  odd_path["recommendations"][0]["target"] = "emu1";
  EXPECT_THAT(
      RenderRecommendationsAsShell(odd_path),
      ::testing::HasSubstr("# rx_usecs on emu1: 8000 -> 50\n"
                           "# send \"SET rx_usecs 50\" to the emulated NIC's control socket "
                           "by hand: its path has characters a shell or socat would read "
                           "as syntax\n"));
}

TEST(RecommendCommandsTest, ATunedProfileNamesAnEmulatedNicsCoalescingAsLeftOut) {
  const std::string profile = RenderRecommendationsAsTunedProfile(kEmulatedSet);
  EXPECT_THAT(profile, ::testing::HasSubstr("\n[nictune_eth0]\ntype=net\ndevices=eth0\n"));
  EXPECT_THAT(profile, ::testing::Not(::testing::HasSubstr("devices=emu0")));
  EXPECT_THAT(profile, ::testing::HasSubstr("/sys/class/net/emu0/gro_flush_timeout=20000\n"));
  EXPECT_THAT(profile, ::testing::HasSubstr(
                           "# not in the profile: rx_usecs on emu0: an emulated NIC, set "
                           "over its control socket (nictune recommend --as=ethtool) -> 50\n"));
}

}  // namespace
}  // namespace nictune::cli
