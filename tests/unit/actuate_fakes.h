// SPDX-License-Identifier: Apache-2.0
// Fakes for the actuator tests: a KnobProvider whose "kernel" is a directory with one file per
// knob (so a forked child's writes outlive it, as the kernel's do), with injectable failures, and
// which records, at every write, the journal rows the store holds for that knob.
#pragma once

#include <sqlite3.h>
#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "agent/actuate/knob_key.h"
#include "agent/store/journal.h"
#include "agent/store/store.h"
#include "driver/knobs/knob_access.h"
#include "gtest/gtest.h"

namespace nictune::actuate::testing {

using driver::knobs::KnobAddress;

// The clock and the knobs every actuator test works with: a device coalescing knob, a host
// sysctl and a device sysfs knob.
inline const absl::Time kT0 = absl::FromUnixSeconds(1'700'000'000);
inline const KnobAddress kRxUsecs{tuner::Knob::kRxUsecs, "veth1"};
inline const KnobAddress kBudget{tuner::Knob::kNetdevBudget, "host"};
inline const KnobAddress kDefer{tuner::Knob::kNapiDeferHardIrqs, "tap7"};

// The journal as it stood when the kernel was written.
struct WriteSeen {
  KnobAddress address;
  int64_t value = 0;
  std::vector<store::ChangeRecord> pending_for_knob;  // this boot's pending rows of the knob
};

class FileKnobs : public driver::knobs::KnobProvider {
 public:
  explicit FileKnobs(std::string dir) : dir_(std::move(dir)) {}

  // What the boot (or a person) puts in the kernel, behind the actuator's back.
  void Set(const KnobAddress& address, int64_t value) {
    std::ofstream(PathOf(address), std::ios::trunc) << value;
  }
  std::optional<int64_t> Get(const KnobAddress& address) const {
    std::ifstream in(PathOf(address));
    int64_t value = 0;
    if (!(in >> value)) return std::nullopt;
    return value;
  }

  void MakeUnsupported(const KnobAddress& address) {
    unsupported_.insert(actuate::KnobKey(address));
  }
  void UnsupportedOnWrite(const KnobAddress& address) {
    unsupported_on_write_.insert(actuate::KnobKey(address));
  }
  void FailWrites(const KnobAddress& address, int error) {
    failing_writes_[actuate::KnobKey(address)] = error;
  }
  void HealWrites(const KnobAddress& address) { failing_writes_.erase(actuate::KnobKey(address)); }
  // The kernel keeps the value rounded up to a multiple of tick, as a driver rounding rx-usecs
  // to its timer's granularity does; 1 takes values as they are.
  void RoundWritesUpTo(const KnobAddress& address, int64_t tick) {
    tick_[actuate::KnobKey(address)] = tick;
  }
  // Someone sets `value` right after the next write to the knob lands, before its read-back.
  void SomeoneWritesAfterTheNextWrite(const KnobAddress& address, int64_t value) {
    intruding_[actuate::KnobKey(address)] = value;
  }
  void RemoveDevice(const std::string& target) { removed_.insert(target); }
  // A device of the same name appears again (a driver reload, a NIC that restarted).
  void AddDeviceBack(const std::string& target) { removed_.erase(target); }

  // Every Read, Write, and the moment after each Write, is one kernel event; at event number
  // `event` (1-based) the process exits on the spot, as if SIGKILLed: no destructor runs.
  void CrashAtEvent(int event) { crash_at_event_ = event; }
  int events() const { return events_; }

  void WatchJournal(store::Journal* journal, std::string boot_id) {
    journal_ = journal;
    boot_id_ = std::move(boot_id);
  }
  const std::vector<WriteSeen>& writes() const { return writes_; }

  absl::StatusOr<std::unique_ptr<driver::knobs::KnobAccess>> Open(
      const KnobAddress& address) override;

 private:
  friend class FileKnob;

  std::string PathOf(const KnobAddress& address) const {
    return absl::StrCat(dir_, "/", actuate::KnobKey(address));
  }
  void Event() {
    ++events_;
    if (events_ == crash_at_event_) ::_exit(kCrashedExitCode);
  }

 public:
  static constexpr int kCrashedExitCode = 77;

 private:
  std::string dir_;
  std::set<std::string> unsupported_;
  std::set<std::string> unsupported_on_write_;
  std::set<std::string> removed_;
  std::map<std::string, int> failing_writes_;
  std::map<std::string, int64_t> tick_;
  std::map<std::string, int64_t> intruding_;
  int crash_at_event_ = 0;
  int events_ = 0;
  store::Journal* journal_ = nullptr;
  std::string boot_id_;
  std::vector<WriteSeen> writes_;
};

class FileKnob : public driver::knobs::KnobAccess {
 public:
  FileKnob(FileKnobs& owner, KnobAddress address) : owner_(owner), address_(std::move(address)) {}

  const KnobAddress& address() const override { return address_; }

  absl::StatusOr<int64_t> Read() override {
    owner_.Event();
    if (owner_.removed_.count(address_.target) != 0) return Gone("read");
    std::optional<int64_t> value = owner_.Get(address_);
    if (!value) {
      return absl::InternalError(
          absl::StrCat("read ", actuate::DescribeKnob(address_), ": no value in the fake kernel"));
    }
    return *value;
  }

  absl::Status Write(int64_t value) override {
    owner_.Event();
    const std::string key = actuate::KnobKey(address_);
    if (owner_.removed_.count(address_.target) != 0) return Gone("write");
    if (owner_.journal_ != nullptr) {
      WriteSeen seen{address_, value, {}};
      absl::StatusOr<std::vector<store::ChangeRecord>> pending =
          owner_.journal_->PendingChanges(owner_.boot_id_);
      if (pending.ok()) {
        for (const store::ChangeRecord& row : *pending) {
          if (row.knob == tuner::KnobName(address_.knob) && row.target == address_.target) {
            seen.pending_for_knob.push_back(row);
          }
        }
      }
      owner_.writes_.push_back(std::move(seen));
    }
    if (owner_.unsupported_on_write_.count(key) != 0) return Errno("write", EOPNOTSUPP);
    if (auto it = owner_.failing_writes_.find(key); it != owner_.failing_writes_.end()) {
      return Errno("write", it->second);
    }
    auto tick = owner_.tick_.find(key);
    if (tick != owner_.tick_.end())
      value = (value + tick->second - 1) / tick->second * tick->second;
    owner_.Set(address_, value);
    if (auto it = owner_.intruding_.find(key); it != owner_.intruding_.end()) {
      owner_.Set(address_, it->second);
      owner_.intruding_.erase(it);
    }
    owner_.Event();
    return absl::OkStatus();
  }

 private:
  absl::Status Errno(const char* op, int error) const {
    const std::string message = absl::StrCat(op, " ", actuate::DescribeKnob(address_), ": ",
                                             std::strerror(error), " (errno ", error, ")");
    if (error == EOPNOTSUPP) return absl::UnimplementedError(message);
    return absl::InternalError(message);
  }
  absl::Status Gone(const char* op) const {
    return absl::NotFoundError(absl::StrCat(op, " ", actuate::DescribeKnob(address_), ": ",
                                            std::strerror(ENODEV), " (errno ", ENODEV, ")"));
  }

  FileKnobs& owner_;
  KnobAddress address_;
};

inline absl::StatusOr<std::unique_ptr<driver::knobs::KnobAccess>> FileKnobs::Open(
    const KnobAddress& address) {
  if (removed_.count(address.target) != 0) {
    return absl::NotFoundError(
        absl::StrCat("open ", actuate::DescribeKnob(address), ": no such device"));
  }
  if (unsupported_.count(actuate::KnobKey(address)) != 0) {
    return absl::UnimplementedError(absl::StrCat("open ", actuate::DescribeKnob(address), ": ",
                                                 std::strerror(EOPNOTSUPP), " (errno ", EOPNOTSUPP,
                                                 ")"));
  }
  return std::make_unique<FileKnob>(*this, address);
}

// "ok" when SQLite finds the database file sound.
inline std::string IntegrityCheck(const std::string& db_path) {
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(db_path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
    const std::string error = db != nullptr ? sqlite3_errmsg(db) : "out of memory";
    sqlite3_close(db);
    return "open failed: " + error;
  }
  sqlite3_stmt* statement = nullptr;
  std::string result;
  if (sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &statement, nullptr) == SQLITE_OK) {
    while (sqlite3_step(statement) == SQLITE_ROW) {
      if (!result.empty()) result += "; ";
      result += reinterpret_cast<const char*>(sqlite3_column_text(statement, 0));
    }
  } else {
    result = sqlite3_errmsg(db);
  }
  sqlite3_finalize(statement);
  sqlite3_close(db);
  return result;
}

// A temporary state directory with a real Store in it, and a directory of fake knobs.
class ActuatorTestBase : public ::testing::Test {
 protected:
  static constexpr const char* kBoot = "0b5e1d2c-0000-4000-8000-000000000001";

