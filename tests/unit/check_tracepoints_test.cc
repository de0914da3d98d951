// SPDX-License-Identifier: Apache-2.0
// `nictuned --check`'s look for the probes' tracepoints: under a tracefs tree, else in the kernel's
// BTF, on recorded files; and the list it looks for is the one the probes' sources attach to.
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "agent/check/tracepoints.h"
#include "driver/probe_tracepoints.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/build_paths.h"
#include "tests/support/temp_dir.h"

namespace nictune::check {
namespace {

// (concern, event) of every NICTUNE_TRACEPOINT line in driver/bpf/CONCERN.bpf.c, but the
// benchmark's dispatch floor, which nictuned never loads.
std::set<std::pair<std::string, std::string>> TracepointsInTheProbeSources() {
  std::set<std::pair<std::string, std::string>> found;
  const std::regex line(R"(NICTUNE_TRACEPOINT\(([a-z_]+),)");
  for (const auto& entry :
       std::filesystem::directory_iterator(testing_support::SourceDir() + "/driver/bpf")) {
    const std::string name = entry.path().filename();
    if (!name.ends_with(".bpf.c") || name == "dispatch_floor.bpf.c") continue;
    std::ifstream in(entry.path());
    std::stringstream text;
    text << in.rdbuf();
    const std::string source = text.str();
    for (std::sregex_iterator it(source.begin(), source.end(), line), end; it != end; ++it) {
      found.emplace(name.substr(0, name.size() - 6), (*it)[1]);
    }
  }
  return found;
}

TEST(CheckTracepointsTest, TheListIsWhatTheProbeSourcesAttachTo) {
  std::set<std::pair<std::string, std::string>> listed;
  for (const driver::ProbeTracepoint& t : driver::kProbeTracepoints) {
    listed.emplace(std::string(t.concern), std::string(t.event));
  }
  EXPECT_EQ(listed, TracepointsInTheProbeSources());
}

TEST(CheckTracepointsTest, FoundUnderTracefsOrElseInTheKernelsBtf) {
  absl::StatusOr<testing_support::TempDir> dir = testing_support::TempDir::Create("tracepoints-");
  ASSERT_TRUE(dir.ok()) << dir.status();
  const std::string tracefs = dir->path() + "/tracing";
  for (const driver::ProbeTracepoint& t : driver::kProbeTracepoints) {
    if (t.event == "napi_poll") continue;  // a kernel without it
    std::filesystem::create_directories(absl::StrCat(tracefs, "/events/", t.group, "/", t.event));
  }
  absl::StatusOr<std::vector<TracepointPresence>> under_tracefs =
      CheckTracepoints(tracefs, "/nonexistent");
  ASSERT_TRUE(under_tracefs.ok()) << under_tracefs.status();
  ASSERT_EQ(under_tracefs->size(), std::size(driver::kProbeTracepoints));
  for (const TracepointPresence& t : *under_tracefs) {
    EXPECT_EQ(t.present, t.name != "napi:napi_poll") << t.name;
  }

  // Without tracefs: the BTF's string section, each name NUL-terminated; a longer name that
  // begins with one is not it.
  const std::string btf = dir->path() + "/vmlinux";
  std::ofstream(btf, std::ios::binary)
      << std::string("\0btf_trace_napi_poll_x\0btf_trace_kfree_skb\0", 43);
  absl::StatusOr<std::vector<TracepointPresence>> in_btf =
      CheckTracepoints(absl::NotFoundError("not mounted"), btf);
  ASSERT_TRUE(in_btf.ok()) << in_btf.status();
  for (const TracepointPresence& t : *in_btf) {
    EXPECT_EQ(t.present, t.name == "skb:kfree_skb") << t.name;
  }
  EXPECT_FALSE(CheckTracepoints(absl::NotFoundError("not mounted"), "/nonexistent").ok());
}

}  // namespace
}  // namespace nictune::check
