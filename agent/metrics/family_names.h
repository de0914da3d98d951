// SPDX-License-Identifier: Apache-2.0
// The name of every metric family that more than one surface spells: defined once here, read by
// the figure catalog (figure_catalog.cc, which holds the rest of each family's facts), the
// exporter's families (agent/metrics/*_series.cc, agent/service/health_metrics.cc) and the
// store's history (agent/store/window_series.cc), which keeps /metrics' names.
#pragma once

namespace nictune::metrics::family {

inline constexpr char kBuildInfo[] = "nictune_build_info";
inline constexpr char kBpfMapCapacityEntries[] = "nictune_bpf_map_capacity_entries";
inline constexpr char kBpfMapEntries[] = "nictune_bpf_map_entries";
inline constexpr char kBpfMapNoRoomTotal[] = "nictune_bpf_map_no_room_total";
inline constexpr char kBpfMapPrunedKeysTotal[] = "nictune_bpf_map_pruned_keys_total";
inline constexpr char kBpfProgramRunSecondsTotal[] = "nictune_bpf_program_run_seconds_total";
inline constexpr char kBpfProgramRunsTotal[] = "nictune_bpf_program_runs_total";
inline constexpr char kChangesTotal[] = "nictune_changes_total";
inline constexpr char kCpuSecondsTotal[] = "nictune_cpu_seconds_total";
inline constexpr char kEmulatedNicDeliveredPacketsTotal[] =
    "nictune_emulated_nic_delivered_packets_total";
inline constexpr char kEmulatedNicInterruptsTotal[] = "nictune_emulated_nic_interrupts_total";
inline constexpr char kEmulatedNicMissedPacketsTotal[] =
    "nictune_emulated_nic_missed_packets_total";
inline constexpr char kHardirqSecondsTotal[] = "nictune_hardirq_seconds_total";
inline constexpr char kInterruptsTotal[] = "nictune_interrupts_total";
inline constexpr char kIrqHandlerCallsTotal[] = "nictune_irq_handler_calls_total";
inline constexpr char kIrqHandlerSecondsTotal[] = "nictune_irq_handler_seconds_total";
inline constexpr char kKnobCurrentBytes[] = "nictune_knob_current_bytes";
inline constexpr char kKnobCurrentEnabled[] = "nictune_knob_current_enabled";
inline constexpr char kKnobCurrentPackets[] = "nictune_knob_current_packets";
inline constexpr char kKnobCurrentPolls[] = "nictune_knob_current_polls";
inline constexpr char kKnobCurrentRatio[] = "nictune_knob_current_ratio";
inline constexpr char kKnobCurrentSeconds[] = "nictune_knob_current_seconds";
inline constexpr char kKnobMode[] = "nictune_knob_mode";
inline constexpr char kKnobRecommendedBytes[] = "nictune_knob_recommended_bytes";
inline constexpr char kKnobRecommendedEnabled[] = "nictune_knob_recommended_enabled";
inline constexpr char kKnobRecommendedPackets[] = "nictune_knob_recommended_packets";
inline constexpr char kKnobRecommendedPolls[] = "nictune_knob_recommended_polls";
inline constexpr char kKnobRecommendedRatio[] = "nictune_knob_recommended_ratio";
inline constexpr char kKnobRecommendedSeconds[] = "nictune_knob_recommended_seconds";
inline constexpr char kMissedIntervalsTotal[] = "nictune_missed_intervals_total";
inline constexpr char kNapiBudgetExhaustedTotal[] = "nictune_napi_budget_exhausted_total";
inline constexpr char kNapiBudgetPackets[] = "nictune_napi_budget_packets";
inline constexpr char kNapiPacketsTotal[] = "nictune_napi_packets_total";
inline constexpr char kNapiPollerCpuSecondsTotal[] = "nictune_napi_poller_cpu_seconds_total";
inline constexpr char kNapiPollWorkPackets[] = "nictune_napi_poll_work_packets";
inline constexpr char kNapiPollsTotal[] = "nictune_napi_polls_total";
inline constexpr char kNapiTxCompletionsTotal[] = "nictune_napi_tx_completions_total";
inline constexpr char kProbeAttachedSecondsTotal[] = "nictune_probe_attached_seconds_total";
inline constexpr char kProbeBudgetCpuRatio[] = "nictune_probe_budget_cpu_ratio";
inline constexpr char kProbeCalibrationsTotal[] = "nictune_probe_calibrations_total";
inline constexpr char kProbeCostSecondsPerEvent[] = "nictune_probe_cost_seconds_per_event";
inline constexpr char kProbeCoverageRatio[] = "nictune_probe_coverage_ratio";
inline constexpr char kProbeEventsTotal[] = "nictune_probe_events_total";
inline constexpr char kProbeLinkCpuSecondsTotal[] = "nictune_probe_link_cpu_seconds_total";
inline constexpr char kProbeOverBudget[] = "nictune_probe_over_budget";
inline constexpr char kProbePlannedCpuRatio[] = "nictune_probe_planned_cpu_ratio";
inline constexpr char kProbeSlotsTotal[] = "nictune_probe_slots_total";
inline constexpr char kProcessCpuSecondsTotal[] = "process_cpu_seconds_total";
inline constexpr char kProcessMaxFds[] = "process_max_fds";
inline constexpr char kProcessOpenFds[] = "process_open_fds";
inline constexpr char kProcessResidentMemoryBytes[] = "process_resident_memory_bytes";
inline constexpr char kProcessStartTimeSeconds[] = "process_start_time_seconds";
inline constexpr char kProcessVirtualMemoryBytes[] = "process_virtual_memory_bytes";
inline constexpr char kRecommendations[] = "nictune_recommendations";
inline constexpr char kRxTruesizeBytes[] = "nictune_rx_truesize_bytes";
// History's own: the mean of kRxTruesizeBytes' histogram, which the store keeps instead of its
// buckets. Every other stored name is a catalog family's.
inline constexpr char kRxTruesizeMeanBytes[] = "nictune_rx_truesize_mean_bytes";
inline constexpr char kSampleFailuresTotal[] = "nictune_sample_failures_total";
inline constexpr char kSamplesTotal[] = "nictune_samples_total";
inline constexpr char kSamplingDurationSeconds[] = "nictune_sampling_duration_seconds";
inline constexpr char kSamplingIntervalSeconds[] = "nictune_sampling_interval_seconds";
inline constexpr char kSkbDropsTotal[] = "nictune_skb_drops_total";
inline constexpr char kSocketDrainGapSeconds[] = "nictune_socket_drain_gap_seconds";
inline constexpr char kSocketDropsTotal[] = "nictune_socket_drops_total";
inline constexpr char kSocketEnqueuesTotal[] = "nictune_socket_enqueues_total";
inline constexpr char kSocketRcvqueueFullTotal[] = "nictune_socket_rcvqueue_full_total";
inline constexpr char kSocketReceiveBufferBytes[] = "nictune_socket_receive_buffer_bytes";
inline constexpr char kSocketReceiveBufferPeakFillRatio[] =
    "nictune_socket_receive_buffer_peak_fill_ratio";
inline constexpr char kSocketReceiveQueueBytes[] = "nictune_socket_receive_queue_bytes";
inline constexpr char kSocketTruesizeMeanBytes[] = "nictune_socket_truesize_mean_bytes";
inline constexpr char kSocketUdpQueueFailuresTotal[] = "nictune_socket_udp_queue_failures_total";
inline constexpr char kSoftirqRaisedTotal[] = "nictune_softirq_raised_total";
inline constexpr char kSoftirqSecondsTotal[] = "nictune_softirq_seconds_total";
inline constexpr char kSoftirqUntimedSecondsTotal[] = "nictune_softirq_untimed_seconds_total";
inline constexpr char kSoftirqsTotal[] = "nictune_softirqs_total";
inline constexpr char kSoftnetBacklogPackets[] = "nictune_softnet_backlog_packets";
inline constexpr char kSoftnetDroppedTotal[] = "nictune_softnet_dropped_total";
inline constexpr char kSoftnetFlowLimitCountTotal[] = "nictune_softnet_flow_limit_count_total";
inline constexpr char kSoftnetProcessedTotal[] = "nictune_softnet_processed_total";
inline constexpr char kSoftnetReceivedRpsTotal[] = "nictune_softnet_received_rps_total";
inline constexpr char kSoftnetTimesSqueezedTotal[] = "nictune_softnet_times_squeezed_total";
inline constexpr char kSourceUp[] = "nictune_source_up";
inline constexpr char kStoreErrorsTotal[] = "nictune_store_errors_total";
inline constexpr char kStoreHealthy[] = "nictune_store_healthy";
inline constexpr char kTunerWindowsTotal[] = "nictune_tuner_windows_total";

}  // namespace nictune::metrics::family