  void SetUp() override {
    char dir_template[] = "/tmp/nictune_actuate_XXXXXX";
    ASSERT_NE(::mkdtemp(dir_template), nullptr) << std::strerror(errno);
    dir_ = dir_template;
    std::filesystem::create_directory(dir_ + "/knobs");
    knobs_ = std::make_unique<FileKnobs>(dir_ + "/knobs");
  }

  void TearDown() override {
    journal_.reset();
    if (!dir_.empty()) {
      const std::string db = dir_ + "/state/" + store::kJournalFileName;
      if (std::filesystem::exists(db)) {
        EXPECT_EQ(IntegrityCheck(db), "ok");
      }
      std::filesystem::remove_all(dir_);
    }
  }

  // The journal in dir_/state, opened afresh (as a restarted agent would).
  store::Journal& OpenJournal() {
    journal_.reset();
    std::filesystem::create_directories(dir_ + "/state");
    absl::StatusOr<std::unique_ptr<store::Journal>> opened =
        store::Journal::Open(dir_ + "/state", absl::Seconds(5), absl::Now());
    EXPECT_TRUE(opened.ok()) << opened.status();
    journal_ = std::move(*opened);
    return *journal_;
  }

  std::vector<store::ChangeRecord> Pending(const std::string& boot = kBoot) {
    absl::StatusOr<std::vector<store::ChangeRecord>> pending = journal_->PendingChanges(boot);
    EXPECT_TRUE(pending.ok()) << pending.status();
    return pending.ok() ? *pending : std::vector<store::ChangeRecord>{};
  }

  std::vector<store::ChangeRecord> AllChanges() {
    absl::StatusOr<std::vector<store::ChangeRecord>> all =
        journal_->ChangesSince(absl::InfinitePast());
    EXPECT_TRUE(all.ok()) << all.status();
    return all.ok() ? *all : std::vector<store::ChangeRecord>{};
  }

  std::string dir_;
  std::unique_ptr<FileKnobs> knobs_;
  std::unique_ptr<store::Journal> journal_;
};

}  // namespace nictune::actuate::testing
