// SPDX-License-Identifier: Apache-2.0
// nictuned: measures interrupt mitigation per queue and CPU and recommends (later: applies) tuning.
// `nictuned --once [--json]` measures one window and prints it; plain `nictuned` is the service:
// the sampling loop feeding /metrics, the store and the tuner, the HTTP server and sd_notify.
#include <linux/capability.h>
#include <signal.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/flags/usage_config.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"
#include "agent/actuate/actuator.h"
#include "agent/actuate/boot_id.h"
#include "agent/build_info.h"
#include "agent/check/held_capabilities.h"
#include "agent/check/knob_reach.h"
#include "agent/check/support_report.h"
#include "agent/check/tracefs.h"
#include "agent/check/tracepoints.h"
#include "agent/check/writable_dir.h"
#include "agent/cli/terminal_width.h"
#include "agent/collect/snapshot_collector.h"
#include "agent/http/apply_route.h"
#include "agent/http/bearer_token.h"
#include "agent/http/changes_route.h"
#include "agent/http/health_route.h"
#include "agent/http/history_route.h"
#include "agent/http/listen_address.h"
#include "agent/http/listener.h"
#include "agent/http/metrics_route.h"
#include "agent/http/recommendations_route.h"
#include "agent/http/restore_route.h"
#include "agent/http/rollback_route.h"
#include "agent/http/server.h"
#include "agent/http/snapshot_route.h"
#include "agent/http/status_route.h"
#include "agent/http/whatif_route.h"
#include "agent/log.h"
#include "agent/metrics/exporter.h"
#include "agent/metrics/tuning_series.h"
#include "agent/model/json_text.h"
#include "agent/model/window.h"
#include "agent/napi_pollers.h"
#include "agent/observe/interval_socket_places.h"
#include "agent/observe/other_tuners.h"
#include "agent/procfs/net_devices.h"
#include "agent/rate_limited_log.h"
#include "agent/service/apply_self_test.h"
#include "agent/service/deadline_wait.h"
#include "agent/service/emulated_nic_spec.h"
#include "agent/service/emulated_observations.h"
#include "agent/service/emulated_snapshots.h"
#include "agent/service/flagfile_reload.h"
#include "agent/service/health_metrics.h"
#include "agent/service/help_request.h"
#include "agent/service/probe_budget_flag.h"
#include "agent/service/real_ports.h"
#include "agent/service/sampler.h"
#include "agent/service/service_state.h"
#include "agent/service/store_settings.h"
#include "agent/service/stray_arguments.h"
#include "agent/service/tuning.h"
#include "agent/store/journal.h"
#include "agent/store/state_dir.h"
#include "agent/store/state_lock.h"
#include "agent/store/store.h"
#include "agent/systemd/notifier.h"
#include "agent/topology.h"
#include "agent/window_report.h"
#include "agent/window_summary.h"
#include "driver/emulated/knob_provider.h"
#include "driver/errno_text.h"
#include "driver/knobs/kernel_knob_provider.h"
#include "driver/knobs/knob_target.h"
#include "driver/link_statistics.h"
#include "driver/probe_budget_default.h"
#include "driver/probe_source.h"
#include "driver/socket_memory.h"
#include "nlohmann/json.hpp"

ABSL_FLAG(bool, once, false, "Measure one window (--interval long), print it and exit.");
ABSL_FLAG(bool, check, false,
          "Say what nictuned can and cannot do on this host (kernel, BTF, the probes, every "
          "procfs and sysfs source, other tuners; with --mode=apply its self-tests) and exit: 0 "
          "when it can run as asked, 1 when it cannot.");
ABSL_FLAG(bool, json, false, "With --once: print the whole window as JSON instead of a summary.");
ABSL_FLAG(absl::Duration, interval, absl::Seconds(1),
          "Sampling interval (e.g. 1s, 500ms; 10ms..1h). Reloaded on SIGHUP.");
ABSL_FLAG(absl::Duration, window, absl::Seconds(10),
          "Tuner window: the sampling intervals aggregated into one observation for the tuner "
          "(at least --interval). Reloaded on SIGHUP.");
ABSL_FLAG(
    std::string, mode, "recommend",
    "observe (measure only), recommend (measure and recommend, never write a knob) or "
    "apply (carry the recommendations out, journaled, guarded and rolled back on regression). "
    "Reloaded on SIGHUP.");
ABSL_FLAG(std::string, on_exit, "restore",
          "What happens to knobs the agent changed when it stops (SIGTERM) and to changes a crash "
          "of this boot left: restore the originals or keep them. Reloaded on SIGHUP.");
ABSL_FLAG(std::vector<std::string>, emulated_nic, {},
          "DEVICE=SOCKET_PATH of an emulated NIC (driver/emulated) to tune like a driver's "
          "device through its control socket; repeat the flag or separate with commas. Restart "
          "to change.");
ABSL_FLAG(absl::Duration, guard, absl::Seconds(30),
          "Apply mode: how long a change is watched for a regression before it is kept. "
          "Restart to change.");
ABSL_FLAG(absl::Duration, cooldown, absl::Minutes(10),
          "Apply mode: how long a knob rests after a rollback or a failed write. Restart to "
          "change.");
ABSL_FLAG(double, min_confidence, nictune::tuner::ControllerConfig{}.min_confidence,
          "Apply mode: act only on recommendations at least this confident (0..1; the "
          "window's samples and packets, docs/design.md). Restart to change.");
ABSL_FLAG(std::string, listen, "127.0.0.1:9877",
          "HOST:PORT of the HTTP server (/metrics and /api/v1); empty disables TCP. Restart to "
          "change.");
ABSL_FLAG(std::string, api_token_file, "",
          "File holding the bearer token that mutating requests on TCP must present (mode 0600, "
          "16+ characters); empty: mutations are refused on TCP. Restart to change.");
ABSL_FLAG(std::string, socket, "/run/nictune/nictune.sock",
          "The CLI's root-only unix socket; empty disables it. Restart to change.");
ABSL_FLAG(std::string, state_dir, "/var/lib/nictune",
          "Directory of the agent's SQLite store (nictune.db). Restart to change.");
ABSL_FLAG(absl::Duration, raw_retention, absl::Hours(1),
          "How long samples are kept at the sampling interval. Restart to change.");
ABSL_FLAG(std::string, downsample, "10s:24h,1m:720h",
          "Coarser history tiers, STEP:RETENTION,...: averages over STEP kept for RETENTION; each "
          "STEP a whole multiple of the one before and of --interval. Restart to change.");
