// SPDX-License-Identifier: Apache-2.0
// OpenBpfProbes: the ProbeSource backed by the BPF programs of driver/bpf.
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <linux/bpf.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "driver/bpf/device_names.h"
#include "driver/bpf/drop_key_aging.h"
#include "driver/bpf/drops.h"
#include "driver/bpf/drop_reasons.h"
#include "driver/bpf/hook_gates.h"
#include "driver/bpf/libbpf_log.h"
#include "driver/bpf/loaded_probe.h"
#include "driver/bpf/probe_duty_cycle.h"
#include "driver/bpf/probes.h"
#include "driver/errno_text.h"
#include "driver/probe_source.h"

namespace nictune::driver {
namespace {

using bpf::LoadedProbe;

// BPF is impossible without the kernel's BTF (CO-RE and tp_btf need it) or without the right to
// load tracing programs; anything short of that is a per-program problem reported in Status().
absl::Status CheckBpfUsable() {
  {
    bpf::LibbpfLogCapture quiet;
    btf* vmlinux = btf__load_vmlinux_btf();
    if (vmlinux == nullptr) {
      const int error_number = errno;
      return absl::UnavailableError(
          absl::StrCat("BTF /sys/kernel/btf/vmlinux: load: ", ErrnoText(error_number),
                       ": the kernel needs CONFIG_DEBUG_INFO_BTF for the BPF probes"));
    }
    btf__free(vmlinux);
  }
  // The smallest raw tracepoint program: "return 0". Loading it needs what the probes need.
  const bpf_insn return_zero[] = {
      {.code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .src_reg = 0, .off = 0, .imm = 0},
      {.code = BPF_JMP | BPF_EXIT, .dst_reg = 0, .src_reg = 0, .off = 0, .imm = 0},
  };
  const int fd =
      bpf_prog_load(BPF_PROG_TYPE_RAW_TRACEPOINT, "nictune_probe", "GPL", return_zero, 2, nullptr);
  if (fd < 0) {
    const int error_number = errno;
    if (error_number == EPERM || error_number == EACCES) {
      return absl::PermissionDeniedError(
          absl::StrCat("bpf: ", ErrnoText(error_number),
                       ": needs CAP_BPF and CAP_PERFMON (or CAP_SYS_ADMIN); run nictuned as root"));
    }
    return absl::UnavailableError(
        absl::StrCat("bpf: load a raw tracepoint program: ", ErrnoText(error_number)));
  }
  close(fd);
  return absl::OkStatus();
}

uint64_t MonotonicNowNs() {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<uint64_t>(now.tv_sec) * 1'000'000'000u + static_cast<uint64_t>(now.tv_nsec);
}

class BpfProbeSource final : public ProbeSource {
 public:
  BpfProbeSource(const ProbeOptions& options, std::optional<bpf::DropReasonNames> reasons,
                 std::string reasons_error)
      : reasons_(std::move(reasons)), reasons_error_(std::move(reasons_error)) {
    irq_ = bpf::LoadIrqProbe();
    softirq_ = bpf::LoadSoftirqProbe(options);
    napi_ = bpf::LoadNapiProbe(*softirq_);
    txshare_ = bpf::LoadTxshareProbe(*softirq_, *napi_);
    drops_ = bpf::LoadDropsProbe();
    udp_fail_ = bpf::LoadUdpFailProbe(options);
    sockfill_ = bpf::LoadSockfillProbe(options);
    truesize_ = bpf::LoadTruesizeProbe(options);
    bpf::ProbeDutyOptions duty{.budget = {.cpu_share = options.budget_cpu_share}};
    if (!options.softirq_duty_cycle) duty.never_slotted.push_back("softirq");
    duty_ = bpf::ProbeDutyCycle::Start(TakeOverHooks(), std::move(duty), options.per_packet_probes);
  }

  absl::Status SetPerPacketProbes(bool on) override { return duty_->SetPerPacket(on); }

