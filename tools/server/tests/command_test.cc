// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// The command layer against a small pool, without sockets: each test runs
// commands as a connection does (with --sync-writes, each write's reply
// after a sync) and checks the exact bytes of the replies, errors included.

#include "command_table.h"
#include "reply_sync.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <cstddef>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "plush/db.h"
#include "plush/limits.h"
#include "plush/options.h"
#include "pool/pool_format.h"
#include "testing/fault_injecting_file_ops.h"
#include "testing/open_db.h"

namespace plush::server {
namespace {

using namespace std::string_literals;

// A RESP header line, e.g. Header(':', 42) is ":42\r\n". (Built by
// appending: GCC 12 warns falsely about "literal" + std::string.)
std::string Header(char type, size_t n) {
  std::string line(1, type);
  line += std::to_string(n);
  line += "\r\n";
  return line;
}

// The pool's clock, which the test moves: expiries without sleeps.
class ManualClock final : public Clock {
 public:
  uint64_t NowMs() const override { return now_ms.load(); }
  std::atomic<uint64_t> now_ms{1'700'000'000'000};  // Unix ms, in 2023
};

class CommandTest : public ::testing::Test {
 protected:
  void SetUp() override { OpenPool(Partitioning::kHash, std::nullopt); }
  void TearDown() override { Close(); }

  void OpenPool(Partitioning partitioning,
                std::optional<std::string> password, bool sync_writes = false) {
    Close();
    path_ = testing::TempDir() + "/plush_server_command_test_" +
            std::to_string(getpid()) + ".pool";
    std::filesystem::remove(path_);
    // With --sync-writes the pool is power-fail safe (as plush-server opens
    // it), where every barrier is a sync: one of the default sizes, whose
    // tests' writes start no background work, so that the syncs a test
    // fails are its writes'.
    Options options = sync_writes ? Options() : Options::SmallProfile();
    options.partitioning = partitioning;
    options.clock = clock_;
    options.power_fail_safe = sync_writes;
    ASSERT_TRUE(OpenDB(options, {.file_ops = faults_}, path_, &db_).ok());
    ServerConfig config;
    config.threads = 1;
    config.password = std::move(password);
    config.sync_writes = sync_writes;
    context_ = std::make_unique<ServerContext>(db_.get(), config, clock_);
    context_->request_shutdown = [this] { ++shutdowns_; };
    NewSession();
    session_.authenticated = !config.password;
    reply_.set_protocol(2);
  }

  // A fresh session, as a connection starts one: unauthenticated, with the
  // record it registers (CLIENT INFO describes it).
  void NewSession() {
    session_ = Session();
    session_.client =
        std::make_shared<ClientRecord>(session_.id, "127.0.0.1:5000",
                                       "127.0.0.1:6380", /*socket_fd=*/9);
  }

  void Close() {
    context_.reset();
    if (db_ != nullptr) {
      // A failed sync is sticky: Close reports it again.
      EXPECT_EQ(db_->Close().ok(), !sync_failed_);
      sync_failed_ = false;
      db_.reset();
      std::filesystem::remove(path_);
    }
  }

  // Runs one command as a connection would and returns its reply.
  std::string Run(const std::vector<std::string>& args) {
    out_.clear();
    const std::vector<std::string_view> views(args.begin(), args.end());
    CommandCall call{*context_, session_, views, reply_};
    Execute(call);
    if (call.wrote && context_->config.sync_writes) {
      // As a connection waits for its event loop's sync (here at once): a
      // failed sync replaces the reply.
      struct Waiter final : ReplySync::Waiter {
        void Synced(const Status& s) override {
          status = s;
          told = true;
        }
        Status status;
        bool told = false;
      };
      const auto waiter = std::make_shared<Waiter>();
      ReplySync sync([](std::function<void()> fn) { fn(); }, context_->db,
                     &context_->gate, &context_->synced_writes,
                     &context_->reply_syncs);
      sync.Await(waiter);
      EXPECT_TRUE(waiter->told);
      if (!waiter->status.ok()) {
        out_.clear();
        ReplyError(reply_, waiter->status);
      }
    }
    return out_;
  }

  // Every key that a full SCAN iteration with `options` returns, checking
  // that none comes twice.
  std::set<std::string> ScanAll(const std::vector<std::string>& options) {
    std::set<std::string> keys;
    std::string cursor = "0";
    do {
      std::vector<std::string> args = {"SCAN", cursor};
      args.insert(args.end(), options.begin(), options.end());
      const std::string reply = Run(args);
      // *2 $<n> <cursor> *<count> ($<n> <key>)*, each followed by CRLF.
      size_t p = reply.find("\r\n", reply.find('$')) + 2;
      size_t q = reply.find("\r\n", p);
      cursor = reply.substr(p, q - p);
      p = q + 3;
      q = reply.find("\r\n", p);
      const int count = std::stoi(reply.substr(p, q - p));
      p = q + 2;
      for (int i = 0; i < count; ++i) {
        q = reply.find("\r\n", p);
        const size_t length = std::stoul(reply.substr(p + 1, q - p - 1));
        const std::string key = reply.substr(q + 2, length);
        EXPECT_TRUE(keys.insert(key).second) << "returned twice: " << key;
        p = q + 2 + length + 2;
      }
    } while (cursor != "0");
    return keys;
  }

  // Moves the pool's clock on.
  void Advance(uint64_t ms) { clock_->now_ms += ms; }
  // The clock's time plus `ms`, as an argument.
  std::string Later(uint64_t ms) const {
    return std::to_string(clock_->NowMs() + ms);
  }

