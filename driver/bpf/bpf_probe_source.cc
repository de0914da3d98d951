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
#include "driver/bpf/drop_reasons.h"
#include "driver/bpf/libbpf_log.h"
#include "driver/bpf/loaded_probe.h"
#include "driver/bpf/probes.h"
#include "driver/bpf/softirq_duty_cycle.h"
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
    if (options.softirq_duty_cycle && softirq_->attached()) {
      absl::StatusOr<std::unique_ptr<bpf::SoftirqDutyCycle>> duty = bpf::SoftirqDutyCycle::Start(
          *softirq_,
          bpf::SoftirqDutyOptions{.timed_per_s = static_cast<double>(options.softirq_timed_per_s)});
      if (duty.ok()) {
        softirq_duty_ = *std::move(duty);
      } else {
        softirq_duty_error_ = std::string(duty.status().message());
      }
    }
    // Loaded and attached once even when off, so that a program the kernel refuses is known
    // (and its raw_tp twin chosen) now, not when the agent first needs it; when on, the softirq
    // programs are held attached whole for the tx share.
    per_packet_setting_ = SetPerPacketProbes(options.per_packet_probes);
  }

  absl::Status SetPerPacketProbes(bool on) override {
    absl::Status result;
    // The tx share counts consume_skb inside NET_RX by the softirq programs' flag, so they run
    // whole while it is on: attached before it, released after it is detached.
    if (on && softirq_duty_ != nullptr) {
      if (absl::Status held = softirq_duty_->HoldWhole(true); !held.ok()) {
        return absl::UnavailableError(absl::StrCat(
            "per-packet probes stay off: the tx share needs softirq_entry/exit whole: ",
            held.message()));
      }
    }
    for (LoadedProbe* probe : PerPacketProbes()) {
      if (!probe->loaded()) continue;  // refused at load: Status() already says why
      absl::Status switched = on ? probe->Resume() : probe->Pause(kPausedReason);
      result.Update(switched);
    }
    if (!on && softirq_duty_ != nullptr) result.Update(softirq_duty_->HoldWhole(false));
    return result;
  }

  std::vector<ProbeStatus> Status() const override {
    std::vector<ProbeStatus> statuses;
    for (const LoadedProbe* probe : Probes()) {
      ProbeStatus status = probe->status();
      for (const LoadedProbe* per_packet : PerPacketProbes()) {
        if (probe == per_packet) status.per_packet = true;
      }
      if (status.per_packet && !per_packet_setting_.ok()) {
        if (!status.reason.empty()) status.reason += "; ";
        status.reason += std::string(per_packet_setting_.message());
      }
      if (probe == softirq_.get() && status.attached) {
        const std::string duty =
            softirq_duty_ != nullptr
                ? softirq_duty_->Describe()
                : absl::StrCat("softirq_entry/exit attached whole",
                               softirq_duty_error_.empty() ? "" : ": ", softirq_duty_error_);
        if (!status.reason.empty()) status.reason += "; ";
        status.reason += duty;
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
    const bpf::DropReasonNames* reasons = reasons_ ? &*reasons_ : nullptr;
    // Order matters: tx share merges into the NAPI entries, UDP failures into the sockets.
    const std::pair<const LoadedProbe*, std::function<absl::Status()>> readers[] = {
        {irq_.get(), [&] { return bpf::ReadIrqProbe(*irq_, counters); }},
        {softirq_.get(), [&] { return bpf::ReadSoftirqProbe(*softirq_, counters); }},
        {napi_.get(), [&] { return bpf::ReadNapiProbe(*napi_, counters); }},
        {txshare_.get(), [&] { return bpf::ReadTxshareProbe(*txshare_, counters); }},
        {drops_.get(), [&] { return bpf::ReadDropsProbe(*drops_, reasons, counters); }},
        {sockfill_.get(), [&] { return bpf::ReadSockfillProbe(*sockfill_, counters); }},
        {udp_fail_.get(), [&] { return bpf::ReadUdpFailProbe(*udp_fail_, counters); }},
        {truesize_.get(), [&] { return bpf::ReadTruesizeProbe(*truesize_, counters); }},
    };
    for (const auto& [probe, read] : readers) {
      if (!probe->loaded()) continue;  // paused per-packet probes keep their counters
      if (absl::Status status = read(); !status.ok()) return status;
    }
    if (softirq_duty_ != nullptr) {
      counters.softirq_duty = softirq_duty_->Counters(counters.monotonic_ns);
    }
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
      "per-packet probe, detached until SetPerPacketProbes(true) (ProbeOptions::per_packet_probes)";

  std::vector<LoadedProbe*> PerPacketProbes() const {
    return {txshare_.get(), sockfill_.get(), truesize_.get()};
  }

  std::vector<const LoadedProbe*> Probes() const {
    return {irq_.get(),   softirq_.get(),  napi_.get(),     txshare_.get(),
            drops_.get(), udp_fail_.get(), sockfill_.get(), truesize_.get()};
  }

  std::optional<bpf::DropReasonNames> reasons_;
  std::string reasons_error_;
  absl::Status per_packet_setting_;  // a failure to detach them at open, reported in Status()
  std::unique_ptr<LoadedProbe> irq_;
  std::unique_ptr<LoadedProbe> softirq_;
  // Holds softirq_'s entry/exit links: declared after it, so that it goes first.
  std::unique_ptr<bpf::SoftirqDutyCycle> softirq_duty_;
  std::string softirq_duty_error_;  // why the pair is attached whole when duty cycling failed
  std::unique_ptr<LoadedProbe> napi_;
  std::unique_ptr<LoadedProbe> txshare_;
  std::unique_ptr<LoadedProbe> drops_;
  std::unique_ptr<LoadedProbe> udp_fail_;
  std::unique_ptr<LoadedProbe> sockfill_;
  std::unique_ptr<LoadedProbe> truesize_;
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
