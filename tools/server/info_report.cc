// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.

#include "info_report.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <iterator>
#include <memory>
#include <numeric>
#include <random>
#include <sstream>
#include <vector>

#include "command_handlers.h"
#include "process_memory.h"
#include "reply_guarantee.h"

namespace plush::server {
namespace {

// The Redis release whose replies this server gives for the commands it
// has (clients read it to decide what they may send); not a Redis build.
constexpr std::string_view kRedisVersion = "7.0.0";

bool Wants(std::span<const std::string_view> sections, std::string_view name) {
  if (sections.empty()) return true;
  for (std::string_view s : sections) {
    if (IsKeyword(s, name) || IsKeyword(s, "all") || IsKeyword(s, "default") ||
        IsKeyword(s, "everything")) {
      return true;
    }
  }
  return false;
}

void ServerSection(const ServerContext& server, std::ostream& out) {
  const auto uptime = std::chrono::duration_cast<std::chrono::seconds>(
                          std::chrono::steady_clock::now() - server.started)
                          .count();
  out << "# Server\r\n"
      << "redis_version:" << kRedisVersion << "\r\n"
      << "plush_version:" << PLUSH_VERSION << "\r\n"
      << "redis_mode:standalone\r\n"
      << "multiplexing_api:asio\r\n"
      << "process_id:" << getpid() << "\r\n"
      << "tcp_port:" << server.port.load() << "\r\n"
      << "io_threads:" << server.config.threads << "\r\n"
      << "uptime_in_seconds:" << uptime << "\r\n"
      << "uptime_in_days:" << uptime / 86400 << "\r\n";
}

void ClientsSection(const ServerContext& server, std::ostream& out) {
  out << "# Clients\r\n"
      << "connected_clients:" << server.connected_clients.load() << "\r\n"
      << "maxclients:" << server.config.maxclients << "\r\n";
}

// Redis's spelling of a size: "1023B", "1.00K", "11.76M"...
std::string HumanBytes(uint64_t bytes) {
  static constexpr char kUnits[] = "KMGTP";
  if (bytes < 1024) return std::to_string(bytes) + "B";
  double value = static_cast<double>(bytes) / 1024;
  size_t unit = 0;
  while (value >= 1024 && unit + 1 < sizeof(kUnits) - 1) {
    value /= 1024;
    ++unit;
  }
  char text[32];
  std::snprintf(text, sizeof(text), "%.2f%c", value, kUnits[unit]);
  return text;
}

// Redis's used_memory is what its allocator handed out; here it is the
// process's anonymous resident memory: the server's own and the pages of
// the engine's DRAM structures that were written (stats' plush_dram_bytes,
// Stats::dram_bytes, counts them allocated, written or not, so it may be
// the larger). used_memory_rss adds the resident pages of the mapped pool.
// No memory limit: a full pool refuses writes, nothing is evicted.
Status MemorySection(std::ostream& out) {
  ProcessMemory memory;
  Status s = ReadProcessMemory(&memory);
  if (!s.ok()) return s;
  const uint64_t system = static_cast<uint64_t>(sysconf(_SC_PHYS_PAGES)) *
                          static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  out << "# Memory\r\n"
      << "used_memory:" << memory.anonymous_bytes << "\r\n"
      << "used_memory_human:" << HumanBytes(memory.anonymous_bytes) << "\r\n"
      << "used_memory_rss:" << memory.resident_bytes << "\r\n"
      << "used_memory_rss_human:" << HumanBytes(memory.resident_bytes)
      << "\r\n"
      << "total_system_memory:" << system << "\r\n"
      << "total_system_memory_human:" << HumanBytes(system) << "\r\n"
      << "maxmemory:0\r\n"
      << "maxmemory_human:0B\r\n"
      << "maxmemory_policy:noeviction\r\n";
  return Status::OK();
}

// The fields of the pool's Stats that PersistenceSection reports in its
// own terms: each field appears in one section only.
constexpr std::string_view kPersistenceFields[] = {"backend",
                                                   "power_fail_durable",
                                                   "guarantee"};

void PersistenceSection(const ServerContext& server, const Stats& stats,
                        std::ostream& out) {
  const ReplyGuarantee guarantee =
      GuaranteeOfReplies(stats, server.config.sync_writes);
  out << "# Persistence\r\n"
      << "loading:0\r\n"
      << "plush_backend:" << stats.backend << "\r\n"
      << "plush_power_fail_durable:" << (guarantee.power_fail_durable ? 1 : 0)
      << "\r\n"
      << "plush_sync_writes:" << (server.config.sync_writes ? 1 : 0) << "\r\n"
      << "plush_guarantee:" << guarantee.text << "\r\n"
      << "rdb_last_save_time:" << server.last_save_time.load() << "\r\n";
}

// The pool's Stats fields as "plush_<name>:<value>" lines, in Redis's
// spelling (flags 0 or 1), but for those of kPersistenceFields.
class InfoFields final : public StatsTextVisitor {
 public:
  explicit InfoFields(std::ostream& out) : StatsTextVisitor("1", "0"), out_(out) {}

