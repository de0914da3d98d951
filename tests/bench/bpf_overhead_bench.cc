// SPDX-License-Identifier: Apache-2.0
// Probe overhead, measured as a whole process rather than with Google Benchmark's timing loop:
// UDP packets per second through a veth pair between two namespaces with nothing attached, with
// the nictune probes attached in this process (the default set, and every program), with the
// dispatch floor (empty programs on the default set's three tracepoints: what any program there
// costs; and one on napi_poll alone, the hook the default set keeps attached in a flood and that
// per-poll NAPI counts need), with the real nictuned at its defaults, with libbpf-tools hardirqs +
// softirqs, and with prometheus-node-exporter scraped every second; rounds alternated to cancel
// drift, ratios taken within a round and reported as medians. Then each nictune program's mean cost
// per event from kernel.bpf_stats (run_time_ns / run_cnt), and the empty programs', with the sysctl
// restored afterwards. By default the probes keep within the probe budget (driver/bpf/README.md
// "The probe budget"); each set is also run with no budget (every hook attached whole), and each
// cost phase prints how NET_RX was timed and what the slots' link operations took. The receiver
// either keeps up or falls behind (socket drops throughout: the state in which nictuned switches
// its per-packet probes on). Prints Markdown tables; it reports figures and never passes or fails
// on a time.
//
//   sudo build/tests/bench/bpf_overhead_bench [rounds] [seconds_per_round] [keeps-up|falls-behind]
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "agent/model/softirq_time.h"
#include "driver/dispatch_floor.h"
#include "driver/probe_source.h"
#include "tests/support/build_paths.h"
#include "tests/support/host_sysctls.h"
#include "tests/support/load_average.h"
#include "tests/support/loopback_port.h"
#include "tests/support/netns_host.h"
#include "tests/support/node_exporter.h"
#include "tests/support/periodic_scrape.h"
#include "tests/support/privileges.h"
#include "tests/support/serving_nictuned.h"
#include "tests/support/softirq_reading.h"
#include "tests/support/subprocess.h"
#include "tests/support/temp_dir.h"
#include "tests/support/udp_flow.h"

