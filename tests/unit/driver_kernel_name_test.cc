// SPDX-License-Identifier: Apache-2.0
// Kernel names as text: valid UTF-8 whatever the bytes, the same text for the names every
// distribution makes, and a different text for every different name (the bytes come back).
#include <random>
#include <string>

#include "driver/kernel_name.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace nictune::driver {
namespace {

TEST(KernelNameTest, OrdinaryNamesAreTheirOwnText) {
  for (const char* name : {"eth0", "enp59s0f1np1", "veth7a3f@if12", "br-lan.100", "wg0", "é-net"}) {
    EXPECT_EQ(KernelNameText(name), name);
    EXPECT_EQ(KernelNameBytes(name), name);
  }
}

TEST(KernelNameTest, BadBytesBackslashesAndControlsAreEscaped) {
  EXPECT_EQ(KernelNameText(std::string("bad\xff"
                                       "0")),
            "bad\\xff0");
  EXPECT_EQ(KernelNameText("a\\b"), "a\\\\b");
  EXPECT_EQ(KernelNameText(std::string("tab\x01")), "tab\\x01");
  EXPECT_EQ(KernelNameText(std::string("del\x7f")), "del\\x7f");
  // A UTF-8 sequence cut short by IFNAMSIZ: its bytes one by one.
  EXPECT_EQ(KernelNameText(std::string("cut\xc3")), "cut\\xc3");
  // An overlong form and a surrogate are not UTF-8 either.
  EXPECT_EQ(KernelNameText(std::string("\xc0\xaf")), "\\xc0\\xaf");
  EXPECT_EQ(KernelNameText(std::string("\xed\xa0\x80")), "\\xed\\xa0\\x80");
}

TEST(KernelNameTest, TheNameThatLooksLikeAnEscapeStaysApartFromTheByte) {
  // "bad\xff0" the bytes and "bad\\xff0" typed with a real backslash are two devices.
  const std::string byte_name = std::string(
      "bad\xff"
      "0");
  const std::string typed_name = "bad\\xff0";
  EXPECT_NE(KernelNameText(byte_name), KernelNameText(typed_name));
  EXPECT_EQ(KernelNameBytes(KernelNameText(byte_name)), byte_name);
  EXPECT_EQ(KernelNameBytes(KernelNameText(typed_name)), typed_name);
}

TEST(KernelNameTest, EveryByteStringRoundTripsAsValidUtf8) {
  std::mt19937 random(20261201);
  std::uniform_int_distribution<int> length(0, 15);
  std::uniform_int_distribution<int> byte(1, 255);
  for (int i = 0; i < 20000; ++i) {
    std::string bytes;
    for (int n = length(random); n > 0; --n) bytes.push_back(static_cast<char>(byte(random)));
    const std::string text = KernelNameText(bytes);
    ASSERT_TRUE(IsValidUtf8(text)) << text;
    ASSERT_EQ(KernelNameBytes(text), bytes);
    // What crashed the daemon: nlohmann refuses to dump a string that is not UTF-8.
    ASSERT_NO_THROW(nlohmann::json(text).dump());
  }
}

TEST(KernelNameTest, ReplaceInvalidUtf8KeepsValidTextAsItIs) {
  EXPECT_EQ(ReplaceInvalidUtf8("plain é"), "plain é");
  EXPECT_EQ(ReplaceInvalidUtf8(std::string("a\xff"
                                           "b")),
            "a\xEF\xBF\xBD"
            "b");
  EXPECT_TRUE(IsValidUtf8(ReplaceInvalidUtf8(std::string("\xc3\x28\xa0\xa1"))));
}

}  // namespace
}  // namespace nictune::driver
