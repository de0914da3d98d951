// nictuned: measures interrupt mitigation per queue and CPU and (in later modes) tunes it.
#include <signal.h>
#include <time.h>

#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/flags/usage_config.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "agent/build_info.h"
#include "agent/collect/snapshot_collector.h"
#include "agent/log.h"
#include "agent/model/window.h"
#include "agent/topology.h"
#include "agent/window_report.h"
#include "agent/window_summary.h"
#include "driver/probe_source.h"
#include "nlohmann/json.hpp"

ABSL_FLAG(bool, once, false, "Measure one window (--interval long), print it and exit.");
ABSL_FLAG(bool, json, false, "With --once: print the whole window as JSON instead of a summary.");
ABSL_FLAG(absl::Duration, interval, absl::Seconds(1), "Sampling interval (e.g. 1s, 500ms).");
ABSL_FLAG(std::string, state_dir, "/var/lib/nictune",
          "Directory for the agent's state (the latest window as JSON: last_window.json).");
ABSL_FLAG(std::string, proc_root, "/proc", "Root of the proc filesystem to read (/host/proc in a container).");
ABSL_FLAG(std::string, sys_root, "/sys", "Root of the sys filesystem to read (/host/sys in a container).");
ABSL_FLAG(bool, bpf, true, "Attach the BPF probes (falls back to procfs alone when they cannot load).");
ABSL_FLAG(uint32_t, truesize_sample_every, 64,
          "Record the truesize of one received packet in this many (per-packet probe cost).");
ABSL_FLAG(uint32_t, socket_fill_threshold_pct, 50,
          "Track a socket's fill only once it is at least this full (keeps the per-packet probe cheap).");
ABSL_FLAG(int, topology_refresh_windows, 10,
          "Re-read queue map and coalescing/ring settings every this many windows (and whenever "
          "the set of devices changes).");
ABSL_FLAG(uint32_t, max_sockets, 1024, "Sockets the BPF socket-fill map holds (LRU).");

