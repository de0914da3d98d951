// SPDX-License-Identifier: Apache-2.0
#include "tests/support/build_paths.h"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <string_view>

namespace nictune::testing_support {
namespace {

constexpr std::string_view kCache = "CMakeCache.txt";
constexpr std::string_view kSourceEntry = "CMAKE_HOME_DIRECTORY:INTERNAL=";

std::string FindBinaryDir() {
  std::error_code error;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
  if (error) {
    std::cerr << "build paths: readlink /proc/self/exe: " << error.message() << "\n";
    return "";
  }
  for (std::filesystem::path dir = self.parent_path(); !dir.empty(); dir = dir.parent_path()) {
    if (std::filesystem::exists(dir / kCache)) return dir.native();
    if (dir == dir.root_path()) break;
  }
  std::cerr << "build paths: no " << kCache << " in any folder above " << self << "\n";
  return "";
}

std::string FindSourceDir() {
  const std::string cache = BinaryDir() + "/" + std::string(kCache);
  std::ifstream in(cache);
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with(kSourceEntry)) return line.substr(kSourceEntry.size());
  }
  std::cerr << "build paths: no " << kSourceEntry << " line in " << cache << "\n";
  return "";
}

}  // namespace

const std::string& BinaryDir() {
  static const std::string dir = FindBinaryDir();
  return dir;
}

const std::string& SourceDir() {
  static const std::string dir = FindSourceDir();
  return dir;
}

const std::string& FixturesDir() {
  static const std::string dir = SourceDir() + "/tests/unit/fixtures";
  return dir;
}

}  // namespace nictune::testing_support
