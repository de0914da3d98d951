// SPDX-License-Identifier: Apache-2.0
// Bounded output on a large host: nictuned over a made-up proc tree of 4096 irq lines on 64 CPUs
// (tests/support/synthetic_host.h) exports no more series than the written budget
// (agent/metrics/series_budget.h) allows, answers a scrape in well under 100 ms and keeps its
// memory under 64 MiB, and flat across scrapes: a scrape that kept a fifth of its exposition
// (400 KB) would grow it past the allowance over kFlatScrapes. Per irq and CPU that tree is
// 262,144 interrupt series.
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "agent/metrics/series_budget.h"
#include "agent/procfs/read_file.h"
#include "gtest/gtest.h"
#include "tests/support/build_paths.h"
#include "tests/support/exposition_samples.h"
#include "tests/support/loopback_http.h"
#include "tests/support/loopback_port.h"
#include "tests/support/serving_nictuned.h"
#include "tests/support/synthetic_host.h"
#include "tests/support/temp_dir.h"

namespace nictune {
namespace {

constexpr int kCpus = 64;
constexpr uint32_t kIrqs = 4096;
constexpr int kQueues = 64;
constexpr int kScrapes = 20;
// Scrapes after the first kScrapes, back to back, over which resident memory stays within
// kFlatKib of where it was after them. The agent's memory steps up once, by about 4 MiB, in its
// first seconds whether it is scraped or not (measured: 39.3 -> 43.5 MiB over 40 scrapes that
// met the step, 43.46 -> 43.49 MiB over 200 that came after it), so the allowance is four times
// that step, while a scrape that kept even a quarter of its exposition would add 20 MiB.
constexpr int kFlatScrapes = 200;
constexpr uint64_t kFlatKib = 16 * 1024;

absl::StatusOr<uint64_t> ResidentKib(pid_t pid) {
  absl::StatusOr<std::string> status = procfs::ReadFile(absl::StrCat("/proc/", pid, "/status"));
  if (!status.ok()) return status.status();
  for (absl::string_view line : absl::StrSplit(*status, '\n')) {
    if (!absl::ConsumePrefix(&line, "VmRSS:")) continue;
    uint64_t kib = 0;
    if (absl::SimpleAtoi(absl::StripAsciiWhitespace(absl::StripSuffix(
                             absl::StripAsciiWhitespace(line), "kB")),
                         &kib)) {
      return kib;
    }
  }
  return absl::NotFoundError(absl::StrCat("/proc/", pid, "/status: no VmRSS"));
}

TEST(LargeHostOutput, FourThousandIrqsOnSixtyFourCpusStayWithinTheBudgetFastAndSmall) {
  absl::StatusOr<testing_support::SyntheticHost> host = testing_support::SyntheticHost::Create(
      {.queues = kQueues, .cpus = kCpus, .first_queue_irq = 5000, .other_irqs = kIrqs - kQueues});
  ASSERT_TRUE(host.ok()) << host.status();
  // One interval on, so that every irq line has fired (queue 0's count starts at 0).
  ASSERT_TRUE(host->Advance().ok());
  auto dir = testing_support::TempDir::Create("nictune_large_host_");
  ASSERT_TRUE(dir.ok()) << dir.status();
  auto port = testing_support::FreeLoopbackPort();
  ASSERT_TRUE(port.ok()) << port.status();
  auto agent = testing_support::StartServingNictuned(
      {testing_support::BinaryDir() + "/agent/nictuned", "--mode=observe", "--bpf=false",
       "--proc_root=" + host->proc_root(), "--sys_root=" + host->sys_root(),
       absl::StrCat("--listen=127.0.0.1:", *port), "--state_dir=" + dir->path(), "--socket=",
       "--interval=1s", "--window=2s"},
      *port, absl::Seconds(60), testing_support::NictunedReady::kFirstSample);
  ASSERT_TRUE(agent.ok()) << agent.status();

  std::vector<double> scrape_ms;
  std::string exposition;
  // The tree stays as written: Advance() rewrites its files in place, and a read that met a
  // half-written /proc/interrupts would see fewer irqs than the host has.
  for (int i = 0; i < kScrapes; ++i) {
    const absl::Time start = absl::Now();
    absl::StatusOr<testing_support::HttpReply> reply =
        testing_support::HttpGetLoopback(*port, "/metrics", absl::Seconds(10));
    scrape_ms.push_back(absl::ToDoubleMilliseconds(absl::Now() - start));
    ASSERT_TRUE(reply.ok()) << reply.status();
    ASSERT_EQ(reply->status, 200);
    exposition = std::move(reply->body);
    absl::SleepFor(absl::Milliseconds(250));
  }
  absl::StatusOr<uint64_t> rss_kib = ResidentKib(agent->pid());
  ASSERT_TRUE(rss_kib.ok()) << rss_kib.status();
  for (int i = 0; i < kFlatScrapes; ++i) {
    absl::StatusOr<testing_support::HttpReply> reply =
        testing_support::HttpGetLoopback(*port, "/metrics", absl::Seconds(10));
    ASSERT_TRUE(reply.ok()) << reply.status();
    ASSERT_EQ(reply->status, 200);
  }
  absl::StatusOr<uint64_t> rss_later_kib = ResidentKib(agent->pid());
  ASSERT_TRUE(rss_later_kib.ok()) << rss_later_kib.status();
  absl::StatusOr<std::vector<testing_support::ExposedSample>> samples =
      testing_support::ParseExposedSamples(exposition, "nictuned /metrics");
  ASSERT_TRUE(samples.ok()) << samples.status();
  std::sort(scrape_ms.begin(), scrape_ms.end());
  std::cout << samples->size() << " samples, " << exposition.size() << " bytes; scrape median "
            << scrape_ms[kScrapes / 2] << " ms, slowest " << scrape_ms.back() << " ms; RSS "
            << static_cast<double>(*rss_kib) / 1024 << " MiB, "
            << static_cast<double>(*rss_later_kib) / 1024 << " MiB after " << kFlatScrapes
            << " more\n";

  const metrics::HostShape shape{
      .cpus = kCpus,
      .irqs = kIrqs,
      .devices = static_cast<size_t>(
          std::distance(std::filesystem::directory_iterator(host->sys_root() + "/class/net"),
                        std::filesystem::directory_iterator()))};
  const metrics::SeriesBudget budget = metrics::BudgetFor(shape, metrics::SeriesOptions{});
  std::map<std::string, size_t> per_family;
  for (const testing_support::ExposedSample& s : *samples) ++per_family[s.name];
  for (const auto& [family, series] : per_family) EXPECT_LE(series, budget.Of(family)) << family;
  EXPECT_LE(samples->size(), budget.total);
  EXPECT_GE(per_family["nictune_interrupts_total"], kIrqs) << "every fired irq has its series";
  EXPECT_LT(scrape_ms[kScrapes / 2], 100);
  EXPECT_LT(*rss_kib, 64u * 1024);
  EXPECT_LT(*rss_later_kib, *rss_kib + kFlatKib)
      << "resident memory grew by " << (*rss_later_kib - std::min(*rss_later_kib, *rss_kib))
      << " KiB over " << kFlatScrapes << " scrapes";
}

}  // namespace
}  // namespace nictune
