// SPDX-License-Identifier: Apache-2.0
// nictuned's BPF programs, links and maps belong to its file descriptors only (no pinning), so a
// SIGKILL must leave none of them in the kernel; restarted 50 times (NICTUNE_RESTARTS), each run
// loads the same set and the kernel's BPF memory for it does not grow. The kernel's own view is
// read with bpftool and the agent's /proc fdinfo, not through our loader. Objects are nictuned's
// by the kernel's attribution (its descriptors, and what its programs use), so BPF objects that
// other processes load or drop meanwhile change nothing.
#include <signal.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "agent/procfs/read_file.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/support/build_paths.h"
#include "tests/support/loopback_port.h"
#include "tests/support/privileges.h"
#include "tests/support/serving_nictuned.h"
#include "tests/support/subprocess.h"
#include "tests/support/temp_dir.h"

namespace nictune {
namespace {

const std::string kNictuned = absl::StrCat(testing_support::BinaryDir(), "/agent/nictuned");

// The kernel's BPF objects of one kind (bpftool's "prog", "map" or "link"): id -> the memory
// charged for it (0 for links).
struct BpfObjects {
  std::map<int64_t, int64_t> memlock_by_id;
  std::map<int64_t, std::string> name_by_id;  // programs: their name
  std::map<int64_t, int64_t> program_by_id;   // links: their program's id
  std::map<int64_t, std::vector<int64_t>> maps_by_id;  // programs: the maps they use