namespace nictune::bench {
namespace {

using testing_support::BackgroundProgram;
using testing_support::LoadAverage;
using testing_support::PeriodicScrape;
using testing_support::TempDir;
using testing_support::UdpFlow;
using testing_support::VethHosts;

const std::string kNictunedBinary = absl::StrCat(testing_support::BinaryDir(), "/agent/nictuned");

constexpr char kBpfStatsSysctl[] = "/proc/sys/kernel/bpf_stats_enabled";

enum class Attached {
  kNothing,
  kNictune,
  kNictuneSoftirqWhole,
  kNictuneEverySoftirqTimed,
  kNictuneAll,
  kNictuneAllUnbounded,
  kDispatchFloor,
  kNapiPollFloor,
  kNictuned,
  kBccTools,
  kNodeExporter,
};

// Every program, the per-packet and opt-in ones included.
driver::ProbeOptions AllPrograms() {
  driver::ProbeOptions options;
  options.softirq_raise = true;
  options.per_packet_probes = true;
  return options;
}

// No probe budget: every hook attached whole, the softirq pair timing a sample.
driver::ProbeOptions SoftirqWhole(driver::ProbeOptions options) {
  options.budget_cpu_share = std::nullopt;
  options.softirq_duty_cycle = false;
  return options;
}

// The softirq programs as they were before sampling: attached whole, both clock reads on every
// softirq.
driver::ProbeOptions EverySoftirqTimed(driver::ProbeOptions options) {
  options = SoftirqWhole(options);
  options.softirq_max_sample_shift = 0;
  return options;
}

std::string Name(Attached attached) {
  switch (attached) {
    case Attached::kNothing:
      return "nothing attached";
    case Attached::kNictune:
      return "nictune probes (default: per-packet off, no softirq_raise, within the probe "
             "budget)";
    case Attached::kNictuneSoftirqWhole:
      return "nictune probes (default), no budget: every hook whole, softirq timing sampled";
    case Attached::kNictuneEverySoftirqTimed:
      return "nictune probes (default), no budget, every softirq timed";
    case Attached::kNictuneAll:
      return "nictune probes, all (per-packet on, softirq_raise on), within the probe budget";
    case Attached::kNictuneAllUnbounded:
      return "nictune probes, all, no budget: every hook whole";
    case Attached::kDispatchFloor:
      return "dispatch floor: empty programs on softirq_entry, softirq_exit, napi_poll";
    case Attached::kNapiPollFloor:
      return "dispatch floor of napi_poll alone: one empty program";
    case Attached::kNictuned:
      return "nictuned (the agent at its defaults, 1 s interval)";
    case Attached::kBccTools:
      return "libbpf-tools hardirqs + softirqs";
    case Attached::kNodeExporter:
      return "prometheus-node-exporter, scraped every second";
  }
  return "?";
}

// One round: the sender flat out for `seconds`; returns the datagrams per second it got out
// (the veth receive path, NAPI and the socket enqueue run inside its sendmmsg calls).
// The receiver: one that keeps up (a 4 MiB buffer read in batches of 256), or one that cannot
// (32 KiB read 64 at a time with 1 ms between batches: socket drops throughout, the host state in
// which nictuned switches its per-packet probes on).
enum class Receiver { kKeepsUp, kFallsBehind };
Receiver g_receiver = Receiver::kKeepsUp;

absl::StatusOr<double> MeasurePps(const VethHosts& hosts, absl::Duration duration) {
  const testing_support::UdpReceiverOptions receiver =
      g_receiver == Receiver::kKeepsUp
          ? testing_support::UdpReceiverOptions{.rcvbuf_bytes = 4 << 20,
                                                .batch = 256,
                                                .run_time = duration * 2}
          : testing_support::UdpReceiverOptions{.rcvbuf_bytes = 32 << 10,
                                                .batch = 64,
                                                .drain_gap = absl::Milliseconds(1),
                                                .run_time = duration * 2};
  absl::StatusOr<UdpFlow> flow = UdpFlow::Open(
      hosts, receiver, {.packets = 1ull << 40, .payload_bytes = 64, .max_duration = duration});
  if (!flow.ok()) return flow.status();
  absl::StatusOr<testing_support::UdpFlowResult> result = flow->Run();
  if (!result.ok()) return result.status();
  return static_cast<double>(result->sent.sent) / absl::ToDoubleSeconds(result->sent.elapsed);
}

// What a configuration attached or started for one round; all of it goes when this does, the
// scraper first, the programs (killed) before their state directory.
struct Attachment {
  std::optional<TempDir> state_dir;
  uint16_t port = 0;  // nictuned's or node_exporter's HTTP port
  std::vector<BackgroundProgram> programs;
  std::unique_ptr<driver::ProbeSource> probes;
  std::unique_ptr<driver::DispatchFloor> floor;
  std::unique_ptr<PeriodicScrape> scrape;
};

// What the rounds of the out-of-process configurations saw besides their pps.
struct RoundNotes {
  std::map<int, int> nictuned_concerns_attached;  // concerns attached at a round's end -> rounds
  testing_support::ScrapeCounts node_exporter;
};

absl::Status StartBccTools(Attachment& attachment) {
  for (const char* tool : {"/usr/sbin/hardirqs", "/usr/sbin/softirqs"}) {
    absl::StatusOr<BackgroundProgram> started =
        BackgroundProgram::Start({"stdbuf", "-oL", tool, "-N"});
    if (!started.ok()) return started.status();
    if (absl::Status attached = started->WaitForOutput("Tracing", absl::Seconds(10));
        !attached.ok()) {
      return attached;
    }
    attachment.programs.push_back(*std::move(started));
  }
  return absl::OkStatus();
}

// The agent as a host runs it: defaults (1 s interval, 10 s tuner window, recommend mode, the
// per-packet probes on only while it sees socket pressure), but its own HTTP port, no CLI socket
// and a state directory of its own, so that another nictuned on this host is not disturbed.
// The flow starts once it has sampled its first interval (its probes are attached by then).
absl::Status StartNictuned(Attachment& attachment) {
  absl::StatusOr<TempDir> dir = TempDir::Create("nictune-overhead-bench-");
  if (!dir.ok()) return dir.status();
  attachment.state_dir.emplace(*std::move(dir));
  absl::StatusOr<uint16_t> port = testing_support::FreeLoopbackPort();
  if (!port.ok()) return port.status();
  attachment.port = *port;
  absl::StatusOr<BackgroundProgram> agent = testing_support::StartServingNictuned(
      {kNictunedBinary, absl::StrCat("--listen=127.0.0.1:", *port),
       "--socket=", "--state_dir=" + attachment.state_dir->path()},
      *port, absl::Seconds(30), testing_support::NictunedReady::kFirstSample);
  if (!agent.ok()) return agent.status();
  attachment.programs.push_back(*std::move(agent));
  return absl::OkStatus();
}

// Records how many probe concerns the agent had attached at the end of the flow (5 by default,
// 8 once socket pressure switched the per-packet ones on), then stops it as systemd would.
absl::Status StopNictuned(Attachment& attachment, RoundNotes& notes) {
  absl::StatusOr<nlohmann::json> status =
      testing_support::GetJsonLoopback(attachment.port, "/api/v1/status");
  if (!status.ok()) return status.status();
  int attached = 0;
  for (const nlohmann::json& program :
       status->value(nlohmann::json::json_pointer("/bpf/programs"), nlohmann::json::array())) {
    if (program.value("attached", false)) ++attached;
  }
  ++notes.nictuned_concerns_attached[attached];
  BackgroundProgram& agent = attachment.programs.front();
  if (absl::Status signalled = agent.Signal(SIGTERM); !signalled.ok()) return signalled;
  absl::StatusOr<testing_support::ProgramOutput> exited = agent.Wait(absl::Seconds(10));
  if (!exited.ok()) return exited.status();
  if (exited->exit_code != 0) {
    return absl::InternalError(
        absl::StrCat("nictuned exited with ", exited->exit_code, ": ", exited->err));
  }
  return absl::OkStatus();
}

// node_exporter as Debian ships it (its default collectors), less the systemd collector where
// systemd does not run, on a private port, scraped once a second from this process.
absl::Status StartNodeExporter(Attachment& attachment) {
  absl::StatusOr<uint16_t> port = testing_support::FreeLoopbackPort();
  if (!port.ok()) return port.status();
  attachment.port = *port;
  std::vector<std::string> flags;
  if (access("/run/systemd/private", F_OK) != 0)
    flags.push_back(testing_support::kNoSystemdCollector);
  absl::StatusOr<BackgroundProgram> exporter = testing_support::StartNodeExporter(
      {.port = *port, .flags = std::move(flags)}, absl::Seconds(10));
  if (!exporter.ok()) return exporter.status();
  attachment.programs.push_back(*std::move(exporter));
  attachment.scrape = std::make_unique<PeriodicScrape>(*port, absl::Seconds(1));
  return absl::OkStatus();
}

absl::Status Attach(Attached attached, Attachment& attachment) {
  switch (attached) {
    case Attached::kNothing:
      return absl::OkStatus();
    case Attached::kNictune:
    case Attached::kNictuneSoftirqWhole:
    case Attached::kNictuneEverySoftirqTimed:
    case Attached::kNictuneAll:
    case Attached::kNictuneAllUnbounded: {
      driver::ProbeOptions options;
      if (attached == Attached::kNictuneAll) options = AllPrograms();
      if (attached == Attached::kNictuneAllUnbounded) options = SoftirqWhole(AllPrograms());
      if (attached == Attached::kNictuneSoftirqWhole) options = SoftirqWhole(options);
      if (attached == Attached::kNictuneEverySoftirqTimed) options = EverySoftirqTimed(options);
      absl::StatusOr<std::unique_ptr<driver::ProbeSource>> probes = driver::OpenBpfProbes(options);
      if (!probes.ok()) return probes.status();
      attachment.probes = *std::move(probes);
      return absl::OkStatus();
    }
    case Attached::kDispatchFloor:
    case Attached::kNapiPollFloor: {
      absl::StatusOr<std::unique_ptr<driver::DispatchFloor>> floor = driver::AttachDispatchFloor(
          attached == Attached::kNapiPollFloor ? driver::FloorHooks::kNapiPollOnly
                                               : driver::FloorHooks::kDefaultSet);
      if (!floor.ok()) return floor.status();
      attachment.floor = *std::move(floor);
      return absl::OkStatus();
    }
    case Attached::kNictuned:
      return StartNictuned(attachment);
    case Attached::kBccTools:
      return StartBccTools(attachment);
    case Attached::kNodeExporter:
      return StartNodeExporter(attachment);
  }
  return absl::InternalError("unknown configuration");
}

absl::StatusOr<double> Round(const VethHosts& hosts, Attached attached, absl::Duration duration,
                             RoundNotes& notes) {
  Attachment attachment;
  if (absl::Status ready = Attach(attached, attachment); !ready.ok()) return ready;
  absl::StatusOr<double> pps = MeasurePps(hosts, duration);
  if (!pps.ok()) return pps;
  if (attached == Attached::kNictuned) {
    if (absl::Status stopped = StopNictuned(attachment, notes); !stopped.ok()) return stopped;
  }
  if (attachment.scrape != nullptr) {
    const testing_support::ScrapeCounts counts = attachment.scrape->Stop();
    notes.node_exporter.scrapes += counts.scrapes;
    notes.node_exporter.failures += counts.failures;
    notes.node_exporter.time += counts.time;
    if (!counts.last_error.empty()) notes.node_exporter.last_error = counts.last_error;
  }
  return pps;
}

struct Series {
  std::vector<double> pps;
  // Per round, this configuration's pps over the "nothing" pps of the same round: the rounds
  // are seconds apart, so a ratio within one round cancels most of the host's load changes.
  std::vector<double> ratios;
};

double Median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const size_t middle = values.size() / 2;
  return values.size() % 2 == 1 ? values[middle] : (values[middle - 1] + values[middle]) / 2;
}

// BPF links to tracepoints that others hold (another nictuned, a tracing tool): each runs on the
// hooks in every configuration, "nothing attached" included, so the figures are read beside it.
std::string ForeignTracepointLinks() {
  absl::StatusOr<testing_support::ProgramOutput> listed =
      testing_support::RunProgram({"bpftool", "-j", "link", "show"});
  if (!listed.ok()) return listed.status().ToString();
  if (listed->exit_code != 0) return absl::StrCat("bpftool link show: exit ", listed->exit_code);
  const nlohmann::json links = nlohmann::json::parse(listed->out, nullptr, false);
  if (!links.is_array()) return "bpftool link show: not a JSON array";
  int count = 0;
  for (const nlohmann::json& link : links) {
    const std::string type = link.value("type", "");
    if (type == "raw_tracepoint" || type == "tracing") ++count;
  }
  return absl::StrCat(count);
}

struct CostPhase {
  std::string title;
  double pps = 0;
  std::string load_average;
  std::string net_rx_source;  // how NET_RX's time was measured in the flow, e.g. "bpf, sampled 1/8"
  std::string duty_cycle;     // the softirq pair's slots and link operations in the flow
  std::vector<driver::ProbeCost> costs;
};

constexpr uint32_t kNetRxVector = 3;  // NET_RX_SOFTIRQ

double MeanMicroseconds(uint64_t total_ns, uint64_t count) {
  return count == 0 ? 0.0 : static_cast<double>(total_ns) / 1e3 / static_cast<double>(count);
}

// The duty cycle's slots and link operations between two readings.
std::string DutyCycleNote(const driver::BpfCounters& before, const driver::BpfCounters& after) {
  const driver::SoftirqDutyCounters& a = before.softirq_duty;
  const driver::SoftirqDutyCounters& b = after.softirq_duty;
  const uint64_t attaches = b.link_attaches - a.link_attaches;
  const uint64_t detaches = b.link_detaches - a.link_detaches;
  return absl::StrFormat(
      "softirqs timed %.1f%% of the flow, %d attachments; link attaches %d (mean %.1f us wall, "
      "%.1f us CPU), detaches %d (mean %.1f us wall, %.1f us CPU)",
      100 * model::SoftirqTimedShare(before, after), b.attachments - a.attachments, attaches,
      MeanMicroseconds(b.link_attach_ns - a.link_attach_ns, attaches),
      MeanMicroseconds(b.link_attach_cpu_ns - a.link_attach_cpu_ns, attaches), detaches,
      MeanMicroseconds(b.link_detach_ns - a.link_detach_ns, detaches),
      MeanMicroseconds(b.link_detach_cpu_ns - a.link_detach_cpu_ns, detaches));
}

// One flow with `options` attached (kernel.bpf_stats must be on): each program's cost.
absl::StatusOr<CostPhase> MeasureCost(const VethHosts& hosts, const driver::ProbeOptions& options,
                                      absl::Duration duration) {
  absl::StatusOr<std::unique_ptr<driver::ProbeSource>> probes = driver::OpenBpfProbes(options);
  if (!probes.ok()) return probes.status();
  absl::StatusOr<testing_support::SoftirqReading> before = testing_support::ReadSoftirqs(**probes);
  if (!before.ok()) return before.status();
  absl::StatusOr<double> pps = MeasurePps(hosts, duration);
  if (!pps.ok()) return pps.status();
  absl::StatusOr<testing_support::SoftirqReading> after = testing_support::ReadSoftirqs(**probes);
  if (!after.ok()) return after.status();
  const model::SoftirqTimeEstimate net_rx =
      testing_support::VectorTime(*before, *after, kNetRxVector);
  return CostPhase{.pps = *pps,
                   .load_average = LoadAverage(),
                   .net_rx_source = absl::StrCat(model::SoftirqTimeSource(net_rx), ", ",
                                                 net_rx.timed, " of ", net_rx.count, " timed"),
                   .duty_cycle = DutyCycleNote(before->bpf, after->bpf),
                   .costs = (*probes)->Cost()};
}

// One flow with the dispatch floor attached (kernel.bpf_stats must be on): what an empty program
// on each of those tracepoints costs per event.
absl::StatusOr<CostPhase> MeasureFloorCost(const VethHosts& hosts, absl::Duration duration) {
  absl::StatusOr<std::unique_ptr<driver::DispatchFloor>> floor = driver::AttachDispatchFloor();
  if (!floor.ok()) return floor.status();
  absl::StatusOr<double> pps = MeasurePps(hosts, duration);
  if (!pps.ok()) return pps.status();
  return CostPhase{.title = "dispatch floor (empty programs)",
                   .pps = *pps,
                   .load_average = LoadAverage(),
                   .net_rx_source = "not timed: the programs do nothing",
                   .costs = (*floor)->Cost()};
}

int Main(int argc, char** argv) {
  int rounds = 5;
  double seconds = 1.0;
  if (argc > 1 && !absl::SimpleAtoi(argv[1], &rounds)) {
    std::cerr << "rounds: not a number: " << argv[1] << "\n";
    return 2;
  }
  if (argc > 2 && !absl::SimpleAtod(argv[2], &seconds)) {
    std::cerr << "seconds_per_round: not a number: " << argv[2] << "\n";
    return 2;
  }
  if (argc > 3) {
    const std::string receiver = argv[3];
    if (receiver != "keeps-up" && receiver != "falls-behind") {
      std::cerr << "receiver: keeps-up or falls-behind, not " << receiver << "\n";
      return 2;
    }
    if (receiver == "falls-behind") g_receiver = Receiver::kFallsBehind;
  }
  if (const std::string why = testing_support::WhyNotPrivileged(); !why.empty()) {
    std::cerr << "bpf_overhead_bench: " << why << "\n";
    return 2;
  }
  absl::StatusOr<std::unique_ptr<VethHosts>> hosts = VethHosts::Create({.napi_on_b = true});
  if (!hosts.ok()) {
    std::cerr << hosts.status() << "\n";
    return 1;
  }
  const absl::Duration duration = absl::Seconds(seconds);
  const std::vector<Attached> order = {Attached::kNothing,
                                       Attached::kNictune,
                                       Attached::kNictuneSoftirqWhole,
                                       Attached::kNictuneEverySoftirqTimed,
                                       Attached::kNictuneAll,
                                       Attached::kNictuneAllUnbounded,
                                       Attached::kDispatchFloor,
                                       Attached::kNapiPollFloor,
                                       Attached::kNictuned,
                                       Attached::kBccTools,
                                       Attached::kNodeExporter};
  std::map<Attached, Series> series;
  RoundNotes notes;
  // A warm-up round first: the first flow pays for cold caches and page faults.
  if (absl::StatusOr<double> warm = MeasurePps(**hosts, duration); !warm.ok()) {
    std::cerr << warm.status() << "\n";
    return 1;
  }
  const std::string load_before = LoadAverage();
  const std::string links_before = ForeignTracepointLinks();
  for (int round = 0; round < rounds; ++round) {
    // Rotate the starting configuration so that none always runs first or last.
    std::map<Attached, double> this_round;
    for (size_t i = 0; i < order.size(); ++i) {
      const Attached attached = order[(i + static_cast<size_t>(round)) % order.size()];
      absl::StatusOr<double> pps = Round(**hosts, attached, duration, notes);
      if (!pps.ok()) {
        std::cerr << Name(attached) << ": " << pps.status() << "\n";
        return 1;
      }
      this_round[attached] = *pps;
      series[attached].pps.push_back(*pps);
    }
    for (const Attached attached : order) {
      const double nothing = this_round[Attached::kNothing];
      series[attached].ratios.push_back(nothing > 0 ? this_round[attached] / nothing : 0.0);
    }
  }

  std::cout << absl::StrFormat(
      "## UDP through veth (64-byte payload, sendmmsg flat out, NAPI on the receiving veth)\n\n"
      "%d rounds x %.1f s per configuration, alternated; nproc %ld; load average %s before, %s "
      "after; BPF tracepoint links held by other processes %s before, %s after\n\n",
      rounds, seconds, sysconf(_SC_NPROCESSORS_ONLN), load_before, LoadAverage(), links_before,
      ForeignTracepointLinks());
  std::cout << "| configuration | median pps | min pps | max pps | median ratio to nothing "
               "attached (same round) | min ratio | max ratio |\n"
               "|---|---:|---:|---:|---:|---:|---:|\n";
  for (const Attached attached : order) {
    const Series& s = series[attached];
    std::cout << absl::StrFormat("| %s | %.0f | %.0f | %.0f | %.3f | %.3f | %.3f |\n",
                                 Name(attached), Median(s.pps),
                                 *std::min_element(s.pps.begin(), s.pps.end()),
                                 *std::max_element(s.pps.begin(), s.pps.end()), Median(s.ratios),
                                 *std::min_element(s.ratios.begin(), s.ratios.end()),
                                 *std::max_element(s.ratios.begin(), s.ratios.end()));
  }
  std::cout << "\nnictuned: probe concerns attached at the end of a round's flow (5: default set; "
               "8: per-packet probes switched on by socket pressure):";
  for (const auto& [concerns, rounds_seen] : notes.nictuned_concerns_attached) {
    std::cout << absl::StrFormat(" %d in %d round(s);", concerns, rounds_seen);
  }
  const testing_support::ScrapeCounts& scrapes = notes.node_exporter;
  std::cout << absl::StrFormat(
      "\nnode_exporter: %d scrapes answered (mean %.1f ms), %d failed%s\n", scrapes.scrapes,
      scrapes.scrapes > 0
          ? absl::ToDoubleMilliseconds(scrapes.time) / static_cast<double>(scrapes.scrapes)
          : 0.0,
      scrapes.failures, scrapes.last_error.empty() ? "" : " (last: " + scrapes.last_error + ")");

  // Per-program cost: bpf_stats adds two clock reads per run, so it is on only for this phase.
  absl::StatusOr<std::unique_ptr<testing_support::SysctlRestorer>> stats =
      testing_support::SysctlRestorer::Capture({kBpfStatsSysctl});
  const absl::Status enabled = stats.ok() ? (*stats)->Set(kBpfStatsSysctl, "1") : stats.status();
  if (!enabled.ok()) {
    std::cerr << enabled << "\n";
    return 1;
  }
  std::vector<CostPhase> phases;
  for (const auto& [title, options] :
       {std::pair{"default set, within the probe budget", driver::ProbeOptions{}},
        std::pair{"default set, no budget", SoftirqWhole(driver::ProbeOptions{})},
        std::pair{"all attached, within the probe budget", AllPrograms()},
        std::pair{"all attached, no budget", SoftirqWhole(AllPrograms())}}) {
    absl::StatusOr<CostPhase> phase = MeasureCost(**hosts, options, duration);
    if (!phase.ok()) {
      std::cerr << phase.status() << "\n";
      return 1;
    }
    phase->title = title;
    phases.push_back(*std::move(phase));
  }
  absl::StatusOr<CostPhase> floor_phase = MeasureFloorCost(**hosts, duration);
  if (!floor_phase.ok()) {
    std::cerr << floor_phase.status() << "\n";
    return 1;
  }
  phases.push_back(*std::move(floor_phase));
  stats->reset();  // restores kernel.bpf_stats_enabled before printing

  for (const CostPhase& phase : phases) {
    std::cout << absl::StrFormat(
        "\n## Cost per event of each program, %s (kernel.bpf_stats, one %.1f s flow at "
        "%.0f pps; load average %s; NET_RX softirq time: %s%s)\n\n",
        phase.title, seconds, phase.pps, phase.load_average, phase.net_rx_source,
        phase.duty_cycle.empty() ? "" : "; " + phase.duty_cycle);
    std::cout << "| program | run_cnt | run_time_ns | ns per event |\n|---|---:|---:|---:|\n";
    for (const driver::ProbeCost& cost : phase.costs) {
      const double per_event = cost.run_cnt > 0 ? static_cast<double>(cost.run_time_ns) /
                                                      static_cast<double>(cost.run_cnt)
                                                : 0.0;
      std::cout << absl::StrFormat("| %s | %d | %d | %.1f |\n", cost.name, cost.run_cnt,
                                   cost.run_time_ns, per_event);
    }
  }
  return 0;
}

}  // namespace
}  // namespace nictune::bench

int main(int argc, char** argv) { return nictune::bench::Main(argc, argv); }
