// SPDX-License-Identifier: Apache-2.0
// The human views of nictune: status, top, recommend and the apply/rollback/restore results
// rendered from JSON recorded from a running nictuned (tests/unit/fixtures/cli), whatif and history
// from the agent's real routes (the whatif math and a real store), and the table and sparkline
// building blocks.
#include <algorithm>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "agent/cli/duration_text.h"
#include "agent/cli/history_view.h"
#include "agent/cli/recommend_commands.h"
#include "agent/cli/recommend_view.h"
#include "agent/cli/result_view.h"
#include "agent/cli/status_view.h"
#include "agent/cli/text_table.h"
#include "agent/cli/top_view.h"
#include "agent/cli/whatif_view.h"
#include "agent/http/history_route.h"
#include "agent/http/router.h"
#include "agent/http/whatif_route.h"
#include "agent/store/store.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/support/build_paths.h"
#include "tests/support/wrapped_text.h"
#include "tests/unit/temp_store.h"

namespace nictune::cli {
namespace {

using testing_support::WidestLine;

using ::testing::ContainsRegex;
using ::testing::HasSubstr;
using ::testing::Not;
using Json = nlohmann::json;

Json Fixture(const std::string& name) {
  std::ifstream in(testing_support::FixturesDir() + "/cli/" + name);
  EXPECT_TRUE(in.good()) << name;
  std::stringstream text;
  text << in.rdbuf();
  return Json::parse(text.str());
}

// The line of `text` that starts with `prefix`, or "".
std::string LineStartingWith(const std::string& text, const std::string& prefix) {
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    if (absl::StartsWith(line, prefix)) return std::string(line);
  }
  return "";
}

TEST(CliViewsTest, TableAlignsTextLeftAndNumbersRightWithoutTrailingSpaces) {
  TextTable table({{"NAME"}, {"N", Align::kRight}, {"NOTE"}});
  table.AddRow({"eth0", "5", ""});
  table.AddRow({"lo", "1234", "µs"});
  EXPECT_EQ(table.Render(kNoWidthLimit),
            "NAME     N  NOTE\n"
            "eth0     5\n"
            "lo    1234  µs\n");
}

// What a width leaves one column beside the others at their natural widths and the gaps.
TEST(CliViewsTest, ATableSaysTheWidthItLeavesAColumn) {
  TextTable table({{"NAME"}, {"LINE"}, {"N", Align::kRight}});
  table.AddRow({"eth0", "", "12345"});
  EXPECT_EQ(table.WidthLeftFor(1, 80), 80u - (4 + 5 + 2 * kColumnGap));
  EXPECT_EQ(table.WidthLeftFor(0, 80), 80u - (4 + 5 + 2 * kColumnGap));  // "LINE" is 4 wide too
  EXPECT_EQ(table.WidthLeftFor(1, 10), 0u);
}

TEST(CliViewsTest, ATableWiderThanTheTerminalWrapsItsWidestTextFirst) {
  TextTable table({{"KNOB"}, {"N", Align::kRight}, {"EFFECT"}});
  table.AddRow({"rx_usecs", "84", "about 322 interrupts/s (now 122/s); no socket overflow"});
  EXPECT_EQ(table.Render(40),
            "KNOB       N  EFFECT\n"
            "rx_usecs  84  about 322 interrupts/s\n"
            "              (now 122/s); no socket\n"
            "              overflow\n");
  EXPECT_EQ(table.Render(kNoWidthLimit),
            "KNOB       N  EFFECT\n"
            "rx_usecs  84  about 322 interrupts/s (now 122/s); no socket overflow\n");
}

TEST(CliViewsTest, HeadersWrapBetweenWordsBeforeAnyCellWraps) {
  TextTable table({{"KNOB"}, {"CURRENT VALUE", Align::kRight},
                   {"RECOMMENDED VALUE", Align::kRight}});
  table.AddRow({"net.core.rmem_max", "212992", "4194304"});
  EXPECT_EQ(table.Render(40),
            "KNOB                CURRENT  RECOMMENDED\n"
            "                      VALUE        VALUE\n"
            "net.core.rmem_max    212992      4194304\n");
}

TEST(CliViewsTest, ATableOfNumbersTooWideSplitsIntoBlocksThatRepeatTheKeyColumns) {
  TextTable table({{"TIME"}, {"nictune_softnet_processed_total", Align::kRight},
                   {"nictune_softnet_dropped_total", Align::kRight}});
  table.AddRow({"12:00:00", "123456", "7"});
  // The headers wrap after '_'. At their narrowest (12 columns: a number's header breaks within
  // a word only when it is longer) the two series do not fit 22 columns beside the time, so each
  // gets a block of its own that repeats the time.
  EXPECT_EQ(table.Render(22),
            "TIME          nictune_\n"
            "              softnet_\n"
            "            processed_\n"
            "                 total\n"
            "12:00:00        123456\n"
            "\n"
            "TIME          nictune_\n"
            "              softnet_\n"
            "              dropped_\n"
            "                 total\n"
            "12:00:00             7\n");
}

TEST(CliViewsTest, LongLinesWrapAtSpacesOrAfterPunctuationWithTheirIndentation) {
  EXPECT_EQ(WrapToWidth("one two three", 7), (std::vector<std::string>{"one two", "three"}));
  EXPECT_EQ(WrapToWidth("/sys/class/net/eth0", 10),
            (std::vector<std::string>{"/sys/", "class/net/", "eth0"}));
  EXPECT_EQ(WrapToWidth("µµµµµ", 2), (std::vector<std::string>{"µµ", "µµ", "µ"}));
  EXPECT_EQ(WrapToWidth("", 5), (std::vector<std::string>{""}));
  EXPECT_EQ(WrapLines("short\n  a line that is long\n", 14),
            "short\n  a line\n    that is\n    long\n");
  EXPECT_EQ(WrapLines("no newline at the end", 100), "no newline at the end");
}

// Every view of a recorded agent fits 80 columns, what a pipe or a log gets, and keeps its
// figures (a cell wraps, it is not cut).
TEST(CliViewsTest, EveryViewFitsEightyColumns) {
  const std::string status = RenderStatus(Fixture("status.json"), 80);
  EXPECT_LE(WidestLine(WrapLines(status, 80)), 80u) << status;
  const std::string top = RenderTop(Fixture("snapshot.json"), 80);
  EXPECT_LE(WidestLine(top), 80u) << top;
  EXPECT_THAT(top, HasSubstr("IDLE%"));
  // Split in blocks, each names its rows whole: a queue's rx and tx rows share the number.
  EXPECT_THAT(top, ContainsRegex("\nDEVICE +QUEUE +KIND +HIRQ%"));
  const Json set = Fixture("recommendations.json");
  for (const bool why : {false, true}) {
    const std::string recommend = WrapLines(RenderRecommendations(set, why, 80), 80);
    EXPECT_LE(WidestLine(recommend), 80u) << recommend;
  }
  const std::string result = WrapLines(RenderResult(Fixture("apply_forbidden_tcp.json"), 80), 80);
  EXPECT_LE(WidestLine(result), 80u) << result;
}

// The fenced block of `markdown` that follows the line `command_line` (the command's output
// shown under it), or "" when there is none.
std::string BlockAfter(const std::string& markdown, const std::string& command_line) {
  const size_t at = markdown.find(absl::StrCat(command_line, "\n"));
  if (at == std::string::npos) return "";
  const size_t start = at + command_line.size() + 1;
  const size_t end = markdown.find("```", start);
  return end == std::string::npos ? "" : markdown.substr(start, end - start);
}

// Before the first window closes: the agent's reason, and no line for the window it has not got.
TEST(CliViewsTest, RecommendBeforeTheFirstWindowSaysWhyWithoutAnEmptyWindowLine) {
  const Json set = {{"window", {{"start", nullptr}, {"end", nullptr}, {"samples", 0}}},
                    {"reason",
                     "no tuner window has closed yet: the first closes one window (10s, "
                     "--window) after the agent started"},
                    {"recommendations", Json::array()}};
  EXPECT_EQ(RenderRecommendations(set, false, 80),
            "no tuner window has closed yet: the first closes one window (10s, --window) after "
            "the agent started\nno recommendations\n");
}

// The README's quick start shows what `nictune recommend` printed for a loaded host
// (tools/demo/recommend.sh saved that answer as the fixture): the block stays what the CLI
// renders from it at 80 columns, so a change to the view shows in the README.
TEST(CliViewsTest, TheReadmesRecommendSampleIsWhatTheCliRenders) {
  std::ifstream in(testing_support::SourceDir() + "/README.md");
  ASSERT_TRUE(in.good());
  std::stringstream readme;
  readme << in.rdbuf();
  const Json loaded = Fixture("recommendations_loaded.json");
  ASSERT_FALSE(loaded["recommendations"].empty());
  const std::string rendered = WrapLines(RenderRecommendations(loaded, false, 80), 80);
  EXPECT_EQ(BlockAfter(readme.str(), "$ nictune recommend"), rendered)
      << "README.md's block after \"$ nictune recommend\" should read:\n" << rendered;
}

// The same host's changes as commands: its emulated NIC's coalescing goes over the control
// socket the agent listed, since the NIC's TAP refuses ethtool -C.
TEST(CliViewsTest, TheLoadedHostsCommandsSetItsEmulatedNicOverItsControlSocket) {
  const std::string shell = RenderRecommendationsAsShell(Fixture("recommendations_loaded.json"));
  EXPECT_THAT(shell, HasSubstr("# rx_usecs on emu0: 8000 -> "));
  EXPECT_THAT(shell,
              ContainsRegex("' \\| socat - UNIX-CONNECT:/run/nictune-recommend-[0-9]+\\.sock\n"));
  EXPECT_THAT(shell, Not(HasSubstr("ethtool -C emu0")));
}

TEST(CliViewsTest, StatusFromARecordedAgent) {
  const std::string out = RenderStatus(Fixture("status.json"), kNoWidthLimit);
  EXPECT_THAT(out, HasSubstr("nictuned 0.1.0, mode recommend, up 24 s, on exit restore\n"
                             "sampling every 200 ms, tuner window 1 s\n"));
  EXPECT_THAT(out, HasSubstr("sampling: 56 samples (0 failed), 11 windows, missed intervals 4, "
                             "last sample 2026-11-29 23:21:21 UTC (took "));
  EXPECT_THAT(out, HasSubstr("store: /tmp/h11x/nictune.db: healthy, 0 errors\n"));
  EXPECT_THAT(out, HasSubstr("BPF: 8 programs attached: irq (tp_btf), softirq (tp_btf), napi "
                             "(tp_btf), txshare (tp_btf), drops (tp_btf), udp_fail (tp_btf), "
                             "sockfill (tp_btf), truesize (tp_btf)\n"));
  EXPECT_THAT(LineStartingWith(out, "/proc/net/softnet_stat"), ContainsRegex("procfs +yes$"));
  EXPECT_THAT(out, Not(HasSubstr("\x1b")));
}

// Per-packet probes off until a socket is under pressure are one line of their own, not faults.
TEST(CliViewsTest, StatusListsTheProbesOnDemandApartFromThoseThatFailed) {
  Json status = Fixture("status.json");
  for (Json& p : status["bpf"]["programs"]) {
    if (p["name"] == "txshare" || p["name"] == "truesize") {
      p["attached"] = false;
      p["waiting"] = true;
      p["reason"] = "per-packet probe, detached until switched on";
    } else if (p["name"] == "udp_fail") {
      p["attached"] = false;
      p["reason"] = "tracepoint udp:udp_fail_queue_rcv_skb not found";
    }
  }
  const std::string out = RenderStatus(status, kNoWidthLimit);
  EXPECT_THAT(out, HasSubstr("BPF: 5 programs attached: "));
  EXPECT_THAT(out, HasSubstr("BPF on demand: txshare, truesize (per-packet probes, attached while "
                             "a socket is under pressure)\n"));
  EXPECT_THAT(out, HasSubstr("BPF not attached: udp_fail: tracepoint"));
  EXPECT_THAT(out, Not(HasSubstr("BPF not attached: txshare")));
}

// Apply mode's holds are listed with their reasons and since when; none, no line.
TEST(CliViewsTest, StatusListsTheChangesHeldBackSinceWhen) {
  Json status = Fixture("status.json");
  EXPECT_THAT(RenderStatus(status, kNoWidthLimit), Not(HasSubstr("held back")));
  status["held"] = Json::array(
      {{{"knob", "rx_usecs"},
        {"target", "emu0"},
        {"recommended", 4568},
        {"cause", "confidence"},
        {"reason", "rx_usecs emu0: 4714 -> 4568 held: confidence 0.21 < 0.25 (2 samples)"},
        {"since", "2026-11-29T23:21:21+00:00"}}});
  EXPECT_THAT(RenderStatus(status, kNoWidthLimit),
              HasSubstr("changes held back: 1\n  rx_usecs emu0: 4714 -> 4568 held: confidence "
                        "0.21 < 0.25 (2 samples) (since 2026-11-29 23:21:21 UTC)\n"));
}

// A length of time reads in the units a person uses, whatever its size.
TEST(CliViewsTest, DurationsReadInTheirTwoLargestUnits) {
  EXPECT_EQ(DurationText(0.0004), "400 us");
  EXPECT_EQ(DurationText(0.0123), "12 ms");
  EXPECT_EQ(DurationText(1), "1 s");
  EXPECT_EQ(DurationText(2.54), "2.5 s");
  EXPECT_EQ(DurationText(23.562), "24 s");
  EXPECT_EQ(DurationText(245), "4 min 5 s");
  EXPECT_EQ(DurationText(600), "10 min");
  EXPECT_EQ(DurationText(3 * 3600 + 12 * 60 + 7), "3 h 12 min");
  EXPECT_EQ(DurationText(11 * 86400 + 4 * 3600 + 33), "11 d 4 h");
  EXPECT_EQ(DurationText(-1), "-");
}

// Values another hand set since start: how many, and the latest with when they were read.
TEST(CliViewsTest, StatusListsTheKnobsAnotherHandChanged) {
  Json status = Fixture("status.json");
  EXPECT_THAT(RenderStatus(status, kNoWidthLimit), Not(HasSubstr("another hand")));
  status["knobs_changed_by_others"] = {
      {"total", 3},
      {"latest", Json::array({{{"knob", "netdev_budget"},
                               {"target", "host"},
                               {"from", 300},
                               {"to", 600},
                               {"seen", "2026-11-29T23:21:21+00:00"}}})}};
  const std::string out = RenderStatus(status, kNoWidthLimit);
  EXPECT_THAT(out,
              HasSubstr("knobs changed by another hand than nictune's: 3 since start\n"
                        "  netdev_budget on host: 300 -> 600, read 2026-11-29 23:21:21 UTC\n"));
}

TEST(CliViewsTest, StatusNamesAnotherTunerAndWhatItTouches) {
  nlohmann::json status = Fixture("status.json");
  status["other_tuners"] = nlohmann::json::array(
      {{{"name", "irqbalance"}, {"pid", 812}, {"overlap", "it moves queue interrupts"}}});
  EXPECT_THAT(RenderStatus(status, kNoWidthLimit),
              HasSubstr("another tuner is running: irqbalance (pid 812): it moves queue "
                        "interrupts\n"));
}

TEST(CliViewsTest, StatusSaysWhyBpfAndTheStoreAreNotInUse) {
  Json status = Fixture("status.json");
  status["bpf"] = {{"in_use", false}, {"why_not", "not root"}, {"programs", Json::array()}};
  status["store"]["healthy"] = false;
  status["store"]["errors"] = 3;
  status["store"]["last_error"] = "disk I/O error";
  const std::string out = RenderStatus(status, kNoWidthLimit);
  EXPECT_THAT(out, HasSubstr("BPF: not in use (not root); procfs/sysfs only\n"));
  EXPECT_THAT(out, HasSubstr("UNHEALTHY, 3 errors"));
  EXPECT_THAT(out, HasSubstr("disk I/O error"));
}

TEST(CliViewsTest, TopFromARecordedSnapshot) {
  const Json snapshot = Fixture("snapshot.json");
  const std::string out = RenderTop(snapshot, kNoWidthLimit);
  EXPECT_THAT(out, HasSubstr("DEVICE  QUEUE  KIND  IRQ  CPU  INTS/S  PKTS/POLL  BUDGET%  RX/TX%  "
                             "DROPS/S  HIRQ%  SIRQ%  POLLER%  USER%  IDLE%"));
  // The recorded host was idle on eth0: no NAPI polls, so the poll columns say "-", and the drops
  // come from sysfs rx_dropped (0). The CPU split is the recorded /proc/stat share of the irq's
  // CPU.
  // It polls in softirq: no poller, "-".
  const Json& cpu1 = snapshot["cpus"][1]["split"];
  std::string split;
  for (const char* part : {"hardirq", "softirq", "poller", "user", "idle"}) {
    if (std::string(part) == "poller") {
      split += " +-";
      continue;
    }
    char cell[16];
    snprintf(cell, sizeof cell, " +%.1f", cpu1[part].get<double>() * 100);
    split += cell;
  }
  EXPECT_THAT(LineStartingWith(out, "eth0"),
              ContainsRegex("^eth0 +0 +rx +38 +1 +0 +- +- +- +0" + split + "$"));
  EXPECT_THAT(out, ContainsRegex("^interval of [0-9.]+ s ending [0-9]{2}:[0-9]{2}:[0-9]{2} UTC\n"));
  EXPECT_THAT(out, HasSubstr("no socket dropped or filled half its receive buffer this interval"));
}

TEST(CliViewsTest, TopShowsPollFiguresBpfDropsAndSocketFill) {
  // The recorded idle window had no NAPI polls and no tracked socket; these fields are the ones
  // the agent writes for a queue with polls (topology_json.cc) and a tracked socket.
  Json snapshot = Fixture("snapshot.json");
  Json& rx = snapshot["queues"][0];
  rx["interrupts_per_s"] = 12000.4;
  rx["packets_per_poll"] = 17.25;
  rx["budget_exhausted_fraction"] = 0.125;
  rx["rx_share"] = 0.7;
  snapshot["device_drops"] = Json::array({{{"device", "eth0"}, {"per_s", 42.5}}});
  snapshot["seconds"] = 2.0;
  snapshot["sockets"] = Json::array({{{"cookie", 4097},
                                      {"local_port", 9000},
                                      {"protocol", 17},
                                      {"device", "eth0"},
                                      {"rcvbuf", 212992},
                                      {"peak_fill", 0.9734},
                                      {"enqueues_per_s", 812744.0},
                                      {"kernel_drops", 85},
                                      {"coverage", {{"share", 0.5}}},
                                      {"mean_truesize", 2994.0},
                                      {"rcvqueue_full", 5},
                                      {"udp_queue_failures", 12}}});
  std::string out = RenderTop(snapshot, kNoWidthLimit);
  EXPECT_THAT(LineStartingWith(out, "eth0"),
              ContainsRegex("^eth0 +0 +rx +38 +1 +12000 +17.2 +12.5 +70/30 +42.5 "));
  EXPECT_THAT(out, HasSubstr("\nSOCKET  PORT  PROTO  DEVICE  RCVBUF  FILL%   ENQ/S  DROPS/S  "));
  EXPECT_THAT(out,
              ContainsRegex("\n4097 +9000 +17 +eth0 +212992 +97.3 +812744 +42.5 +2994 +5 +12\n"));

  // The fill probe's slots saw none of the interval: its peak and counts are no figures, while
  // the kernel's drop count still is; a socket no device was found for has none.
  snapshot["sockets"][0]["enqueues_per_s"] = 0.0;
  snapshot["sockets"][0]["coverage"]["share"] = 0.0;
  snapshot["sockets"][0].erase("device");
  out = RenderTop(snapshot, kNoWidthLimit);
  EXPECT_THAT(out, ContainsRegex("\n4097 +9000 +17 +- +212992 +- +- +42.5 +2994 +- +-\n"));
  snapshot["sockets"][0].erase("kernel_drops");
  EXPECT_THAT(RenderTop(snapshot, kNoWidthLimit),
              ContainsRegex("\n4097 +9000 +17 +- +212992 +- +- +- +2994 +- +-\n"));
}

// A queue that polls in a thread (threaded NAPI): its poller's share of a CPU, which the softirq
// share of its CPUs does not hold, in its own column.
TEST(CliViewsTest, TopShowsAThreadedQueuesPollerShare) {
  Json snapshot = Fixture("snapshot.json");
  snapshot["queues"][0]["napi_thread"] = 900;
  snapshot["queues"][0]["napi_poller_share"] = 0.218;
  const std::string out = RenderTop(snapshot, kNoWidthLimit);
  const Json& cpu1 = snapshot["cpus"][1]["split"];
  char cells[64];
  snprintf(cells, sizeof cells, " +%.1f +%.1f +21.8 +%.1f +%.1f$",
           cpu1["hardirq"].get<double>() * 100, cpu1["softirq"].get<double>() * 100,
           cpu1["user"].get<double>() * 100, cpu1["idle"].get<double>() * 100);
  EXPECT_THAT(LineStartingWith(out, "eth0"), ContainsRegex(cells));
}

// An emulated NIC has no sysfs counters in the agent's namespace: when the drops hook saw the
// whole interval, no drop record means none dropped (0, not "-"), and its missed frames (ring
// overruns) count.
TEST(CliViewsTest, TopCountsAnEmulatedNicsDropsWhileTheDropsHookMeasures) {
  Json snapshot = Fixture("snapshot.json");
  Json emu = snapshot["queues"][0];
  emu["device"] = "emu0";
  emu.erase("irq");
  snapshot["queues"].push_back(emu);
  snapshot["emulated_nics"] = Json::array({{{"device", "emu0"}, {"missed_per_s", 0.0}}});
  EXPECT_THAT(LineStartingWith(RenderTop(snapshot, kNoWidthLimit), "emu0"),
              ContainsRegex("^emu0 +0 +rx +- +1 +0 +- +- +- +- "));  // nothing known of its drops

  // A slot that saw a quarter of the interval and no drop says little: still unknown.
  snapshot["probes"] = Json::array({{{"hook", "drops"}, {"coverage", 0.25}}});
  EXPECT_THAT(LineStartingWith(RenderTop(snapshot, kNoWidthLimit), "emu0"),
              ContainsRegex("^emu0 +0 +rx +- +1 +0 +- +- +- +- "));
  snapshot["probes"][0]["coverage"] = 1.0;
  EXPECT_THAT(LineStartingWith(RenderTop(snapshot, kNoWidthLimit), "emu0"),
              ContainsRegex("^emu0 +0 +rx +- +1 +0 +- +- +- +0 "));
  snapshot["emulated_nics"][0]["missed_per_s"] = 7.0;
  snapshot["device_drops"] = Json::array({{{"device", "emu0"}, {"per_s", 3.0}}});
  EXPECT_THAT(LineStartingWith(RenderTop(snapshot, kNoWidthLimit), "emu0"),
              ContainsRegex("^emu0 +0 +rx +- +1 +0 +- +- +- +10 "));
  // A hook that measured nothing this interval says nothing of a device...
  snapshot["probes"][0]["coverage"] = 0;
  snapshot["device_drops"] = Json::array();
  EXPECT_THAT(LineStartingWith(RenderTop(snapshot, kNoWidthLimit), "emu0"),
              ContainsRegex("^emu0 +0 +rx +- +1 +0 +- +- +- +- "));
  // ... while the kernel's count of the drops of the sockets the agent placed on it still does.
  snapshot["device_drops"] =
      Json::array({{{"device", "emu0"}, {"per_s", 8000.0}, {"placed_sockets_per_s", 8000.0}}});
  EXPECT_THAT(LineStartingWith(RenderTop(snapshot, kNoWidthLimit), "emu0"),
              ContainsRegex("^emu0 +0 +rx +- +1 +0 +- +- +- +8007 "));
}

// What the probes cost and what they saw, under the interval's line: the plan against the budget,
// and each hook that saw part of the interval, by its coverage, or none; without probes, no line.
TEST(CliViewsTest, TopSaysWhatTheProbesCostAndWhichSawPartOfTheInterval) {
  Json snapshot = Fixture("snapshot.json");
  EXPECT_THAT(RenderTop(snapshot, kNoWidthLimit), Not(HasSubstr("probes:")));
  snapshot["probes"] =
      Json::array({{{"hook", "irq"}, {"mode", "whole"}, {"coverage", 1.0}},
                   {{"hook", "sockfill"}, {"mode", "slotted"}, {"coverage", 0.024}},
                   {{"hook", "truesize"}, {"mode", "gated"}, {"coverage", 0.5}},
                   // switched on mid-interval: whole at its end, yet it saw 40% of it
                   {{"hook", "napi"}, {"mode", "whole"}, {"coverage", 0.4}},
                   {{"hook", "txshare"}, {"mode", "detached"}, {"coverage", 0.0}}});
  snapshot["probe_budget"] = {{"cpu_share", 0.01},
                              {"planning_cpu_share", 0.01},
                              {"planned_cpu_share", 0.0093},
                              {"over_budget", false}};
  EXPECT_THAT(RenderTop(snapshot, kNoWidthLimit),
              HasSubstr(" UTC\nprobes: 0.93% of a CPU planned, budget 1%; whole interval: irq; "
                        "part of it: sockfill 2.4% (slotted), truesize 50% (gated), napi 40%; "
                        "none of it: txshare (detached)\n"));
  snapshot["probes"] = Json::array({snapshot["probes"][0]});
  snapshot["probe_budget"]["planned_cpu_share"] = 0.0123;
  snapshot["probe_budget"]["over_budget"] = true;
  EXPECT_THAT(RenderTop(snapshot, kNoWidthLimit),
              HasSubstr("probes: 1.2% of a CPU planned, budget 1% (over it: even the shortest "
                        "slots cost more); whole interval: irq\n"));
  // A hook whose slots or gate missed the interval says which kept it out.
  snapshot["probes"].push_back({{"hook", "drops"}, {"mode", "slotted"}, {"coverage", 0.0}});
  snapshot["probes"].push_back({{"hook", "napi"}, {"mode", "gated"}, {"coverage", 0.0}});
  snapshot["probe_budget"] = {{"cpu_share", 0}, {"planned_cpu_share", 0.0003}};
  EXPECT_THAT(RenderTop(snapshot, kNoWidthLimit),
              HasSubstr("probes: 0.03% of a CPU planned, budget unlimited; whole interval: irq; "
                        "none of it: drops (slotted), napi (gated)\n"));
}

TEST(CliViewsTest, RecommendFromARecordedAgent) {
  const Json set = Fixture("recommendations.json");
  const size_t knobs = set["recommendations"].size();
  ASSERT_GT(knobs, 0u);
  // The recorded idle agent keeps every knob: no table, and one line names them all by target.
  const std::string out = RenderRecommendations(set, /*why=*/false, kNoWidthLimit);
  EXPECT_THAT(out, HasSubstr("no changes: every knob is as recommended\n"));
  EXPECT_THAT(out, HasSubstr("\nkeep as they are: adaptive_rx, rx_usecs on eth0 rx 0; "
                             "napi_defer_hard_irqs, gro_flush_timeout on eth0; rmem_default, "
                             "rmem_max, udp_rmem_min, netdev_budget, netdev_budget_usecs, "
                             "dev_weight, dev_weight_rx_bias, dev_weight_tx_bias on host\n"));
  for (const Json& r : set["recommendations"]) {
    EXPECT_THAT(out, HasSubstr(r["knob"].get<std::string>()));
  }
  EXPECT_THAT(out, Not(HasSubstr("formula")));

  const std::string why = RenderRecommendations(set, /*why=*/true, kNoWidthLimit);
  for (const Json& r : set["recommendations"]) {
    EXPECT_THAT(why, HasSubstr("  formula:    " + r["formula"].get<std::string>() + "\n"));
    EXPECT_THAT(why, HasSubstr(" (" + r["confidence"]["reason"].get<std::string>() + ")\n"));
  }
  EXPECT_THAT(why, HasSubstr("inputs:     rx_rate = 0 pps, rx_peak_rate = 0 pps, interrupt_cost "
                             "= 2 us"));
}

TEST(CliViewsTest, RecommendTabulatesOnlyTheChanges) {
  Json set = Fixture("recommendations.json");
  set["recommendations"][1]["current"] = 0;
  set["recommendations"][1]["recommended"] = 84;
  const std::string knob = set["recommendations"][1]["knob"];
  const std::string out = RenderRecommendations(set, false, kNoWidthLimit);
  EXPECT_THAT(out, ContainsRegex("^window [^\n]+\nKNOB +TARGET +CHANGE +CONFIDENCE +EXPECTED "
                                 "EFFECT\n" + knob + " +[^\n]+ 0 -> 84 [^\n]+\nkeep as they are: "));
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 4);
  EXPECT_THAT(LineStartingWith(out, "keep as they are"), Not(HasSubstr(knob + ",")));
  // --why explains the change first, then the knobs kept.
  const std::string why = RenderRecommendations(set, true, kNoWidthLimit);
  const std::string first_kept = set["recommendations"][0]["knob"];
  EXPECT_LT(why.find("\n" + knob + " on "), why.find("\n" + first_kept + " on ")) << why;
  // With the knob's unit, as the agent sends it; an on/off knob's values stand alone.
  set["recommendations"][1]["unit"] = "us";
  EXPECT_THAT(RenderRecommendations(set, false, kNoWidthLimit), HasSubstr(" 0 -> 84 us "));
  set["recommendations"][1]["recommended"] = 0;
  EXPECT_THAT(RenderRecommendations(set, true, kNoWidthLimit), HasSubstr(": 0 us (keep)\n"));
  set["recommendations"][1]["unit"] = "bool";
  EXPECT_THAT(RenderRecommendations(set, true, kNoWidthLimit), HasSubstr(": 0 (keep)\n"));
}