ABSL_FLAG(int64_t, store_cap_mb, 256,
          "Disk cap of the store in MiB; the oldest samples go first. Restart to change.");
ABSL_FLAG(absl::Duration, record_retention, absl::Hours(24 * 30),
          "How long recommendations and events are kept. Restart to change.");
ABSL_FLAG(double, tuner_margin, nictune::tuner::kDefaultMargin,
          "Fraction of the socket fill time kept unused against bursts (u_max = (1-m)*T_fill - "
          "gap). Reloaded on SIGHUP.");
ABSL_FLAG(double, tuner_interrupt_cpu_share, nictune::tuner::PolicyConfig{}.interrupt_cpu_share,
          "Share of one CPU that interrupt and poll overhead may use (the interrupt-rate "
          "ceiling). Reloaded on SIGHUP.");
ABSL_FLAG(uint32_t, metrics_top_sockets, 10,
          "Sockets with their own series on /metrics and in the store (the top ones by drops, "
          "then fill). Restart to change.");
ABSL_FLAG(uint32_t, metrics_drop_series, 64,
          "(reason, proto, device) series of nictune_skb_drops_total on /metrics and in the "
          "store at a time; drops of other label sets count in one series labelled overflow. "
          "Restart to change.");
ABSL_FLAG(bool, metrics_per_cpu, true,
          "CPU time by mode, softirq counts and time, softnet counters and hard-IRQ time per "
          "CPU on /metrics and in the store (about 45 series a CPU); false sums them over CPUs. "
          "Restart to change.");
ABSL_FLAG(bool, metrics_interrupts_per_cpu, false,
          "Interrupt counts and irq handler time per irq and CPU on /metrics and in the store, "
          "instead of per irq summed over CPUs: irqs x CPUs series. Restart to change.");
ABSL_FLAG(std::string, proc_root, "/proc",
          "Root of the proc filesystem to read (/host/proc in a container). Restart to change.");
ABSL_FLAG(std::string, sys_root, "/sys",
          "Root of the sys filesystem to read (/host/sys in a container). Restart to change.");
ABSL_FLAG(bool, bpf, true,
          "Attach the BPF probes (falls back to procfs alone when they cannot load). Restart to "
          "change.");
ABSL_FLAG(uint32_t, truesize_sample_every, 64,
          "Record the truesize of one received packet in this many (per-packet probe cost). "
          "Restart to change.");
ABSL_FLAG(uint32_t, socket_fill_threshold_pct, 50,
          "Track a socket's fill only once it is at least this full (keeps the per-packet probe "
          "cheap). Restart to change.");
ABSL_FLAG(int, topology_refresh_windows, 10,
          "Re-read queue map and coalescing/ring settings every this many intervals (and "
          "whenever the set of devices changes). Restart to change.");
ABSL_FLAG(uint32_t, max_sockets, 1024,
          "Sockets the BPF socket-fill map holds (LRU), and the sockets the sock_diag census "
          "keeps each interval (the most dropping and fullest). Restart to change.");
ABSL_FLAG(std::string, probe_budget,
          nictune::service::ProbeBudgetFlagText(nictune::driver::kDefaultProbeBudget),
          "Share of one CPU that every BPF program together may use, their slots' link "
          "operations included: hooks whose cost fits run whole, the costliest in short slots "
          "spread over each second (0.005 or 0.5%; \"unlimited\" attaches every hook whole). "
          "Restart to change.");