  std::string path_;
  const std::shared_ptr<ManualClock> clock_ = std::make_shared<ManualClock>();
  // The pool's system calls: tests fail its syncs.
  const std::shared_ptr<media::FaultInjectingFileOps> faults_ =
      std::make_shared<media::FaultInjectingFileOps>();
  std::unique_ptr<DB> db_;
  std::unique_ptr<ServerContext> context_;
  Session session_;
  std::string out_;
  ReplyWriter reply_{&out_};
  int shutdowns_ = 0;
  bool sync_failed_ = false;  // the DB's sync failed: its Close fails too
};

TEST_F(CommandTest, PingEchoSelect) {
  EXPECT_EQ(Run({"PING"}), "+PONG\r\n");
  EXPECT_EQ(Run({"ping", "hi"}), "$2\r\nhi\r\n");
  EXPECT_EQ(Run({"PING", "a", "b"}),
            "-ERR wrong number of arguments for 'ping' command\r\n");
  EXPECT_EQ(Run({"ECHO", "x\r\ny"}), "$4\r\nx\r\ny\r\n");
  EXPECT_EQ(Run({"SELECT", "0"}), "+OK\r\n");
  EXPECT_EQ(Run({"SELECT", "1"}), "-ERR DB index is out of range\r\n");
  EXPECT_EQ(Run({"SELECT", "x"}),
            "-ERR value is not an integer or out of range\r\n");
}

TEST_F(CommandTest, UnknownCommandsAndWrongArity) {
  EXPECT_EQ(Run({"FROB", "a", "b"}),
            "-ERR unknown command 'FROB', with args beginning with: 'a' 'b' "
            "\r\n");
  EXPECT_EQ(Run({"get"}),
            "-ERR wrong number of arguments for 'get' command\r\n");
  EXPECT_EQ(Run({"GET", "a", "b"}),
            "-ERR wrong number of arguments for 'get' command\r\n");
  // Echoed arguments cannot break the reply's line.
  EXPECT_EQ(Run({"x\r\n+OK"}),
            "-ERR unknown command 'x  +OK', with args beginning with: \r\n");
  EXPECT_EQ(Run({"LPUSH", "k", "1"}),
            "-ERR unknown command 'LPUSH', with args beginning with: 'k' '1' "
            "\r\n");
  EXPECT_EQ(Run({"GETRANGE", "k", "0"}),
            "-ERR wrong number of arguments for 'getrange' command\r\n");
}

TEST_F(CommandTest, SetAndGet) {
  EXPECT_EQ(Run({"GET", "k"}), "$-1\r\n");
  EXPECT_EQ(Run({"SET", "k", "v1"}), "+OK\r\n");
  EXPECT_EQ(Run({"GET", "k"}), "$2\r\nv1\r\n");
  const std::string binary = "\0\r\n\xff"s;
  EXPECT_EQ(Run({"SET", binary, binary}), "+OK\r\n");
  EXPECT_EQ(Run({"GET", binary}), "$4\r\n" + binary + "\r\n");
  EXPECT_EQ(Run({"SET", "empty", ""}), "+OK\r\n");
  EXPECT_EQ(Run({"GET", "empty"}), "$0\r\n\r\n");
  EXPECT_EQ(Run({"STRLEN", binary}), ":4\r\n");
  EXPECT_EQ(Run({"STRLEN", "missing"}), ":0\r\n");
}

TEST_F(CommandTest, SetOptions) {
  EXPECT_EQ(Run({"SET", "k", "a", "XX"}), "$-1\r\n");
  EXPECT_EQ(Run({"SET", "k", "a", "nx"}), "+OK\r\n");
  EXPECT_EQ(Run({"SET", "k", "b", "NX"}), "$-1\r\n");
  EXPECT_EQ(Run({"SET", "k", "c", "XX", "GET"}), "$1\r\na\r\n");
  EXPECT_EQ(Run({"SET", "new", "c", "GET"}), "$-1\r\n");
  EXPECT_EQ(Run({"GET", "new"}), "$1\r\nc\r\n");
  EXPECT_EQ(Run({"SET", "k", "d", "NX", "XX"}), "-ERR syntax error\r\n");
  EXPECT_EQ(Run({"SET", "k", "d", "sometimes"}), "-ERR syntax error\r\n");
  EXPECT_EQ(Run({"GET", "k"}), "$1\r\nc\r\n");
}

TEST_F(CommandTest, SetNxAndGetSet) {
  EXPECT_EQ(Run({"SETNX", "k", "a"}), ":1\r\n");
  EXPECT_EQ(Run({"SETNX", "k", "b"}), ":0\r\n");
  EXPECT_EQ(Run({"GETSET", "k", "c"}), "$1\r\na\r\n");
  EXPECT_EQ(Run({"GETSET", "other", "c"}), "$-1\r\n");
  EXPECT_EQ(Run({"GET", "k"}), "$1\r\nc\r\n");
}

TEST_F(CommandTest, KeysOverTheLimitAreErrors) {
  const std::string key(kMaxKeySize + 1, 'k');
  const std::string error =
      "-ERR InvalidArgument: key of 1025 bytes exceeds the limit of 1024 "
      "bytes\r\n";
  EXPECT_EQ(Run({"GET", key}), error);
  EXPECT_EQ(Run({"SETNX", key, "v"}), error);
  // A SET is written as a batch of one: no batch is named.
  EXPECT_EQ(Run({"SET", key, "v"}), error);
  EXPECT_EQ(Run({"MSET", key, "v"}), error);
  // An MSET names the pair at fault, from 0.
  EXPECT_EQ(Run({"MSET", "a", "1", key, "v"}),
            "-ERR InvalidArgument: batch operation 1: key of 1025 bytes "
            "exceeds the limit of 1024 bytes\r\n");
  EXPECT_EQ(Run({"SET", std::string(kMaxKeySize, 'k'), "v"}), "+OK\r\n");
}

TEST_F(CommandTest, MSetAndMGet) {
  EXPECT_EQ(Run({"MSET", "a", "1", "b", "2", "a", "3"}), "+OK\r\n");
  EXPECT_EQ(Run({"MGET", "a", "missing", "b"}),
            "*3\r\n$1\r\n3\r\n$-1\r\n$1\r\n2\r\n");
  EXPECT_EQ(Run({"MSET", "a", "1", "b"}),
            "-ERR wrong number of arguments for 'mset' command\r\n");
  EXPECT_EQ(Run({"MSET", "a"}),
            "-ERR wrong number of arguments for 'mset' command\r\n");
}

TEST_F(CommandTest, Increments) {
  EXPECT_EQ(Run({"INCR", "n"}), ":1\r\n");
  EXPECT_EQ(Run({"INCRBY", "n", "41"}), ":42\r\n");
  EXPECT_EQ(Run({"DECR", "n"}), ":41\r\n");
  EXPECT_EQ(Run({"DECRBY", "n", "-9"}), ":50\r\n");
  EXPECT_EQ(Run({"GET", "n"}), "$2\r\n50\r\n");  // a decimal string
  EXPECT_EQ(Run({"SET", "n", "9223372036854775806"}), "+OK\r\n");
  EXPECT_EQ(Run({"INCR", "n"}), ":9223372036854775807\r\n");
  EXPECT_EQ(Run({"INCR", "n"}),
            "-ERR increment or decrement would overflow\r\n");
  EXPECT_EQ(Run({"DECRBY", "n", "-9223372036854775808"}),
            "-ERR decrement would overflow\r\n");
  EXPECT_EQ(Run({"INCRBY", "n", "1.5"}),
            "-ERR value is not an integer or out of range\r\n");
  for (const char* stored : {"abc", " 1", "01", "", "1.0"}) {
    EXPECT_EQ(Run({"SET", "s", stored}), "+OK\r\n");
    EXPECT_EQ(Run({"INCR", "s"}),
              "-ERR value is not an integer or out of range\r\n")
        << stored;
  }
  EXPECT_EQ(Run({"GET", "n"}), "$19\r\n9223372036854775807\r\n");
}

TEST_F(CommandTest, PartsOfValues) {
  EXPECT_EQ(Run({"APPEND", "k", "Hello"}), ":5\r\n");
  EXPECT_EQ(Run({"APPEND", "k", " World"}), ":11\r\n");
  EXPECT_EQ(Run({"SETRANGE", "k", "6", "Redis"}), ":11\r\n");
  EXPECT_EQ(Run({"GETRANGE", "k", "-5", "-1"}), "$5\r\nRedis\r\n");
  EXPECT_EQ(Run({"GETRANGE", "k", "0", "-100"}), "$1\r\nH\r\n");  // Redis 7
  EXPECT_EQ(Run({"GETRANGE", "missing", "0", "-1"}), "$0\r\n\r\n");
  EXPECT_EQ(Run({"SETRANGE", "z", "3", "ab"}), ":5\r\n");
  EXPECT_EQ(Run({"GET", "z"}), "$5\r\n\0\0\0ab\r\n"s);
  EXPECT_EQ(Run({"SETRANGE", "none", "9", ""}), ":0\r\n");
  EXPECT_EQ(Run({"EXISTS", "none"}), ":0\r\n");
  const std::string too_long =
      "-ERR string exceeds maximum allowed size (values up to 65536 "
      "bytes)\r\n";
  EXPECT_EQ(Run({"SETRANGE", "z", std::to_string(kMaxValueSize), "x"}),
            too_long);
  EXPECT_EQ(Run({"SETRANGE", "z", "9223372036854775807", "x"}), too_long);
  EXPECT_EQ(Run({"SETRANGE", "z", "-1", "x"}),
            "-ERR offset is out of range\r\n");
  EXPECT_EQ(Run({"SETRANGE", "z", std::to_string(kMaxValueSize - 1), "x"}),
            Header(':', kMaxValueSize));
  EXPECT_EQ(Run({"APPEND", "z", "x"}), too_long);
  EXPECT_EQ(Run({"STRLEN", "z"}), Header(':', kMaxValueSize));
}

TEST_F(CommandTest, IncrByFloat) {
  EXPECT_EQ(Run({"SET", "f", "10.50"}), "+OK\r\n");
  EXPECT_EQ(Run({"INCRBYFLOAT", "f", "0.1"}), "$4\r\n10.6\r\n");
  EXPECT_EQ(Run({"INCRBYFLOAT", "f", "5.0e3"}),
            "$22\r\n5010.60000000000000009\r\n");
  EXPECT_EQ(Run({"INCRBYFLOAT", "new", "-2"}), "$2\r\n-2\r\n");
  EXPECT_EQ(Run({"INCRBYFLOAT", "f", "x"}),
            "-ERR value is not a valid float\r\n");
  EXPECT_EQ(Run({"INCRBYFLOAT", "f", "inf"}),
            "-ERR increment would produce NaN or Infinity\r\n");
  EXPECT_EQ(Run({"SET", "s", "1.5 "}), "+OK\r\n");
  EXPECT_EQ(Run({"INCRBYFLOAT", "s", "1"}),
            "-ERR value is not a valid float\r\n");
  EXPECT_EQ(Run({"GET", "f"}), "$22\r\n5010.60000000000000009\r\n");
}

TEST_F(CommandTest, KeyspaceCommands) {
  EXPECT_EQ(Run({"RANDOMKEY"}), "$-1\r\n");
  EXPECT_EQ(Run({"KEYS", "*"}), "*0\r\n");
  Run({"MSET", "a1", "1", "a2", "2", "b1", "3"});
  EXPECT_EQ(Run({"TYPE", "a1"}), "+string\r\n");
  EXPECT_EQ(Run({"TYPE", "nosuch"}), "+none\r\n");
  EXPECT_EQ(Run({"TOUCH", "a1", "a1", "nosuch"}), ":2\r\n");
  const std::string keys = Run({"KEYS", "a?"});
  EXPECT_TRUE(keys == "*2\r\n$2\r\na1\r\n$2\r\na2\r\n" ||
              keys == "*2\r\n$2\r\na2\r\n$2\r\na1\r\n")
      << keys;
  std::set<std::string> drawn;
  for (int i = 0; i < 200; ++i) drawn.insert(Run({"RANDOMKEY"}));
  EXPECT_EQ(drawn, (std::set<std::string>{"$2\r\na1\r\n", "$2\r\na2\r\n",
                                          "$2\r\nb1\r\n"}));
  EXPECT_EQ(Run({"UNLINK", "a1", "nosuch", "a1"}), ":1\r\n");
  EXPECT_EQ(Run({"KEYS", "a*"}), "*1\r\n$2\r\na2\r\n");
}

TEST_F(CommandTest, ServerCommands) {
  const std::string time = Run({"TIME"});
  EXPECT_EQ(time.substr(0, 5), "*2\r\n$");
  EXPECT_EQ(Run({"WAIT", "1", "0"}), ":0\r\n");
  EXPECT_EQ(Run({"WAIT", "0", "-1"}), "-ERR timeout is negative\r\n");
  // The start before any SAVE.
  const std::string lastsave = Run({"LASTSAVE"});
  EXPECT_EQ(lastsave[0], ':');
  EXPECT_LE(std::abs(std::stoll(lastsave.substr(1)) - std::time(nullptr)), 5)
      << lastsave;
  EXPECT_EQ(Run({"CONFIG", "GET", "save", "appendonly"}),
            "*4\r\n$4\r\nsave\r\n$0\r\n\r\n$10\r\nappendonly\r\n$2\r\nno\r\n");
  EXPECT_EQ(Run({"CONFIG", "GET", "maxmemory*"}),
            "*4\r\n$9\r\nmaxmemory\r\n$1\r\n0\r\n$16\r\nmaxmemory-policy\r\n"
            "$10\r\nnoeviction\r\n");
  EXPECT_EQ(Run({"CONFIG", "SET", "databases", "16"}),
            "-ERR CONFIG SET failed (possibly related to argument "
            "'databases') - can't set immutable config\r\n");
  reply_.set_protocol(3);
  EXPECT_EQ(Run({"CONFIG", "GET", "DATABASES"}),
            "%1\r\n$9\r\nDATABASES\r\n$1\r\n1\r\n");
  EXPECT_EQ(Run({"CONFIG", "GET", "nosuch"}), "%0\r\n");
}

TEST_F(CommandTest, DelAndExists) {
  Run({"MSET", "a", "1", "b", "2"});
  EXPECT_EQ(Run({"EXISTS", "a", "b", "a", "c"}), ":3\r\n");
  EXPECT_EQ(Run({"DEL", "a", "c", "a"}), ":1\r\n");
  EXPECT_EQ(Run({"EXISTS", "a"}), ":0\r\n");
  EXPECT_EQ(Run({"GET", "a"}), "$-1\r\n");
}

TEST_F(CommandTest, ScanVisitsEveryKeyOnce) {
  for (Partitioning partitioning :
       {Partitioning::kHash, Partitioning::kRange}) {
    OpenPool(partitioning, std::nullopt);
    std::set<std::string> written;
    for (int i = 0; i < 300; ++i) {
      const std::string key = "key" + std::to_string(i);
      ASSERT_EQ(Run({"SET", key, "v"}), "+OK\r\n");
      written.insert(key);
    }
    Run({"DEL", "key7"});
    written.erase("key7");
    EXPECT_EQ(ScanAll({}), written);
    EXPECT_EQ(ScanAll({"COUNT", "1000"}), written);
    EXPECT_EQ(
        ScanAll({"MATCH", "key1?", "COUNT", "3"}),
        (std::set<std::string>{"key10", "key11", "key12", "key13", "key14",
                               "key15", "key16", "key17", "key18", "key19"}));
    EXPECT_EQ(ScanAll({"TYPE", "string", "MATCH", "key299"}),
              (std::set<std::string>{"key299"}));
    EXPECT_EQ(ScanAll({"TYPE", "hash"}), std::set<std::string>{});
    EXPECT_EQ(Run({"DBSIZE"}), ":299\r\n");
  }
}

TEST_F(CommandTest, ScanErrors) {
  EXPECT_EQ(Run({"SCAN", "x"}), "-ERR invalid cursor\r\n");
  EXPECT_EQ(Run({"SCAN", "-1"}), "-ERR invalid cursor\r\n");
  EXPECT_EQ(Run({"SCAN", "0", "COUNT", "0"}), "-ERR syntax error\r\n");
  EXPECT_EQ(Run({"SCAN", "0", "COUNT", "x"}),
            "-ERR value is not an integer or out of range\r\n");
  EXPECT_EQ(Run({"SCAN", "0", "MATCH"}), "-ERR syntax error\r\n");
  EXPECT_EQ(Run({"SCAN", "0", "SORT", "x"}), "-ERR syntax error\r\n");
  // Past the last partition: an empty, complete iteration.
  EXPECT_EQ(Run({"SCAN", "1000000"}), "*2\r\n$1\r\n0\r\n*0\r\n");
}

TEST_F(CommandTest, ClientNames) {
  EXPECT_EQ(Run({"CLIENT", "GETNAME"}), "$-1\r\n");
  EXPECT_EQ(Run({"CLIENT", "SETNAME", "worker-1"}), "+OK\r\n");
  EXPECT_EQ(Run({"CLIENT", "GETNAME"}), "$8\r\nworker-1\r\n");
  EXPECT_EQ(Run({"CLIENT", "SETNAME", "a b"}),
            "-ERR Client names cannot contain spaces, newlines or special "
            "characters.\r\n");
  EXPECT_EQ(Run({"CLIENT", "SETNAME"}),
            "-ERR wrong number of arguments for 'client|setname' command\r\n");
  EXPECT_EQ(Run({"CLIENT", "PAUSE", "x"}),
            "-ERR unknown subcommand 'PAUSE'. Try CLIENT HELP.\r\n");
  EXPECT_EQ(Run({"CLIENT", "KILL", "x"}), "-ERR No such client\r\n");
  EXPECT_EQ(Run({"CLIENT", "ID"}), Header(':', session_.id));
}

// CLIENT INFO: the session's line, as Execute() keeps its record; CLIENT
// LIST: the registered clients only (none here).
TEST_F(CommandTest, ClientInfoDescribesTheSession) {
  EXPECT_EQ(Run({"CLIENT", "SETNAME", "w"}), "+OK\r\n");
  EXPECT_EQ(Run({"WATCH", "a"}), "+OK\r\n");
  EXPECT_EQ(Run({"MULTI"}), "+OK\r\n");
  EXPECT_EQ(Run({"GET", "a"}), "+QUEUED\r\n");
  const std::string line =
      "id=0 addr=127.0.0.1:5000 laddr=127.0.0.1:6380 fd=9 name=w age=0 "
      "idle=0 flags=x db=0 sub=0 psub=0 ssub=0 multi=2 watch=1 cmd=exec "
      "user=default redir=-1 resp=2\n";
  EXPECT_EQ(Run({"CLIENT", "INFO"}), "+QUEUED\r\n");
  EXPECT_EQ(Run({"EXEC"}),
            "*2\r\n$-1\r\n" + Header('$', line.size()) + line + "\r\n");
  EXPECT_EQ(Run({"CLIENT", "LIST"}), "$0\r\n\r\n");
}

TEST_F(CommandTest, HelloSwitchesToResp3) {
  EXPECT_EQ(Run({"HELLO", "4"}), "-NOPROTO unsupported protocol version\r\n");
  EXPECT_EQ(Run({"HELLO", "x"}),
            "-ERR Protocol version is not an integer or out of range\r\n");
  EXPECT_EQ(Run({"HELLO", "3", "FOO"}),
            "-ERR Syntax error in HELLO option 'FOO'\r\n");
  const std::string hello = Run({"HELLO", "3", "SETNAME", "me"});
  EXPECT_EQ(hello.substr(0, 4), "%7\r\n");
  EXPECT_NE(hello.find("$5\r\nproto\r\n:3\r\n"), std::string::npos);
  EXPECT_EQ(Run({"GET", "missing"}), "_\r\n");
  EXPECT_EQ(Run({"CLIENT", "GETNAME"}), "$2\r\nme\r\n");
  EXPECT_EQ(Run({"HELLO", "2"}).substr(0, 5), "*14\r\n");
  EXPECT_EQ(Run({"GET", "missing"}), "$-1\r\n");
}

TEST_F(CommandTest, Authentication) {
  OpenPool(Partitioning::kHash, "s3cret");
  const std::string noauth = "-NOAUTH Authentication required.\r\n";
  EXPECT_EQ(Run({"GET", "k"}), noauth);
  EXPECT_EQ(Run({"FROB"}), noauth);  // not even whether it exists
  EXPECT_EQ(Run({"HELLO", "3"}),
            "-NOAUTH HELLO must be called with the client already "
            "authenticated, otherwise the HELLO <proto> AUTH <user> <pass> "
            "option can be used to authenticate the client and select the "
            "RESP protocol version at the same time\r\n");
  const std::string wrongpass =
      "-WRONGPASS invalid username-password pair or user is disabled.\r\n";
  EXPECT_EQ(Run({"AUTH", "wrong"}), wrongpass);
  EXPECT_EQ(Run({"AUTH", "s3cre"}), wrongpass);
  EXPECT_EQ(Run({"AUTH", "s3cret!"}), wrongpass);
  EXPECT_EQ(Run({"AUTH", "admin", "s3cret"}), wrongpass);
  EXPECT_EQ(Run({"AUTH", "a", "b", "c"}), "-ERR syntax error\r\n");
  EXPECT_EQ(Run({"GET", "k"}), noauth);
  EXPECT_EQ(Run({"AUTH", "s3cret"}), "+OK\r\n");
  EXPECT_EQ(Run({"GET", "k"}), "$-1\r\n");
  EXPECT_EQ(Run({"AUTH", "wrong"}), wrongpass);
  EXPECT_EQ(Run({"GET", "k"}), "$-1\r\n");  // still authenticated

  NewSession();
  EXPECT_EQ(Run({"HELLO", "3", "AUTH", "default", "nope"}), wrongpass);
  EXPECT_EQ(Run({"HELLO", "3", "AUTH", "default", "s3cret"}).substr(0, 4),
            "%7\r\n");
  EXPECT_EQ(Run({"GET", "k"}), "_\r\n");
  NewSession();
  EXPECT_EQ(Run({"QUIT"}), "+OK\r\n");
  EXPECT_TRUE(session_.close_after_reply);
}

TEST_F(CommandTest, AuthWithoutAPassword) {
  const std::string error =
      "-ERR AUTH <password> called without any password configured for the "
      "default user. Are you sure your configuration is correct?\r\n";
  EXPECT_EQ(Run({"AUTH", "x"}), error);
  EXPECT_EQ(Run({"HELLO", "2", "AUTH", "default", "x"}), error);
}

TEST_F(CommandTest, CommandDescribesTheTable) {
  EXPECT_EQ(Run({"COMMAND", "COUNT"}), Header(':', AllCommands().size()));
  EXPECT_EQ(Run({"COMMAND", "INFO", "get", "nosuch"}),
            "*2\r\n*10\r\n$3\r\nget\r\n:2\r\n*2\r\n+readonly\r\n+fast\r\n"
            ":1\r\n:1\r\n:1\r\n*0\r\n*0\r\n*0\r\n*0\r\n$-1\r\n");
  EXPECT_EQ(Run({"COMMAND"}).substr(0, 5), Header('*', AllCommands().size()));
  EXPECT_EQ(Run({"COMMAND", "DOCS"}),
            "-ERR unknown subcommand 'DOCS'. Try COMMAND HELP.\r\n");
}

// How often `text` holds `part`.
size_t Occurrences(const std::string& text, std::string_view part) {
  size_t n = 0;
  for (size_t at = text.find(part); at != std::string::npos;
       at = text.find(part, at + 1)) {
    ++n;
  }
  return n;
}

TEST_F(CommandTest, InfoReportsThePool) {
  Run({"SET", "k", "v"});
  const std::string info = Run({"INFO"});
  for (const char* line :
       {"# Server\r\n", "redis_version:7.0.0\r\n", "# Clients\r\n",
        "# Memory\r\n", "maxmemory_policy:noeviction\r\n",
        "# Persistence\r\n", "# Stats\r\n", "# Keyspace\r\n",
        "plush_backend:file\r\n",
        "plush_power_fail_durable:0\r\n", "plush_reply_syncs:0\r\n",
        "plush_partitioning:hash\r\n", "db0:keys=1,expires=0,avg_ttl=0\r\n"}) {
    EXPECT_NE(info.find(line), std::string::npos) << line;
  }
  // One field in one section: redis-py's info() merges the sections.
  for (const char* field :
       {"\nplush_backend:", "\nplush_power_fail_durable:",
        "\nplush_guarantee:", "\nplush_sync_writes:"}) {
    EXPECT_EQ(Occurrences(info, field), 1u) << field;
  }
  EXPECT_NE(info.find("\r\nplush_guarantee:answered writes survive a crash of "
                      "the server process; power failure only once SAVE or "
                      "SHUTDOWN synced them (--sync-writes syncs each before "
                      "its reply)\r\n"),
            std::string::npos)
      << info;
  const std::string clients = Run({"info", "CLIENTS"});
  EXPECT_NE(clients.find("maxclients:10000"), std::string::npos);
  EXPECT_EQ(clients.find("# Server"), std::string::npos);
  EXPECT_EQ(Run({"INFO", "nosuchsection"}), "$0\r\n\r\n");
}

// PLUSH.VERIFY checks the pool the server holds, as `plush verify` would
// offline: OK, or a line per problem and their count.
TEST_F(CommandTest, PlushVerifyChecksTheLivePool) {
  for (int i = 0; i < 2000; ++i)
    ASSERT_EQ(Run({"SET", "key" + std::to_string(i), "v"}), "+OK\r\n");
  EXPECT_EQ(Run({"PLUSH.VERIFY"}), "$3\r\nOK\n\r\n");
  EXPECT_EQ(Run({"plush.verify", "now"}),
            "-ERR wrong number of arguments for 'plush.verify' command\r\n");
  // Damage where the server does not look again (its level descriptors
  // are read when the pool opens): the first one's checksum, in the file.
  const uint64_t checksum_at = pool::kRootOffset +
                               offsetof(pool::RootPage, levels) +
                               offsetof(pool::LevelDescriptor, checksum);
  {
    std::fstream file(path_, std::ios::in | std::ios::out | std::ios::binary);
    file.seekg(static_cast<std::streamoff>(checksum_at));
    char byte = 0;
    file.read(&byte, 1);
    byte = static_cast<char>(byte ^ 0x10);
    file.seekp(static_cast<std::streamoff>(checksum_at));
    file.write(&byte, 1);
  }
  const std::string report = Run({"PLUSH.VERIFY"});
  EXPECT_EQ(report.rfind("$", 0), 0u) << report;
  EXPECT_NE(report.find("\r\nlevel 1 descriptor"), std::string::npos)
      << report;
  EXPECT_NE(report.find("\nCorruption: 1 problem(s), first: level 1 "
                        "descriptor"),
            std::string::npos)
      << report;
  EXPECT_EQ(report.substr(report.size() - 3), "\n\r\n") << report;
  // (The damage stays: the pool would not open again. Closing it is fine.)
}

TEST_F(CommandTest, SaveAndShutdown) {
  EXPECT_EQ(Run({"SAVE"}), "+OK\r\n");
  const std::string lastsave = Run({"LASTSAVE"});
  EXPECT_NE(Run({"INFO", "persistence"})
                .find("rdb_last_save_time:" + lastsave.substr(1)),
            std::string::npos)
      << lastsave;
  EXPECT_EQ(Run({"SHUTDOWN", "NOW"}), "-ERR syntax error\r\n");
  EXPECT_EQ(shutdowns_, 0);
  EXPECT_EQ(Run({"SHUTDOWN", "NOSAVE"}), "");  // Redis answers nothing
  EXPECT_EQ(shutdowns_, 1);
  EXPECT_TRUE(session_.close_after_reply);
}

TEST_F(CommandTest, EngineErrorsAreAnswered) {
  ASSERT_TRUE(db_->Close().ok());
  const std::string closed = Run({"GET", "k"});
  EXPECT_EQ(closed.substr(0, 21), "-ERR InvalidArgument:") << closed;
  EXPECT_EQ(Run({"SET", "k", "v"}).substr(0, 21), "-ERR InvalidArgument:");
  EXPECT_EQ(Run({"INCR", "k"}).substr(0, 21), "-ERR InvalidArgument:");
}

// --sync-writes: every write is synced before its reply, and a failed
// sync is the reply of every write it was to cover (never an OK).
TEST_F(CommandTest, SyncedWritesReportTheirSyncsFailure) {
  OpenPool(Partitioning::kHash, std::nullopt, /*sync_writes=*/true);
  EXPECT_EQ(Run({"SET", "k", "1"}), "+OK\r\n");
  EXPECT_EQ(Run({"INCR", "k"}), ":2\r\n");
  EXPECT_EQ(Run({"SET", "k", "3", "XX"}), "+OK\r\n");
  EXPECT_EQ(Run({"DEL", "k"}), ":1\r\n");
  const std::string info = Run({"INFO"});
  EXPECT_NE(info.find("plush_sync_writes:1\r\n"), std::string::npos) << info;
  EXPECT_EQ(Occurrences(info, "\nplush_power_fail_durable:"), 1u) << info;
  EXPECT_NE(info.find("\nplush_power_fail_durable:1\r\n"), std::string::npos)
      << info;
  EXPECT_NE(info.find("\nplush_guarantee:answered writes are synced (msync) "
                      "before their reply (--sync-writes); the pool "
                      "orders its background work with msyncs: a power "
                      "failure keeps them\r\n"),
            std::string::npos)
      << info;

  const std::string failed =
      "-ERR IOError: a sync of the pool failed; writes and syncs are refused "
      "until the pool is opened again: msync of the pool file: Input/output "
      "error\r\n";
  for (const std::vector<std::string>& write :
       {std::vector<std::string>{"SET", "a", "1"}, {"INCR", "b"},
        {"SETNX", "c", "1"}, {"MSET", "d", "1", "e", "2"},
        {"APPEND", "g", "x"}, {"SETRANGE", "h", "1", "x"},
        {"INCRBYFLOAT", "i", "1.5"}, {"UNLINK", "j"}, {"GETSET", "k", "1"},
        {"PERSIST", "j"}, {"EXPIRE", "j", "50", "LT"}}) {
    if (write[1] == "j") {  // a write only of an existing key (with a TTL)
      EXPECT_EQ(Run({"SET", "j", "1", "EX", "100"}), "+OK\r\n");
    }
    faults_->FailNextSyncs(1, EIO);
    sync_failed_ = true;
    const std::string reply = Run(write);
    EXPECT_EQ(reply, failed) << write[0];
    OpenPool(Partitioning::kHash, std::nullopt, /*sync_writes=*/true);
  }
  // A write that changes nothing (DEL of a missing key, an empty part, an
  // error) does not sync.
  EXPECT_EQ(Run({"SET", "f", "1"}), "+OK\r\n");
  faults_->FailNextSyncs(1, EIO);
  sync_failed_ = true;
  EXPECT_EQ(Run({"DEL", "nosuchkey"}), ":0\r\n");
  EXPECT_EQ(Run({"APPEND", "f", ""}), ":1\r\n");
  EXPECT_EQ(Run({"SETRANGE", "f", "5", ""}), ":1\r\n");
  EXPECT_EQ(Run({"INCRBYFLOAT", "f", "inf"}),
            "-ERR increment would produce NaN or Infinity\r\n");
  EXPECT_EQ(Run({"DEL", "f"}), failed);
}

// EXEC writes the transaction as one batch. If that write fails, every
// reply from the first command that wrote on is its error (those replies
// may show writes that were not made); the replies before stand.
TEST_F(CommandTest, ATransactionWhoseBatchFailsAnswersItsError) {
  OpenPool(Partitioning::kHash, std::nullopt, /*sync_writes=*/true);
  EXPECT_EQ(Run({"SET", "k", "1"}), "+OK\r\n");
  EXPECT_EQ(Run({"MULTI"}), "+OK\r\n");
  for (const std::vector<std::string>& command :
       {std::vector<std::string>{"GET", "k"}, {"INCR", "k"}, {"GET", "k"},
        {"SET", "a", "1"}, {"RENAME", "a", "b"}}) {
    EXPECT_EQ(Run(command), "+QUEUED\r\n");
  }
  faults_->FailNextSyncs(1, EIO);
  sync_failed_ = true;
  const std::string failed =
      "-ERR IOError: a sync of the pool failed; writes and syncs are refused "
      "until the pool is opened again: msync of the pool file: Input/output "
      "error\r\n";
  std::string expected = "*5\r\n$1\r\n1\r\n";
  for (int i = 0; i < 4; ++i) expected += failed;
  EXPECT_EQ(Run({"EXEC"}), expected);
  // RENAME on its own takes the same way.
  OpenPool(Partitioning::kHash, std::nullopt, /*sync_writes=*/true);
  EXPECT_EQ(Run({"SET", "a", "1"}), "+OK\r\n");
  faults_->FailNextSyncs(1, EIO);
  sync_failed_ = true;
  EXPECT_EQ(Run({"RENAME", "a", "b"}), failed);
}

// "k<i>", built by appending (GCC 12: see Header()).
std::string NumberedKey(size_t i) {
  std::string key = "k";
  key += std::to_string(i);
  return key;
}

TEST_F(CommandTest, ATransactionWritesAtMostOneBatch) {
  // More keys than a batch holds: the engine refuses the batch whole.
  EXPECT_EQ(Run({"MULTI"}), "+OK\r\n");
  const size_t keys = kMaxBatchRecords + 1;
  for (size_t i = 0; i < keys; ++i) {
    ASSERT_EQ(Run({"SET", NumberedKey(i), "v"}), "+QUEUED\r\n");
  }
  const std::string too_many =
      "-ERR InvalidArgument: batch of 65537 operations exceeds the limit of "
      "65536 operations\r\n";
  std::string reply = Run({"EXEC"});
  EXPECT_EQ(reply.substr(0, 8), "*65537\r\n");
  EXPECT_EQ(Occurrences(reply, too_many), keys);
  EXPECT_EQ(Run({"DBSIZE"}), ":0\r\n");
  // More bytes than a batch holds (values of 64 KiB made from one byte
  // each): the transaction's overlay stops holding them, EXEC fails.
  EXPECT_EQ(Run({"MULTI"}), "+OK\r\n");
  const size_t values = kMaxBatchBytes / kMaxValueSize + 1;
  for (size_t i = 0; i < values; ++i) {
    ASSERT_EQ(Run({"SETRANGE", NumberedKey(i),
                   std::to_string(kMaxValueSize - 1), "x"}),
              "+QUEUED\r\n");
  }
  const std::string too_large =
      "-ERR InvalidArgument: the transaction writes more than 67108864 bytes "
      "of keys and values, the limit of one batch\r\n";
  reply = Run({"EXEC"});
  EXPECT_EQ(Occurrences(reply, too_large), values);
  EXPECT_EQ(Run({"DBSIZE"}), ":0\r\n");
}

// Without --sync-writes nothing syncs: an injected failure waits unspent.
TEST_F(CommandTest, WritesAreNotSyncedUnlessAsked) {
  faults_->FailNextSyncs(1, EIO);
  EXPECT_EQ(Run({"SET", "k", "1"}), "+OK\r\n");
  EXPECT_EQ(Run({"INCR", "k"}), ":2\r\n");
  EXPECT_NE(Run({"INFO", "persistence"}).find("plush_sync_writes:0\r\n"),
            std::string::npos);
  EXPECT_FALSE(db_->Sync().ok());  // spends it
  sync_failed_ = true;
}

// ---- Expiry (the pool's clock is ManualClock: Advance() moves it) ----

TEST_F(CommandTest, ExpireAndTtl) {
  EXPECT_EQ(Run({"TTL", "k"}), ":-2\r\n");
  EXPECT_EQ(Run({"PTTL", "k"}), ":-2\r\n");
  EXPECT_EQ(Run({"EXPIRETIME", "k"}), ":-2\r\n");
  EXPECT_EQ(Run({"PEXPIRETIME", "k"}), ":-2\r\n");
  EXPECT_EQ(Run({"EXPIRE", "k", "10"}), ":0\r\n");
  EXPECT_EQ(Run({"SET", "k", "v"}), "+OK\r\n");
  EXPECT_EQ(Run({"TTL", "k"}), ":-1\r\n");
  EXPECT_EQ(Run({"EXPIRETIME", "k"}), ":-1\r\n");
  EXPECT_EQ(Run({"EXPIRE", "k", "10"}), ":1\r\n");
  EXPECT_EQ(Run({"TTL", "k"}), ":10\r\n");
  EXPECT_EQ(Run({"PTTL", "k"}), ":10000\r\n");
  EXPECT_EQ(Run({"PEXPIRETIME", "k"}), Header(':', clock_->NowMs() + 10000));
  EXPECT_EQ(Run({"EXPIRETIME", "k"}), ":1700000010\r\n");
  Advance(1499);
  EXPECT_EQ(Run({"PTTL", "k"}), ":8501\r\n");
  EXPECT_EQ(Run({"TTL", "k"}), ":9\r\n");  // rounded to the nearest
  Advance(8501);  // the last millisecond it exists
  EXPECT_EQ(Run({"PTTL", "k"}), ":0\r\n");
  EXPECT_EQ(Run({"GET", "k"}), "$1\r\nv\r\n");
  Advance(1);
  EXPECT_EQ(Run({"GET", "k"}), "$-1\r\n");
  EXPECT_EQ(Run({"TTL", "k"}), ":-2\r\n");
  EXPECT_EQ(Run({"EXPIRE", "k", "10"}), ":0\r\n");

  EXPECT_EQ(Run({"SET", "k", "v"}), "+OK\r\n");
  EXPECT_EQ(Run({"PEXPIRE", "k", "1500"}), ":1\r\n");
  EXPECT_EQ(Run({"TTL", "k"}), ":2\r\n");
  EXPECT_EQ(Run({"PEXPIREAT", "k", Later(7)}), ":1\r\n");
  EXPECT_EQ(Run({"PTTL", "k"}), ":7\r\n");
  const uint64_t at = clock_->NowMs() / 1000 + 100;
  EXPECT_EQ(Run({"EXPIREAT", "k", std::to_string(at)}), ":1\r\n");
  EXPECT_EQ(Run({"EXPIRETIME", "k"}), Header(':', at));
  EXPECT_EQ(Run({"PERSIST", "k"}), ":1\r\n");
  EXPECT_EQ(Run({"TTL", "k"}), ":-1\r\n");
  EXPECT_EQ(Run({"PERSIST", "k"}), ":0\r\n");
  EXPECT_EQ(Run({"PERSIST", "missing"}), ":0\r\n");
  // Redis's largest time: PEXPIREAT takes it, as it is.
  EXPECT_EQ(Run({"PEXPIREAT", "k", "9223372036854775807"}), ":1\r\n");
  EXPECT_EQ(Run({"PEXPIRETIME", "k"}), ":9223372036854775807\r\n");
  EXPECT_EQ(Run({"EXPIRETIME", "k"}), ":9223372036854776\r\n");
}

TEST_F(CommandTest, ExpireInThePastDeletes) {
  for (const std::vector<std::string>& expire :
       {std::vector<std::string>{"EXPIRE", "k", "0"},
        {"EXPIRE", "k", "-5"},
        {"PEXPIRE", "k", "-9223372036854775808"},
        {"PEXPIREAT", "k", Later(0)},
        {"EXPIREAT", "k", "1"},
        {"EXPIRE", "k", "0", "LT"}}) {
    EXPECT_EQ(Run({"SET", "k", "v"}), "+OK\r\n");
    EXPECT_EQ(Run(expire), ":1\r\n") << expire[1];
    EXPECT_EQ(Run({"EXISTS", "k"}), ":0\r\n");
    EXPECT_EQ(Run(expire), ":0\r\n");  // missing
  }
}

TEST_F(CommandTest, ExpireConditions) {
  EXPECT_EQ(Run({"EXPIRE", "k", "100", "NX"}), ":0\r\n");  // missing
  EXPECT_EQ(Run({"SET", "k", "v"}), "+OK\r\n");
  EXPECT_EQ(Run({"EXPIRE", "k", "100", "XX"}), ":0\r\n");
  // No expiry counts as never: later than any, GT fails; LT succeeds.
  EXPECT_EQ(Run({"EXPIRE", "k", "100", "gt"}), ":0\r\n");
  EXPECT_EQ(Run({"EXPIRE", "k", "100", "nx"}), ":1\r\n");
  EXPECT_EQ(Run({"EXPIRE", "k", "200", "NX"}), ":0\r\n");
  EXPECT_EQ(Run({"EXPIRE", "k", "50", "GT"}), ":0\r\n");
  EXPECT_EQ(Run({"EXPIRE", "k", "100", "GT"}), ":0\r\n");  // not later
  EXPECT_EQ(Run({"EXPIRE", "k", "200", "GT"}), ":1\r\n");
  EXPECT_EQ(Run({"EXPIRE", "k", "300", "LT"}), ":0\r\n");
  EXPECT_EQ(Run({"EXPIRE", "k", "50", "LT"}), ":1\r\n");
  EXPECT_EQ(Run({"EXPIRE", "k", "60", "XX", "GT"}), ":1\r\n");
  EXPECT_EQ(Run({"TTL", "k"}), ":60\r\n");
  EXPECT_EQ(Run({"PERSIST", "k"}), ":1\r\n");
  EXPECT_EQ(Run({"PEXPIRE", "k", "70", "LT"}), ":1\r\n");
  EXPECT_EQ(Run({"PTTL", "k"}), ":70\r\n");
  EXPECT_EQ(Run({"EXPIRE", "k", "-1", "GT"}), ":0\r\n");  // not deleted
  EXPECT_EQ(Run({"EXISTS", "k"}), ":1\r\n");
}

TEST_F(CommandTest, ExpireErrors) {
  EXPECT_EQ(Run({"SET", "k", "v"}), "+OK\r\n");
  const std::string not_integer =
      "-ERR value is not an integer or out of range\r\n";
  EXPECT_EQ(Run({"EXPIRE", "k", "abc"}), not_integer);
  EXPECT_EQ(Run({"PEXPIRE", "k", "1.5"}), not_integer);
  EXPECT_EQ(Run({"EXPIRE", "k", "9223372036854776"}),
            "-ERR invalid expire time in 'expire' command\r\n");
  EXPECT_EQ(Run({"EXPIRE", "k", "-9223372036854776"}),
            "-ERR invalid expire time in 'expire' command\r\n");
  EXPECT_EQ(Run({"PEXPIRE", "k", "9223372036854775807"}),
            "-ERR invalid expire time in 'pexpire' command\r\n");
  EXPECT_EQ(Run({"expireat", "k", "9223372036854776"}),
            "-ERR invalid expire time in 'expireat' command\r\n");
  // The options are read first.
  EXPECT_EQ(Run({"EXPIRE", "k", "abc", "Soon"}),
            "-ERR Unsupported option Soon\r\n");
  const std::string nx =
      "-ERR NX and XX, GT or LT options at the same time are not "
      "compatible\r\n";
  EXPECT_EQ(Run({"EXPIRE", "k", "10", "NX", "XX"}), nx);
  EXPECT_EQ(Run({"PEXPIREAT", "k", "10", "lt", "nx"}), nx);
  EXPECT_EQ(Run({"EXPIRE", "k", "10", "GT", "LT"}),
            "-ERR GT and LT options at the same time are not compatible\r\n");
  for (const char* command : {"expire", "pexpire", "expireat", "pexpireat",
                              "ttl", "pttl", "expiretime", "pexpiretime",
                              "persist", "getex", "getdel", "setex",
                              "psetex"}) {
    EXPECT_EQ(Run({command}), "-ERR wrong number of arguments for '"s +
                                  command + "' command\r\n");
  }
  EXPECT_EQ(Run({"TTL", "k", "k"}),
            "-ERR wrong number of arguments for 'ttl' command\r\n");
  EXPECT_EQ(Run({"TTL", "k"}), ":-1\r\n");  // nothing changed
}

TEST_F(CommandTest, SetWithExpiry) {
  EXPECT_EQ(Run({"SET", "k", "v", "EX", "10"}), "+OK\r\n");  // a plain put
  EXPECT_EQ(Run({"TTL", "k"}), ":10\r\n");
  EXPECT_EQ(Run({"SET", "k", "v", "px", "1500"}), "+OK\r\n");
  EXPECT_EQ(Run({"PTTL", "k"}), ":1500\r\n");
  const uint64_t at = clock_->NowMs() / 1000 + 20;
  EXPECT_EQ(Run({"SET", "k", "v", "EXAT", std::to_string(at)}), "+OK\r\n");
  EXPECT_EQ(Run({"EXPIRETIME", "k"}), Header(':', at));
  EXPECT_EQ(Run({"SET", "k", "v", "PXAT", Later(7)}), "+OK\r\n");
  EXPECT_EQ(Run({"PTTL", "k"}), ":7\r\n");
  EXPECT_EQ(Run({"SET", "k", "v", "EX", "10", "EX", "20"}), "+OK\r\n");
  EXPECT_EQ(Run({"TTL", "k"}), ":20\r\n");  // the last one wins
  EXPECT_EQ(Run({"SET", "k", "w", "KEEPTTL"}), "+OK\r\n");
  EXPECT_EQ(Run({"TTL", "k"}), ":20\r\n");
  EXPECT_EQ(Run({"GET", "k"}), "$1\r\nw\r\n");
  EXPECT_EQ(Run({"SET", "k", "v"}), "+OK\r\n");
  EXPECT_EQ(Run({"TTL", "k"}), ":-1\r\n");
  // A time past is taken: the key is gone at once.
  EXPECT_EQ(Run({"SET", "k", "v", "EXAT", "1"}), "+OK\r\n");
  EXPECT_EQ(Run({"EXISTS", "k"}), ":0\r\n");
  EXPECT_EQ(Run({"SET", "k", "v", "PXAT", "9223372036854775807"}), "+OK\r\n");
  EXPECT_EQ(Run({"PTTL", "k"}),
            Header(':', 9223372036854775807u - clock_->NowMs()));
  EXPECT_EQ(Run({"SET", "k", "v", "PX", "5000000000000000000"}), "+OK\r\n");
  EXPECT_EQ(Run({"PTTL", "k"}), ":5000000000000000000\r\n");
}

TEST_F(CommandTest, SetConditionsWithExpiry) {
  // XX and GET drop the expiry, as a plain SET does (in one batch).
  EXPECT_EQ(Run({"SET", "k", "v", "EX", "10"}), "+OK\r\n");
  EXPECT_EQ(Run({"SET", "k", "w", "XX"}), "+OK\r\n");
  EXPECT_EQ(Run({"TTL", "k"}), ":-1\r\n");
  EXPECT_EQ(Run({"SET", "k", "v", "EX", "10"}), "+OK\r\n");
  EXPECT_EQ(Run({"SET", "k", "w", "GET"}), "$1\r\nv\r\n");
  EXPECT_EQ(Run({"TTL", "k"}), ":-1\r\n");
  EXPECT_EQ(Run({"SET", "k", "v", "EX", "10"}), "+OK\r\n");
  EXPECT_EQ(Run({"SET", "k", "w", "XX", "KEEPTTL"}), "+OK\r\n");
  EXPECT_EQ(Run({"TTL", "k"}), ":10\r\n");
  EXPECT_EQ(Run({"SET", "k", "x", "XX", "GET", "PX", "500"}),
            "$1\r\nw\r\n");
  EXPECT_EQ(Run({"PTTL", "k"}), ":500\r\n");
  EXPECT_EQ(Run({"SET", "k", "y", "NX"}), "$-1\r\n");
  EXPECT_EQ(Run({"SET", "k", "y", "NX", "GET"}), "$1\r\nx\r\n");
  EXPECT_EQ(Run({"PTTL", "k"}), ":500\r\n");  // untouched
  EXPECT_EQ(Run({"SET", "new", "v", "NX", "EX", "10"}), "+OK\r\n");
  EXPECT_EQ(Run({"TTL", "new"}), ":10\r\n");
  EXPECT_EQ(Run({"SET", "absent", "v", "XX", "EX", "10"}), "$-1\r\n");
  EXPECT_EQ(Run({"EXISTS", "absent"}), ":0\r\n");
}

TEST_F(CommandTest, SetExpiryErrors) {
  EXPECT_EQ(Run({"SET", "k", "v"}), "+OK\r\n");
  const std::string invalid = "-ERR invalid expire time in 'set' command\r\n";
  for (const std::vector<std::string>& option :
       {std::vector<std::string>{"EX", "0"}, {"EX", "-1"}, {"PX", "0"},
        {"EXAT", "0"}, {"PXAT", "-5"}, {"EX", "9223372036854775"},
        {"PX", "9223372036854775807"}, {"GET", "EX", "0"}}) {
    std::vector<std::string> set = {"SET", "k", "w"};
    set.insert(set.end(), option.begin(), option.end());
    EXPECT_EQ(Run(set), invalid) << option[0] << " " << option[1];
  }
  EXPECT_EQ(Run({"SET", "k", "w", "EX", "abc"}),
            "-ERR value is not an integer or out of range\r\n");
  for (const std::vector<std::string>& option :
       {std::vector<std::string>{"EX", "10", "PX", "10"},
        {"EX", "10", "KEEPTTL"}, {"KEEPTTL", "EX", "10"}, {"EX"},
        {"PERSIST"}, {"EX", "10", "later"}}) {
    std::vector<std::string> set = {"SET", "k", "w"};
    set.insert(set.end(), option.begin(), option.end());
    EXPECT_EQ(Run(set), "-ERR syntax error\r\n") << option[0];
  }
  EXPECT_EQ(Run({"SETEX", "k", "0", "w"}),
            "-ERR invalid expire time in 'setex' command\r\n");
  EXPECT_EQ(Run({"PSETEX", "k", "-1", "w"}),
            "-ERR invalid expire time in 'psetex' command\r\n");
  EXPECT_EQ(Run({"SETEX", "k", "abc", "w"}),
            "-ERR value is not an integer or out of range\r\n");
  EXPECT_EQ(Run({"SETEX", "k", "10"}),
            "-ERR wrong number of arguments for 'setex' command\r\n");
  EXPECT_EQ(Run({"GET", "k"}), "$1\r\nv\r\n");  // nothing written
  EXPECT_EQ(Run({"TTL", "k"}), ":-1\r\n");
}

TEST_F(CommandTest, SetExGetExGetDel) {
  EXPECT_EQ(Run({"SETEX", "k", "10", "v"}), "+OK\r\n");  // plain puts
  EXPECT_EQ(Run({"TTL", "k"}), ":10\r\n");
  EXPECT_EQ(Run({"PSETEX", "k", "1500", "w"}), "+OK\r\n");
  EXPECT_EQ(Run({"PTTL", "k"}), ":1500\r\n");
  EXPECT_EQ(Run({"GETEX", "k"}), "$1\r\nw\r\n");
  EXPECT_EQ(Run({"PTTL", "k"}), ":1500\r\n");
  EXPECT_EQ(Run({"GETEX", "k", "EX", "10"}), "$1\r\nw\r\n");
  EXPECT_EQ(Run({"TTL", "k"}), ":10\r\n");
  EXPECT_EQ(Run({"GETEX", "k", "PXAT", Later(5)}), "$1\r\nw\r\n");
  EXPECT_EQ(Run({"PTTL", "k"}), ":5\r\n");
  EXPECT_EQ(Run({"GETEX", "k", "persist"}), "$1\r\nw\r\n");
  EXPECT_EQ(Run({"TTL", "k"}), ":-1\r\n");
  EXPECT_EQ(Run({"GETEX", "k", "PERSIST"}), "$1\r\nw\r\n");
  // An EXAT or PXAT already past deletes the key, after answering it.
  EXPECT_EQ(Run({"GETEX", "k", "EXAT", "1"}), "$1\r\nw\r\n");
  EXPECT_EQ(Run({"EXISTS", "k"}), ":0\r\n");
  EXPECT_EQ(Run({"GETEX", "k", "EX", "10"}), "$-1\r\n");
  // A missing key answers null before its time is checked, not options.
  EXPECT_EQ(Run({"GETEX", "k", "EX", "abc"}), "$-1\r\n");
  EXPECT_EQ(Run({"GETEX", "k", "nosuch"}), "-ERR syntax error\r\n");
  EXPECT_EQ(Run({"SET", "k", "v"}), "+OK\r\n");
  EXPECT_EQ(Run({"GETEX", "k", "EX", "abc"}),
            "-ERR value is not an integer or out of range\r\n");
  EXPECT_EQ(Run({"GETEX", "k", "EX", "0"}),
            "-ERR invalid expire time in 'getex' command\r\n");
  EXPECT_EQ(Run({"GETEX", "k", "PX", "9223372036854775807"}),
            "-ERR invalid expire time in 'getex' command\r\n");
  for (const std::vector<std::string>& option :
       {std::vector<std::string>{"NX"}, {"KEEPTTL"}, {"GET"}, {"EX"},
        {"PERSIST", "EX", "10"}, {"EX", "10", "PERSIST"},
        {"EX", "10", "PX", "10"}}) {
    std::vector<std::string> getex = {"GETEX", "k"};
    getex.insert(getex.end(), option.begin(), option.end());
    EXPECT_EQ(Run(getex), "-ERR syntax error\r\n") << option[0];
  }
  EXPECT_EQ(Run({"TTL", "k"}), ":-1\r\n");
  EXPECT_EQ(Run({"GETDEL", "k"}), "$1\r\nv\r\n");
  EXPECT_EQ(Run({"EXISTS", "k"}), ":0\r\n");
  EXPECT_EQ(Run({"GETDEL", "k"}), "$-1\r\n");
}

TEST_F(CommandTest, WritesKeepOrDropTheExpiryAsRedis) {
  EXPECT_EQ(Run({"SET", "n", "1", "EX", "100"}), "+OK\r\n");
  for (const std::vector<std::string>& keeps :
       {std::vector<std::string>{"INCR", "n"}, {"INCRBY", "n", "3"},
        {"DECR", "n"}, {"DECRBY", "n", "2"}, {"INCRBYFLOAT", "n", "1.5"},
        {"APPEND", "n", "0"}, {"SETRANGE", "n", "0", "7"},
        {"SETNX", "n", "1"}, {"SET", "n", "1", "NX"}}) {
    Run(keeps);
    EXPECT_EQ(Run({"TTL", "n"}), ":100\r\n") << keeps[0];
  }
  EXPECT_EQ(Run({"GETSET", "n", "1"}), "$4\r\n7.50\r\n");
  EXPECT_EQ(Run({"TTL", "n"}), ":-1\r\n");
  EXPECT_EQ(Run({"SET", "n", "1", "EX", "100"}), "+OK\r\n");
  EXPECT_EQ(Run({"MSET", "n", "2", "m", "3"}), "+OK\r\n");
  EXPECT_EQ(Run({"TTL", "n"}), ":-1\r\n");
  // An expired key is absent: what is written in its place has no expiry.
  EXPECT_EQ(Run({"SET", "n", "5", "PX", "10"}), "+OK\r\n");
  EXPECT_EQ(Run({"SET", "s", "x", "PX", "10"}), "+OK\r\n");
  Advance(11);
  EXPECT_EQ(Run({"INCR", "n"}), ":1\r\n");
  EXPECT_EQ(Run({"TTL", "n"}), ":-1\r\n");
  EXPECT_EQ(Run({"APPEND", "s", "y"}), ":1\r\n");
  EXPECT_EQ(Run({"TTL", "s"}), ":-1\r\n");
}

TEST_F(CommandTest, RenameMovesTheExpiry) {
  EXPECT_EQ(Run({"SET", "a", "1", "EX", "100"}), "+OK\r\n");
  EXPECT_EQ(Run({"SET", "b", "2"}), "+OK\r\n");
  EXPECT_EQ(Run({"RENAME", "a", "b"}), "+OK\r\n");
  EXPECT_EQ(Run({"TTL", "b"}), ":100\r\n");
  EXPECT_EQ(Run({"TTL", "a"}), ":-2\r\n");
  EXPECT_EQ(Run({"SET", "a", "1"}), "+OK\r\n");
  EXPECT_EQ(Run({"RENAME", "a", "b"}), "+OK\r\n");  // b's expiry goes too
  EXPECT_EQ(Run({"TTL", "b"}), ":-1\r\n");
  EXPECT_EQ(Run({"SET", "a", "1", "PX", "10"}), "+OK\r\n");
  EXPECT_EQ(Run({"RENAMENX", "a", "c"}), ":1\r\n");
  EXPECT_EQ(Run({"PTTL", "c"}), ":10\r\n");
  Advance(11);
  EXPECT_EQ(Run({"RENAME", "c", "d"}), "-ERR no such key\r\n");
}

// The commands that decide on a key's value and its expiry together are
// one atomic UpdateWithExpiry each: they pass the keyspace gate beside
// other clients' commands (here: this thread holding it shared), where
// RENAME, which writes two keys, waits to pass it alone.
TEST_F(CommandTest, ExpiryDecisionsDoNotStopOtherClients) {
  using namespace std::chrono_literals;
  // Runs `args` from another client's thread while this one holds the
  // gate shared; whether it passed within `patience` (then its reply is
  // *reply). The gate is let go either way, so that nothing hangs.
  const auto passes = [&](const std::vector<std::string>& args,
                          std::chrono::milliseconds patience,
                          std::string* reply) {
    context_->gate.LockShared();
    std::atomic<bool> done{false};
    std::thread client([&] {
      *reply = Run(args);
      done = true;
    });
    const auto deadline = std::chrono::steady_clock::now() + patience;
    while (!done && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(1ms);
    }
    const bool passed = done;
    context_->gate.UnlockShared();
    client.join();
    return passed;
  };
  // Each on a key with 100 s to live: its reply, and the PTTL it leaves.
  struct Case {
    std::vector<std::string> command;
    std::string reply;
    std::string pttl;  // PTTL's reply
  };
  const std::string v = "$1\r\nv\r\n";
  for (const Case& c : std::vector<Case>{
           {{"PERSIST", "k"}, ":1\r\n", ":-1\r\n"},
           {{"GETSET", "k", "w"}, v, ":-1\r\n"},
           {{"GETEX", "k", "PERSIST"}, v, ":-1\r\n"},
           {{"SET", "k", "w", "XX"}, "+OK\r\n", ":-1\r\n"},
           {{"SET", "k", "w", "GET"}, v, ":-1\r\n"},
           {{"EXPIRE", "k", "50", "NX"}, ":0\r\n", ":100000\r\n"},
           {{"PEXPIRE", "k", "50", "XX"}, ":1\r\n", ":50\r\n"},
           {{"EXPIREAT", "k", std::to_string(clock_->NowMs() / 1000 + 200),
             "GT"},
            ":1\r\n", ":200000\r\n"},
           {{"PEXPIREAT", "k", Later(50), "lt"}, ":1\r\n", ":50\r\n"}}) {
    EXPECT_EQ(Run({"SET", "k", "v", "EX", "100"}), "+OK\r\n");
    std::string reply;
    EXPECT_TRUE(passes(c.command, 10s, &reply)) << c.command[0];
    EXPECT_EQ(reply, c.reply) << c.command[0];
    EXPECT_EQ(Run({"PTTL", "k"}), c.pttl) << c.command[0];
  }
  std::string reply;
  EXPECT_FALSE(passes({"RENAME", "k", "r"}, 200ms, &reply));
  EXPECT_EQ(reply, "+OK\r\n");  // once the gate was let go
}

TEST_F(CommandTest, TransactionsCarryExpiries) {
  EXPECT_EQ(Run({"SET", "old", "v", "EX", "100"}), "+OK\r\n");
  EXPECT_EQ(Run({"MULTI"}), "+OK\r\n");
  for (const std::vector<std::string>& command :
       {std::vector<std::string>{"SET", "a", "1", "EX", "100"},
        {"SET", "b", "2"}, {"PEXPIRE", "b", "50"}, {"TTL", "a"},
        {"PTTL", "b"}, {"INCR", "a"}, {"TTL", "a"}, {"SET", "old", "w", "XX"},
        {"TTL", "old"}, {"SET", "gone", "1", "EXAT", "1"}, {"GET", "gone"},
        {"PERSIST", "b"}, {"PERSIST", "b"}, {"EXPIRE", "a", "200", "GT"},
        {"EXPIRE", "a", "-1"}, {"GET", "a"}, {"GETEX", "b", "EX", "30"}}) {
    EXPECT_EQ(Run(command), "+QUEUED\r\n") << command[0];
  }
  EXPECT_EQ(Run({"EXEC"}),
            "*17\r\n+OK\r\n+OK\r\n:1\r\n:100\r\n:50\r\n:2\r\n:100\r\n+OK\r\n"
            ":-1\r\n+OK\r\n$-1\r\n:1\r\n:0\r\n:1\r\n:1\r\n$-1\r\n$1\r\n2\r\n");
  // The batch wrote those expiries.
  EXPECT_EQ(Run({"EXISTS", "a", "gone"}), ":0\r\n");
  EXPECT_EQ(Run({"TTL", "b"}), ":30\r\n");
  EXPECT_EQ(Run({"TTL", "old"}), ":-1\r\n");
  EXPECT_EQ(Run({"GET", "old"}), "$1\r\nw\r\n");
}

// Inside a transaction the same commands decide on the overlay's expiry.
TEST_F(CommandTest, ExpiryDecisionsInATransaction) {
  for (const char* key : {"a", "b", "c", "d"}) {
    EXPECT_EQ(Run({"SET", key, "v", "EX", "100"}), "+OK\r\n");
  }
  EXPECT_EQ(Run({"MULTI"}), "+OK\r\n");
  for (const std::vector<std::string>& command :
       {std::vector<std::string>{"GETSET", "a", "w"}, {"TTL", "a"},
        {"GETEX", "b", "PERSIST"}, {"TTL", "b"}, {"SET", "c", "w", "GET"},
        {"TTL", "c"}, {"SET", "d", "w", "XX", "KEEPTTL"}, {"TTL", "d"},
        {"EXPIRE", "d", "50", "NX"}, {"EXPIRE", "d", "50", "XX"},
        {"TTL", "d"}, {"SET", "d", "x", "XX"}, {"TTL", "d"}}) {
    EXPECT_EQ(Run(command), "+QUEUED\r\n") << command[0];
  }
  EXPECT_EQ(Run({"EXEC"}),
            "*13\r\n$1\r\nv\r\n:-1\r\n$1\r\nv\r\n:-1\r\n$1\r\nv\r\n"
            ":-1\r\n+OK\r\n:100\r\n:0\r\n:1\r\n:50\r\n+OK\r\n:-1\r\n");
  for (const char* key : {"a", "b", "c", "d"}) {
    EXPECT_EQ(Run({"TTL", key}), ":-1\r\n") << key;
  }
  EXPECT_EQ(Run({"MGET", "a", "b", "d"}),
            "*3\r\n$1\r\nw\r\n$1\r\nv\r\n$1\r\nx\r\n");
}

TEST_F(CommandTest, AWatchedKeyThatExpiresFailsExec) {
  EXPECT_EQ(Run({"SET", "k", "v", "PX", "100"}), "+OK\r\n");
  EXPECT_EQ(Run({"WATCH", "k", "other"}), "+OK\r\n");
  EXPECT_EQ(Run({"MULTI"}), "+OK\r\n");
  EXPECT_EQ(Run({"EXEC"}), "*0\r\n");  // not yet expired
  EXPECT_EQ(Run({"WATCH", "k"}), "+OK\r\n");
  Advance(101);
  EXPECT_EQ(Run({"MULTI"}), "+OK\r\n");
  EXPECT_EQ(Run({"SET", "x", "1"}), "+QUEUED\r\n");
  EXPECT_EQ(Run({"EXEC"}), "*-1\r\n");
  EXPECT_EQ(Run({"EXISTS", "x"}), ":0\r\n");
  // A key expired before WATCH is missing: nothing to expire.
  EXPECT_EQ(Run({"WATCH", "k"}), "+OK\r\n");
  EXPECT_EQ(Run({"MULTI"}), "+OK\r\n");
  EXPECT_EQ(Run({"EXEC"}), "*0\r\n");
  // UNWATCH forgets the expiry.
  EXPECT_EQ(Run({"SET", "k", "v", "PX", "100"}), "+OK\r\n");
  EXPECT_EQ(Run({"WATCH", "k"}), "+OK\r\n");
  EXPECT_EQ(Run({"UNWATCH"}), "+OK\r\n");
  Advance(101);
  EXPECT_EQ(Run({"MULTI"}), "+OK\r\n");
  EXPECT_EQ(Run({"EXEC"}), "*0\r\n");
}

TEST_F(CommandTest, ExpiredKeysAreGoneEverywhere) {
  EXPECT_EQ(Run({"MSET", "a", "1", "b", "2"}), "+OK\r\n");
  EXPECT_EQ(Run({"SET", "c", "3", "PX", "10"}), "+OK\r\n");
  EXPECT_EQ(Run({"DBSIZE"}), ":3\r\n");
  Advance(11);
  EXPECT_EQ(Run({"DBSIZE"}), ":2\r\n");
  const std::string keys = Run({"KEYS", "*"});
  EXPECT_TRUE(keys == "*2\r\n$1\r\na\r\n$1\r\nb\r\n" ||
              keys == "*2\r\n$1\r\nb\r\n$1\r\na\r\n")
      << keys;
  EXPECT_EQ(ScanAll({}), (std::set<std::string>{"a", "b"}));
  EXPECT_EQ(Run({"EXISTS", "a", "c"}), ":1\r\n");
  EXPECT_EQ(Run({"TYPE", "c"}), "+none\r\n");
  EXPECT_EQ(Run({"MGET", "c"}), "*1\r\n$-1\r\n");
  for (int i = 0; i < 50; ++i) EXPECT_NE(Run({"RANDOMKEY"}), "$1\r\nc\r\n");
}

}  // namespace
}  // namespace plush::server
