// SPDX-License-Identifier: Apache-2.0
// The what-if over random questions (seeded, so that a failure reproduces): every recommended
// interval, with the buffer recommended beside it, runs drop-free in the what-if's own simulation
// at the margin asked (0 included) unless the tuner says why no setting can; every recommended
// buffer is at least the question's and never 0; and the advice is the tuner's own for the
// Observation the agent would make of that socket.
#include <cmath>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "absl/random/random.h"
#include "absl/strings/str_format.h"
#include "gtest/gtest.h"
#include "tuner/recommend.h"
#include "tuner/whatif.h"

namespace nictune::tuner {
namespace {

double LogUniform(std::mt19937_64& gen, double lo, double hi) {
  return std::exp(absl::Uniform(gen, std::log(lo), std::log(hi)));
}

WhatIfQuestion RandomQuestion(std::mt19937_64& gen) {
  WhatIfQuestion q;
  q.rate_pps = std::round(LogUniform(gen, 100, kMaxWhatIfRatePps));
  q.truesize_bytes = static_cast<int64_t>(LogUniform(gen, 256, 65536));
  q.rcvbuf_bytes = static_cast<int64_t>(LogUniform(gen, 1, 64 << 20));
  if (absl::Uniform(gen, 0, 2) == 0) {
    q.drain_gap_us = static_cast<int64_t>(LogUniform(gen, 1, kMaxWhatIfDrainGapUs));
  }
  switch (absl::Uniform(gen, 0, 3)) {
    case 0:
      q.margin = 0;
      break;
    case 1:
      q.margin = kDefaultMargin;
      break;
    default:
      q.margin = absl::Uniform(gen, 0.0, 0.3);
  }
  if (absl::Uniform(gen, 0, 2) == 0) q.ring_size = absl::Uniform<int64_t>(gen, 64, 8193);
  return q;
}

std::string Describe(const WhatIfQuestion& q) {
  return absl::StrFormat("rate %.0f pps, truesize %d, rcvbuf %d, gap %d us, margin %g, ring %s",
                         q.rate_pps, q.truesize_bytes, q.rcvbuf_bytes, q.drain_gap_us, q.margin,
                         q.ring_size ? std::to_string(*q.ring_size) : "unknown");
}

// The agent's view of such a socket, written out here as the agent builds one (observe/): a
// 10 s window of a steady flow into a socket that set its own buffer, nothing else measured.
Observation AgentsObservation(const WhatIfQuestion& q) {
  Observation obs;
  obs.window = absl::Seconds(10);
  obs.samples = 10;
  QueueObservation queue;
  queue.device = "eth1";
  queue.queue = 0;
  queue.rx_packets = queue.rx_work = static_cast<uint64_t>(q.rate_pps * 10);
  queue.coalesce.rx_usecs_supported = true;
  // An interrupt per packet: far from every plan, so none is kept as within the rate's noise.
  queue.coalesce.rx_usecs = 0;
  queue.coalesce.rx_usecs_granularity = 1;
  queue.coalesce.rx_ring_size = static_cast<uint32_t>(q.ring_size.value_or(0));
  SocketObservation socket;
  socket.name = "udp 0.0.0.0:5001";
  socket.packets = queue.rx_packets;
  socket.truesize_mean_bytes = static_cast<double>(q.truesize_bytes);
  socket.rcvbuf_bytes = static_cast<uint64_t>(q.rcvbuf_bytes);
  socket.drain_gap_s = static_cast<double>(q.drain_gap_us) * 1e-6;
  socket.rcvbuf_locked = true;
  queue.sockets.push_back(socket);
  obs.queues.push_back(queue);
  return obs;
}

std::optional<int64_t> Recommended(const std::vector<Recommendation>& recs, Knob knob) {
  for (const Recommendation& r : recs) {
    if (r.knob == knob) return r.recommended;
  }
  return std::nullopt;
}

TEST(WhatIfPropertiesTest, AdviceIsDropFreeNeverShrinksTheBufferAndIsTheTunersOwn) {
  std::mt19937_64 gen(19);
  int drop_free = 0;
  int grown = 0;
  for (int i = 0; i < 150; ++i) {
    const WhatIfQuestion q = RandomQuestion(gen);
    SCOPED_TRACE(Describe(q));
    absl::StatusOr<WhatIfAdvice> advice = AdviseWhatIf(q);
    ASSERT_TRUE(advice.ok()) << advice.status();
    EXPECT_GE(advice->rcvbuf_bytes, q.rcvbuf_bytes);
    EXPECT_GT(advice->rcvbuf_bytes, 0);
    if (advice->so_rcvbuf_bytes) {
      ++grown;
      EXPECT_EQ(advice->rcvbuf_bytes, 2 * *advice->so_rcvbuf_bytes);
    }

    // The tuner's plan of the agent's observation: the same interval and SO_RCVBUF.
    PolicyConfig config;
    config.margin = q.margin;
    absl::StatusOr<std::vector<Recommendation>> recs = Recommend(AgentsObservation(q), config);
    ASSERT_TRUE(recs.ok()) << recs.status();
    EXPECT_EQ(Recommended(*recs, Knob::kRxUsecs), advice->rx_usecs);
    const std::optional<int64_t> so_rcvbuf = Recommended(*recs, Knob::kSoRcvbuf);
    EXPECT_EQ(so_rcvbuf && 2 * *so_rcvbuf > q.rcvbuf_bytes ? so_rcvbuf : std::nullopt,
              advice->so_rcvbuf_bytes);

    if (!advice->drop_free) {
      EXPECT_FALSE(advice->unresolved.empty());
      continue;
    }
    ++drop_free;
    absl::StatusOr<WhatIfResult> run =
        SimulateWhatIf(WhatIfSimulationInput(q, advice->rx_usecs, advice->rcvbuf_bytes));
    ASSERT_TRUE(run.ok()) << run.status();
    EXPECT_EQ(run->socket_drops + run->ring_drops, 0u)
        << "rx-usecs " << advice->rx_usecs << ", rcvbuf " << advice->rcvbuf_bytes << ": "
        << advice->rationale;
  }
  // Not vacuous: most questions get a drop-free answer, many only with a bigger buffer.
  EXPECT_GE(drop_free, 120);
  EXPECT_GE(grown, 30);
}

}  // namespace
}  // namespace nictune::tuner
