#include "tests/support/slow_receiver.h"

#include <fcntl.h>
#include <sched.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace nictune::testing_support {
namespace {

absl::Status ErrnoError(const std::string& what, int error_number) {
  return absl::InternalError(
      absl::StrCat(what, ": ", std::strerror(error_number), " (errno ", error_number, ")"));
}

}  // namespace

absl::Status RunInNamedNamespace(const std::string& netns, const std::function<void()>& fn) {
  const std::string path = absl::StrCat("/run/netns/", netns);
  absl::Status status;
  // setns(CLONE_NEWNET) changes only the calling thread, so a fresh one joins and then ends.
  std::thread worker([&] {
    const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      status = ErrnoError(absl::StrCat("open ", path), errno);
      return;
    }
    const int rc = setns(fd, CLONE_NEWNET);
    const int error_number = errno;
    close(fd);
    if (rc != 0) {
      status = ErrnoError(absl::StrCat("setns(CLONE_NEWNET) into ", netns), error_number);
      return;
    }
    fn();
  });
  worker.join();
  return status;
}

absl::StatusOr<std::string> ReadProcNetIn(const std::string& netns, const std::string& file) {
  absl::StatusOr<std::string> text = absl::InternalError("not read");
  absl::Status ran = RunInNamedNamespace(netns, [&] {
    // /proc/thread-self/net follows this thread's namespace; /proc/self/net the main thread's.
    const std::string path = absl::StrCat("/proc/thread-self/net/", file);
    const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      text = ErrnoError(absl::StrCat("open ", path, " in netns ", netns), errno);
      return;
    }
    std::string content;
    char buffer[4096];
    ssize_t n = 0;
    while ((n = read(fd, buffer, sizeof(buffer))) > 0)
      content.append(buffer, static_cast<size_t>(n));
    const int error_number = errno;
    close(fd);
    if (n < 0) {
      text = ErrnoError(absl::StrCat("read ", path, " in netns ", netns), error_number);
      return;
    }
    text = content;
  });
  if (!ran.ok()) return ran;
  return text;
}

absl::StatusOr<std::unique_ptr<SlowReceiver>> SlowReceiver::Start(
    const std::string& netns, const UdpReceiverOptions& options) {
  absl::StatusOr<std::unique_ptr<UdpReceiver>> receiver = absl::InternalError("not created");
  absl::Status ran = RunInNamedNamespace(netns, [&] { receiver = UdpReceiver::Create(options); });
  if (!ran.ok()) return ran;
  if (!receiver.ok()) return receiver.status();
  auto slow = std::unique_ptr<SlowReceiver>(new SlowReceiver(std::move(*receiver)));
  SlowReceiver* raw = slow.get();
  slow->reader_ = std::thread([raw] { raw->report_ = raw->receiver_->Run(); });
  return slow;
}

absl::StatusOr<uint64_t> SlowReceiver::drops() const {
  absl::StatusOr<QueuedMemory> memory = receiver_->ReadMemory();
  if (!memory.ok()) return memory.status();
  return memory->drops;
}

absl::StatusOr<UdpReceiverReport> SlowReceiver::StopAndReport() {
  receiver_->Stop();
  if (reader_.joinable()) reader_.join();
  return report_;
}

SlowReceiver::~SlowReceiver() {
  receiver_->Stop();
  if (reader_.joinable()) reader_.join();
}

}  // namespace nictune::testing_support
