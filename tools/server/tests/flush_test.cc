// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// FLUSHDB and FLUSHALL through the command layer, on a FlushablePool as
// plush-server serves: the keys gone at once, the pool file replaced by an
// empty pool of the same creation parameters (what a restart opens), the
// clients that WATCH a deleted key failing their EXEC, Redis 7's replies,
// in a transaction too.

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "command_table.h"
#include "flushable_pool.h"
#include "plush/db.h"

namespace plush::server {
namespace {

class FlushTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::TempDir() + "/plush_server_flush_test_" +
           std::to_string(getpid());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    path_ = dir_ + "/pool";
  }

  void TearDown() override {
    Close();
    std::filesystem::remove_all(dir_);
  }

  // Opens (creating it if missing) the pool at `open_path` and serves it
  // as plush-server does.
  void Serve(Partitioning partitioning, const std::string& open_path) {
    Options options = Options::SmallProfile();
    options.partitioning = partitioning;
    std::unique_ptr<DB> db;
    ASSERT_TRUE(DB::Open(options, open_path, &db).ok());
    options.create_if_missing = false;  // as the server's ExistingPoolOptions
    pool_ = std::make_unique<FlushablePool>(std::move(db), open_path, options);
    ServerConfig config;
    config.threads = 1;
    context_ = std::make_unique<ServerContext>(pool_.get(), config);
    for (uint64_t id : {1, 2, 3}) {
      Session& session = sessions_[id - 1];
      session.id = id;
      session.authenticated = true;
      session.client = std::make_shared<ClientRecord>(
          id, "127.0.0.1:5000", "127.0.0.1:6380", /*socket_fd=*/9);
    }
  }

  void Close() {
    context_.reset();
    if (pool_ != nullptr) {
      EXPECT_TRUE(pool_->Close().ok());
    }
    pool_.reset();
  }

  // Runs a command from client `client` (0, 1, 2) and returns its reply.
  std::string Run(const std::vector<std::string>& args, int client = 0) {
    std::string out;
    ReplyWriter reply(&out);
    reply.set_protocol(2);
    const std::vector<std::string_view> views(args.begin(), args.end());
    CommandCall call{*context_, sessions_[client], views, reply};
    Execute(call);
    return out;
  }

  Stats PoolStats() {
    Stats stats;
    EXPECT_TRUE(pool_->GetStats(&stats).ok());
    return stats;
  }

  std::string dir_;
  std::string path_;
  std::unique_ptr<FlushablePool> pool_;
  std::unique_ptr<ServerContext> context_;
  Session sessions_[3];
};

TEST_F(FlushTest, DeletesEveryKeyAndLeavesAnEmptyPoolOfTheSameKind) {
  Serve(Partitioning::kHash, path_);
  for (int i = 0; i < 2000; ++i) {
    std::string key = "key";
    key += std::to_string(i);
    ASSERT_EQ(Run({"SET", key, std::string(i % 100, 'v')}), "+OK\r\n");
  }
  ASSERT_EQ(Run({"SET", "ttl", "v", "EX", "100"}), "+OK\r\n");
  const Stats before = PoolStats();
  // The new pool file keeps the old one's permissions.
  const auto mode = std::filesystem::perms::owner_read |
                    std::filesystem::perms::owner_write;
  std::filesystem::permissions(path_, mode);

  EXPECT_EQ(Run({"FLUSHDB"}), "+OK\r\n");
  EXPECT_EQ(Run({"DBSIZE"}), ":0\r\n");
  EXPECT_EQ(Run({"GET", "key7"}), "$-1\r\n");
  EXPECT_EQ(Run({"TTL", "ttl"}), ":-2\r\n");
  EXPECT_EQ(Run({"KEYS", "*"}), "*0\r\n");
  EXPECT_EQ(Run({"INFO", "keyspace"}), "$12\r\n# Keyspace\r\n\r\n");
  const Stats after = PoolStats();
  EXPECT_EQ(after.partitioning, before.partitioning);
  EXPECT_EQ(after.dram_directory_bits, before.dram_directory_bits);
  EXPECT_EQ(after.fanout_bits, before.fanout_bits);
  EXPECT_EQ(after.first_level_fanout_bits, before.first_level_fanout_bits);
  EXPECT_EQ(after.log_count, before.log_count);
  EXPECT_EQ(after.log_chunk_size, before.log_chunk_size);
  EXPECT_EQ(after.log_chunks_per_log, before.log_chunks_per_log);
  EXPECT_EQ(after.payload_log_count, before.payload_log_count);
  EXPECT_EQ(after.payload_chunk_size, before.payload_chunk_size);
  EXPECT_EQ(std::filesystem::status(path_).permissions(), mode);
  EXPECT_FALSE(std::filesystem::exists(path_ + ".flushing"));

  // Writes after it work, and the pool file holds them alone.
  EXPECT_EQ(Run({"SET", "new", "1"}), "+OK\r\n");
  EXPECT_EQ(Run({"INCR", "new"}), ":2\r\n");
  EXPECT_EQ(Run({"FLUSHALL"}), "+OK\r\n");
  EXPECT_EQ(Run({"SET", "newer", "3"}), "+OK\r\n");
  Close();
  std::unique_ptr<DB> reopened;
  ASSERT_TRUE(DB::Open(Options(), path_, &reopened).ok());
  std::string value;
  EXPECT_TRUE(reopened->Get(ReadOptions(), "newer", &value).ok());
  EXPECT_EQ(value, "3");
  EXPECT_TRUE(reopened->Get(ReadOptions(), "new", &value).IsNotFound());
  EXPECT_TRUE(reopened->Get(ReadOptions(), "key7", &value).IsNotFound());
  EXPECT_TRUE(reopened->Verify().ok());
  EXPECT_TRUE(reopened->Close().ok());
}