// The agent's real POST /api/v1/whatif handler's answer to body, as the view prints it.
std::string WhatifView(const std::string& body) {
  http::Router router;
  EXPECT_TRUE(http::AddWhatifRoute(router).ok());
  const http::Response response =
      router.Dispatch({.method = "POST", .path = "/api/v1/whatif", .body = body});
  EXPECT_EQ(response.status, 200) << response.body;
  return response.status == 200 ? RenderWhatif(Json::parse(response.body)) : "";
}

// The agent's real POST /api/v1/whatif handler answers; the view prints seed 001's figures.
TEST(CliViewsTest, WhatifSeed001ThroughTheRealRoute) {
  const std::string out = WhatifView(
      R"({"rate_pps":812744,"truesize_bytes":2994,"rcvbuf_bytes":212992,"margin":0})");
  EXPECT_THAT(out, HasSubstr("capacity 71.14 packets (71.14 usable), fill time 87.5 us\n"));
  EXPECT_THAT(out, HasSubstr("drop-free interrupt interval up to 87.4 us (11447 interrupts/s or "
                             "more)\n"));
  EXPECT_THAT(out, HasSubstr("recommended: rx-usecs 87, the buffer as it is (212992 bytes), "
                             "about 11494 interrupts/s\n"));
  EXPECT_THAT(out, HasSubstr("formula: C = 212992 B / 2994 B = 71.14 packets"));
  EXPECT_THAT(out, HasSubstr("at rx-usecs 87 the socket holds 71 packets: rcvbuf needed 212574 "
                             "bytes\n"));
  EXPECT_THAT(out, ContainsRegex("simulated at rx-usecs 87 with rcvbuf 212992 for [0-9.]+ s: 0 "
                                 "drops/s"));
  // The recommendation is what was simulated: one simulation line.
  EXPECT_THAT(out, Not(HasSubstr("simulated the recommendation")));
  // No ring was given: the plan has no ring limit, and the line says what the simulation took.
  EXPECT_THAT(out, ContainsRegex("ring not given \\(--ring_size or --device\\): no ring limit "
                                 "planned; simulated with [0-9]+ descriptors"));
  EXPECT_THAT(WhatifView(R"({"rate_pps":812744,"truesize_bytes":2994,"rcvbuf_bytes":212992,
                             "ring_size":1024})"),
              Not(HasSubstr("ring not given")));
}

