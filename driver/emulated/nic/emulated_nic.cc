#include "driver/emulated/nic/emulated_nic.h"

#include <signal.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "absl/strings/str_cat.h"
#include "driver/netlink/netlink_error.h"

namespace nictune::driver::emulated {
namespace {

constexpr uint16_t kFirstSourcePort = 40000;

}  // namespace

int64_t EmulatedNic::NowNs() {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<int64_t>(now.tv_sec) * 1'000'000'000 + now.tv_nsec;
}

absl::StatusOr<std::unique_ptr<EmulatedNic>> EmulatedNic::Create(
    int epoll_fd, TapDevice& tap, ControlServer& server, std::unique_ptr<NicEngine> engine,
    uint32_t tap_address, const EmulatedNicOptions& options) {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  const int signal_fd = signalfd(-1, &signals, SFD_NONBLOCK | SFD_CLOEXEC);
  if (signal_fd < 0) return netlink::ErrnoStatus("signalfd(SIGTERM, SIGINT)", errno);
  auto nic = std::unique_ptr<EmulatedNic>(
      new EmulatedNic(epoll_fd, signal_fd, tap, server, std::move(engine), options));
  for (int fd : {signal_fd, tap.fd()}) {
    epoll_event event{};
    event.events = EPOLLIN;
    event.data.fd = fd;
    if (epoll_ctl(epoll_fd, EPOLL_CTL_ADD, fd, &event) != 0) {
      return netlink::ErrnoStatus(absl::StrCat("epoll_ctl ADD fd ", fd), errno);
    }
  }
  // The peer's MAC is made up: locally administered, never on any real wire.
  const std::array<uint8_t, 6> peer_mac = {0x02, 0x6e, 0x69, 0x63, 0x74, 0x01};
  const auto& flows = nic->engine_->flows();
  for (size_t flow = 0; flow < flows.size(); ++flow) {
    nic->flow_addresses_.push_back(FrameAddresses{
        .destination_mac = tap.mac(),
        .source_mac = peer_mac,
        .source_ip = options.peer_address,
        .destination_ip = tap_address,
        .source_port = static_cast<uint16_t>(kFirstSourcePort + flow % 20000),
        .destination_port = flows[flow].port,
    });
  }
  return nic;
}

EmulatedNic::~EmulatedNic() { close(signal_fd_); }

void EmulatedNic::Fire(int64_t due_ns) {
  const int64_t started_ns = NowNs();
  const int64_t late_ns = std::max<int64_t>(0, started_ns - due_ns);
  late_ns_total_ += late_ns;
  late_ns_max_ = std::max(late_ns_max_, late_ns);
  if (late_ns > kStallNs) ++stalls_;
  const std::vector<PendingFrame> burst = engine_->TakeBurst();
  uint64_t bytes = 0;
  for (const PendingFrame& pending : burst) {
    const FlowSpec& flow = engine_->flows()[pending.flow];
    frame_.resize(static_cast<size_t>(flow.frame_bytes));
    BuildUdpFrame(flow_addresses_[pending.flow], static_cast<uint16_t>(pending.sequence),
                  pending.sequence, frame_);
    if (tap_.Deliver(frame_)) {
      ++delivered_;
      bytes += frame_.size();
    } else {
      ++tap_errors_;
    }
  }
  const int64_t finished_ns = NowNs();
  flush_ns_total_ += finished_ns - started_ns;
  engine_->OnNapiComplete(finished_ns, burst.size(), bytes);
}

std::string EmulatedNic::Handle(const ControlRequest& request) {
  const ModerationSettings current = engine_->settings();
  switch (request.verb) {
    case ControlVerb::kShutdown:
      stop_ = true;
      return FormatOkResponse("shutting down");
    case ControlVerb::kGet:
      if (request.key == kKeyRxUsecs) return FormatOkResponse(absl::StrCat(current.rx_usecs));
      if (request.key == kKeyRxFrames) return FormatOkResponse(absl::StrCat(current.rx_frames));
      if (request.key == kKeyAdaptiveRx) {
        return FormatOkResponse(current.adaptive_rx ? "1" : "0");
      }
      if (request.key == kKeyRingSize) return FormatOkResponse(absl::StrCat(engine_->ring_size()));
      return FormatOkResponse(FormatCounters(Counters()));
    case ControlVerb::kSetFlowRate: {
      absl::Status set = engine_->SetFlowRate(request.flow, request.rate_pps, NowNs());
      if (!set.ok()) return FormatErrorResponse(set);
      return FormatOkResponse(absl::StrCat(request.rate_pps));
    }
    case ControlVerb::kSet:
      break;
  }
  absl::Status set;
  ModerationSettings changed = current;
  if (request.key == kKeyRingSize) {
    set = engine_->SetRingSize(request.value);
  } else if (request.key == kKeyAdaptiveRx) {
    if (request.value != 0 && request.value != 1) {
      set = absl::InvalidArgumentError(
          absl::StrCat("adaptive_rx ", request.value, " is neither 0 nor 1"));
    } else {
      changed.adaptive_rx = request.value == 1;
      set = engine_->SetModeration(changed);
    }
  } else {
    (request.key == kKeyRxUsecs ? changed.rx_usecs : changed.rx_frames) = request.value;
    set = engine_->SetModeration(changed);
  }
  if (!set.ok()) return FormatErrorResponse(set);
  return FormatOkResponse(absl::StrCat(request.value));
}

absl::Status EmulatedNic::WaitAndServe(int64_t timeout_ns) {
  epoll_event events[16];
  const timespec timeout = {.tv_sec = timeout_ns / 1'000'000'000,
                            .tv_nsec = timeout_ns % 1'000'000'000};
  const int ready = epoll_pwait2(epoll_fd_, events, 16, &timeout, nullptr);
  if (ready < 0) {
    if (errno == EINTR) return absl::OkStatus();
    return netlink::ErrnoStatus("epoll_pwait2", errno);
  }
  for (int i = 0; i < ready; ++i) {
    const int fd = events[i].data.fd;
    if (fd == signal_fd_) {
      signalfd_siginfo info{};
      while (read(signal_fd_, &info, sizeof(info)) == sizeof(info)) stop_ = true;
    } else if (fd == tap_.fd()) {
      tap_.DiscardTransmitted();
    } else if (fd == server_.listen_fd()) {
      server_.AcceptAll();
    } else if (server_.IsClient(fd)) {
      server_.Serve(fd, [this](const ControlRequest& request) { return Handle(request); });
    }
  }
  return absl::OkStatus();
}

absl::Status EmulatedNic::Run() {
  start_ns_ = NowNs();
  const int64_t end_ns = options_.duration > absl::ZeroDuration()
                             ? start_ns_ + absl::ToInt64Nanoseconds(options_.duration)
                             : kNever;
  while (!stop_) {
    int64_t now_ns = NowNs();
    if (now_ns >= end_ns) break;
    int64_t due_ns = engine_->NextInterruptNs();
    if (due_ns <= now_ns) {
      if (engine_->Advance(now_ns)) Fire(due_ns);
      now_ns = NowNs();
      due_ns = engine_->NextInterruptNs();
    }
    const int64_t wake_ns = std::min(due_ns, end_ns);
    // Sleep until spin_ns before the deadline; from there poll without sleeping.
    const int64_t sleep_ns = std::max<int64_t>(0, wake_ns - now_ns - options_.spin_ns);
    if (absl::Status served = WaitAndServe(sleep_ns); !served.ok()) return served;
  }
  return absl::OkStatus();
}

EmulatedNicCounters EmulatedNic::Counters() const {
  const NicEngineCounters engine = engine_->counters();
  const ModerationSettings& settings = engine_->settings();
  return EmulatedNicCounters{
      .generated = engine.generated,
      .delivered = delivered_,
      .missed = engine.missed,
      .tap_errors = tap_errors_,
      .interrupts = engine.interrupts,
      .pending = engine_->pending(),
      .rx_usecs = settings.rx_usecs,
      .rx_frames = settings.rx_frames,
      .adaptive_rx = settings.adaptive_rx ? 1 : 0,
      .ring_size = engine_->ring_size(),
      .interval_ns = engine.interval_ns,
      .frame_threshold = engine.frame_threshold,
      .adaptive_changes = engine.adaptive_changes,
      .elapsed_ns = NowNs() - start_ns_,
      .late_ns_total = late_ns_total_,
      .late_ns_max = late_ns_max_,
      .stalls = stalls_,
      .flush_ns_total = flush_ns_total_,
  };
}

}  // namespace nictune::driver::emulated