TEST_F(FlushTest, RepliesAndErrorsAsRedis7) {
  Serve(Partitioning::kHash, path_);
  for (const char* command : {"FLUSHDB", "FLUSHALL"}) {
    for (const char* mode : {"ASYNC", "SYNC", "async", "Sync"})
      EXPECT_EQ(Run({command, mode}), "+OK\r\n") << command << ' ' << mode;
    EXPECT_EQ(Run({command, "now"}), "-ERR syntax error\r\n");
    EXPECT_EQ(Run({command, "ASYNC", "SYNC"}), "-ERR syntax error\r\n");
    EXPECT_EQ(Run({command, "async", "async"}), "-ERR syntax error\r\n");
  }
}

// As Redis: in a transaction, the commands after it see the empty
// keyspace, and its writes before it are gone; the transaction is one
// step, on disk too.
TEST_F(FlushTest, RunsInATransaction) {
  Serve(Partitioning::kHash, path_);
  ASSERT_EQ(Run({"SET", "a", "1"}), "+OK\r\n");
  ASSERT_EQ(Run({"SET", "old", "1"}), "+OK\r\n");
  EXPECT_EQ(Run({"MULTI"}), "+OK\r\n");
  for (const std::vector<std::string>& command :
       std::vector<std::vector<std::string>>{{"SET", "b", "2"},
                                             {"FLUSHALL"},
                                             {"SET", "c", "3"},
                                             {"GET", "b"},
                                             {"MGET", "c", "old"},
                                             {"INCR", "a"}}) {
    EXPECT_EQ(Run(command), "+QUEUED\r\n");
  }
  EXPECT_EQ(Run({"EXEC"}),
            "*6\r\n+OK\r\n+OK\r\n+OK\r\n$-1\r\n*2\r\n$1\r\n3\r\n$-1\r\n"
            ":1\r\n");
  EXPECT_EQ(Run({"DBSIZE"}), ":2\r\n");
  Close();
  std::unique_ptr<DB> reopened;
  ASSERT_TRUE(DB::Open(Options(), path_, &reopened).ok());
  std::string value;
  EXPECT_TRUE(reopened->Get(ReadOptions(), "c", &value).ok());
  EXPECT_EQ(value, "3");
  EXPECT_TRUE(reopened->Get(ReadOptions(), "a", &value).ok());
  EXPECT_EQ(value, "1");
  EXPECT_TRUE(reopened->Get(ReadOptions(), "old", &value).IsNotFound());
  EXPECT_TRUE(reopened->Get(ReadOptions(), "b", &value).IsNotFound());
  EXPECT_TRUE(reopened->Close().ok());
}

// As Redis 7 (touchAllWatchedKeysInDb): a flush touches the watched keys
// that existed, and only those.
TEST_F(FlushTest, FailsTheExecOfClientsWatchingADeletedKey) {
  Serve(Partitioning::kHash, path_);
  ASSERT_EQ(Run({"SET", "w", "1"}), "+OK\r\n");
  ASSERT_EQ(Run({"WATCH", "w"}, 0), "+OK\r\n");
  ASSERT_EQ(Run({"WATCH", "missing"}, 1), "+OK\r\n");
  EXPECT_EQ(Run({"FLUSHALL", "ASYNC"}, 2), "+OK\r\n");
  for (int client : {0, 1}) {
    EXPECT_EQ(Run({"MULTI"}, client), "+OK\r\n");
    EXPECT_EQ(Run({"SET", "x", "1"}, client), "+QUEUED\r\n");
  }
  EXPECT_EQ(Run({"EXEC"}, 0), "*-1\r\n");
  EXPECT_EQ(Run({"EXEC"}, 1), "*1\r\n+OK\r\n");
  // Its own flush too.
  ASSERT_EQ(Run({"WATCH", "x"}, 0), "+OK\r\n");
  EXPECT_EQ(Run({"FLUSHDB"}, 0), "+OK\r\n");
  EXPECT_EQ(Run({"MULTI"}, 0), "+OK\r\n");
  EXPECT_EQ(Run({"EXEC"}, 0), "*-1\r\n");
}

