// SPDX-License-Identifier: Apache-2.0
#include "tests/support/http_load.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace nictune::testing_support {
namespace {

std::string ErrnoReason(const std::string& what, int error_number) {
  return absl::StrCat(what, ": ", std::strerror(error_number), " (errno ", error_number, ")");
}

enum class Phase { kIdle, kConnecting, kWriting, kReading };

struct Client {
  int fd = -1;
  Phase phase = Phase::kIdle;
  size_t next_target = 0;
  size_t target = 0;  // of the request in flight
  absl::Time started;
  size_t written = 0;
  std::string reply;
};

// "" when `raw` is a complete 200 reply; otherwise why not.
std::string CheckReply(const std::string& raw) {
  const size_t end_of_head = raw.find("\r\n\r\n");
  int status = 0;
  if (end_of_head == std::string::npos || raw.size() < 12 || !absl::StartsWith(raw, "HTTP/1.") ||
      !absl::SimpleAtoi(raw.substr(9, 3), &status)) {
    return absl::StrCat("not an HTTP reply (", raw.size(), " bytes)");
  }
  if (status != 200) return absl::StrCat("HTTP ", status);
  const size_t body_bytes = raw.size() - end_of_head - 4;
  for (absl::string_view line : absl::StrSplit(raw.substr(0, end_of_head), "\r\n")) {
    const std::string lower = absl::AsciiStrToLower(line);
    absl::string_view value = lower;
    if (!absl::ConsumePrefix(&value, "content-length:")) continue;
    size_t declared = 0;
    if (!absl::SimpleAtoi(absl::StripAsciiWhitespace(value), &declared)) {
      return absl::StrCat("unparsable ", line);
    }
    if (declared != body_bytes) {
      return absl::StrCat("body of ", body_bytes, " bytes, Content-Length ", declared);
    }
  }
  if (body_bytes == 0) return "empty body";
  return "";
}

class LoadLoop {
 public:
  LoadLoop(const HttpLoadOptions& options, int epoll_fd)
      : options_(options), epoll_fd_(epoll_fd), clients_(static_cast<size_t>(options.clients)) {
    for (size_t i = 0; i < options.targets.size(); ++i) {
      result_.targets.push_back({.target = options.targets[i]});
      requests_.push_back(absl::StrCat("GET ", options.targets[i], " HTTP/1.1\r\nHost: 127.0.0.1:",
                                       options.port, "\r\nConnection: close\r\n\r\n"));
    }
    address_.sin_family = AF_INET;
    address_.sin_port = htons(options.port);
    address_.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  }

  HttpLoadResult Run() {
    const absl::Time begin = absl::Now();
    stop_starting_ = begin + options_.duration;
    for (size_t i = 0; i < clients_.size(); ++i) {
      clients_[i].next_target = i % requests_.size();
      Start(i);
    }
    epoll_event events[256];
    while (in_flight_ > 0 || !to_start_.empty()) {
      // Started here rather than from Finish: a server refusing every connection at once would
      // otherwise recurse Start -> Finish -> Start until the duration is over.
      std::vector<size_t> starting;
      starting.swap(to_start_);
      for (const size_t index : starting) Start(index);
      if (in_flight_ == 0) continue;
      const int n = epoll_wait(epoll_fd_, events, 256, /*timeout ms=*/20);
      if (n < 0 && errno != EINTR) {
        // Every connection still open counts as failed: the loop cannot watch it any more.
        const std::string reason = ErrnoReason("epoll_wait", errno);
        for (size_t i = 0; i < clients_.size(); ++i) {
          if (clients_[i].phase != Phase::kIdle) Finish(i, reason, /*restart=*/false);
        }
        break;
      }
      for (int e = 0; e < n; ++e) Advance(static_cast<size_t>(events[e].data.u64));
      ExpireSlowRequests();
    }
    result_.elapsed = absl::Now() - begin;
    return std::move(result_);
  }

 private:
  void Start(size_t index) {
    Client& c = clients_[index];
    if (absl::Now() >= stop_starting_) return;
    c.target = c.next_target;
    c.next_target = (c.next_target + 1) % requests_.size();
    c.started = absl::Now();
    c.written = 0;
    c.reply.clear();
    c.fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    ++in_flight_;
    c.phase = Phase::kConnecting;
    if (c.fd < 0) return Finish(index, ErrnoReason("socket", errno), /*restart=*/false);
    if (connect(c.fd, reinterpret_cast<const sockaddr*>(&address_), sizeof address_) != 0 &&
        errno != EINPROGRESS) {
      const int error = errno;
      return Finish(index, ErrnoReason("connect", error), /*restart=*/true, Refusal(error));
    }
    epoll_event event{.events = EPOLLOUT, .data = {.u64 = index}};
    if (epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, c.fd, &event) != 0) {
      return Finish(index, ErrnoReason("epoll_ctl add", errno), /*restart=*/false);
    }
  }