// The README's what-if sample is the head of what the CLI prints for its command at 80 columns,
// up to the line "...".
TEST(CliViewsTest, TheReadmesWhatifSampleIsWhatTheCliRenders) {
  std::ifstream in(testing_support::SourceDir() + "/README.md");
  ASSERT_TRUE(in.good());
  std::stringstream readme;
  readme << in.rdbuf();
  const std::string block = BlockAfter(
      readme.str(),
      "$ nictune whatif --rate_pps=812744 --truesize_bytes=2994 --rcvbuf_bytes=212992 --margin=0");
  absl::string_view sample = block;
  ASSERT_TRUE(absl::ConsumeSuffix(&sample, "...\n")) << block;
  ASSERT_FALSE(sample.empty());
  const std::string rendered = WrapLines(
      WhatifView(R"({"rate_pps": 812744, "truesize_bytes": 2994, "rcvbuf_bytes": 212992,
                     "margin": 0})"),
      80);
  EXPECT_EQ(rendered.substr(0, sample.size()), std::string(sample))
      << "README.md's what-if sample should begin:\n" << rendered;
}

TEST(CliViewsTest, WhatifWithNoWorkingIntervalRecommendsABuffer) {
  const std::string out = WhatifView(
      R"({"rate_pps":5000000,"truesize_bytes":2994,"rcvbuf_bytes":4096,"margin":0})");
  // 5 Mpps at the 20 us cost floor: 101 packets of 2994 B, 302394 B; half of it for setsockopt.
  EXPECT_THAT(out, HasSubstr("recommended: rx-usecs 20 and SO_RCVBUF 151197 bytes (the kernel "
                             "doubles it: sk_rcvbuf 302394; rmem_max must be at least 151197)"));
  EXPECT_THAT(out, ContainsRegex("simulated at rx-usecs 20 with rcvbuf 302394 for [0-9.]+ s: 0 "
                                 "drops/s"));
  EXPECT_THAT(out, Not(HasSubstr("unbounded")));
}

