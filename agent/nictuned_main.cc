// nictuned: measures interrupt mitigation per queue and CPU and recommends (later: applies) tuning.
// `nictuned --once [--json]` measures one window and prints it; plain `nictuned` is the service:
// the sampling loop feeding /metrics, the store and the tuner, the HTTP server and sd_notify.
#include <signal.h>

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
#include "agent/collect/snapshot_collector.h"
#include "agent/http/apply_route.h"
#include "agent/http/bearer_token.h"
#include "agent/http/changes_route.h"
#include "agent/http/history_route.h"
#include "agent/http/metrics_route.h"
#include "agent/http/recommendations_route.h"
#include "agent/http/restore_route.h"
#include "agent/http/rollback_route.h"
#include "agent/http/server.h"
#include "agent/http/snapshot_route.h"
#include "agent/http/status_route.h"
#include "agent/http/unix_socket_server.h"
#include "agent/http/whatif_route.h"
#include "agent/log.h"
#include "agent/metrics/exporter.h"
#include "agent/metrics/tuning_series.h"
#include "agent/model/window.h"
#include "agent/rate_limited_log.h"
#include "agent/service/apply_self_test.h"
#include "agent/service/deadline_wait.h"
#include "agent/service/emulated_nic_spec.h"
#include "agent/service/emulated_observations.h"
#include "agent/service/emulated_snapshots.h"
#include "agent/service/flagfile_reload.h"
#include "agent/service/health_metrics.h"
#include "agent/service/real_ports.h"
#include "agent/service/sampler.h"
#include "agent/service/service_state.h"
#include "agent/service/store_settings.h"
#include "agent/service/tuning.h"
#include "agent/store/store.h"
#include "agent/systemd/notifier.h"
#include "agent/topology.h"
#include "agent/window_report.h"
#include "agent/window_summary.h"
#include "driver/emulated/knob_provider.h"
#include "driver/knobs/kernel_knob_provider.h"
#include "driver/probe_source.h"
#include "nlohmann/json.hpp"

ABSL_FLAG(bool, once, false, "Measure one window (--interval long), print it and exit.");
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
ABSL_FLAG(uint32_t, max_sockets, 1024, "Sockets the BPF socket-fill map holds (LRU).");

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

// per_packet: whether the per-packet programs start attached.
Probes OpenProbes(bool per_packet) {
  if (!absl::GetFlag(FLAGS_bpf)) return {nullptr, "disabled by --bpf=false"};
  driver::ProbeOptions options;
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
  for (const auto& p : (*opened)->Status()) {
    if (!p.attached) LogWarning(absl::StrCat("BPF program ", p.name, " disabled: ", p.reason));
  }
  return {*std::move(opened), ""};
}

// The reloadable settings as the flags hold them now.
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
  settings.series.max_sockets = absl::GetFlag(FLAGS_metrics_top_sockets);
  if (absl::Status valid = service::ValidateSamplerSettings(settings); !valid.ok()) return valid;
  return settings;
}

