// SPDX-License-Identifier: Apache-2.0
// The store's options from the agent's flags: the raw tier follows --interval, --downsample adds
// the coarser ones, and what cannot work is refused naming the flag.
#include "agent/service/store_settings.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace nictune::service {
namespace {

using ::testing::HasSubstr;

TEST(StoreSettingsTest, DefaultsGiveTheDocumentedTiers) {
  auto options = StoreOptionsFrom({});
  ASSERT_TRUE(options.ok()) << options.status();
  ASSERT_EQ(options->resolutions.size(), 3u);
  EXPECT_EQ(options->resolutions[0].step, absl::Seconds(1));
  EXPECT_EQ(options->resolutions[0].retention, absl::Hours(1));
  EXPECT_EQ(options->resolutions[1].step, absl::Seconds(10));
  EXPECT_EQ(options->resolutions[1].retention, absl::Hours(24));
  EXPECT_EQ(options->resolutions[2].step, absl::Minutes(1));
  EXPECT_EQ(options->resolutions[2].retention, absl::Hours(720));
  EXPECT_EQ(options->disk_cap_bytes, int64_t{256} << 20);
  EXPECT_EQ(options->record_retention, absl::Hours(720));
}

TEST(StoreSettingsTest, TheRawTierFollowsTheInterval) {
  auto options = StoreOptionsFrom({.interval = absl::Milliseconds(200),
                                   .raw_retention = absl::Minutes(30),
                                   .downsample = "1s:6h",
                                   .cap_mb = 16});
  ASSERT_TRUE(options.ok()) << options.status();
  ASSERT_EQ(options->resolutions.size(), 2u);
  EXPECT_EQ(options->resolutions[0].step, absl::Milliseconds(200));
  EXPECT_EQ(options->resolutions[0].retention, absl::Minutes(30));
  EXPECT_EQ(options->resolutions[1].step, absl::Seconds(1));
  EXPECT_EQ(options->disk_cap_bytes, int64_t{16} << 20);
}

TEST(StoreSettingsTest, RefusesWhatCannotWork) {
  auto malformed = StoreOptionsFrom({.downsample = "10s-24h"});
  ASSERT_FALSE(malformed.ok());
  EXPECT_THAT(std::string(malformed.status().message()),
              HasSubstr("--downsample=10s-24h: \"10s-24h\" is not STEP:RETENTION"));
  // 10 s is not a whole multiple of a 300 ms interval.
  auto misaligned = StoreOptionsFrom({.interval = absl::Milliseconds(300)});
  ASSERT_FALSE(misaligned.ok());
  EXPECT_THAT(std::string(misaligned.status().message()), HasSubstr("not a multiple"));
  auto no_cap = StoreOptionsFrom({.cap_mb = 0});
  ASSERT_FALSE(no_cap.ok());
  EXPECT_THAT(std::string(no_cap.status().message()), HasSubstr("--store_cap_mb=0"));
}

}  // namespace
}  // namespace nictune::service