  void Advance(size_t index) {
    Client& c = clients_[index];
    if (c.phase == Phase::kConnecting) {
      int error = 0;
      socklen_t length = sizeof error;
      getsockopt(c.fd, SOL_SOCKET, SO_ERROR, &error, &length);
      if (error != 0) {
        return Finish(index, ErrnoReason("connect", error), /*restart=*/true, Refusal(error));
      }
      c.phase = Phase::kWriting;
    }
    if (c.phase == Phase::kWriting) {
      const std::string& request = requests_[c.target];
      while (c.written < request.size()) {
        const ssize_t n = write(c.fd, request.data() + c.written, request.size() - c.written);
        if (n < 0 && errno == EAGAIN) return;  // EPOLLOUT again when there is room
        if (n < 0) return Finish(index, ErrnoReason("write", errno), /*restart=*/true);
        c.written += static_cast<size_t>(n);
      }
      c.phase = Phase::kReading;
      epoll_event event{.events = EPOLLIN, .data = {.u64 = index}};
      epoll_ctl(epoll_fd_, EPOLL_CTL_MOD, c.fd, &event);
      return;
    }
    char buffer[65536];
    for (;;) {
      const ssize_t n = read(c.fd, buffer, sizeof buffer);
      if (n > 0) {
        c.reply.append(buffer, static_cast<size_t>(n));
        continue;
      }
      if (n < 0 && errno == EAGAIN) return;
      if (n < 0) {
        const int error = errno;
        return Finish(index,
                      ErrnoReason(absl::StrCat("read after ", c.reply.size(), " bytes"), error),
                      /*restart=*/true, c.reply.empty() && Refusal(error));
      }
      if (c.reply.empty()) {
        return Finish(index, "closed before replying", /*restart=*/true, /*refused=*/true);
      }
      const std::string verdict = CheckReply(c.reply);
      return Finish(index, verdict, /*restart=*/true, verdict == "HTTP 503");
    }
  }

  void ExpireSlowRequests() {
    const absl::Time now = absl::Now();
    for (size_t i = 0; i < clients_.size(); ++i) {
      const Client& c = clients_[i];
      if (c.phase == Phase::kIdle || now - c.started < options_.request_timeout) continue;
      const char* phase = c.phase == Phase::kConnecting ? "connecting"
                          : c.phase == Phase::kWriting  ? "writing the request"
                                                        : "reading the reply";
      Finish(i,
             absl::StrCat("timed out after ", absl::FormatDuration(options_.request_timeout), " ",
                          phase),
             /*restart=*/true);
    }
  }

  // Records the request's outcome ("" is a good reply), closes it and, when `restart`, has the
  // loop start the client's next request (unless the duration is over).
  // A connection turned away before anything was said: the server declining, not breaking.
  static bool Refusal(int error_number) {
    return error_number == ECONNREFUSED || error_number == ECONNRESET;
  }

  void Finish(size_t index, const std::string& failure, bool restart, bool refused = false) {
    Client& c = clients_[index];
    TargetLoad& load = result_.targets[c.target];
    if (failure.empty()) {
      ++load.answered;
      load.latencies.push_back(absl::Now() - c.started);
    } else if (refused) {
      ++load.refused[failure];
    } else {
      ++load.failures[failure];
    }
    if (c.fd >= 0) close(c.fd);  // also takes it out of the epoll set
    c.fd = -1;
    c.phase = Phase::kIdle;
    --in_flight_;
    if (restart) to_start_.push_back(index);
  }

  const HttpLoadOptions& options_;
  const int epoll_fd_;
  std::vector<Client> clients_;
  std::vector<std::string> requests_;  // one per target
  sockaddr_in address_{};
  absl::Time stop_starting_;
  int in_flight_ = 0;
  std::vector<size_t> to_start_;  // clients whose next request the loop starts
  HttpLoadResult result_;
};

}  // namespace

absl::StatusOr<HttpLoadResult> RunHttpLoad(const HttpLoadOptions& options) {
  if (options.targets.empty() || options.clients < 1) {
    return absl::InvalidArgumentError("http load: needs at least one target and one client");
  }
  const int epoll_fd = epoll_create1(EPOLL_CLOEXEC);
  if (epoll_fd < 0) return absl::InternalError(ErrnoReason("http load: epoll_create1", errno));
  HttpLoadResult result = LoadLoop(options, epoll_fd).Run();
  close(epoll_fd);
  return result;
}

LatencySummary SummarizeLatencies(std::vector<absl::Duration> latencies) {
  if (latencies.empty()) return {};
  std::sort(latencies.begin(), latencies.end());
  const auto rank = [&](double p) {
    const size_t k = static_cast<size_t>(std::ceil(p * static_cast<double>(latencies.size())));
    return latencies[std::max<size_t>(k, 1) - 1];
  };
  return {.p50 = rank(0.50), .p99 = rank(0.99), .max = latencies.back()};
}

}  // namespace nictune::testing_support