// An interval asked about is simulated with the question's buffer, the recommendation beside it;
// one packet is "1 packet".
TEST(CliViewsTest, WhatifAtAnIntervalShowsBothSimulations) {
  const std::string out = WhatifView(
      R"({"rate_pps":1000,"truesize_bytes":1500,"rcvbuf_bytes":2000,"margin":0,
                   "rx_usecs":500})");
  EXPECT_THAT(out, HasSubstr("at rx-usecs 500 the socket holds 1 packet: rcvbuf needed 1500 "
                             "bytes\n"));
  EXPECT_THAT(out, ContainsRegex("simulated at rx-usecs 500 with rcvbuf 2000 for"));
  EXPECT_THAT(out, ContainsRegex("simulated the recommendation, rx-usecs 999 with rcvbuf 2000"));
  EXPECT_THAT(out, Not(HasSubstr(" 1 packets")));
}

class HistoryViewTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<testing_support::TempStore> opened =
        testing_support::TempStore::Open("nictune-cli-history-");
    ASSERT_TRUE(opened.ok()) << opened.status();
    temp_.emplace(*std::move(opened));
    store_ = temp_->store.get();
    ASSERT_TRUE(http::AddHistoryRoute(router_, *store_).ok());
    // Ten seconds of two series: processed rises 0..9 on cpu 0, dropped is 3 throughout.
    for (int i = 0; i < 10; ++i) {
      ASSERT_TRUE(store_
                      ->AppendSamples(kT0 + absl::Seconds(i),
                                      {{"nictune_softnet_processed_total", {{"cpu", "0"}}, 1.0 * i},
                                       {"nictune_softnet_dropped_total", {{"cpu", "0"}}, 3.0}})
                      .ok());
    }
  }

  Json History(const std::string& series) {
    const http::Response response = router_.Dispatch(
        {.method = "GET",
         .path = "/api/v1/history",
         .query = "series=" + series + "&since=1700000040&until=1700000050&step=1s"});
    EXPECT_EQ(response.status, 200) << response.body;
    return Json::parse(response.body);
  }

  const absl::Time kT0 = absl::FromUnixSeconds(1'700'000'040);
  std::optional<testing_support::TempStore> temp_;
  store::Store* store_ = nullptr;  // temp_'s
  http::Router router_;
};