// A range pool's SCAN cursor names a key: one handed out before the flush
// goes on over the empty keyspace.
TEST_F(FlushTest, ScanCursorsStayValid) {
  Serve(Partitioning::kRange, path_);
  for (int i = 0; i < 100; ++i) {
    std::string key = "k";
    key += std::to_string(i);
    ASSERT_EQ(Run({"SET", key, "v"}), "+OK\r\n");
  }
  const std::string reply = Run({"SCAN", "0", "COUNT", "1"});
  // *2 $<n> <cursor> ...
  const size_t start = reply.find("\r\n", reply.find('$')) + 2;
  const std::string cursor =
      reply.substr(start, reply.find("\r\n", start) - start);
  ASSERT_NE(cursor, "0");
  EXPECT_EQ(Run({"FLUSHDB"}), "+OK\r\n");
  EXPECT_EQ(Run({"SCAN", cursor}), "*2\r\n$1\r\n0\r\n*0\r\n");
  EXPECT_EQ(PoolStats().partitioning, "range");
}

// Through a symbolic link the file it names is replaced, the link stays;
// a file left by a flush cut short is replaced.
TEST_F(FlushTest, ReplacesTheFileALinkNamesAndALeftOverNewPool) {
  {
    std::unique_ptr<DB> db;
    ASSERT_TRUE(DB::Open(Options::SmallProfile(), path_, &db).ok());
    ASSERT_TRUE(db->Close().ok());
  }
  const std::string link = dir_ + "/link";
  std::filesystem::create_symlink(path_, link);
  Serve(Partitioning::kHash, link);
  { std::ofstream(path_ + ".flushing") << "left by a kill -9"; }
  ASSERT_EQ(Run({"SET", "k", "v"}), "+OK\r\n");
  EXPECT_EQ(Run({"FLUSHDB"}), "+OK\r\n");
  EXPECT_TRUE(std::filesystem::is_symlink(link));
  EXPECT_TRUE(std::filesystem::is_regular_file(
      std::filesystem::symlink_status(path_)));
  EXPECT_FALSE(std::filesystem::exists(path_ + ".flushing"));
  EXPECT_EQ(Run({"GET", "k"}), "$-1\r\n");
}

// A flush that fails before the rename leaves every key served.
TEST_F(FlushTest, AFailedFlushLeavesTheKeys) {
  Serve(Partitioning::kHash, path_);
  ASSERT_EQ(Run({"SET", "k", "v"}), "+OK\r\n");
  // What the new pool's name holds cannot be removed.
  std::filesystem::create_directories(path_ + ".flushing/d");
  std::string error = "-ERR IOError: cannot remove ";
  error += std::filesystem::canonical(path_).string();
  error += ".flushing: ";
  const std::string reply = Run({"FLUSHDB"});
  EXPECT_EQ(reply.substr(0, error.size()), error) << reply;
  EXPECT_EQ(Run({"GET", "k"}), "$1\r\nv\r\n");
  std::filesystem::remove_all(path_ + ".flushing");
  EXPECT_EQ(Run({"FLUSHDB"}), "+OK\r\n");
  EXPECT_EQ(Run({"GET", "k"}), "$-1\r\n");
}

// A pool the server cannot replace (a test's plain DB) answers an error.
TEST_F(FlushTest, APlainDbCannotBeFlushed) {
  std::unique_ptr<DB> db;
  ASSERT_TRUE(DB::Open(Options::SmallProfile(), path_, &db).ok());
  ServerConfig config;
  config.threads = 1;
  context_ = std::make_unique<ServerContext>(db.get(), config);
  sessions_[0].authenticated = true;
  sessions_[0].client = std::make_shared<ClientRecord>(
      0, "127.0.0.1:5000", "127.0.0.1:6380", /*socket_fd=*/9);
  const std::string error =
      "-ERR NotSupported: this server's pool cannot be replaced\r\n";
  EXPECT_EQ(Run({"FLUSHDB"}), error);
  EXPECT_EQ(Run({"MULTI"}), "+OK\r\n");
  EXPECT_EQ(Run({"FLUSHDB"}), "+QUEUED\r\n");
  EXPECT_EQ(Run({"EXEC"}), "*1\r\n" + error);
  context_.reset();
  EXPECT_TRUE(db->Close().ok());
}

}  // namespace
}  // namespace plush::server