namespace nictune::agent {
namespace {

struct Probes {
  std::unique_ptr<driver::ProbeSource> source;
  std::string why_not;
};

Probes OpenProbes() {
  if (!absl::GetFlag(FLAGS_bpf)) return {nullptr, "disabled by --bpf=false"};
  driver::ProbeOptions options;
  options.truesize_sample_every = absl::GetFlag(FLAGS_truesize_sample_every);
  options.socket_fill_threshold_pct = absl::GetFlag(FLAGS_socket_fill_threshold_pct);
  options.max_sockets = absl::GetFlag(FLAGS_max_sockets);
  auto opened = driver::OpenBpfProbes(options);
  if (!opened.ok()) {
    std::string why = std::string(opened.status().message());
    LogWarning(absl::StrCat("BPF probes unavailable, measuring from procfs/sysfs only: ", why));
    return {nullptr, why};
  }
  for (const auto& p : (*opened)->Status()) {
    if (!p.attached) LogWarning(absl::StrCat("BPF program ", p.name, " disabled: ", p.reason));
  }
  return {*std::move(opened), ""};
}

// Blocks SIGINT/SIGTERM/SIGHUP so the sampling loop can wait for them and the next tick at once.
sigset_t BlockStopSignals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  return set;
}

// Waits until `deadline` (CLOCK_MONOTONIC) unless a stop signal comes first; returns the signal.
std::optional<int> WaitUntil(const sigset_t& signals, const timespec& deadline) {
  while (true) {
    timespec now{};
    clock_gettime(CLOCK_MONOTONIC, &now);
    int64_t left_ns = (deadline.tv_sec - now.tv_sec) * 1'000'000'000 + (deadline.tv_nsec - now.tv_nsec);
    if (left_ns <= 0) return std::nullopt;
    const timespec timeout{.tv_sec = left_ns / 1'000'000'000, .tv_nsec = left_ns % 1'000'000'000};
    const int sig = sigtimedwait(&signals, nullptr, &timeout);
    if (sig > 0 && sig != SIGHUP) return sig;  // SIGHUP: configuration reload comes later
    if (sig < 0 && errno != EAGAIN && errno != EINTR) return std::nullopt;
  }
}

void AddToDeadline(timespec& t, absl::Duration d) {
  const int64_t ns = absl::ToInt64Nanoseconds(d);
  t.tv_sec += ns / 1'000'000'000;
  t.tv_nsec += ns % 1'000'000'000;
  if (t.tv_nsec >= 1'000'000'000) {
    t.tv_sec += 1;
    t.tv_nsec -= 1'000'000'000;
  }
}

// Writes the latest window atomically (write, fsync-free rename) so a reader never sees half.
void SaveLastWindow(const std::filesystem::path& dir, const nlohmann::json& window) {
  const auto final_path = dir / "last_window.json";
  const auto tmp = dir / "last_window.json.tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << window.dump() << '\n';
    if (!out) {
      LogError(absl::StrCat("write ", tmp.string(), ": failed (disk full or read-only?)"));
      return;
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, final_path, ec);
  if (ec) LogError(absl::StrCat("rename ", tmp.string(), " -> ", final_path.string(), ": ", ec.message()));
}

int Run() {
  const absl::Duration interval = absl::GetFlag(FLAGS_interval);
  if (interval < absl::Milliseconds(10) || interval > absl::Hours(1)) {
    LogError(absl::StrCat("--interval=", absl::FormatDuration(interval), ": must be between 10ms and 1h"));
    return 2;
  }
  const sigset_t signals = BlockStopSignals();
  Probes probes = OpenProbes();
  const collect::CollectorPaths paths{.proc = absl::GetFlag(FLAGS_proc_root),
                                      .sys = absl::GetFlag(FLAGS_sys_root)};
  collect::SnapshotCollector collector(paths, probes.source.get(), probes.why_not);
  const int refresh = absl::GetFlag(FLAGS_topology_refresh_windows);
  if (refresh < 1) {
    LogError(absl::StrCat("--topology_refresh_windows=", refresh, ": must be at least 1"));
    return 2;
  }
  TopologyReader topology(paths, refresh);

  timespec deadline{};
  clock_gettime(CLOCK_MONOTONIC, &deadline);
  model::Snapshot previous = collector.Collect();

  if (absl::GetFlag(FLAGS_once)) {
    AddToDeadline(deadline, interval);
    if (WaitUntil(signals, deadline)) return 1;
    auto window = model::ComputeWindow(previous, collector.Collect());
    if (!window.ok()) {
      LogError(window.status().ToString());
      return 1;
    }
    if (absl::GetFlag(FLAGS_json)) {
      const Topology& t = topology.Read(DeviceNames(*window));
      std::cout << WindowReport(*window, t).dump(2) << std::endl;
    } else {
      std::cout << SummarizeWindow(*window) << std::endl;
    }
    return 0;
  }

  const std::filesystem::path state_dir = absl::GetFlag(FLAGS_state_dir);
  std::error_code ec;
  std::filesystem::create_directories(state_dir, ec);
  if (ec) {
    LogError(absl::StrCat("create state directory ", state_dir.string(), ": ", ec.message()));
    return 1;
  }
  LogInfo(absl::StrCat("nictuned ", std::string(Version()), " sampling every ", absl::FormatDuration(interval),
                       ", state in ", state_dir.string(),
                       probes.source ? ", BPF probes attached" : ", procfs only"));
  while (true) {
    AddToDeadline(deadline, interval);
    if (const auto sig = WaitUntil(signals, deadline)) {
      LogInfo(absl::StrCat("signal ", *sig, ": stopping"));
      return 0;
    }
    model::Snapshot current = collector.Collect();
    auto window = model::ComputeWindow(previous, current);
    previous = std::move(current);
    if (!window.ok()) {
      LogError(window.status().ToString());
      continue;
    }
    LogInfo(SummarizeWindow(*window));
    SaveLastWindow(state_dir, WindowReport(*window, topology.Read(DeviceNames(*window))));
  }
}

}  // namespace
}  // namespace nictune::agent

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "nictuned: measures NIC interrupt mitigation (interrupts, NAPI polls, softirq time, socket "
      "fill and drops) per queue and CPU.\n  nictuned --once --json   one window as JSON\n  "
      "nictuned                 the sampling loop");
  absl::FlagsUsageConfig usage;
  usage.version_string = [] { return std::string(nictune::agent::Version()) + "\n"; };
  absl::SetFlagsUsageConfig(usage);
  absl::ParseCommandLine(argc, argv);
  return nictune::agent::Run();
}