TEST_F(HistoryViewTest, TableHasOneRowPerTimeAndOneColumnPerSeries) {
  const std::string out =
      RenderHistoryTable(History("nictune_softnet_processed_total,nictune_softnet_dropped_total"),
                         kNoWidthLimit);
  EXPECT_THAT(out, HasSubstr("TIME (UTC)"));
  EXPECT_THAT(out, HasSubstr("nictune_softnet_processed_total{cpu=0}"));
  EXPECT_THAT(out, HasSubstr("nictune_softnet_dropped_total{cpu=0}"));
  EXPECT_THAT(out, ContainsRegex("\n2023-11-14 22:14:00 +(0 +3|3 +0)\n"));
  EXPECT_THAT(out, ContainsRegex("\n2023-11-14 22:14:09 +(9 +3|3 +9)\n"));
  EXPECT_THAT(out, HasSubstr("10 rows, resolution 1 s\n"));
  // A counter is stored as its rate, which its name does not say: the table says it.
  EXPECT_THAT(out, HasSubstr("a _total series holds its per-second rate over each window"));
}

TEST_F(HistoryViewTest, SeveralSeriesFitANarrowTerminal) {
  const std::string out =
      RenderHistoryTable(History("nictune_softnet_processed_total,nictune_softnet_dropped_total"),
                         40);
  EXPECT_LE(WidestLine(out), 40u) << out;
  EXPECT_THAT(out, HasSubstr("TIME (UTC)"));
}

