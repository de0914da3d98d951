// SPDX-License-Identifier: Apache-2.0
// The exposition reader the node_exporter agreement test compares two exporters with: labels
// with escapes, exponents as Go prints them, optional timestamps, malformed lines refused.
#include "tests/support/exposition_samples.h"

#include <cmath>

#include "gtest/gtest.h"

namespace nictune::testing_support {
namespace {

TEST(ExposedSamples, ReadsNamesLabelsAndValuesAsBothExportersPrintThem) {
  const absl::StatusOr<std::vector<ExposedSample>> samples = ParseExposedSamples(
      "# HELP node_softnet_processed_total Number of processed packets\n"
      "# TYPE node_softnet_processed_total counter\n"
      "node_softnet_processed_total{cpu=\"1\"} 8.5536247e+07\n"
      "node_interrupts_total{cpu=\"0\",devices=\"eth0, "
      "\\\"x\\\"\\\\n\",info=\"a\\nb\",type=\"41\"} 2093\n"
      "nictune_samples_total 12 1700000000000\n"
      "up{} +Inf\n",
      "test");
  ASSERT_TRUE(samples.ok()) << samples.status();
  ASSERT_EQ(samples->size(), 4u);
  EXPECT_EQ((*samples)[0].name, "node_softnet_processed_total");
  EXPECT_EQ((*samples)[0].labels.at("cpu"), "1");
  EXPECT_EQ((*samples)[0].value, 85536247.0);
  EXPECT_EQ((*samples)[1].labels.at("devices"), "eth0, \"x\"\\n");
  EXPECT_EQ((*samples)[1].labels.at("info"), "a\nb");
  EXPECT_EQ((*samples)[1].labels.at("type"), "41");
  EXPECT_EQ((*samples)[1].value, 2093.0);
  EXPECT_TRUE((*samples)[2].labels.empty());
  EXPECT_EQ((*samples)[2].value, 12.0);
  EXPECT_TRUE(std::isinf((*samples)[3].value));
}

TEST(ExposedSamples, RefusesALineItCannotReadNamingIt) {
  for (const char* line : {"node_x{cpu=\"1\" 3\n", "node_x{cpu=1} 3\n", "node_x three\n",
                           "{cpu=\"1\"} 3\n", "node_x 1 2 3\n"}) {
    const absl::StatusOr<std::vector<ExposedSample>> samples =
        ParseExposedSamples(std::string("ok 1\n") + line, "node_exporter /metrics");
    ASSERT_FALSE(samples.ok()) << line;
    EXPECT_NE(samples.status().message().find("node_exporter /metrics line 2"), std::string::npos)
        << samples.status();
  }
}

}  // namespace
}  // namespace nictune::testing_support