namespace nictune::agent {
namespace {

// The flags a SIGHUP re-reads from the flagfile; the others need a restart.
const std::set<std::string>& ReloadableFlags() {
  static const std::set<std::string> flags = {
      "interval", "window", "mode", "on_exit", "tuner_margin", "tuner_interrupt_cpu_share"};
  return flags;
}

struct Probes {
  std::unique_ptr<driver::ProbeSource> source;
  std::string why_not;
};

// per_packet: whether the per-packet programs start attached. The budget was checked at start.
Probes OpenProbes(bool per_packet) {
  if (!absl::GetFlag(FLAGS_bpf)) return {nullptr, "disabled by --bpf=false"};
  driver::ProbeOptions options;
  options.budget_cpu_share = *service::ParseProbeBudget(absl::GetFlag(FLAGS_probe_budget));
  options.truesize_sample_every = absl::GetFlag(FLAGS_truesize_sample_every);
  options.socket_fill_threshold_pct = absl::GetFlag(FLAGS_socket_fill_threshold_pct);
  options.max_sockets = absl::GetFlag(FLAGS_max_sockets);
  options.per_packet_probes = per_packet;
  auto opened = driver::OpenBpfProbes(options);
  if (!opened.ok()) {
    std::string why = std::string(opened.status().message());
    LogWarning(absl::StrCat("BPF probes unavailable, measuring from procfs/sysfs only: ", why));
    return {nullptr, why};
  }
  std::vector<std::string> waiting;
  for (const auto& p : (*opened)->Status()) {
    if (p.waiting) {
      waiting.push_back(p.name);
    } else if (!p.attached) {
      LogWarning(absl::StrCat("BPF program ", p.name, " disabled: ", p.reason));
    }
  }
  if (!waiting.empty()) {
    LogInfo(absl::StrCat("BPF per-packet probes ", absl::StrJoin(waiting, ", "),
                         ": attached while a socket is under pressure"));
  }
  return {*std::move(opened), ""};
}

// The kernel's per-socket counters in every network namespace under the proc root, as many as
// --max_sockets keeps of the probes' sockets.
std::unique_ptr<driver::SocketCensusSource> OpenSocketCensus(const collect::CollectorPaths& paths) {
  return driver::OpenSockDiagCensus({.max_sockets = absl::GetFlag(FLAGS_max_sockets)}, paths.proc);
}

// Every device's statistics in one rtnetlink dump of the agent's own network namespace, whose
// devices /sys/class/net lists. Another sys root (a container's view of the host's, a copied
// tree) may list another namespace's: its statistics files are read one by one. Null when the
// socket cannot be opened, with a warning: the files are read then too.
std::unique_ptr<driver::LinkStatisticsSource> OpenLinkStatistics(
    const collect::CollectorPaths& paths) {
  if (paths.sys != collect::CollectorPaths{}.sys) return nullptr;
  absl::StatusOr<std::unique_ptr<driver::LinkStatisticsSource>> opened =
      driver::OpenRtnetlinkLinkStatistics();
  if (!opened.ok()) {
    LogWarning(
        absl::StrCat("device statistics will be read from sysfs: ", opened.status().message()));
    return nullptr;
  }
  return *std::move(opened);
}

// The store's options for a sampling interval: startup and SIGHUP check them the same way.
absl::StatusOr<store::StoreOptions> StoreOptionsFromFlags(absl::Duration interval) {
  return service::StoreOptionsFrom({.interval = interval,
                                    .raw_retention = absl::GetFlag(FLAGS_raw_retention),
                                    .downsample = absl::GetFlag(FLAGS_downsample),
                                    .cap_mb = absl::GetFlag(FLAGS_store_cap_mb),
                                    .record_retention = absl::GetFlag(FLAGS_record_retention)});
}

// The reloadable settings as the flags hold them now, checked exactly as a start checks them
// (the store's tiers must suit the interval even though a running store keeps its own).
metrics::SeriesOptions SeriesOptionsFromFlags() {
  return {.max_sockets = absl::GetFlag(FLAGS_metrics_top_sockets),
          .max_drop_series = absl::GetFlag(FLAGS_metrics_drop_series),
          .interrupts_per_cpu = absl::GetFlag(FLAGS_metrics_interrupts_per_cpu),
          .per_cpu = absl::GetFlag(FLAGS_metrics_per_cpu)};
}

absl::StatusOr<service::SamplerSettings> SamplerSettingsFromFlags() {
  service::SamplerSettings settings;
  settings.interval = absl::GetFlag(FLAGS_interval);
  settings.window = absl::GetFlag(FLAGS_window);
  absl::StatusOr<service::Mode> mode = service::ParseMode(absl::GetFlag(FLAGS_mode));
  if (!mode.ok()) return mode.status();
  settings.mode = *mode;
  if (absl::StatusOr<service::OnExit> on_exit = service::ParseOnExit(absl::GetFlag(FLAGS_on_exit));
      !on_exit.ok()) {
    return on_exit.status();
  }
  settings.policy.margin = absl::GetFlag(FLAGS_tuner_margin);
  settings.policy.interrupt_cpu_share = absl::GetFlag(FLAGS_tuner_interrupt_cpu_share);
  settings.series = SeriesOptionsFromFlags();
  if (absl::Status valid = service::ValidateSamplerSettings(settings); !valid.ok()) return valid;
  if (absl::Status valid =
          service::ValidateApplyConfidence(settings, absl::GetFlag(FLAGS_min_confidence));
      !valid.ok()) {
    return valid;
  }
  if (auto store_options = StoreOptionsFromFlags(settings.interval); !store_options.ok()) {
    return store_options.status();
  }
  return settings;
}

service::ServiceConfig ConfigFromFlags(const service::SamplerSettings& settings, absl::Time started,
                                       std::vector<service::EmulatedNicSpec> emulated_nics) {
  return {.version = std::string(Version()),
          .mode = settings.mode,
          .on_exit = *service::ParseOnExit(absl::GetFlag(FLAGS_on_exit)),
          .interval = settings.interval,
          .window = settings.window,
          .started = started,
          .listen = absl::GetFlag(FLAGS_listen),
          .socket_path = absl::GetFlag(FLAGS_socket),
          .emulated_nics = std::move(emulated_nics)};
}

std::optional<int> CheckProbeBudgetFlag() {
  if (auto budget = service::ParseProbeBudget(absl::GetFlag(FLAGS_probe_budget)); !budget.ok()) {
    LogError(budget.status().ToString());
    return 2;
  }
  return std::nullopt;
}

// The names of /sys/class/net's devices, for a topology read before any snapshot; none where
// sysfs cannot be read (the window's sources say why).
std::vector<std::string> SysfsDeviceNames(const collect::CollectorPaths& paths) {
  absl::StatusOr<std::vector<procfs::NetDevice>> devices =
      procfs::ReadNetDevices(paths.sys + "/class/net", {.statistics = false});
  std::vector<std::string> names;
  for (const procfs::NetDevice& d : devices.value_or(std::vector<procfs::NetDevice>{})) {
    names.push_back(d.name);
  }
  return names;
}

int RunOnce(const sigset_t& signals) {
  const absl::Duration interval = absl::GetFlag(FLAGS_interval);
  if (interval < absl::Milliseconds(10) || interval > absl::Hours(1)) {
    LogError(absl::StrCat("--interval=", absl::FormatDuration(interval),
                          ": must be between 10ms and 1h"));
    return 2;
  }
  const int refresh = absl::GetFlag(FLAGS_topology_refresh_windows);
  if (refresh < 1) {
    LogError(absl::StrCat("--topology_refresh_windows=", refresh, ": must be at least 1"));
    return 2;
  }
  if (std::optional<int> bad = CheckProbeBudgetFlag()) return *bad;
  // One window measures everything: there is no tuner window to switch the per-packet probes on.
  Probes probes = OpenProbes(/*per_packet=*/true);
  const collect::CollectorPaths paths{.proc = absl::GetFlag(FLAGS_proc_root),
                                      .sys = absl::GetFlag(FLAGS_sys_root)};
  const std::unique_ptr<driver::SocketCensusSource> sockets = OpenSocketCensus(paths);
  const std::unique_ptr<driver::LinkStatisticsSource> links = OpenLinkStatistics(paths);
  collect::SnapshotCollector collector(paths, probes.source.get(), probes.why_not, sockets.get(),
                                       links.get());
  TopologyReader topology(paths, refresh);
  // The NAPI pollers the topology names are read at both ends of the window; this process runs
  // no emulated NIC.
  collector.WatchNapiPollers(NapiPollersOf(topology.Read(SysfsDeviceNames(paths)).queue_map, {}));
  const timespec deadline = service::AddDuration(service::MonotonicNow(), interval);
  const model::Snapshot before = collector.Collect();
  if (service::WaitUntil(signals, deadline)) return 1;
  auto window = model::ComputeWindow(before, collector.Collect());
  if (!window.ok()) {
    LogError(window.status().ToString());
    return 1;
  }
  if (absl::GetFlag(FLAGS_json)) {
    // One window: its sockets are placed by its own drop records alone.
    const observe::SocketDevices placed = observe::IntervalSocketPlaces().Place(*window);
    std::cout << model::JsonText(WindowReport(*window, topology.Read(DeviceNames(*window)), placed),
                                 2)
              << std::endl;
  } else {
    std::cout << SummarizeWindow(*window) << std::endl;
  }
  return 0;
}

actuate::PendingPolicy PendingPolicyFromFlags() {
  return *service::ParseOnExit(absl::GetFlag(FLAGS_on_exit)) == service::OnExit::kRestore
             ? actuate::PendingPolicy::kRestore
             : actuate::PendingPolicy::kKeep;
}

// Apply mode needs the journal and writable sysctls; without either it refuses to start (or a
// SIGHUP into apply mode is refused), loudly, rather than fail one write at a time.
absl::Status CanApply(const service::SamplerSettings& settings, const service::Tuning* tuning) {
  if (settings.mode != service::Mode::kApply) return absl::OkStatus();
  if (tuning == nullptr) {
    return absl::FailedPreconditionError(
        "--mode=apply: the change journal is not open, and no knob is written without "
        "journaling its original first");
  }
  return service::CheckSysctlsWritable(absl::GetFlag(FLAGS_proc_root));
}

// tuned, bpftune and irqbalance tune what nictune tunes: named in the status and the log, at start
// and at each reload (agent/observe/other_tuners.h).
void NoteOtherTuners(service::ServiceState& state) {
  absl::StatusOr<std::vector<observe::OtherTuner>> tuners =
      observe::FindOtherTuners(absl::GetFlag(FLAGS_proc_root));
  if (!tuners.ok()) {
    LogInfo(absl::StrCat("other tuners not looked for: ", tuners.status().message()));
  } else {
    for (const observe::OtherTuner& t : *tuners) {
      LogWarning(absl::StrCat("another tuner is running: ", t.name, " (pid ", t.pid,
                              "): ", t.overlap, " (docs/deployment.md \"Other tuners\")"));
    }
  }
  state.SetOtherTuners(std::move(tuners));
}

// SIGHUP: re-reads the flagfiles and applies what may change while running. A bad file or
// values that do not work together leave everything as it was.
void Reload(const std::vector<std::string>& flagfiles, service::Sampler& sampler,
            service::ServiceState& state, service::SamplerSettings& settings,
            service::Tuning* tuning, systemd::Notifier& notifier) {
  notifier.Reloading().IgnoreError();
  if (flagfiles.empty()) {
    LogWarning("SIGHUP: started without --flagfile, nothing to reload");
  } else if (auto reload = service::ReloadFlagfiles(flagfiles, ReloadableFlags()); !reload.ok()) {
    LogError(absl::StrCat("SIGHUP: configuration kept: ", reload.status().message()));
  } else if (auto next = SamplerSettingsFromFlags(); !next.ok()) {
    service::RevertFlagChanges(reload->applied);
    LogError(absl::StrCat("SIGHUP: configuration kept: ", next.status().message()));
  } else if (absl::Status can_apply = CanApply(*next, tuning); !can_apply.ok()) {
    service::RevertFlagChanges(reload->applied);
    LogError(absl::StrCat("SIGHUP: configuration kept: ", can_apply.message()));
  } else {
    std::vector<std::string> applied;
    for (const auto& change : reload->applied) {
      applied.push_back(absl::StrCat(change.name, "=", change.new_value));
    }
    LogInfo(absl::StrCat("SIGHUP: reloaded ", absl::StrJoin(flagfiles, ","), ": ",
                         applied.empty() ? "nothing changed" : absl::StrJoin(applied, " ")));
    if (!reload->needs_restart.empty()) {
      LogWarning(absl::StrCat("SIGHUP: these take effect only after a restart: --",
                              absl::StrJoin(reload->needs_restart, " --")));
    }
    settings = *next;
    sampler.Reconfigure(settings);
    if (tuning != nullptr) tuning->SetMode(settings.mode, PendingPolicyFromFlags());
    const service::ServiceConfig config = state.Config();
    state.SetConfig(ConfigFromFlags(settings, config.started, config.emulated_nics));
    NoteOtherTuners(state);
  }
  notifier.Ready().IgnoreError();
}

// --on_exit at SIGTERM: restore puts every original of this boot back before exiting; keep leaves
// them and says so. Nothing to do when nothing is owed (recommend mode never wrote).
int StopTuning(actuate::Actuator* actuator, service::Tuning* tuning) {
  if (actuator == nullptr || tuning == nullptr) return 0;
  const size_t managed = actuator->ManagedKnobs().size();
  if (managed == 0) return 0;
  if (*service::ParseOnExit(absl::GetFlag(FLAGS_on_exit)) == service::OnExit::kKeep) {
    LogInfo(absl::StrCat("--on_exit=keep: ", managed,
                         " knob(s) keep the values nictuned wrote; `nictune restore` (POST "
                         "/api/v1/restore) puts the originals back"));
    return 0;
  }
  const absl::Time started = absl::Now();
  const actuate::RestoreReport report = tuning->RestoreAll(started);
  LogInfo(absl::StrCat("--on_exit=restore: ", report.restored.size(), " original(s) back in ",
                       absl::FormatDuration(absl::Now() - started)));
  return report.error.ok() && report.failed.empty() ? 0 : 1;
}

// What the service holds for its life, taken in this order at start (and released in reverse):
// the state directory first, so that a second agent stops before it touches anything; the
// listening sockets next, so that a port in use stops the start before the journal is resolved;
// then the journal, apart from the history, so that restoring originals needs neither room for
// history nor an intact nictune.db.
struct Held {
  std::optional<store::StateDirLock> state_dir;
  std::optional<http::Listener> tcp;
  std::optional<http::Listener> unix_socket;
  std::optional<std::string> api_token;
  std::unique_ptr<store::Journal> journal;
  std::unique_ptr<store::Store> store;
};

// The state directory's lock. nullopt: go on without journal and history (the reason is logged
// and in status); an exit code: another agent holds it.
std::optional<int> HoldStateDir(Held& held, service::ServiceState& state) {
  const std::string dir = absl::GetFlag(FLAGS_state_dir);
  absl::Status problem = store::EnsureStateDirectory(dir);
  if (problem.ok()) {
    absl::StatusOr<store::StateDirLock> lock = store::StateDirLock::Acquire(dir);
    if (lock.ok()) {
      held.state_dir.emplace(*std::move(lock));
      return std::nullopt;
    }
    if (absl::IsFailedPrecondition(lock.status())) {
      LogError(absl::StrCat("not starting: ", lock.status().message()));
      return 1;
    }
    problem = lock.status();
  }
  LogError(absl::StrCat("state directory unusable, running without change journal or history: ",
                        problem.ToString()));
  state.NoteStoreResult(problem, absl::Now());
  return std::nullopt;
}

// --listen, --socket and --api_token_file, opened before anything else is touched.
absl::Status OpenListeners(Held& held) {
  if (const std::string listen = absl::GetFlag(FLAGS_listen); !listen.empty()) {
    absl::StatusOr<http::ListenAddress> address = http::ParseListenAddress(listen);
    if (!address.ok()) return address.status();
    absl::StatusOr<http::Listener> tcp = http::Listener::Tcp(*address, /*backlog=*/1024);
    if (!tcp.ok()) return tcp.status();
    if (!http::IsLoopback(*address)) {
      LogWarning(absl::StrCat("--listen=", tcp->name(),
                              ": not a loopback address: /metrics and /api/v1 answer anyone who "
                              "can reach it (mutations still need the API token)"));
    }
    held.tcp.emplace(*std::move(tcp));
  }
  if (const std::string token_file = absl::GetFlag(FLAGS_api_token_file); !token_file.empty()) {
    absl::StatusOr<std::string> token = http::ReadTokenFile(token_file);
    if (!token.ok()) return token.status();
    held.api_token = *std::move(token);
  }
  if (const std::string path = absl::GetFlag(FLAGS_socket); !path.empty()) {
    absl::StatusOr<http::Listener> unix_socket = http::Listener::Unix(path, /*backlog=*/64);
    if (!unix_socket.ok()) return unix_socket.status();
    held.unix_socket.emplace(*std::move(unix_socket));
  }
  return absl::OkStatus();
}

// The history store. Without it the agent still measures, serves /metrics and tunes; status
// says why.
std::unique_ptr<store::Store> OpenStore(const store::StoreOptions& options,
                                        service::ServiceState& state) {
  auto opened = store::Store::Open(absl::GetFlag(FLAGS_state_dir), options);
  if (!opened.ok()) {
    LogError(
        absl::StrCat("store unavailable, running without history: ", opened.status().ToString()));
    state.NoteStoreResult(opened.status(), absl::Now());
    return nullptr;
  }
  state.SetStorePath((*opened)->path());
  return *std::move(opened);
}

// The journal, when the state directory is held; without it, no knob can be written.
void OpenJournal(Held& held, service::ServiceState& state) {
  if (!held.state_dir) return;
  absl::StatusOr<std::unique_ptr<store::Journal>> journal =
      store::Journal::Open(absl::GetFlag(FLAGS_state_dir), absl::Seconds(5), absl::Now());
  if (!journal.ok()) {
    LogError(absl::StrCat("change journal unavailable (apply, rollback and restore need it): ",
                          journal.status().ToString()));
    state.NoteStoreResult(journal.status(), absl::Now());
    return;
  }
  held.journal = *std::move(journal);
}

// The knobs the agent may write: each --emulated_nic's first, then the kernel's.
struct Knobs {
  std::vector<std::unique_ptr<driver::emulated::EmulatedNicKnobProvider>> emulated;
  std::vector<std::unique_ptr<service::ControlSocketCounters>> emulated_counters;
  std::map<std::string, service::NicCountersSource*> counters_by_device;
  std::unique_ptr<driver::knobs::KernelKnobProvider> kernel;
  std::vector<driver::knobs::KnobProvider*> providers;
};

Knobs OpenKnobs(const std::vector<service::EmulatedNicSpec>& emulated_nics) {
  Knobs knobs;
  for (const service::EmulatedNicSpec& nic : emulated_nics) {
    knobs.emulated.push_back(
        std::make_unique<driver::emulated::EmulatedNicKnobProvider>(nic.device, nic.socket_path));
    knobs.providers.push_back(knobs.emulated.back().get());
    knobs.emulated_counters.push_back(
        std::make_unique<service::ControlSocketCounters>(nic.socket_path));
    knobs.counters_by_device[nic.device] = knobs.emulated_counters.back().get();
  }
  knobs.kernel = std::make_unique<driver::knobs::KernelKnobProvider>(driver::knobs::KernelPaths{
      .proc_root = absl::GetFlag(FLAGS_proc_root), .sys_root = absl::GetFlag(FLAGS_sys_root)});
  knobs.providers.push_back(knobs.kernel.get());
  return knobs;
}

// The actuator and tuning exist in every mode when the journal is open (restore is allowed in
// any mode); only apply mode ever calls a write other than restore's.
struct Actuation {
  std::unique_ptr<actuate::Actuator> actuator;
  std::unique_ptr<service::Tuning> tuning;
};

Actuation OpenActuation(const Held& held, const Knobs& knobs,
                        const service::SamplerSettings& settings,
                        metrics::TuningSeries& tuning_series,
                        service::KnobChangeWatch& knob_changes) {
  Actuation actuation;
  if (!held.journal) return actuation;
  absl::StatusOr<std::string> boot_id = actuate::ReadBootId();
  if (!boot_id.ok()) {
    LogError(absl::StrCat("boot id: ", boot_id.status().message(),
                          "; apply, rollback and restore are unavailable"));
    return actuation;
  }
  actuation.actuator =
      std::make_unique<actuate::Actuator>(knobs.providers, *held.journal, *boot_id);
  actuation.actuator->SetWriteObserver(&knob_changes);
  actuation.tuning = std::make_unique<service::Tuning>(
      *actuation.actuator, *held.journal,
      tuner::ControllerConfig{.window = settings.window,
                              .guard = absl::GetFlag(FLAGS_guard),
                              .cooldown = absl::GetFlag(FLAGS_cooldown),
                              .min_confidence = absl::GetFlag(FLAGS_min_confidence)},
      settings.mode, &tuning_series);
  return actuation;
}

// Apply mode: the changes a crash of this boot left are restored or taken over before anything
// else is written. False when the journal could not be read.
bool ResolveJournal(const service::SamplerSettings& settings, service::Tuning& tuning) {
  if (settings.mode != service::Mode::kApply) return true;
  const actuate::RestoreReport resolved =
      tuning.ResolveAtStart(PendingPolicyFromFlags(), absl::Now());
  if (!resolved.error.ok()) {
    LogError(absl::StrCat("apply mode: resolving the change journal: ", resolved.error.message()));
    return false;
  }
  LogInfo(absl::StrCat("change journal resolved (--on_exit=", absl::GetFlag(FLAGS_on_exit), "): ",
                       resolved.restored.size(), " restored, ", resolved.kept.size(), " kept, ",
                       resolved.left.size(), " left, ", resolved.failed.size(), " failed"));
  return true;
}

absl::Status AddRoutes(http::Router& router, const metrics::MetricsExporter& exporter,
                       service::ServiceState& state, const Held& held, service::Tuning* tuning) {
  std::vector<absl::Status> added = {
      http::AddMetricsRoute(router, exporter),      http::AddStatusRoute(router, state),
      http::AddHealthRoute(router, state),          http::AddSnapshotRoute(router, state),
      http::AddRecommendationsRoute(router, state), http::AddWhatifRoute(router)};
  if (held.store) added.push_back(http::AddHistoryRoute(router, *held.store));
  if (held.journal) added.push_back(http::AddChangesRoute(router, *held.journal, held.store.get()));
  if (tuning) {
    added.push_back(http::AddApplyRoute(router, *tuning));
    added.push_back(http::AddRollbackRoute(router, *tuning));
    added.push_back(http::AddRestoreRoute(router, *tuning));
  }
  for (const absl::Status& route : added) {
    if (!route.ok()) return route;
  }
  return absl::OkStatus();
}

struct Servers {
  std::unique_ptr<http::HttpServer> tcp;
  std::unique_ptr<http::HttpServer> unix_socket;
};

absl::StatusOr<Servers> StartServers(Held& held, const http::Router& router) {
  Servers servers;
  if (held.tcp) {
    auto started =
        http::HttpServer::Start(*std::move(held.tcp), {.api_token = held.api_token}, router);
    if (!started.ok()) return started.status();
    servers.tcp = *std::move(started);
    held.tcp.reset();
  }
  if (held.unix_socket) {
    auto started = http::HttpServer::Start(*std::move(held.unix_socket), {}, router);
    if (!started.ok()) return started.status();
    servers.unix_socket = *std::move(started);
    held.unix_socket.reset();
  }
  return servers;
}

// The sampling loop until SIGTERM/SIGINT; returns the exit code.
int RunLoop(const sigset_t& signals, const std::vector<std::string>& flagfiles,
            service::Sampler& sampler, service::ServiceState& state,
            service::SamplerSettings& settings, const Actuation& actuation) {
  systemd::Notifier notifier;
  timespec deadline = service::MonotonicNow();
  std::optional<timespec> next_watchdog;
  if (notifier.watchdog_ping_every()) next_watchdog = deadline;
  bool ready = false;
  // A loop held off the CPU misses deadlines again and again: once a minute in the log at most
  // (every missed interval is counted in status and /metrics).
  RateLimitedLog loop_problems;
  sampler.Step(absl::Now());  // the starting snapshot
  service::AdvanceDeadline(deadline, service::MonotonicNow(), settings.interval);
  while (true) {
    const timespec wake =
        next_watchdog && service::Before(*next_watchdog, deadline) ? *next_watchdog : deadline;
    if (const std::optional<int> sig = service::WaitUntil(signals, wake)) {
      if (*sig == SIGHUP) {
        Reload(flagfiles, sampler, state, settings, actuation.tuning.get(), notifier);
        // A shorter interval takes effect now, not at the deadline the old one set.
        const timespec sooner = service::AddDuration(service::MonotonicNow(), settings.interval);
        if (service::Before(sooner, deadline)) deadline = sooner;
        continue;
      }
      LogInfo(absl::StrCat("signal ", *sig, ": stopping"));
      notifier.Stopping().IgnoreError();
      return StopTuning(actuation.actuator.get(), actuation.tuning.get());
    }
    const timespec now = service::MonotonicNow();
    if (next_watchdog && !service::Before(now, *next_watchdog)) {
      if (absl::Status pinged = notifier.Watchdog(); !pinged.ok()) LogWarning(pinged.ToString());
      next_watchdog = service::AddDuration(now, *notifier.watchdog_ping_every());
    }
    if (service::Before(now, deadline)) continue;
    const service::StepOutcome outcome = sampler.Step(absl::Now());
    if (outcome.window_closed && !ready) {
      // Ready once the first tuner window closed: /metrics, status and recommendations all
      // have something to say by then.
      if (absl::Status sent = notifier.Ready(); !sent.ok()) LogWarning(sent.ToString());
      ready = true;
    }
    // The summary copies the whole status: only made when systemd listens.
    if (notifier.enabled()) notifier.Status(sampler.Summary()).IgnoreError();
    const uint64_t missed =
        service::AdvanceDeadline(deadline, service::MonotonicNow(), settings.interval);
    if (missed > 0) {
      sampler.NoteMissed(missed);
      loop_problems.Log(LogLevel::kWarning, "missed intervals",
                        absl::StrCat("sampling fell behind: skipped ", missed, " interval(s) of ",
                                     absl::FormatDuration(settings.interval)),
                        absl::Now());
    }
  }
}

// The flags that only a start reads, checked before anything is opened. An exit code on error.
std::optional<int> CheckStartFlags(const std::vector<std::string>& emulated_nic_args,
                                   std::vector<service::EmulatedNicSpec>& emulated_nics) {
  const int refresh = absl::GetFlag(FLAGS_topology_refresh_windows);
  if (refresh < 1) {
    LogError(absl::StrCat("--topology_refresh_windows=", refresh, ": must be at least 1"));
    return 2;
  }
  absl::StatusOr<std::vector<service::EmulatedNicSpec>> parsed = service::ParseEmulatedNics(
      emulated_nic_args.empty() ? absl::GetFlag(FLAGS_emulated_nic) : emulated_nic_args);
  if (!parsed.ok()) {
    LogError(parsed.status().ToString());
    return 2;
  }
  emulated_nics = *std::move(parsed);
  if (absl::GetFlag(FLAGS_guard) <= absl::ZeroDuration() ||
      absl::GetFlag(FLAGS_cooldown) < absl::ZeroDuration()) {
    LogError("--guard must be positive and --cooldown not negative");
    return 2;
  }
  // --min_confidence is checked with the windows it must be reached in (SamplerSettingsFromFlags).
  if (const std::string listen = absl::GetFlag(FLAGS_listen); !listen.empty()) {
    if (auto address = http::ParseListenAddress(listen); !address.ok()) {
      LogError(address.status().ToString());
      return 2;
    }
  }
  return CheckProbeBudgetFlag();
}

void LogStarted(const service::SamplerSettings& settings, const Held& held, bool bpf,
                const Servers& servers) {
  LogInfo(absl::StrCat(
      "nictuned ", std::string(Version()), " in ", std::string(service::ModeName(settings.mode)),
      " mode, sampling every ", absl::FormatDuration(settings.interval), ", tuner window ",
      absl::FormatDuration(settings.window), bpf ? ", BPF probes attached" : ", procfs only",
      servers.tcp ? absl::StrCat(", HTTP on ", servers.tcp->name())
                  : std::string(", HTTP disabled"),
      held.journal ? absl::StrCat(", journal ", held.journal->path()) : std::string(),
      held.store ? absl::StrCat(", store ", held.store->path()) : std::string()));
}

// --check: the host's knobs and each device's, read, and judged for a write without writing.
std::vector<check::KnobReach> GatherKnobReach(const collect::CollectorPaths& paths,
                                              const std::vector<model::DeviceWindow>& devices) {
  const driver::knobs::KernelPaths kernel{.proc_root = paths.proc, .sys_root = paths.sys};
  const absl::Status net_admin = check::CheckCapabilityHeld(CAP_NET_ADMIN, "CAP_NET_ADMIN",
                                                            "device settings cannot be written");
  std::vector<check::KnobReach> reach{
      check::CheckKnobReach(kernel, driver::knobs::kHostTarget, "", net_admin)};
  for (const model::DeviceWindow& device : devices) {
    reach.push_back(check::CheckKnobReach(kernel, device.name, device.driver, net_admin));
  }
  return reach;
}

// --check: the probes as a start loads them, and one 200 ms window of every source. False when a
// signal ended the window.
bool GatherMeasuringFacts(const sigset_t& signals, const collect::CollectorPaths& paths,
                          check::SupportFacts& facts) {
  // libbpf reads the running kernel's BTF here whatever --sys_root says.
  constexpr char kBtf[] = "/sys/kernel/btf/vmlinux";
  if (access(kBtf, R_OK) != 0) {
    const int error = errno;
    facts.btf = absl::NotFoundError(absl::StrCat(kBtf, ": ", driver::ErrnoText(error),
                                                 ": the probes' CO-RE relocations need it"));
  }
  facts.tracefs = check::CheckTracefs();
  facts.tracepoints = check::CheckTracepoints(facts.tracefs, kBtf);
  facts.capabilities = {
      {"CAP_BPF", check::CheckCapabilityHeld(CAP_BPF, "CAP_BPF", "the probes cannot be loaded")},
      {"CAP_PERFMON", check::CheckCapabilityHeld(CAP_PERFMON, "CAP_PERFMON",
                                                 "the tracepoint programs cannot be attached")},
      {"CAP_NET_ADMIN",
       check::CheckCapabilityHeld(CAP_NET_ADMIN, "CAP_NET_ADMIN",
                                  "other users' sockets and the device settings cannot be read")}};
  Probes probes = OpenProbes(/*per_packet=*/true);
  facts.probes_unavailable = probes.why_not;
  const std::unique_ptr<driver::SocketCensusSource> sockets = OpenSocketCensus(paths);
  const std::unique_ptr<driver::LinkStatisticsSource> links = OpenLinkStatistics(paths);
  collect::SnapshotCollector collector(paths, probes.source.get(), probes.why_not, sockets.get(),
                                       links.get());
  const model::Snapshot before = collector.Collect();
  const timespec deadline = service::AddDuration(service::MonotonicNow(), absl::Milliseconds(200));
  if (service::WaitUntil(signals, deadline)) return false;
  absl::StatusOr<model::Window> window = model::ComputeWindow(before, collector.Collect());
  if (window.ok()) {
    facts.sources = window->sources;
    facts.knobs = GatherKnobReach(paths, window->devices);
  } else {
    facts.window = window.status();
  }
  if (probes.source != nullptr) facts.probes = probes.source->Status();
  return true;
}

// --check in apply mode: the self-tests a start in apply mode makes, and what it would write with.
void GatherApplyFacts(const std::string& proc_root, check::SupportFacts& facts) {
  facts.apply = true;
  facts.sysctls_writable = service::CheckSysctlsWritable(proc_root);
  facts.device_knobs_writable = check::CheckCapabilityHeld(
      CAP_NET_ADMIN, "CAP_NET_ADMIN", "coalescing, rings and channels cannot be set");
}

// --check: what a start takes first, looked at without taking it.
void CheckStartHolds(check::SupportFacts& facts) {
  facts.state_lock = store::StateDirLock::CheckFree(absl::GetFlag(FLAGS_state_dir));
  facts.listen = absl::GetFlag(FLAGS_listen);
  if (!facts.listen.empty()) {
    // The flag parsed at the start of --check (CheckStartFlags).
    absl::StatusOr<http::ListenAddress> address = http::ParseListenAddress(facts.listen);
    facts.listen_free = address.ok() ? http::CheckTcpFree(*address) : address.status();
  }
  facts.socket = absl::GetFlag(FLAGS_socket);
  if (!facts.socket.empty()) facts.socket_free = http::CheckUnixSocketFree(facts.socket);
}

// --check: the flags checked as a start checks them (exit 2), then what works here.
int RunCheck(const sigset_t& signals, const std::vector<std::string>& emulated_nic_args) {
  if (absl::GetFlag(FLAGS_once)) {
    LogError("--check and --once: one at a time");
    return 2;
  }
  absl::StatusOr<service::SamplerSettings> settings = SamplerSettingsFromFlags();
  if (!settings.ok()) {
    LogError(settings.status().ToString());
    return 2;
  }
  std::vector<service::EmulatedNicSpec> emulated_nics;
  if (std::optional<int> bad = CheckStartFlags(emulated_nic_args, emulated_nics)) return *bad;
  const collect::CollectorPaths paths{.proc = absl::GetFlag(FLAGS_proc_root),
                                      .sys = absl::GetFlag(FLAGS_sys_root)};
  check::SupportFacts facts;
  if (utsname host{}; uname(&host) == 0) {
    facts.kernel = absl::StrCat(host.sysname, " ", host.release, " ", host.machine);
  }
  if (!GatherMeasuringFacts(signals, paths, facts)) return 1;
  facts.other_tuners = observe::FindOtherTuners(paths.proc);
  facts.state_dir = check::CheckDirectoryWritable(absl::GetFlag(FLAGS_state_dir));
  CheckStartHolds(facts);
  if (settings->mode == service::Mode::kApply) GatherApplyFacts(paths.proc, facts);
  const std::vector<check::SupportItem> items = check::SupportReport(facts);
  std::cout << check::FormatSupportReport(items,
                                          cli::TerminalWidth(STDOUT_FILENO, std::getenv("COLUMNS")))
            << std::flush;
  return check::SupportExitCode(items);
}

int RunService(const sigset_t& signals, const std::vector<std::string>& flagfiles,
               const std::vector<std::string>& emulated_nic_args) {
  absl::StatusOr<service::SamplerSettings> initial = SamplerSettingsFromFlags();
  if (!initial.ok()) {
    LogError(initial.status().ToString());
    return 2;
  }
  service::SamplerSettings settings = *initial;
  std::vector<service::EmulatedNicSpec> emulated_nics;
  if (std::optional<int> bad = CheckStartFlags(emulated_nic_args, emulated_nics)) return *bad;

  service::ServiceState state(ConfigFromFlags(settings, absl::Now(), emulated_nics));
  Held held;
  if (std::optional<int> refused = HoldStateDir(held, state)) return *refused;
  if (absl::Status listening = OpenListeners(held); !listening.ok()) {
    LogError(absl::StrCat("not starting: ", listening.message()));
    return 1;
  }
  OpenJournal(held, state);
  Knobs knobs = OpenKnobs(emulated_nics);
  metrics::MetricsExporter exporter(SeriesOptionsFromFlags());
  metrics::TuningSeries tuning_series(exporter.registry());
  service::KnobChangeWatch knob_changes;
  Actuation actuation = OpenActuation(held, knobs, settings, tuning_series, knob_changes);
  if (absl::Status can_apply = CanApply(settings, actuation.tuning.get()); !can_apply.ok()) {
    LogError(can_apply.ToString());
    return 1;
  }
  if (actuation.tuning && !ResolveJournal(settings, *actuation.tuning)) return 1;
  // The history comes last: a full disk or a damaged nictune.db costs history, nothing more.
  if (held.state_dir) held.store = OpenStore(*StoreOptionsFromFlags(settings.interval), state);

  // The per-packet probes start off; the PerPacketSwitch turns them on under socket pressure.
  NoteOtherTuners(state);
  Probes probes = OpenProbes(/*per_packet=*/false);
  state.SetBpf(
      {.in_use = probes.source != nullptr,
       .why_not = probes.why_not,
       .programs = probes.source ? probes.source->Status() : std::vector<driver::ProbeStatus>{}});
  const collect::CollectorPaths paths{.proc = absl::GetFlag(FLAGS_proc_root),
                                      .sys = absl::GetFlag(FLAGS_sys_root)};
  const std::unique_ptr<driver::SocketCensusSource> sockets = OpenSocketCensus(paths);
  const std::unique_ptr<driver::LinkStatisticsSource> links = OpenLinkStatistics(paths);
  collect::SnapshotCollector collector(paths, probes.source.get(), probes.why_not, sockets.get(),
                                       links.get());
  TopologyReader topology_reader(paths, absl::GetFlag(FLAGS_topology_refresh_windows));
  service::CollectorSnapshots collector_snapshots(collector);
  service::ReaderTopology topology(topology_reader);
  std::optional<service::StoreHistory> history;
  if (held.store) history.emplace(*held.store);
  service::HostObservations host_observations(paths, topology);
  service::EmulatedObservations observations(host_observations, knobs.counters_by_device);
  observations.Start();
  // Every interval's window carries each emulated NIC's interrupts (a TAP has no irq line).
  service::EmulatedNicSnapshots snapshots(collector_snapshots, knobs.counters_by_device);
  service::HealthMetrics health(exporter.registry());
  std::optional<service::PerPacketSwitch> per_packet;
  if (probes.source) {
    per_packet.emplace(
        *probes.source,
        service::PerPacketSwitchOptions{
            .fill_pressure = absl::GetFlag(FLAGS_socket_fill_threshold_pct) / 100.0});
  }
  service::Sampler sampler({.snapshots = &snapshots,
                            .topology = &topology,
                            .history = history ? &*history : nullptr,
                            .observations = &observations,
                            .probes = probes.source.get(),
                            .tuning = actuation.tuning.get(),
                            .per_packet = per_packet ? &*per_packet : nullptr,
                            .knob_changes = &knob_changes},
                           settings, state, exporter, &health);

  http::Router router;
  if (absl::Status routes = AddRoutes(router, exporter, state, held, actuation.tuning.get());
      !routes.ok()) {
    LogError(routes.ToString());
    return 1;
  }
  absl::StatusOr<Servers> servers = StartServers(held, router);
  if (!servers.ok()) {
    LogError(absl::StrCat("HTTP server: ", servers.status().message()));
    return 1;
  }
  LogStarted(settings, held, probes.source != nullptr, *servers);
  return RunLoop(signals, flagfiles, sampler, state, settings, actuation);
}

}  // namespace
}  // namespace nictune::agent