TEST_F(HistoryViewTest, SparklineWithMinMaxLast) {
  const std::string out = RenderHistorySparklines(History("nictune_softnet_processed_total"), kNoWidthLimit);
  EXPECT_THAT(out, ContainsRegex("nictune_softnet_processed_total\\{cpu=0\\} +▁▂▃▃▄▅▆▆▇█ +0 +9 +9 "
                                 "+10\n"));
  EXPECT_THAT(out, HasSubstr("per-second rate"));
}

// At 80 columns an hour of points draws narrower, one line a series, rather than wrapping the
// sparkline over several lines; the numbers beside it stay whole.
TEST(CliViewsTest, SparklineNarrowsToFitTheWidth) {
  Json points = Json::array();
  for (int i = 0; i < 360; ++i) points.push_back({1'700'000'000 + 10 * i, i % 60});
  const Json history = {{"series", Json::array({{{"name", "nictune_softnet_processed_total"},
                                                 {"labels", {{"cpu", "1"}}},
                                                 {"points", points}}})}};
  // The row's words: series, sparkline, min, max, last, points.
  const auto row_words = [&history](size_t width) {
    const std::string out = RenderHistorySparklines(history, width);
    EXPECT_LE(WidestLine(out), width) << out;
    for (absl::string_view line : absl::StrSplit(out, '\n')) {
      if (absl::StartsWith(line, "nictune_softnet_processed_total{cpu=1}")) {
        return std::vector<std::string>(absl::StrSplit(line, ' ', absl::SkipEmpty()));
      }
    }
    ADD_FAILURE() << "no row for the series in\n" << out;
    return std::vector<std::string>{};
  };
  const std::vector<std::string> narrow = row_words(80);
  ASSERT_EQ(narrow.size(), 6u);
  EXPECT_GE(DisplayWidth(narrow[1]), 10u);
  EXPECT_LT(DisplayWidth(narrow[1]), 60u);
  EXPECT_EQ(absl::StrJoin(narrow.begin() + 2, narrow.end(), " "), "0 59 59 360");
  const std::vector<std::string> wide = row_words(kNoWidthLimit);
  ASSERT_EQ(wide.size(), 6u);
  EXPECT_EQ(DisplayWidth(wide[1]), 60u);
}

TEST_F(HistoryViewTest, NoPointsIsSaidSo) {
  EXPECT_EQ(RenderHistoryTable(Json{{"series", Json::array()}}, kNoWidthLimit),
            "no stored samples for these series in this range\n");
}

TEST_F(HistoryViewTest, TheListIsTheStoredNamesOneALine) {
  const http::Response response =
      router_.Dispatch({.method = "GET", .path = "/api/v1/history/series"});
  ASSERT_EQ(response.status, 200) << response.body;
  EXPECT_EQ(RenderSeriesNames(Json::parse(response.body)),
            "nictune_softnet_dropped_total\nnictune_softnet_processed_total\n");
  EXPECT_EQ(RenderSeriesNames(Json{{"series", Json::array()}}), "no stored series\n");
}

TEST(CliViewsTest, SparklineScalesAndAverages) {
  EXPECT_EQ(Sparkline({0, 7}, 10), "▁█");
  EXPECT_EQ(Sparkline({5, 5, 5}, 10), "▄▄▄");
  // Four values in two columns: the means 0.5 and 2.5.
  EXPECT_EQ(Sparkline({0, 1, 2, 3}, 2), "▁█");
  EXPECT_EQ(Sparkline({}, 10), "");
}

TEST(CliViewsTest, ResultsPrintScalarsAndTablesOfChanges) {
  const std::string out = RenderResult(Fixture("apply_forbidden_tcp.json"), kNoWidthLimit);
  EXPECT_THAT(out, HasSubstr("error: forbidden\n"));
  const Json answer{
      {"applied", 1},
      {"changes", Json::array({{{"id", 7}, {"knob", "rx_usecs"}, {"from", 0}, {"to", 84}},
                               {{"id", 8}, {"knob", "netdev_budget"}, {"state", "kept"}}})}};
  const std::string table = RenderResult(answer, kNoWidthLimit);
  EXPECT_THAT(table, HasSubstr("applied: 1\nchanges:\n"));
  EXPECT_THAT(table, ContainsRegex("from +id +knob +to +state\n0 +7 +rx_usecs +84\n +8 +"
                                   "netdev_budget +kept\n"));
}

}  // namespace
}  // namespace nictune::cli