  void Field(std::string_view name, const std::string& value) override {
    if (std::ranges::find(kPersistenceFields, name) !=
        std::end(kPersistenceFields)) {
      return;
    }
    out_ << "plush_" << name << ':' << value << "\r\n";
  }

 private:
  std::ostream& out_;
};

// Redis's counters, the reply syncs, then the pool's Stats fields.
void StatsSection(const ServerContext& server, const Stats& stats,
                  std::ostream& out) {
  out << "# Stats\r\n"
      << "total_connections_received:" << server.total_connections.load()
      << "\r\n"
      << "total_commands_processed:" << server.commands_processed.load()
      << "\r\n"
      << "rejected_connections:" << server.rejected_connections.load() << "\r\n"
      << "plush_reply_syncs:" << server.reply_syncs.load() << "\r\n";
  InfoFields fields(out);
  stats.ForEachField(&fields);
}

// INFO keyspace's "expires" and "avg_ttl". Redis counts the keys with an
// expiry exactly and estimates their mean time to live from the keys its
// expiry cycle samples; the engine counts neither, so both come from keys
// read here: every key of a pool of at most kExpirySample record versions
// (exact), else kExpirySample keys read in kExpiryRuns runs from random
// partitions (an estimate, scaled to the versions).
constexpr uint64_t kExpirySample = 1024;
constexpr uint64_t kExpiryRuns = 16;

struct ExpiryFigures {
  uint64_t expires = 0;
  uint64_t avg_ttl_ms = 0;
};

Status SampleExpiry(ServerContext& server, uint64_t versions,
                    ExpiryFigures* figures) {
  std::unique_ptr<Iterator> it = server.db->NewIterator(ReadOptions());
  const uint64_t now = server.clock->NowMs();
  uint64_t read = 0;
  uint64_t expiring = 0;
  uint64_t ttl_ms = 0;
  auto take = [&] {
    const uint64_t expires_at = it->expires_at_ms();
    ++read;
    if (expires_at != 0) {
      ++expiring;
      ttl_ms += expires_at > now ? expires_at - now : 0;
    }
    it->Next();
  };
  const bool every_key = versions <= kExpirySample;
  if (every_key) {
    for (it->SeekToFirst(); it->Valid();) take();
  } else {
    thread_local std::mt19937_64 random{std::random_device{}()};
    std::uniform_int_distribution<uint64_t> partition(0,
                                                      server.partitions - 1);
    for (uint64_t run = 0; run < kExpiryRuns && it->status().ok(); ++run) {
      it->SeekToPartition(partition(random));
      for (uint64_t i = 0; i < kExpirySample / kExpiryRuns && it->Valid(); ++i)
        take();
    }
  }
  if (!it->status().ok()) return it->status();
  figures->expires =
      every_key || read == 0
          ? expiring
          : static_cast<uint64_t>(static_cast<double>(versions) *
                                      static_cast<double>(expiring) /
                                      static_cast<double>(read) +
                                  0.5);
  figures->avg_ttl_ms = expiring == 0 ? 0 : ttl_ms / expiring;
  return Status::OK();
}

// Redis's one line per database. Plush keeps no key count: "keys" is the
// number of stored record versions (Stats::records_per_level), which
// counts overwritten and deleted keys until migrations merge them away,
// so an upper bound; DBSIZE counts exactly.
void KeyspaceSection(uint64_t versions, const ExpiryFigures& expiry,
                     std::ostream& out) {
  out << "# Keyspace\r\n";
  if (versions > 0) {
    out << "db0:keys=" << versions << ",expires=" << expiry.expires
        << ",avg_ttl=" << expiry.avg_ttl_ms << "\r\n";
  }
}

uint64_t RecordVersions(const Stats& stats) {
  return std::accumulate(stats.records_per_level.begin(),
                         stats.records_per_level.end(), uint64_t{0});
}

}  // namespace

Status InfoReport(ServerContext& server,
                  std::span<const std::string_view> sections,
                  std::string* text) {
  Stats stats;
  ExpiryFigures expiry;
  {
    SharedGateLock gate(&server.gate);  // the pool stays (FLUSHDB)
    Status s = server.db->GetStats(&stats);
    if (s.ok() && Wants(sections, "keyspace"))
      s = SampleExpiry(server, RecordVersions(stats), &expiry);
    if (!s.ok()) return s;
  }
  std::ostringstream out;
  // Sections are separated by an empty line.
  auto section = [&](std::string_view name) {
    if (!Wants(sections, name)) return false;
    if (out.tellp() > 0) out << "\r\n";
    return true;
  };
  if (section("server")) ServerSection(server, out);
  if (section("clients")) ClientsSection(server, out);
  if (section("memory")) {
    const Status s = MemorySection(out);
    if (!s.ok()) return s;
  }
  if (section("persistence")) PersistenceSection(server, stats, out);
  if (section("stats")) StatsSection(server, stats, out);
  if (section("keyspace"))
    KeyspaceSection(RecordVersions(stats), expiry, out);
  *text = out.str();
  return Status::OK();
}

}  // namespace plush::server
