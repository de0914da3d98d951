// SPDX-License-Identifier: Apache-2.0
#include "agent/procfs/napi_threads.h"

#include <algorithm>
#include <optional>

#include "absl/strings/str_cat.h"
#include "agent/procfs/read_file.h"
#include "agent/procfs/text_scan.h"

namespace nictune::procfs {
namespace {

constexpr uint32_t kKthreadd = 2;
// kthreadd's children: a few hundred on most hosts, a few per CPU and device queue on large ones.
constexpr size_t kChildrenMaxBytes = 1 << 20;

}  // namespace

bool IsNapiThreadName(std::string_view comm) { return comm.starts_with("napi/"); }

absl::StatusOr<std::vector<uint32_t>> ParseChildPids(std::string_view text, std::string_view path) {
  std::vector<uint32_t> pids;
  LineReader lines(text);
  std::string_view line;
  while (lines.Next(line)) {
    std::string_view rest = line;
    for (std::string_view token = NextToken(rest); !token.empty(); token = NextToken(rest)) {
      const std::optional<uint32_t> pid = ParseUint32(token);
      if (!pid.has_value() || *pid == 0) {
        return ParseError(path, lines.line_number(),
                          absl::StrCat("\"", ToAbsl(token), "\" is not a pid"));
      }
      pids.push_back(*pid);
    }
  }
  return pids;
}

absl::StatusOr<std::vector<uint32_t>> ReadNapiThreadPids(const std::string& proc_root) {
  const std::string path =
      absl::StrCat(proc_root, "/", kKthreadd, "/task/", kKthreadd, "/children");
  absl::StatusOr<std::string> text = ReadFile(path, kChildrenMaxBytes);
  if (!text.ok()) return text.status();
  absl::StatusOr<std::vector<uint32_t>> children = ParseChildPids(*text, path);
  if (!children.ok()) return children.status();
  std::vector<uint32_t> pollers;
  for (const uint32_t pid : *children) {
    absl::StatusOr<std::string> comm = ReadFile(absl::StrCat(proc_root, "/", pid, "/comm"), 64);
    if (comm.ok() && IsNapiThreadName(*comm)) pollers.push_back(pid);
  }
  std::sort(pollers.begin(), pollers.end());
  return pollers;
}

}  // namespace nictune::procfs