  bool Has(int64_t id) const { return memlock_by_id.count(id) > 0; }
  size_t size() const { return memlock_by_id.size(); }
  int64_t MemlockBytes() const {
    int64_t bytes = 0;
    for (const auto& [id, memlock] : memlock_by_id) bytes += memlock;
    return bytes;
  }
};

absl::StatusOr<BpfObjects> ListBpf(const std::string& kind) {
  absl::StatusOr<testing_support::ProgramOutput> listed =
      testing_support::RunProgram({"bpftool", "-j", kind, "show"});
  if (!listed.ok()) return listed.status();
  if (listed->exit_code != 0) {
    return absl::InternalError(
        absl::StrCat("bpftool -j ", kind, " show: exit ", listed->exit_code, ": ", listed->err));
  }
  const nlohmann::json parsed = nlohmann::json::parse(listed->out, nullptr, false);
  if (!parsed.is_array()) {
    return absl::InternalError(absl::StrCat("bpftool -j ", kind, " show: not a JSON array"));
  }
  BpfObjects objects;
  for (const nlohmann::json& object : parsed) {
    const int64_t id = object.value("id", int64_t{-1});
    objects.memlock_by_id[id] = object.value("bytes_memlock", int64_t{0});
    objects.name_by_id[id] = object.value("name", "");
    objects.program_by_id[id] = object.value("prog_id", int64_t{-1});
    if (object.contains("map_ids") && object["map_ids"].is_array()) {
      objects.maps_by_id[id] = object["map_ids"].get<std::vector<int64_t>>();
    }
  }
  return objects;
}

// Links whose program is not the softirq probe's entry or exit: the probe budget slots the
// costliest hooks (driver/bpf/probe_budget_plan.h), and the softirq pair, which runs for every
// softirq, is the first to go to slots when the host's softirqs are frequent, so whether its
// links exist depends on the moment. On the quiet host these tests run on (one at a time) no
// other hook costs enough to be slotted.
size_t LinksKeptAttached(const BpfObjects& links, const BpfObjects& programs) {
  size_t kept = 0;
  for (const auto& [id, program] : links.program_by_id) {
    const auto name = programs.name_by_id.find(program);
    // The kernel keeps 15 characters of a name (bpftool prints BTF's whole name where it can).
    const bool duty_cycled =
        name != programs.name_by_id.end() && (name->second.starts_with("on_softirq_entr") ||
                                              name->second.starts_with("on_softirq_exit"));
    if (!duty_cycled) ++kept;
  }
  return kept;
}

// The ids of the BPF objects a process holds a descriptor of, from its fdinfo.
struct HeldIds {
  std::set<int64_t> programs, maps, links;
};

absl::StatusOr<HeldIds> HeldBy(pid_t pid) {
  HeldIds held;
  const std::string fds = absl::StrCat("/proc/", pid, "/fd");
  std::error_code error;
  for (const auto& fd : std::filesystem::directory_iterator(fds, error)) {
    // A descriptor closed since the listing has no link left to read: not one of the objects.
    std::error_code gone;
    const std::string target = std::filesystem::read_symlink(fd.path(), gone).native();
    if (gone || !target.starts_with("anon_inode:bpf")) continue;
    absl::StatusOr<std::string> info =
        procfs::ReadFile(absl::StrCat("/proc/", pid, "/fdinfo/", fd.path().filename().native()));
    if (!info.ok()) continue;  // closed since the listing
    for (absl::string_view line : absl::StrSplit(*info, '\n')) {
      const std::vector<absl::string_view> field = absl::StrSplit(line, absl::MaxSplits(':', 1));
      int64_t id = 0;
      if (field.size() != 2 || !absl::SimpleAtoi(field[1], &id)) continue;
      // A link's fdinfo names its program too: that id is the program's, not the link's.
      if (field[0] == "prog_id" && target == "anon_inode:bpf-prog") held.programs.insert(id);
      if (field[0] == "map_id") held.maps.insert(id);
      if (field[0] == "link_id") held.links.insert(id);
    }
  }
  if (error) return absl::InternalError(absl::StrCat("list ", fds, ": ", error.message()));
  return held;
}

// The objects of `all` whose id is in `ids`, or (links) whose program's id is in `programs`.
BpfObjects Owned(const BpfObjects& all, const std::set<int64_t>& ids,
                 const std::set<int64_t>& programs = {}) {
  BpfObjects owned;
  for (const auto& [id, memlock] : all.memlock_by_id) {
    if (!ids.contains(id) && !programs.contains(all.program_by_id.at(id))) continue;
    owned.memlock_by_id[id] = memlock;
    owned.name_by_id[id] = all.name_by_id.at(id);
    owned.program_by_id[id] = all.program_by_id.at(id);
    if (all.maps_by_id.contains(id)) owned.maps_by_id[id] = all.maps_by_id.at(id);
  }
  return owned;
}

int RestartCount() {
  int restarts = 50;
  if (const char* env = std::getenv("NICTUNE_RESTARTS"); env != nullptr) {
    if (!absl::SimpleAtoi(env, &restarts) || restarts < 1) restarts = 50;
  }
  return restarts;
}

struct Snapshot {
  BpfObjects programs, maps, links;
};

absl::StatusOr<Snapshot> Take() {
  Snapshot s;
  for (auto [kind, out] : {std::pair<const char*, BpfObjects*>{"prog", &s.programs},
                           {"map", &s.maps},
                           {"link", &s.links}}) {
    absl::StatusOr<BpfObjects> listed = ListBpf(kind);
    if (!listed.ok()) return listed.status();
    *out = *std::move(listed);
  }
  return s;
}

TEST(SigkillCleanupTest, SigkillLeavesNoProgramLinkOrMapAndRestartsDoNotAccumulate) {
  if (auto why = testing_support::WhyNotPrivileged(); !why.empty()) GTEST_SKIP() << why;
  const int restarts = RestartCount();

  size_t first_programs = 0, first_maps = 0, first_links = 0;
  int64_t first_memlock = -1;
  const absl::Time started = absl::Now();
  for (int run = 0; run < restarts; ++run) {
    auto dir = testing_support::TempDir::Create("nictune_sigkill_cleanup_");
    ASSERT_TRUE(dir.ok()) << dir.status();
    auto port = testing_support::FreeLoopbackPort();
    ASSERT_TRUE(port.ok()) << port.status();
    auto agent = testing_support::StartServingNictuned(
        {kNictuned, absl::StrCat("--listen=127.0.0.1:", *port), "--state_dir=" + dir->path(),
         "--interval=200ms", "--window=400ms", "--socket="},
        *port, absl::Seconds(30));
    ASSERT_TRUE(agent.ok()) << "run " << run << ": " << agent.status();

    absl::StatusOr<HeldIds> held = HeldBy(agent->pid());
    ASSERT_TRUE(held.ok()) << held.status();
    absl::StatusOr<Snapshot> running = Take();
    ASSERT_TRUE(running.ok()) << running.status();
    // nictuned's: what it holds a descriptor of, the maps its programs use, the links to them.
    const BpfObjects programs = Owned(running->programs, held->programs);
    std::set<int64_t> our_maps = held->maps;
    for (const auto& [program, ids] : programs.maps_by_id) our_maps.insert(ids.begin(), ids.end());
    const BpfObjects maps = Owned(running->maps, our_maps);
    const BpfObjects links = Owned(running->links, held->links, held->programs);
    const int64_t memlock = programs.MemlockBytes() + maps.MemlockBytes();
    ASSERT_GT(programs.size(), 0u) << "run " << run << ": nictuned loaded no BPF program";
    if (run == 0) {
      first_programs = programs.size();
      first_maps = maps.size();
      first_links = LinksKeptAttached(links, programs);
      first_memlock = memlock;
      std::cout << "nictuned loads " << first_programs << " programs, " << links.size()
                << " links (" << first_links << " outside the softirq pair), " << first_maps
                << " maps, " << first_memlock << " bytes of BPF memory\n";
    }
    // The same set every run: nothing of an earlier run is still there to be added to.
    EXPECT_EQ(programs.size(), first_programs) << "run " << run;
    EXPECT_EQ(maps.size(), first_maps) << "run " << run;
    EXPECT_EQ(LinksKeptAttached(links, programs), first_links) << "run " << run;
    EXPECT_EQ(memlock, first_memlock) << "run " << run;

    ASSERT_TRUE(agent->Signal(SIGKILL).ok());
    auto killed = agent->Wait(absl::Seconds(10));
    ASSERT_TRUE(killed.ok()) << killed.status();
    ASSERT_EQ(killed->exit_code, 128 + SIGKILL);

    // The kernel frees a map after an RCU grace period and a workqueue pass: wait for it, briefly.
    std::set<int64_t> left;
    const absl::Time deadline = absl::Now() + absl::Seconds(5);
    do {
      absl::StatusOr<Snapshot> after = Take();
      ASSERT_TRUE(after.ok()) << after.status();
      left.clear();
      for (const auto& [ours, now] : {std::pair{&programs, &after->programs},
                                      {&maps, &after->maps},
                                      {&links, &after->links}}) {
        for (const auto& [id, charged] : ours->memlock_by_id) {
          if (now->Has(id)) left.insert(id);
        }
      }
      if (!left.empty()) absl::SleepFor(absl::Milliseconds(50));
    } while (!left.empty() && absl::Now() < deadline);
    ASSERT_TRUE(left.empty()) << "run " << run << ": " << left.size()
                              << " of nictuned's BPF objects outlived its SIGKILL by 5 s";
  }
  std::cout << restarts << " starts and SIGKILLs in " << absl::Now() - started
            << ": nothing left behind after any of them\n";
}

}  // namespace
}  // namespace nictune
