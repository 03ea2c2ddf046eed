// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "damaged_pool.h"

#include <algorithm>
#include <cstring>
#include <initializer_list>
#include <memory>

#include "pool_image.h"
#include "testing/open_db.h"
#include "testing/sim_media.h"

namespace plush::test {
namespace {

using Code = Status::Code;

std::string Bytes(uint64_t v) {
  return std::string(reinterpret_cast<const char*>(&v), 8);
}

// "" if `s` is one of `allowed` (and carries a message unless OK).
std::string Expect(const char* what, const Status& s,
                   std::initializer_list<Code> allowed) {
  for (Code c : allowed) {
    if (s.code() != c) continue;
    if (!s.ok() && s.message().empty())
      return std::string(what) + " failed without a message";
    return "";
  }
  return std::string(what) + " returned " + s.ToString();
}

std::string CheckVerify(DB* db, Status* result) {
  std::string report;
  *result = db->Verify(&report);
  if (std::string e = Expect("Verify", *result, {Code::kOk, Code::kCorruption});
      !e.empty()) {
    return e;
  }
  if (result->IsCorruption() && report.empty())
    return "Verify found corruption but no report";
  return "";
}

std::string RunOp(DB* db, const PoolOp& op) {
  std::string value;
  switch (op.kind) {
    case PoolOp::Kind::kGet:
      return Expect(
          "Get", db->Get({}, Bytes(op.key), &value),
          {Code::kOk, Code::kNotFound, Code::kCorruption, Code::kIOError});
    case PoolOp::Kind::kPut:
      return Expect(
          "Put", db->Put({}, Bytes(op.key), Bytes(op.value)),
          {Code::kOk, Code::kNoSpace, Code::kCorruption, Code::kIOError});
    case PoolOp::Kind::kDelete:
      return Expect(
          "Delete", db->Delete({}, Bytes(op.key)),
          {Code::kOk, Code::kNoSpace, Code::kCorruption, Code::kIOError});
    case PoolOp::Kind::kCheckpoint:
      return Expect(
          "Checkpoint", db->Checkpoint(),
          {Code::kOk, Code::kNoSpace, Code::kCorruption, Code::kIOError});
    case PoolOp::Kind::kVerify: {
      Status ignored;
      return CheckVerify(db, &ignored);
    }
  }
  return "unknown operation";
}

// Every byte of the pool at `path`: both images of a sim device, or the
// file's contents.
// What the pool holds, as a digest (sim devices: their live and durable
// images) or, for a pool file, its bytes.
std::string PoolContent(const InternalOptions& internal,
                        const std::string& path) {
  if (!internal.simulated) return PoolImage::FromFile(path).bytes();
  const std::shared_ptr<media::SimMedia> device = media::SimMedia::Find(path);
  if (device == nullptr) return "";
  const auto [low, high] = device->ImagesDigest();
  return std::to_string(low) + ":" + std::to_string(high);
}

// One open-verify-use-close cycle. Returns the violation, or "".
std::string Cycle(const Options& options, const InternalOptions& internal,
                  const std::string& path, const std::vector<PoolOp>& ops,
                  Status* open, Status* verify) {
  std::unique_ptr<DB> db;
  const std::string before = PoolContent(internal, path);
  *open = OpenDB(options, internal, path, &db);
  if (std::string e = Expect(
          "Open", *open,
          {Code::kOk, Code::kCorruption, Code::kIOError, Code::kNotSupported});
      !e.empty()) {
    return e;
  }
  if (!open->ok()) {
    if (db != nullptr) return "a failed Open returned a DB";
    // A pool that fails to open is left exactly as it was: nothing may be
    // "repaired" (or made worse) on the strength of a judgement that
    // rejected the pool.
    if (PoolContent(internal, path) != before)
      return "a failed Open (" + open->ToString() + ") changed the pool";
    return "";
  }
  if (std::string e = CheckVerify(db.get(), verify); !e.empty()) return e;
  for (const PoolOp& op : ops) {
    if (std::string e = RunOp(db.get(), op); !e.empty()) return e;
  }
  return Expect("Close", db->Close(), {Code::kOk, Code::kIOError});
}

}  // namespace

Status PopulatePool(DB* db) {
  Status s;
  for (uint64_t k = 0; k < kDamageKeys && s.ok(); ++k)
    s = db->Put({}, Bytes(k), Bytes(k * 10 + 1));
  for (uint64_t k = 0; k < kDamageKeys && s.ok(); k += 5)
    s = db->Delete({}, Bytes(k));
  for (uint64_t k = 0; k < kDamageKeys && s.ok(); k += 3)
    s = db->Put({}, Bytes(k), Bytes(k * 10 + 2));
  return s;
}

std::optional<uint64_t> PopulatedValue(uint64_t key) {
  if (key >= kDamageKeys) return std::nullopt;
  if (key % 3 == 0) return key * 10 + 2;
  if (key % 5 == 0) return std::nullopt;
  return key * 10 + 1;
}

std::string CheckPopulated(DB* db) {
  for (uint64_t k = 0; k < kDamageKeys; ++k) {
    std::string v;
    const Status s = db->Get({}, Bytes(k), &v);
    uint64_t got = 0;
    if (s.ok()) std::memcpy(&got, v.data(), std::min<size_t>(8, v.size()));
    const std::optional<uint64_t> want = PopulatedValue(k);
    if (want ? (!s.ok() || got != *want) : !s.IsNotFound()) {
      return "key " + std::to_string(k) + ": " +
             (s.ok() ? std::to_string(got) : s.ToString());
    }
  }
  return "";
}

std::vector<PoolOp> DefaultDamageOps(uint64_t key_space) {
  std::vector<PoolOp> ops;
  const uint64_t stride = key_space > 24 ? key_space / 24 : 1;
  for (uint64_t k = 0; k < key_space; k += stride)
    ops.push_back({PoolOp::Kind::kGet, k, 0});
  for (uint64_t k = 0; k < 48; ++k) {
    ops.push_back(
        {PoolOp::Kind::kPut, k * 7 % (key_space + 1), 0xDA3A6E00 + k});
  }
  for (uint64_t k = 0; k < 8; ++k)
    ops.push_back({PoolOp::Kind::kDelete, k * 3, 0});
  ops.push_back({PoolOp::Kind::kCheckpoint, 0, 0});
  ops.push_back({PoolOp::Kind::kVerify, 0, 0});
  for (uint64_t k = 0; k < key_space; k += stride)
    ops.push_back({PoolOp::Kind::kGet, k, 0});
  return ops;
}

DamageReport ExerciseDamagedPool(const Options& options,
                                 const InternalOptions& internal,
                                 const std::string& path,
                                 const std::vector<PoolOp>& ops) {
  DamageReport r;
  r.violation = Cycle(options, internal, path, ops, &r.open, &r.verify);
  if (!r.violation.empty() || !r.open.ok()) return r;
  // Recover what the operations left behind: the damage must stay an error.
  Status reopen;
  Status reverify;
  const std::vector<PoolOp> reads(
      ops.begin(), ops.begin() + std::min<size_t>(ops.size(), 8));
  if (std::string e =
          Cycle(options, internal, path, reads, &reopen, &reverify);
      !e.empty()) {
    r.violation = "after reopening: " + e;
  }
  return r;
}

}  // namespace plush::test
