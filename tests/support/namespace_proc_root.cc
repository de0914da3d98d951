// SPDX-License-Identifier: Apache-2.0
#include "tests/support/namespace_proc_root.h"

#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

#include "absl/strings/str_cat.h"

namespace nictune::testing_support {
namespace {

namespace fs = std::filesystem;

// The sysctl directories whose files are copied rather than linked.
constexpr const char* kCopied[] = {"sys/net/core", "sys/net/ipv4"};

absl::Status FsError(const std::string& what, const fs::path& path, const std::error_code& error) {
  return absl::InternalError(absl::StrCat(what, " ", path.string(), ": ", error.message(),
                                          " (errno ", error.value(), ")"));
}

bool IsPid(const std::string& name) {
  for (const char c : name) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  }
  return !name.empty();
}

// Links every entry of /proc/<relative> into root/<relative>, except `except` (made a directory).
absl::Status LinkEntries(const fs::path& root, const std::string& relative,
                         const std::string& except) {
  std::error_code error;
  const fs::path source = fs::path("/proc") / relative;
  fs::create_directories(root / relative, error);
  if (error) return FsError("mkdir", root / relative, error);
  for (const fs::directory_entry& entry : fs::directory_iterator(source, error)) {
    const std::string name = entry.path().filename().string();
    // Process directories are the agent's own business through /proc/self, linked as a whole.
    if (name == except || (relative.empty() && IsPid(name))) continue;
    fs::create_symlink(entry.path(), root / relative / name, error);
    if (error) return FsError("symlink", root / relative / name, error);
  }
  if (error) return FsError("list", source, error);
  return absl::OkStatus();
}

absl::Status CopySysctls(const fs::path& root, const std::string& relative) {
  std::error_code error;
  fs::create_directories(root / relative, error);
  if (error) return FsError("mkdir", root / relative, error);
  for (const fs::directory_entry& entry :
       fs::directory_iterator(fs::path("/proc") / relative, error)) {
    if (!entry.is_regular_file()) continue;
    std::ifstream in(entry.path());
    std::stringstream text;
    text << in.rdbuf();
    if (!in) continue;  // write-only or refused sysctls: the agent reads none of them
    std::ofstream(root / relative / entry.path().filename(), std::ios::trunc) << text.str();
  }
  if (error) return FsError("list", fs::path("/proc") / relative, error);
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<NamespaceProcRoot> NamespaceProcRoot::Create() {
  absl::StatusOr<TempDir> dir = TempDir::Create("nictune_proc_root_");
  if (!dir.ok()) return dir.status();
  const fs::path root = dir->path();
  for (const auto& [relative, except] :
       {std::pair<std::string, std::string>{"", "sys"}, {"sys", "net"}, {"sys/net", "core"}}) {
    if (absl::Status linked = LinkEntries(root, relative, except); !linked.ok()) return linked;
  }
  // ipv4 was linked with the rest of sys/net: replace the link by the copies.
  std::error_code error;
  fs::remove(root / "sys/net/ipv4", error);
  for (const char* relative : kCopied) {
    if (absl::Status copied = CopySysctls(root, relative); !copied.ok()) return copied;
  }
  return NamespaceProcRoot(*std::move(dir));
}

absl::StatusOr<std::map<std::string, std::string>> NamespaceProcRoot::SysctlFiles() const {
  std::map<std::string, std::string> files;
  for (const char* relative : kCopied) {
    std::error_code error;
    for (const fs::directory_entry& entry :
         fs::directory_iterator(fs::path(path()) / relative, error)) {
      std::ifstream in(entry.path());
      std::stringstream text;
      text << in.rdbuf();
      files[absl::StrCat(relative, "/", entry.path().filename().string())] = text.str();
    }
    if (error) return FsError("list", fs::path(path()) / relative, error);
  }
  return files;
}

}  // namespace nictune::testing_support