  std::vector<ProbeStatus> Status() const override {
    std::vector<ProbeStatus> statuses;
    for (const auto& [probe, hook_name] : ProbesAndHooks()) {
      ProbeStatus status = probe->status();
      const bpf::DutyHook* hook = duty_->hook(hook_name);
      status.per_packet = hook != nullptr && hook->spec().per_packet;
      if (hook == nullptr && status.attached && !hook_errors_.empty()) {
        if (!status.reason.empty()) status.reason += "; ";
        status.reason += absl::StrCat("attached whole outside the probe budget: ",
                                      absl::StrJoin(hook_errors_, "; "));
      }
      if (hook != nullptr && status.attached) {
        std::string schedule = duty_->Describe(hook_name);
        if (schedule == "detached" && status.per_packet) schedule = kPausedReason;
        status.attached = schedule != kPausedReason && schedule != "detached";
        status.waiting = schedule == kPausedReason;
        if (!status.reason.empty()) status.reason += "; ";
        status.reason += schedule;
      }
      if (probe == drops_.get() && !reasons_error_.empty()) {
        if (!status.reason.empty()) status.reason += "; ";
        status.reason += absl::StrCat("reason names unavailable: ", reasons_error_);
      }
      statuses.push_back(std::move(status));
    }
    return statuses;
  }

  absl::StatusOr<BpfCounters> Read() override {
    BpfCounters counters;
    counters.monotonic_ns = MonotonicNowNs();
    counters.netns_inode = own_netns_inode_;
    const bpf::DropReasonNames* reasons = reasons_ ? &*reasons_ : nullptr;
    // Order matters: tx share merges into the NAPI entries, UDP failures into the sockets.
    const std::pair<const LoadedProbe*, std::function<absl::Status()>> readers[] = {
        {irq_.get(), [&] { return bpf::ReadIrqProbe(*irq_, counters); }},
        {softirq_.get(), [&] { return bpf::ReadSoftirqProbe(*softirq_, counters); }},
        {napi_.get(), [&] { return bpf::ReadNapiProbe(*napi_, counters); }},
        {txshare_.get(), [&] { return bpf::ReadTxshareProbe(*txshare_, counters); }},
        {drops_.get(),
         [&] {
           return bpf::ReadDropsProbe(*drops_, reasons, drop_aging_, counters.monotonic_ns,
                                      counters);
         }},
        {sockfill_.get(),
         [&] {
           return bpf::ReadSockfillProbe(*sockfill_, duty_->MeasuringNow("sockfill"), counters);
         }},
        {udp_fail_.get(), [&] { return bpf::ReadUdpFailProbe(*udp_fail_, counters); }},
        {truesize_.get(), [&] { return bpf::ReadTruesizeProbe(*truesize_, counters); }},
    };
    for (const auto& [probe, read] : readers) {
      if (!probe->loaded()) continue;  // paused per-packet probes keep their counters
      if (absl::Status status = read(); !status.ok()) return status;
    }
    counters.hooks = duty_->Duties(counters.monotonic_ns);
    counters.budget = duty_->Budget();
    counters.softirq_duty = SoftirqDuty(counters.monotonic_ns);
    return counters;
  }

  std::vector<ProbeCost> Cost() const override {
    std::vector<ProbeCost> costs;
    for (const LoadedProbe* probe : Probes()) {
      std::vector<ProbeCost> probe_costs = probe->Costs();
      costs.insert(costs.end(), probe_costs.begin(), probe_costs.end());
    }
    return costs;
  }

 private:
  static constexpr char kPausedReason[] =
      "per-packet probe, detached until switched on (nictuned does while a socket is under "
      "pressure: drops or a filling buffer)";

  // Each concern and the hook of the probe budget its programs form, in attach order: a hook
  // comes after those it needs.
  std::vector<std::pair<const LoadedProbe*, std::string>> ProbesAndHooks() const {
    return {{irq_.get(), "irq"},           {softirq_.get(), "softirq"},
            {napi_.get(), "napi"},         {txshare_.get(), "txshare"},
            {drops_.get(), "drops"},       {udp_fail_.get(), "udp_fail"},
            {sockfill_.get(), "sockfill"}, {truesize_.get(), "truesize"}};
  }

  std::vector<const LoadedProbe*> Probes() const {
    std::vector<const LoadedProbe*> probes;
    for (const auto& [probe, unused] : ProbesAndHooks()) probes.push_back(probe);
    return probes;
  }

