// SPDX-License-Identifier: Apache-2.0
#include "agent/metrics/figure_catalog.h"

#include <algorithm>
#include <iterator>
#include <string_view>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "agent/metrics/family_names.h"
#include "agent/metrics/knob_value_unit.h"
#include "agent/metrics/label_values.h"
#include "agent/metrics/protocol_counters.h"
#include "agent/metrics/series_shapes.h"
#include "driver/link_statistics.h"

namespace nictune::metrics {
namespace {

// The labels of every top socket's series: its cookie, and what names it to a person.
std::vector<FigureLabel> TopSocketLabels() {
  return {{"socket", LabelBound::kTopSockets},
          {"proto", LabelBound::kFollows},
          {"port", LabelBound::kFollows},
          {"netns", LabelBound::kFollows}};
}

// The families spelled once in family_names.h.
std::vector<Figure> NamedFigures() {
  return {
      {family::kBpfMapCapacityEntries,
       FigureKind::kGauge,
       "entries",
       "Keys the probes' BPF hash map can hold (max_entries).",
       {{"map", LabelBound::kFixedSet, kBpfMaps}}},
      {family::kBpfMapEntries,
       FigureKind::kGauge,
       "entries",
       "Keys the probes' BPF hash map holds after the last read's pruning.",
       {{"map", LabelBound::kFixedSet, kBpfMaps}}},
      {family::kBpfMapNoRoomTotal,
       FigureKind::kCounter,
       "",
       "Events that found the map full; still counted, without their attribution "
       "(nictune_skb_drops_total{device=\"unattributed\"}).",
       {{"map", LabelBound::kFixedSet, kBpfMaps}}},
      {family::kBpfMapPrunedKeysTotal,
       FigureKind::kCounter,
       "keys",
       "Idle keys pruned from the map; their counts stay in the totals.",
       {{"map", LabelBound::kFixedSet, kBpfMaps}}},
      {family::kBpfProgramRunSecondsTotal,
       FigureKind::kCounter,
       "seconds",
       "Run time of each nictune BPF program while kernel.bpf_stats_enabled was 1 (bpf program "
       "info run_time_ns).",
       {{"program", LabelBound::kFixedSet, kBpfPrograms}}},
      {family::kBpfProgramRunsTotal,
       FigureKind::kCounter,
       "",
       "Runs of each nictune BPF program while kernel.bpf_stats_enabled was 1 (bpf program info "
       "run_cnt).",
       {{"program", LabelBound::kFixedSet, kBpfPrograms}}},
      {family::kBuildInfo,
       FigureKind::kGauge,
       "",
       "1, labelled with the version of the running nictuned.",
       {{"version", LabelBound::kFixedSet, 1}}},
      {family::kChangesTotal,
       FigureKind::kCounter,
       "",
       "Actuator changes by result: applied, kept (guard window passed), rolled_back or failed.",
       {{"knob", LabelBound::kFixedSet, kKnobs},
        {"result", LabelBound::kFixedSet, kChangeResults}}},
      {family::kCpuSecondsTotal,
       FigureKind::kCounter,
       "seconds",
       "CPU time per mode since boot, per CPU with --metrics_per_cpu (procfs /proc/stat); as "
       "node_cpu_seconds_total: its rate is the share of the CPU in each mode.",
       {{"mode", LabelBound::kFixedSet, std::size(kCpuModes)}, {"cpu", LabelBound::kCpusIfPerCpu}},
       {},
       SeriesCap::kNone,
       "/cpus/*/split/*"},
      {family::kEmulatedNicDeliveredPacketsTotal,
       FigureKind::kCounter,
       "packets",
       "Frames an emulated NIC's TAP accepted since its traffic started (emulated NIC counters "
       "over its control socket).",
       {{"device", LabelBound::kEmulatedNics}},
       {},
       SeriesCap::kNone,
       "/emulated_nics/*/delivered_per_s"},
      {family::kEmulatedNicInterruptsTotal,
       FigureKind::kCounter,
       "",
       "Interrupts an emulated NIC raised since its traffic started (emulated NIC counters over "
       "its control socket, driver/emulated): one burst into its TAP each; a TAP has no "
       "/proc/interrupts line.",
       {{"device", LabelBound::kEmulatedNics}},
       {},
       SeriesCap::kNone,
       "/emulated_nics/*/interrupts_per_s"},
      {family::kEmulatedNicMissedPacketsTotal,
       FigureKind::kCounter,
       "packets",
       "Frames an emulated NIC dropped because its rx ring was full (emulated NIC counters over "
       "its control socket; rx_missed_errors on a real NIC).",
       {{"device", LabelBound::kEmulatedNics}},
       {},
       SeriesCap::kNone,
       "/emulated_nics/*/missed_per_s"},
      {family::kHardirqSecondsTotal,
       FigureKind::kCounter,
       "seconds",
       "Time in hard irq handlers per CPU, every irq together (bpf irq:irq_handler_entry to "
       "irq:irq_handler_exit).",
       {{"cpu", LabelBound::kCpusIfPerCpu}},
       {},
       SeriesCap::kNone,
       "/cpus/*/time_share/hardirq"},
      {family::kInterruptsTotal,
       FigureKind::kCounter,
       "",
       "Interrupts per numbered irq line since boot, per CPU with --metrics_interrupts_per_cpu "
       "(procfs /proc/interrupts); as node_interrupts_total, irq is its type and devices the "
       "handlers.",
       {{"irq", LabelBound::kIrqs},
        {"devices", LabelBound::kFollows},
        {"chip", LabelBound::kFollows},
        {"cpu", LabelBound::kCpusIfInterruptsPerCpu}},
       {},
       SeriesCap::kNone,
       "/irqs/*/per_s"},
      {family::kIrqHandlerCallsTotal,
       FigureKind::kCounter,
       "",
       "Hard irq handler runs per irq (and CPU with --metrics_interrupts_per_cpu) since the probes"
       " attached (bpf irq:irq_handler_entry).",
       {{"irq", LabelBound::kIrqs}, {"cpu", LabelBound::kCpusIfInterruptsPerCpu}}},
      {family::kIrqHandlerSecondsTotal,
       FigureKind::kCounter,
       "seconds",
       "Time in hard irq handlers per irq (and CPU with --metrics_interrupts_per_cpu) (bpf "
       "irq:irq_handler_entry to irq:irq_handler_exit).",
       {{"irq", LabelBound::kIrqs}, {"cpu", LabelBound::kCpusIfInterruptsPerCpu}},
       {},
       SeriesCap::kNone,
       "/irqs/*/handler/time_share"},
      {family::kKnobMode,
       FigureKind::kGauge,
       "",
       "The apply-mode controller's mode of a knob: 1, labelled with the mode it is in (idle, "
       "guarding, parked, released); one series per knob and target.",
       {{"knob", LabelBound::kKnobTargets},
        {"target", LabelBound::kFollows},
        {"mode", LabelBound::kFollows}}},
      {family::kMissedIntervalsTotal,
       FigureKind::kCounter,
       "",
       "Sampling deadlines that passed before the loop got to them.",
       {}},
      {family::kNapiBudgetExhaustedTotal,
       FigureKind::kCounter,
       "",
       "NAPI polls that used their whole budget, so the instance stayed scheduled (bpf "
       "napi:napi_poll).",
       {{"napi_id", LabelBound::kNapis}, {"device", LabelBound::kFollows}},
       {},
       SeriesCap::kNone,
       "/napis/*/budget_exhausted_fraction"},
      {family::kNapiBudgetPackets,
       FigureKind::kGauge,
       "packets",
       "Budget the last NAPI poll was given (bpf napi:napi_poll).",
       {{"napi_id", LabelBound::kNapis}, {"device", LabelBound::kFollows}},
       {},
       SeriesCap::kNone,
       "/napis/*/budget"},
      {family::kNapiPacketsTotal,
       FigureKind::kCounter,
       "packets",
       "Receive work (packets) the NAPI polls reported (bpf napi:napi_poll).",
       {{"napi_id", LabelBound::kNapis}, {"device", LabelBound::kFollows}},
       {},
       SeriesCap::kNone,
       "/napis/*/work_per_s"},
      {family::kNapiPollerCpuSecondsTotal,
       FigureKind::kCounter,
       "seconds",
       "CPU time of each threaded NAPI poller, the napi/DEV-ID kernel thread that polls its "
       "instance while the device's sysfs threaded is on (procfs /proc/PID/schedstat): its rate is "
       "the share of a CPU the polls took, which /proc/stat counts as system time, not softirq. An "
       "--emulated_nic's pollers are one series per NIC, every other network namespace's one "
       "series, device=\"other_namespaces\".",
       {{"napi_id", LabelBound::kNapiPollers}, {"device", LabelBound::kFollows}},
       {},
       SeriesCap::kNone,
       "/napi_pollers/*/cpu_share"},
      {family::kNapiPollWorkPackets,
       FigureKind::kHistogram,
       "packets",
       "Packets of work per NAPI poll (bpf napi:napi_poll).",
       {{"napi_id", LabelBound::kNapis}, {"device", LabelBound::kFollows}},
       kNapiWorkBoundaries,
       SeriesCap::kNone,
       "/napis/*/work_histogram"},
      {family::kNapiPollsTotal,
       FigureKind::kCounter,
       "",
       "NAPI polls per NAPI instance (bpf napi:napi_poll).",
       {{"napi_id", LabelBound::kNapis}, {"device", LabelBound::kFollows}},
       {},
       SeriesCap::kNone,
       "/napis/*/polls_per_s"},
      {family::kNapiTxCompletionsTotal,
       FigureKind::kCounter,
       "",
       "Transmitted skbs freed inside the instance's receive polls, the tx share of poll work (bpf"
       " skb:consume_skb).",
       {{"napi_id", LabelBound::kNapis}, {"device", LabelBound::kFollows}},
       {},
       SeriesCap::kNone,
       "/napis/*/tx_completions_per_s"},
      {family::kProbeAttachedSecondsTotal,
       FigureKind::kCounter,
       "seconds",
       "Time the hook's programs were attached.",
       {{"hook", LabelBound::kFixedSet, kProbeHooks}}},
      {family::kProbeBudgetCpuRatio,
       FigureKind::kGauge,
       "ratio",
       "The probe budget: the share of one CPU every BPF program together may use (--probe_budget;"
       " 0: no limit).",
       {},
       {},
       SeriesCap::kNone,
       "/probe_budget/cpu_share"},
      {family::kProbeCalibrationsTotal,
       FigureKind::kCounter,
       "",
       "Windows run with the kernel's BPF statistics on, to measure each hook's cost per event.",
       {}},
      {family::kProbeCostSecondsPerEvent,
       FigureKind::kGauge,
       "seconds",
       "What one event of the hook costs, dispatch and program (measured on this host once "
       "calibrated).",
       {{"hook", LabelBound::kFixedSet, kProbeHooks}},
       {},
       SeriesCap::kNone,
       "/probes/*/cost_ns_per_event"},
      {family::kProbeCoverageRatio,
       FigureKind::kGauge,
       "ratio",
       "Share of the last interval the hook's programs were attached: 1 when its figures saw every"
       " event, less when they are estimates scaled from a sample.",
       {{"hook", LabelBound::kFixedSet, kProbeHooks}},
       {},
       SeriesCap::kNone,
       "/probes/*/coverage"},
      {family::kProbeEventsTotal,
       FigureKind::kCounter,
       "",
       "Events the hook's programs saw while attached.",
       {{"hook", LabelBound::kFixedSet, kProbeHooks}},
       {},
       SeriesCap::kNone,
       "/probes/*/events_per_s"},
      {family::kProbeLinkCpuSecondsTotal,
       FigureKind::kCounter,
       "seconds",
       "CPU time the agent spent attaching and detaching the hook's programs for its slots (the "
       "kernel patches the tracepoint and waits for every CPU).",
       {{"hook", LabelBound::kFixedSet, kProbeHooks}}},
      {family::kProbeOverBudget,
       FigureKind::kGauge,
       "",
       "1 while even the shortest slots cost more than the budget.",
       {},
       {},
       SeriesCap::kNone,
       "/probe_budget/over_budget"},
      {family::kProbePlannedCpuRatio,
       FigureKind::kGauge,
       "ratio",
       "What the probe budget's current plan costs, as a share of one CPU (the slots' link "
       "operations included).",
       {},
       {},
       SeriesCap::kNone,
       "/probe_budget/planned_cpu_share"},
      {family::kProbeSlotsTotal,
       FigureKind::kCounter,
       "",
       "Times the hook began to measure: its slots (by links or by its gate) and its returns to "
       "whole.",
       {{"hook", LabelBound::kFixedSet, kProbeHooks}}},
      {family::kRecommendations,
       FigureKind::kGauge,
       "",
       "Recommendations of the latest tuner window.",
       {}},
      {family::kRxTruesizeBytes,
       FigureKind::kHistogram,
       "bytes",
       "skb truesize of received packets per device, a sample of one packet in the probe's "
       "sample_every (bpf net:netif_receive_skb).",
       {{"device", LabelBound::kDevicesAndOtherNamespaces}},
       TruesizeBoundaries(),
       SeriesCap::kNone,
       "/truesize/*/log2_buckets"},
      {family::kSampleFailuresTotal,
       FigureKind::kCounter,
       "",
       "Sampling intervals whose window could not be computed (clock or counter trouble).",
       {}},
      {family::kSamplesTotal,
       FigureKind::kCounter,
       "",
       "Sampling intervals measured into a window.",
       {}},
      {family::kSamplingDurationSeconds,
       FigureKind::kGauge,
       "seconds",
       "Time the last sample took to read every source (procfs, sysfs and bpf maps).",
       {}},
      {family::kSamplingIntervalSeconds,
       FigureKind::kGauge,
       "seconds",
       "The configured sampling interval.",
       {}},
      {family::kSkbDropsTotal,
       FigureKind::kCounter,
       "",
       "Packets freed as drops by kernel drop reason, protocol and device (other_namespaces: every"
       " device of another network namespace; unattributed: drops that found the probe's key map "
       "full; overflow: drops whose labels came while --metrics_drop_series sets were in use), "
       "every namespace's drops (bpf skb:kfree_skb).",
       {{"reason", LabelBound::kDropReasons},
        {"proto", LabelBound::kDropAttributions},
        {"device", LabelBound::kFollows}},
       {},
       SeriesCap::kMaxDropSeries,
       "/drops/*/per_s"},
      {family::kSocketDropsTotal,
       FigureKind::kCounter,
       "",
       "Packets the socket dropped since it was created, the kernel's own count (sk_drops over "
       "sock_diag), top sockets only.",
       TopSocketLabels(),
       {},
       SeriesCap::kNone,
       "/sockets/*/kernel_drops"},
      {family::kSocketEnqueuesTotal,
       FigureKind::kCounter,
       "",
       "Packets queued to the socket, top sockets only (bpf sock:sk_data_ready, above the fill "
       "threshold).",
       TopSocketLabels(),
       {},
       SeriesCap::kNone,
       "/sockets/*/enqueues_per_s"},
      {family::kSocketRcvqueueFullTotal,
       FigureKind::kCounter,
       "",
       "Packets refused because the receive buffer was full, top sockets only (bpf "
       "sock:sock_rcvqueue_full).",
       TopSocketLabels(),
       {},
       SeriesCap::kNone,
       "/sockets/*/rcvqueue_full"},
      {family::kSocketReceiveBufferBytes,
       FigureKind::kGauge,
       "bytes",
       "sk_rcvbuf at the socket's last event, top sockets only (bpf).",
       TopSocketLabels(),
       {},
       SeriesCap::kNone,
       "/sockets/*/rcvbuf"},
      {family::kSocketDrainGapSeconds,
       FigureKind::kGauge,
       "seconds",
       "The longest time the socket's data waited for its reader within the last window, ended "
       "by a read or still waiting at its end, top sockets only (bpf sock:sk_data_ready to "
       "sock:sock_recv_length, kernel 6.4 on); 0 when the probe saw no wait, absent when it "
       "timed no read. While the probe budget samples the probe, waits longer than its slot are "
       "not seen.",
       TopSocketLabels(),
       {},
       SeriesCap::kNone,
       "/sockets/*/longest_drain_wait_s"},
      {family::kSocketReceiveBufferPeakFillRatio,
       FigureKind::kGauge,
       "ratio",
       "Peak rmem_alloc / sk_rcvbuf within the last window, top sockets only (bpf "
       "sock:sk_data_ready).",
       TopSocketLabels(),
       {},
       SeriesCap::kNone,
       "/sockets/*/peak_fill"},
      {family::kSocketReceiveQueueBytes,
       FigureKind::kGauge,
       "bytes",
       "Bytes queued for the socket's reader, as the kernel charged them (rmem_alloc over "
       "sock_diag), top sockets only.",
       TopSocketLabels(),
       {},
       SeriesCap::kNone,
       "/sockets/*/rmem_alloc"},
      {family::kSocketTruesizeMeanBytes,
       FigureKind::kGauge,
       "bytes",
       "Mean bytes charged per queued packet within the last window, top sockets only (bpf "
       "sock:sk_data_ready).",
       TopSocketLabels(),
       {},
       SeriesCap::kNone,
       "/sockets/*/mean_truesize"},
      {family::kSocketUdpQueueFailuresTotal,
       FigureKind::kCounter,
       "",
       "UDP packets the socket failed to queue, top sockets only (bpf udp:udp_fail_queue_rcv_skb).",
       TopSocketLabels(),
       {},
       SeriesCap::kNone,
       "/sockets/*/udp_queue_failures"},
      {family::kSoftirqRaisedTotal,
       FigureKind::kCounter,
       "",
       "Softirqs raised per vector and CPU (bpf irq:softirq_raise).",
       {{"vector", LabelBound::kFixedSet, kSoftirqVectors}, {"cpu", LabelBound::kCpusIfPerCpu}}},
      {family::kSoftirqSecondsTotal,
       FigureKind::kCounter,
       "seconds",
       "Time in softirq handlers per vector and CPU since the agent started, each interval's "
       "estimate added up (bpf irq:softirq_entry to irq:softirq_exit; when softirqs are frequent "
       "timed in short slots, scaled to the count of /proc/softirqs).",
       {{"vector", LabelBound::kFixedSet, kSoftirqVectors}, {"cpu", LabelBound::kCpusIfPerCpu}},
       {},
       SeriesCap::kNone,
       "/cpus/*/time_share/softirq"},
      {family::kSoftirqUntimedSecondsTotal,
       FigureKind::kCounter,
       "seconds",
       "Time softirqs were counted but not timed since the probes attached: between the slots of "
       "duty-cycled timing (bpf irq:softirq_entry/exit attached for short slots when softirqs are "
       "frequent); 1 - rate() is the share of time softirqs were timed.",
       {}},
      {family::kSoftirqsTotal,
       FigureKind::kCounter,
       "",
       "Softirq runs per vector and CPU since boot (procfs /proc/softirqs); as "
       "node_softirqs_functions_total.",
       {{"vector", LabelBound::kFixedSet, kSoftirqVectors}, {"cpu", LabelBound::kCpusIfPerCpu}},
       {},
       SeriesCap::kNone,
       "/cpus/*/softirqs/*"},
      {family::kSoftnetBacklogPackets,
       FigureKind::kGauge,
       "packets",
       "Packets waiting in the per-CPU input and process queues when sampled (procfs "
       "/proc/net/softnet_stat, kernel 5.10+).",
       {{"cpu", LabelBound::kCpusIfPerCpu}},
       {},
       SeriesCap::kNone,
       "/cpus/*/softnet/backlog_len"},
      {family::kSoftnetDroppedTotal,
       FigureKind::kCounter,
       "",
       "Packets dropped because the per-CPU backlog exceeded netdev_max_backlog (procfs "
       "/proc/net/softnet_stat).",
       {{"cpu", LabelBound::kCpusIfPerCpu}},
       {},
       SeriesCap::kNone,
       "/cpus/*/softnet/dropped_per_s"},
      {family::kSoftnetFlowLimitCountTotal,
       FigureKind::kCounter,
       "",
       "Packets dropped by the RPS flow limit (procfs /proc/net/softnet_stat).",
       {{"cpu", LabelBound::kCpusIfPerCpu}}},
      {family::kSoftnetProcessedTotal,
       FigureKind::kCounter,
       "",
       "Packets processed by the receive softirq per CPU (procfs /proc/net/softnet_stat, u32 "
       "extended to 64 bits).",
       {{"cpu", LabelBound::kCpusIfPerCpu}},
       {},
       SeriesCap::kNone,
       "/cpus/*/softnet/processed_per_s"},
      {family::kSoftnetReceivedRpsTotal,
       FigureKind::kCounter,
       "",
       "Packets steered to this CPU by RPS inter-processor interrupts (procfs "
       "/proc/net/softnet_stat).",
       {{"cpu", LabelBound::kCpusIfPerCpu}}},
      {family::kSoftnetTimesSqueezedTotal,
       FigureKind::kCounter,
       "",
       "Receive softirq runs that ended with work left because netdev_budget or "
       "netdev_budget_usecs ran out (procfs /proc/net/softnet_stat).",
       {{"cpu", LabelBound::kCpusIfPerCpu}},
       {},
       SeriesCap::kNone,
       "/cpus/*/softnet/time_squeeze_per_s"},
      {family::kSourceUp,
       FigureKind::kGauge,
       "",
       "1 when the source was read in the last sample, 0 when it failed or is unavailable "
       "(nictuned; kind is bpf, procfs or sysfs).",
       {{"source", LabelBound::kFixedSet, kSources}, {"kind", LabelBound::kFollows}}},
      {family::kStoreErrorsTotal,
       FigureKind::kCounter,
       "",
       "Failed store operations (append, maintenance, recommendations), e.g. a full disk.",
       {}},
      {family::kStoreHealthy,
       FigureKind::kGauge,
       "",
       "1 when the latest store operation succeeded, 0 when it failed or the store is not open.",
       {}},
      {family::kTunerWindowsTotal,
       FigureKind::kCounter,
       "",
       "Tuner windows closed (aggregated intervals).",
       {}},
      {family::kProcessCpuSecondsTotal,
       FigureKind::kCounter,
       "seconds",
       "User and system CPU time of nictuned (getrusage).",
       {}},
      {family::kProcessMaxFds,
       FigureKind::kGauge,
       "",
       "nictuned's limit on open file descriptors (soft RLIMIT_NOFILE).",
       {}},
      {family::kProcessOpenFds,
       FigureKind::kGauge,
       "",
       "File descriptors nictuned holds open (procfs /proc/self/fd).",
       {}},
      {family::kProcessResidentMemoryBytes,
       FigureKind::kGauge,
       "bytes",
       "Resident memory of nictuned (procfs /proc/self/statm).",
       {}},
      {family::kProcessStartTimeSeconds,
       FigureKind::kGauge,
       "seconds",
       "When nictuned started, in seconds since the Unix epoch (procfs /proc/self/stat after "
       "/proc/stat btime).",
       {}},
      {family::kProcessVirtualMemoryBytes,
       FigureKind::kGauge,
       "bytes",
       "Virtual memory of nictuned (procfs /proc/self/statm).",
       {}},
  };
}

// One per snmp or netstat counter of protocol_counters.h: its name says what it counts.
void AddProtocolCounters(std::vector<Figure>& out) {
  for (const ProtocolCounterName& counter : kProtocolCounters) {
    out.push_back({.name = ProtocolCounterMetric(counter),
                   .kind = FigureKind::kCounter,
                   .help = absl::StrCat(counter.section, " ", counter.name, " since boot (procfs ",
                                        ProtocolCounterFile(counter), "); node_exporter calls it ",
                                        NodeExporterProtocolCounterMetric(counter), "."),
                   .json = absl::StrCat("/protocol_per_s/counters/", counter.section, ".",
                                        counter.name)});
  }
}

// One per device statistic of struct rtnl_link_stats64, per device of the agent's namespace.
void AddDeviceStatistics(std::vector<Figure>& out) {
  for (const std::string_view file : driver::kLinkStatisticNames) {
    const std::string name = DeviceCounterMetricName(std::string(file));
    std::string unit;
    if (absl::EndsWith(name, "_bytes_total")) unit = "bytes";
    if (absl::EndsWith(name, "_packets_total")) unit = "packets";
    out.push_back({.name = name,
                   .kind = FigureKind::kCounter,
                   .unit = unit,
                   .help = absl::StrCat("Device counter ", std::string(file),
                                        " (struct rtnl_link_stats64; sysfs "
                                        "/sys/class/net/DEVICE/statistics/",
                                        std::string(file), ")."),
                   .labels = {{"device", LabelBound::kDevices}},
                   .json = absl::StrCat("/devices/*/per_s/", std::string(file))});
  }
}

// The families the probes give and the hook of each: where the budget runs a hook in slots,
// they are a sample, and the help says which coverage series tells how large.
void AddHooks(std::vector<Figure>& figures) {
  constexpr std::pair<std::string_view, std::string_view> kSampledBy[] = {
      {family::kHardirqSecondsTotal, "irq"},
      {family::kIrqHandlerCallsTotal, "irq"},
      {family::kIrqHandlerSecondsTotal, "irq"},
      {family::kNapiBudgetExhaustedTotal, "napi"},
      {family::kNapiBudgetPackets, "napi"},
      {family::kNapiPacketsTotal, "napi"},
      {family::kNapiPollWorkPackets, "napi"},
      {family::kNapiPollsTotal, "napi"},
      {family::kNapiTxCompletionsTotal, "txshare"},
      {family::kRxTruesizeBytes, "truesize"},
      {family::kSkbDropsTotal, "drops"},
      {family::kSocketDrainGapSeconds, "sockfill"},
      {family::kSocketEnqueuesTotal, "sockfill"},
      {family::kSocketRcvqueueFullTotal, "sockfill"},
      {family::kSocketReceiveBufferBytes, "sockfill"},
      {family::kSocketReceiveBufferPeakFillRatio, "sockfill"},
      {family::kSocketTruesizeMeanBytes, "sockfill"},
      {family::kSocketUdpQueueFailuresTotal, "udp_fail"},
      {family::kSoftirqRaisedTotal, "softirq"},
      {family::kSoftirqSecondsTotal, "softirq"},
  };
  for (const auto& [name, hook] : kSampledBy) {
    const auto figure = std::find_if(figures.begin(), figures.end(),
                                     [name](const Figure& f) { return f.name == name; });
    if (figure == figures.end()) continue;  // the catalog's test finds every name
    figure->hook = std::string(hook);
    figure->help += absl::StrCat(" Its coverage: ", family::kProbeCoverageRatio, "{hook=\"",
                                 figure->hook, "\"}.");
  }
}

// The knobs' current and recommended values, a pair of families per unit; each help names the
// knobs it holds, in the family's unit.
void AddKnobValues(std::vector<Figure>& figures) {
  for (const KnobValueUnit unit : kKnobValueUnits) {
    std::vector<std::string> knobs;
    for (const tuner::Knob knob : tuner::kAllKnobs) {
      if (knob != tuner::Knob::kSoRcvbuf && ValueUnitOf(knob) == unit) {
        knobs.push_back(std::string(tuner::KnobName(knob)));
      }
    }
    const std::string unit_name(ValueUnitName(unit));
    const std::string of_knobs = absl::StrCat(" of ", absl::StrJoin(knobs, ", "), ", in ",
                                              std::string(ValueUnitWords(unit)), ".");
    const std::vector<FigureLabel> labels = {
        {.name = "knob", .bound = LabelBound::kKnobTargets, .knob_unit = unit},
        {.name = "target", .bound = LabelBound::kFollows}};
    figures.push_back({.name = std::string(CurrentFamilyOf(unit)),
                       .kind = FigureKind::kGauge,
                       .unit = unit_name,
                       .help = absl::StrCat("The value as the agent last read it", of_knobs),
                       .labels = labels});
    figures.push_back(
        {.name = std::string(RecommendedFamilyOf(unit)),
         .kind = FigureKind::kGauge,
         .unit = unit_name,
         .help = absl::StrCat("The tuner's recommendation in the latest window", of_knobs),
         .labels = labels});
  }
}

std::vector<Figure> BuildCatalog() {
  std::vector<Figure> figures = NamedFigures();
  AddKnobValues(figures);
  AddHooks(figures);
  AddProtocolCounters(figures);
  AddDeviceStatistics(figures);
  std::sort(figures.begin(), figures.end(),
            [](const Figure& a, const Figure& b) { return a.name < b.name; });
  return figures;
}

}  // namespace

std::string_view KindName(FigureKind kind) {
  switch (kind) {
    case FigureKind::kCounter:
      return "counter";
    case FigureKind::kGauge:
      return "gauge";
    case FigureKind::kHistogram:
      return "histogram";
  }
  return "untyped";
}

const std::vector<Figure>& FigureCatalog() {
  static const std::vector<Figure>* const catalog = new std::vector<Figure>(BuildCatalog());
  return *catalog;
}

const Figure* FindFigure(std::string_view name) {
  const std::vector<Figure>& catalog = FigureCatalog();
  const auto it = std::lower_bound(catalog.begin(), catalog.end(), name,
                                   [](const Figure& f, std::string_view n) { return f.name < n; });
  return it != catalog.end() && it->name == name ? &*it : nullptr;
}

}  // namespace nictune::metrics
