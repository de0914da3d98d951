// SPDX-License-Identifier: Apache-2.0
// The polls the emulated NIC's bursts cause, as measured on kernel 6.18 with napi:napi_poll in
// tracefs: 16 frames -> 16, 0; 64 -> 64, 0, 0; 200 -> 64, 64, 64, 8, 0; 1000 -> 15 x 64, 40, 0.
#include "tests/support/napi_burst_prediction.h"

#include "gtest/gtest.h"

namespace nictune::testing_support {
namespace {

TEST(NapiBurstPredictionTest, FullPollsThenTheCompletingPollThenOneEmpty) {
  EXPECT_EQ(PredictBurstPolls(16, 64).polls, 2);
  EXPECT_EQ(PredictBurstPolls(16, 64).budget_exhausted, 0);
  EXPECT_EQ(PredictBurstPolls(64, 64).polls, 3);
  EXPECT_EQ(PredictBurstPolls(64, 64).budget_exhausted, 1);
  EXPECT_EQ(PredictBurstPolls(200, 64).polls, 5);
  EXPECT_EQ(PredictBurstPolls(200, 64).budget_exhausted, 3);
  EXPECT_EQ(PredictBurstPolls(1000, 64).polls, 17);
  EXPECT_EQ(PredictBurstPolls(1000, 64).budget_exhausted, 15);
}

TEST(NapiBurstPredictionTest, OneFrameIsOnePollAndNoFrameNone) {
  EXPECT_EQ(PredictBurstPolls(1, 64).polls, 1);
  EXPECT_EQ(PredictBurstPolls(0, 64).polls, 0);
}

}  // namespace
}  // namespace nictune::testing_support