int main(int argc, char** argv) {
  // --help (agent/service/help_request.h) puts the program's name and a colon in front of this.
  // Each line within 80 columns, as the flags' help is wrapped.
  absl::SetProgramUsageMessage(
      "measures NIC interrupt mitigation and recommends its settings.\n"
      "  nictuned --once --json   one window as JSON\n"
      "  nictuned --check         what works on this host, and what does not\n"
      "  nictuned                 the service: sampling, /metrics, /api/v1, sd_notify\n"
      "  nictuned --flagfile=F    flags from a file, one a line (SIGHUP re-reads it)");
  absl::FlagsUsageConfig usage;
  usage.version_string = [] { return "nictuned " + std::string(nictune::agent::Version()) + "\n"; };
  // abseil's --helpfull names each flag's file as the source tree does ("agent/nictuned_main.cc"),
  // not by the build machine's path.
  usage.normalize_filename = [](absl::string_view file) {
    const size_t last = file.rfind('/');
    const size_t before = last == absl::string_view::npos ? last : file.rfind('/', last - 1);
    return std::string(before == absl::string_view::npos ? file : file.substr(before + 1));
  };
  absl::SetFlagsUsageConfig(usage);
  if (const std::optional<std::string> filter = nictune::service::HelpRequest(argc, argv)) {
    std::cout << nictune::service::HelpText("nictuned", absl::ProgramUsageMessage(),
                                            "agent/nictuned_main.cc", *filter);
    return 0;
  }
  const std::vector<std::string> flagfiles = nictune::service::FlagfilesFromArgs(argc, argv);
  const std::vector<std::string> emulated_nic_args =
      nictune::service::RepeatedFlagValues(argc, argv, "emulated_nic");
  const std::vector<std::string> given(argv, argv + argc);
  if (std::optional<std::string> stray =
          nictune::service::StrayArgumentError(absl::ParseCommandLine(argc, argv), given)) {
    std::cerr << *stray << "\n";
    return 2;
  }
  // Blocked before any thread starts, so that every thread inherits the mask and only the
  // sampling loop's sigtimedwait receives them.
  const sigset_t signals = nictune::service::BlockServiceSignals();
  if (absl::GetFlag(FLAGS_check)) {
    return nictune::agent::RunCheck(signals, emulated_nic_args);
  }
  if (absl::GetFlag(FLAGS_once)) return nictune::agent::RunOnce(signals);
  return nictune::agent::RunService(signals, flagfiles, emulated_nic_args);
}