  // The hooks of every concern that loaded and attached, each with its handlers taken over.
  std::vector<std::unique_ptr<bpf::DutyHook>> TakeOverHooks() {
    struct Concern {
      LoadedProbe* probe;
      bpf::HookSpec spec;
      std::function<std::unique_ptr<bpf::HookGate>()> gate;
    };
    const auto fd = [](LoadedProbe& probe, const char* map) {
      return probe.MapFd(map).value_or(-1);
    };
    const Concern concerns[] = {
        {irq_.get(),
         {.name = "irq", .end_handlers = {"on_irq_exit"}, .default_runs_per_event = 2},
         [&] { return std::make_unique<bpf::IrqStartGate>(fd(*irq_, "irq_start")); }},
        {softirq_.get(),
         {.name = "softirq", .end_handlers = {"on_softirq_exit"}, .default_runs_per_event = 2},
         [&] {
           auto gate = std::make_unique<bpf::SoftirqTimingGate>(fd(*softirq_, "softirq_timing"));
           softirq_gate_ = gate.get();
           return gate;
         }},
        {napi_.get(), {.name = "napi"}, nullptr},
        {txshare_.get(),
         {.name = "txshare", .needs = {"softirq", "napi"}, .per_packet = true},
         nullptr},
        {drops_.get(), {.name = "drops"}, nullptr},
        {udp_fail_.get(), {.name = "udp_fail"}, nullptr},
        {sockfill_.get(), {.name = "sockfill", .per_packet = true}, nullptr},
        {truesize_.get(), {.name = "truesize", .per_packet = true}, nullptr},
    };
    std::vector<std::unique_ptr<bpf::DutyHook>> hooks;
    for (const Concern& concern : concerns) {
      if (!concern.probe->attached()) continue;  // its status says why
      absl::StatusOr<std::unique_ptr<bpf::DutyHook>> hook = bpf::DutyHook::TakeOver(
          *concern.probe, concern.spec, concern.gate ? concern.gate() : nullptr);
      if (hook.ok()) {
        hooks.push_back(*std::move(hook));
      } else {
        hook_errors_.push_back(std::string(hook.status().message()));
      }
    }
    return hooks;
  }

  // The softirq timing's duty as the agent's softirq time estimate reads it.
  SoftirqDutyCounters SoftirqDuty(uint64_t now_ns) const {
    SoftirqDutyCounters duty;
    const bpf::DutyHook* hook = duty_->hook("softirq");
    if (hook == nullptr || softirq_gate_ == nullptr) return duty;
    const uint64_t elapsed =
        now_ns > softirq_gate_->start_ns() ? now_ns - softirq_gate_->start_ns() : 0;
    const uint64_t open = softirq_gate_->OpenNs(now_ns);
    duty.untimed_ns = elapsed > open ? elapsed - open : 0;
    duty.attachments = softirq_gate_->attachments();
    const bpf::LinkStats links = hook->link_stats();
    duty.link_attaches = links.attaches;
    duty.link_attach_ns = links.attach_ns;
    duty.link_attach_cpu_ns = links.attach_cpu_ns;
    duty.link_detaches = links.detaches;
    duty.link_detach_ns = links.detach_ns;
    duty.link_detach_cpu_ns = links.detach_cpu_ns;
    return duty;
  }

  std::optional<bpf::DropReasonNames> reasons_;
  std::string reasons_error_;
  std::unique_ptr<LoadedProbe> irq_;
  std::unique_ptr<LoadedProbe> softirq_;
  std::unique_ptr<LoadedProbe> napi_;
  std::unique_ptr<LoadedProbe> txshare_;
  std::unique_ptr<LoadedProbe> drops_;
  std::unique_ptr<LoadedProbe> udp_fail_;
  std::unique_ptr<LoadedProbe> sockfill_;
  std::unique_ptr<LoadedProbe> truesize_;
  std::vector<std::string> hook_errors_;  // concerns whose handlers could not be taken over
  bpf::DropKeyAging drop_aging_{NICTUNE_DROP_MAX_KEYS, {}};
  const uint32_t own_netns_inode_ = bpf::OwnNetnsInode();
  const bpf::SoftirqTimingGate* softirq_gate_ = nullptr;  // owned by the softirq hook
  // Holds every concern's links: declared after the probes, so that it goes first.
  std::unique_ptr<bpf::ProbeDutyCycle> duty_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<ProbeSource>> OpenBpfProbes(const ProbeOptions& options) {
  if (absl::Status usable = CheckBpfUsable(); !usable.ok()) return usable;
  // RLIMIT_MEMLOCK: libbpf 1.x raises it itself on kernels without memcg accounting of BPF
  // memory (before 5.11); newer kernels charge the cgroup instead, so nothing is done here.
  absl::StatusOr<bpf::DropReasonNames> reasons = bpf::RunningKernelDropReasons();
  std::optional<bpf::DropReasonNames> names;
  std::string reasons_error;
  if (reasons.ok()) {
    names = *std::move(reasons);
  } else {
    reasons_error = std::string(reasons.status().message());
  }
  return std::make_unique<BpfProbeSource>(options, std::move(names), std::move(reasons_error));
}

}  // namespace nictune::driver