service::ServiceConfig ConfigFromFlags(const service::SamplerSettings& settings,
                                       absl::Time started) {
  return {.version = std::string(Version()),
          .mode = settings.mode,
          .on_exit = *service::ParseOnExit(absl::GetFlag(FLAGS_on_exit)),
          .interval = settings.interval,
          .window = settings.window,
          .started = started,
          .listen = absl::GetFlag(FLAGS_listen),
          .socket_path = absl::GetFlag(FLAGS_socket)};
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
  // One window measures everything: there is no tuner window to switch the per-packet probes on.
  Probes probes = OpenProbes(/*per_packet=*/true);
  const collect::CollectorPaths paths{.proc = absl::GetFlag(FLAGS_proc_root),
                                      .sys = absl::GetFlag(FLAGS_sys_root)};
  collect::SnapshotCollector collector(paths, probes.source.get(), probes.why_not);
  TopologyReader topology(paths, refresh);
  const timespec deadline = service::AddDuration(service::MonotonicNow(), interval);
  const model::Snapshot before = collector.Collect();
  if (service::WaitUntil(signals, deadline)) return 1;
  auto window = model::ComputeWindow(before, collector.Collect());
  if (!window.ok()) {
    LogError(window.status().ToString());
    return 1;
  }
  if (absl::GetFlag(FLAGS_json)) {
    std::cout << WindowReport(*window, topology.Read(DeviceNames(*window))).dump(2) << std::endl;
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

// Apply mode needs the journal (the store) and writable sysctls; without either it refuses to
// start (or a SIGHUP into apply mode is refused), loudly, rather than fail one write at a time.
absl::Status CanApply(const service::SamplerSettings& settings, const service::Tuning* tuning) {
  if (settings.mode != service::Mode::kApply) return absl::OkStatus();
  if (tuning == nullptr) {
    return absl::FailedPreconditionError(
        "--mode=apply: the store (the change journal) is not open, and no knob is written "
        "without journaling its original first");
  }
  return service::CheckSysctlsWritable(absl::GetFlag(FLAGS_proc_root));
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
    state.SetConfig(ConfigFromFlags(settings, state.Status().config.started));
  }
  notifier.Ready().IgnoreError();
}

std::unique_ptr<store::Store> OpenStore(const service::SamplerSettings& settings,
                                        service::ServiceState& state, bool& bad_flags) {
  const service::StoreSettings store_settings{
      .interval = settings.interval,
      .raw_retention = absl::GetFlag(FLAGS_raw_retention),
      .downsample = absl::GetFlag(FLAGS_downsample),
      .cap_mb = absl::GetFlag(FLAGS_store_cap_mb),
      .record_retention = absl::GetFlag(FLAGS_record_retention)};
  absl::StatusOr<store::StoreOptions> options = service::StoreOptionsFrom(store_settings);
  if (!options.ok()) {
    LogError(options.status().ToString());
    bad_flags = true;
    return nullptr;
  }
  auto opened = store::Store::Open(absl::GetFlag(FLAGS_state_dir), *options);
  if (!opened.ok()) {
    // Without a store the agent still measures and serves /metrics; status says why.
    LogError(
        absl::StrCat("store unavailable, running without history: ", opened.status().ToString()));
    state.NoteStoreResult(opened.status(), absl::Now());
    return nullptr;
  }
  state.SetStorePath((*opened)->path());
  return *std::move(opened);
}

absl::StatusOr<std::unique_ptr<http::HttpServer>> StartHttp(http::Router router) {
  const std::string listen = absl::GetFlag(FLAGS_listen);
  if (listen.empty()) return nullptr;
  http::ServerOptions options{.listen = listen};
  if (const std::string token_file = absl::GetFlag(FLAGS_api_token_file); !token_file.empty()) {
    absl::StatusOr<std::string> token = http::ReadTokenFile(token_file);
    if (!token.ok()) return token.status();
    options.api_token = *token;
  }
  return http::HttpServer::Start(std::move(options), std::move(router));
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

int RunService(const sigset_t& signals, const std::vector<std::string>& flagfiles,
               const std::vector<std::string>& emulated_nic_args) {
  absl::StatusOr<service::SamplerSettings> initial = SamplerSettingsFromFlags();
  if (!initial.ok()) {
    LogError(initial.status().ToString());
    return 2;
  }
  service::SamplerSettings settings = *initial;
  const int refresh = absl::GetFlag(FLAGS_topology_refresh_windows);
  if (refresh < 1) {
    LogError(absl::StrCat("--topology_refresh_windows=", refresh, ": must be at least 1"));
    return 2;
  }
  absl::StatusOr<std::vector<service::EmulatedNicSpec>> emulated_nics = service::ParseEmulatedNics(
      emulated_nic_args.empty() ? absl::GetFlag(FLAGS_emulated_nic) : emulated_nic_args);
  if (!emulated_nics.ok()) {
    LogError(emulated_nics.status().ToString());
    return 2;
  }
  if (absl::GetFlag(FLAGS_guard) <= absl::ZeroDuration() ||
      absl::GetFlag(FLAGS_cooldown) < absl::ZeroDuration()) {
    LogError("--guard must be positive and --cooldown not negative");
    return 2;
  }

  service::ServiceState state(ConfigFromFlags(settings, absl::Now()));
  bool bad_flags = false;
  std::unique_ptr<store::Store> store = OpenStore(settings, state, bad_flags);
  if (bad_flags) return 2;

  // The per-packet probes start off; the PerPacketSwitch turns them on under socket pressure.
  Probes probes = OpenProbes(/*per_packet=*/false);
  state.SetBpf(
      {.in_use = probes.source != nullptr,
       .why_not = probes.why_not,
       .programs = probes.source ? probes.source->Status() : std::vector<driver::ProbeStatus>{}});
  const collect::CollectorPaths paths{.proc = absl::GetFlag(FLAGS_proc_root),
                                      .sys = absl::GetFlag(FLAGS_sys_root)};
  collect::SnapshotCollector collector(paths, probes.source.get(), probes.why_not);
  TopologyReader topology_reader(paths, refresh);
  service::CollectorSnapshots collector_snapshots(collector);
  service::ReaderTopology topology(topology_reader);
  std::optional<service::StoreHistory> history;
  if (store) history.emplace(*store);
  service::HostObservations host_observations(paths, topology);
  // Each emulated NIC's knobs (asked before the kernel's provider, which does not know its
  // device) and counters.
  std::vector<std::unique_ptr<driver::emulated::EmulatedNicKnobProvider>> emulated_knobs;
  std::vector<std::unique_ptr<service::ControlSocketCounters>> emulated_counters;
  std::map<std::string, service::NicCountersSource*> counters_by_device;
  std::vector<driver::knobs::KnobProvider*> providers;
  for (const service::EmulatedNicSpec& nic : *emulated_nics) {
    emulated_knobs.push_back(
        std::make_unique<driver::emulated::EmulatedNicKnobProvider>(nic.device, nic.socket_path));
    providers.push_back(emulated_knobs.back().get());
    emulated_counters.push_back(std::make_unique<service::ControlSocketCounters>(nic.socket_path));
    counters_by_device[nic.device] = emulated_counters.back().get();
  }
  driver::knobs::KernelKnobProvider kernel_knobs(
      {.proc_root = absl::GetFlag(FLAGS_proc_root), .sys_root = absl::GetFlag(FLAGS_sys_root)});
  providers.push_back(&kernel_knobs);
  service::EmulatedObservations observations(host_observations, counters_by_device);
  observations.Start();
  // Every interval's window carries each emulated NIC's interrupts (a TAP has no irq line).
  service::EmulatedNicSnapshots snapshots(collector_snapshots, counters_by_device);

  metrics::MetricsExporter exporter(
      metrics::ExporterOptions{.max_sockets = absl::GetFlag(FLAGS_metrics_top_sockets)});
  metrics::TuningSeries tuning_series(exporter.registry());
  // The actuator and tuning exist in every mode (restore is allowed in any mode); only apply
  // mode ever calls a write other than restore's.
  std::unique_ptr<actuate::Actuator> actuator;
  std::unique_ptr<service::Tuning> tuning;
  if (store) {
    absl::StatusOr<std::string> boot_id = actuate::ReadBootId();
    if (!boot_id.ok()) {
      LogError(absl::StrCat("boot id: ", boot_id.status().message(),
                            "; apply, rollback and restore are unavailable"));
    } else {
      actuator = std::make_unique<actuate::Actuator>(providers, *store, *boot_id);
      tuning = std::make_unique<service::Tuning>(
          *actuator, *store,
          tuner::ControllerConfig{.window = settings.window,
                                  .guard = absl::GetFlag(FLAGS_guard),
                                  .cooldown = absl::GetFlag(FLAGS_cooldown)},
          settings.mode, &tuning_series);
    }
  }
  if (absl::Status can_apply = CanApply(settings, tuning.get()); !can_apply.ok()) {
    LogError(can_apply.ToString());
    return 1;
  }
  if (settings.mode == service::Mode::kApply) {
    const actuate::RestoreReport resolved =
        tuning->ResolveAtStart(PendingPolicyFromFlags(), absl::Now());
    if (!resolved.error.ok()) {
      LogError(
          absl::StrCat("apply mode: resolving the change journal: ", resolved.error.message()));
      return 1;
    }
    LogInfo(absl::StrCat("change journal resolved (--on_exit=", absl::GetFlag(FLAGS_on_exit), "): ",
                         resolved.restored.size(), " restored, ", resolved.kept.size(), " kept, ",
                         resolved.left.size(), " left, ", resolved.failed.size(), " failed"));
  }
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
                            .tuning = tuning.get(),
                            .per_packet = per_packet ? &*per_packet : nullptr},
                           settings, state, exporter, &health);

  http::Router router;
  std::vector<absl::Status> added = {
      http::AddMetricsRoute(router, exporter), http::AddStatusRoute(router, state),
      http::AddSnapshotRoute(router, state), http::AddRecommendationsRoute(router, state),
      http::AddWhatifRoute(router)};
  if (store) {
    added.push_back(http::AddHistoryRoute(router, *store));
    added.push_back(http::AddChangesRoute(router, *store));
  }
  if (tuning) {
    added.push_back(http::AddApplyRoute(router, *tuning));
    added.push_back(http::AddRollbackRoute(router, *tuning));
    added.push_back(http::AddRestoreRoute(router, *tuning));
  }
  for (const absl::Status& route : added) {
    if (!route.ok()) {
      LogError(route.ToString());
      return 1;
    }
  }
  absl::StatusOr<std::unique_ptr<http::HttpServer>> server = StartHttp(router);
  if (!server.ok()) {
    LogError(absl::StrCat("HTTP server: ", server.status().message()));
    return 1;
  }

  std::unique_ptr<http::UnixSocketServer> cli_socket;
  if (const std::string path = absl::GetFlag(FLAGS_socket); !path.empty()) {
    auto started = http::UnixSocketServer::Start({.path = path}, router);
    if (!started.ok()) {
      LogError(absl::StrCat("CLI socket: ", started.status().message()));
      return 1;
    }
    cli_socket = *std::move(started);
  }

  systemd::Notifier notifier;
  LogInfo(absl::StrCat("nictuned ", std::string(Version()), " in ",
                       std::string(service::ModeName(settings.mode)), " mode, sampling every ",
                       absl::FormatDuration(settings.interval), ", tuner window ",
                       absl::FormatDuration(settings.window),
                       probes.source ? ", BPF probes attached" : ", procfs only",
                       *server ? absl::StrCat(", HTTP on ", absl::GetFlag(FLAGS_listen))
                               : std::string(", HTTP disabled"),
                       store ? absl::StrCat(", store ", store->path()) : std::string()));

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
        Reload(flagfiles, sampler, state, settings, tuning.get(), notifier);
        continue;
      }
      LogInfo(absl::StrCat("signal ", *sig, ": stopping"));
      notifier.Stopping().IgnoreError();
      return StopTuning(actuator.get(), tuning.get());
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

}  // namespace
}  // namespace nictune::agent

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "nictuned: measures NIC interrupt mitigation (interrupts, NAPI polls, softirq time, socket "
      "fill and drops) per queue and CPU, and recommends coalescing, budget and buffer "
      "settings.\n  nictuned --once --json   one window as JSON\n  nictuned                 the "
      "service: sampling loop, /metrics and /api/v1 on --listen, sd_notify\n  nictuned "
      "--flagfile=/etc/nictune/nictuned.flags   flags from a file (SIGHUP re-reads it)");
  absl::FlagsUsageConfig usage;
  usage.version_string = [] { return std::string(nictune::agent::Version()) + "\n"; };
  absl::SetFlagsUsageConfig(usage);
  const std::vector<std::string> flagfiles = nictune::service::FlagfilesFromArgs(argc, argv);
  const std::vector<std::string> emulated_nic_args =
      nictune::service::RepeatedFlagValues(argc, argv, "emulated_nic");
  absl::ParseCommandLine(argc, argv);
  // Blocked before any thread starts, so that every thread inherits the mask and only the
  // sampling loop's sigtimedwait receives them.
  const sigset_t signals = nictune::service::BlockServiceSignals();
  if (absl::GetFlag(FLAGS_once)) return nictune::agent::RunOnce(signals);
  return nictune::agent::RunService(signals, flagfiles, emulated_nic_args);
}
