// SPDX-License-Identifier: Apache-2.0
#include "tests/support/periodic_scrape.h"

#include <chrono>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "tests/support/loopback_http.h"

namespace nictune::testing_support {

PeriodicScrape::PeriodicScrape(uint16_t port, absl::Duration interval)
    : thread_([this, port, interval] { Run(port, interval); }) {}

PeriodicScrape::~PeriodicScrape() { Stop(); }

ScrapeCounts PeriodicScrape::Stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  stop_requested_.notify_all();
  if (thread_.joinable()) thread_.join();
  return counts_;
}

void PeriodicScrape::Run(uint16_t port, absl::Duration interval) {
  auto deadline = std::chrono::steady_clock::now();
  while (true) {
    const absl::Time start = absl::Now();
    absl::StatusOr<HttpReply> reply = HttpGetLoopback(port, "/metrics", absl::Seconds(5));
    const absl::Duration took = absl::Now() - start;
    std::unique_lock<std::mutex> lock(mutex_);
    if (reply.ok() && reply->status == 200) {
      ++counts_.scrapes;
      counts_.time += took;
    } else {
      ++counts_.failures;
      counts_.last_error =
          reply.ok() ? absl::StrCat("HTTP ", reply->status) : reply.status().ToString();
    }
    deadline += absl::ToChronoNanoseconds(interval);
    if (stop_requested_.wait_until(lock, deadline, [this] { return stopping_; })) return;
  }
}

}  // namespace nictune::testing_support
