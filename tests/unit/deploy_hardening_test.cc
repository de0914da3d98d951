// SPDX-License-Identifier: Apache-2.0
// The programs the package ships are built hardened (cmake/NictuneHardening.cmake), as read from
// their ELF headers by readelf: position-independent, a read-only GOT bound at start, the stack
// protector and fortified libc calls linked in.
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/build_paths.h"
#include "tests/support/subprocess.h"

namespace nictune {
namespace {

struct ElfFacts {
  std::string header;    // readelf -h
  std::string segments;  // readelf -l
  std::string dynamic;   // readelf -d
  std::string symbols;   // readelf --dyn-syms
};

ElfFacts ReadElf(const std::string& path) {
  ElfFacts facts;
  for (auto [option, text] : std::vector<std::pair<std::string, std::string*>>{
           {"-h", &facts.header},
           {"-l", &facts.segments},
           {"-d", &facts.dynamic},
           {"--dyn-syms", &facts.symbols}}) {
    absl::StatusOr<testing_support::ProgramOutput> run =
        testing_support::RunProgram({"readelf", "-W", option, path});
    EXPECT_TRUE(run.ok()) << run.status();
    if (!run.ok()) continue;
    EXPECT_EQ(run->exit_code, 0) << "readelf " << option << " " << path << ": " << run->err;
    *text = run->out;
  }
  return facts;
}

class HardeningTest : public ::testing::TestWithParam<std::string> {};

TEST_P(HardeningTest, TheShippedProgramIsBuiltHardened) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "a sanitizer build is built without hardening (cmake/NictuneHardening.cmake)";
#endif
  const std::string path = absl::StrCat(testing_support::BinaryDir(), "/agent/", GetParam());
  const ElfFacts elf = ReadElf(path);
  // A PIE is a shared object by type (DYN), with the PIE flag among its dynamic flags.
  EXPECT_THAT(elf.header, ::testing::HasSubstr("DYN (Position-Independent Executable file)"));
  EXPECT_THAT(elf.segments, ::testing::HasSubstr("GNU_RELRO"));
  EXPECT_THAT(elf.dynamic, ::testing::ContainsRegex("FLAGS.*BIND_NOW|FLAGS_1.*NOW"));
  EXPECT_THAT(elf.symbols, ::testing::HasSubstr("__stack_chk_fail"));
  // At least one libc call the compiler could bound is the fortified (_chk) one; the stack
  // protector's __stack_chk_fail is not one.
  EXPECT_THAT(elf.symbols,
              ::testing::ContainsRegex("__(mem|str|stp|wc|v?f?s?n?printf|read|fgets)[a-z]*_chk"));
}

INSTANTIATE_TEST_SUITE_P(Programs, HardeningTest, ::testing::Values("nictuned", "nictune"));

}  // namespace
}  // namespace nictune
