// SPDX-License-Identifier: Apache-2.0
// Scrapes 127.0.0.1:<port>/metrics every `interval` on a thread of its own, as a Prometheus
// server would, so that a benchmark measures an exporter under its usual load.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

#include "absl/time/time.h"

namespace nictune::testing_support {

struct ScrapeCounts {
  uint64_t scrapes = 0;   // answered 200
  uint64_t failures = 0;  // connection errors and non-200 answers
  absl::Duration time;    // summed over the answered scrapes
  std::string last_error;
};

class PeriodicScrape {
 public:
  // The first scrape is at once, the rest on deadlines `interval` apart.
  PeriodicScrape(uint16_t port, absl::Duration interval);
  PeriodicScrape(const PeriodicScrape&) = delete;
  PeriodicScrape& operator=(const PeriodicScrape&) = delete;
  ~PeriodicScrape();  // stops and joins the thread

  // Stops scraping (a scrape under way finishes) and returns the counts.
  ScrapeCounts Stop();

 private:
  void Run(uint16_t port, absl::Duration interval);

  std::mutex mutex_;
  std::condition_variable stop_requested_;
  bool stopping_ = false;
  ScrapeCounts counts_;
  std::thread thread_;
};

}  // namespace nictune::testing_support
