// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// --sync-writes through a real connection: a server in this process, on a
// pool opened with FaultInjectingFileOps (so that a failed msync can be
// injected), a client on a socket. A reply
// waits for a sync that began after its write; a failed sync becomes the
// reply of the first write it was to cover, and the connection ends.

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <initializer_list>
#include <memory>
#include <string>
#include <thread>

#include "plush/db.h"
#include "server.h"
#include "synced_pool.h"
#include "testing/fault_injecting_file_ops.h"
#include "testing/open_db.h"

namespace plush::server {
namespace {

// A RESP request of `args`. (Appended: GCC 12 warns falsely about
// "literal" + std::string.)
std::string Request(std::initializer_list<std::string> args) {
  std::string r = "*";
  r += std::to_string(args.size());
  r += "\r\n";
  for (const std::string& a : args) {
    r += '$';
    r += std::to_string(a.size());
    r += "\r\n";
    r += a;
    r += "\r\n";
  }
  return r;
}

class Client {
 public:
  explicit Client(uint16_t port) : fd_(socket(AF_INET, SOCK_STREAM, 0)) {
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(port);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ = connect(fd_, reinterpret_cast<sockaddr*>(&address),
                         sizeof(address)) == 0;
    // A server that fails to answer or to close fails the test, no hang.
    const timeval timeout{10, 0};
    setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
  }
  ~Client() { close(fd_); }
  bool connected() const { return connected_; }

  // Sends `request` and reads until `expected_bytes` arrived or the server
  // closed the connection.
  std::string Call(const std::string& request, size_t expected_bytes) {
    Send(request);
    return Receive(expected_bytes);
  }
  void Send(const std::string& request) {
    EXPECT_EQ(send(fd_, request.data(), request.size(), 0),
              static_cast<ssize_t>(request.size()));
  }
  // Whether a byte arrives within `ms` milliseconds.
  bool AnswersWithin(int ms) {
    pollfd p{fd_, POLLIN, 0};
    return poll(&p, 1, ms) > 0;
  }
  std::string Receive(size_t expected_bytes) {
    std::string reply;
    char buffer[4096];
    while (reply.size() < expected_bytes) {
      const ssize_t n = recv(fd_, buffer, sizeof(buffer), 0);
      if (n <= 0) break;
      reply.append(buffer, static_cast<size_t>(n));
    }
    return reply;
  }
  // Whether the server closed the connection (reads end of stream; -1
  // when nothing came before the timeout).
  bool Closed() {
    char c;
    return recv(fd_, &c, 1, 0) == 0;
  }

 private:
  int fd_;
  bool connected_ = false;
};

class SyncWritesTest : public ::testing::Test {
 protected:
  explicit SyncWritesTest(unsigned threads = 1) : threads_(threads) {}

  void SetUp() override {
    path_ = testing::TempDir() + "/plush_sync_writes_test_" +
            std::to_string(getpid()) + ".pool";
    std::filesystem::remove(path_);
    ASSERT_TRUE(
        OpenDB(SyncedPool(), {.file_ops = faults_}, path_, &db_)
            .ok());
    ServerConfig config;
    config.port = 0;
    config.threads = threads_;
    config.sync_writes = true;
    server_ = std::make_unique<Server>(db_.get(), config);
    ASSERT_TRUE(server_->Listen().ok());
    serving_ = std::thread([this] { server_->Run(); });
  }
  void TearDown() override {
    server_->Shutdown();
    serving_.join();
    server_.reset();
    // Fails after an injected failure, which is sticky.
    static_cast<void>(db_->Close());
    db_.reset();
    std::filesystem::remove(path_);
  }

  const unsigned threads_;  // event loops
  std::string path_;
  const std::shared_ptr<media::FaultInjectingFileOps> faults_ =
      std::make_shared<media::FaultInjectingFileOps>();
  std::unique_ptr<DB> db_;
  std::unique_ptr<Server> server_;
  std::thread serving_;
};

const std::string kFailed =
    "-ERR IOError: a sync of the pool failed; writes and syncs are refused "
    "until the pool is opened again: msync of the pool file: Input/output "
    "error\r\n";

TEST_F(SyncWritesTest, RepliesComeAfterTheirSync) {
  Client client(server_->port());
  ASSERT_TRUE(client.connected());
  // A pipeline of writes outside and inside the group commit, and a read.
  const std::string pipeline = Request({"INCR", "n"}) +
                               Request({"SET", "k", "v"}) +
                               Request({"INCR", "n"}) + Request({"GET", "n"});
  const std::string replies = ":1\r\n+OK\r\n:2\r\n$1\r\n2\r\n";
  EXPECT_EQ(client.Call(pipeline, replies.size()), replies);
  EXPECT_EQ(client.Call(Request({"DEL", "k", "nosuchkey"}), 4), ":1\r\n");
}

TEST_F(SyncWritesTest, AFailedSyncIsTheReplyAndEndsTheConnection) {
  Client client(server_->port());
  ASSERT_TRUE(client.connected());
  EXPECT_EQ(client.Call(Request({"INCR", "n"}), 4), ":1\r\n");
  faults_->FailNextSyncs(1, EIO);
  // The INCR's reply is replaced; the GET's after it is never sent.
  EXPECT_EQ(client.Call(Request({"INCR", "n"}) + Request({"GET", "n"}),
                        kFailed.size() + 1),
            kFailed);
  EXPECT_TRUE(client.Closed());
  // The failure is sticky: a plain put on a new connection fails too.
  Client next(server_->port());
  ASSERT_TRUE(next.connected());
  EXPECT_EQ(next.Call(Request({"SET", "k", "v"}), kFailed.size()), kFailed);
}

// Two event loops: the connections of a test are served one on each.
class SyncWritesOnTwoLoopsTest : public SyncWritesTest {
 protected:
  SyncWritesOnTwoLoopsTest() : SyncWritesTest(2) {}
};

// A read on one loop may see a write that the other loop has not synced
// yet: its reply waits for a sync too, so that no client is told a value
// that a power failure then takes back.
TEST_F(SyncWritesOnTwoLoopsTest, AReadOfAnUnsyncedWriteWaitsForASync) {
  Client writer(server_->port());
  Client reader(server_->port());
  ASSERT_TRUE(writer.connected() && reader.connected());
  // The key's log started, its first sync made.
  EXPECT_EQ(writer.Call(Request({"INCR", "n"}), 4), ":1\r\n");
  faults_->HoldSyncs(true);
  writer.Send(Request({"INCR", "n"}));
  for (int i = 0; i < 10000 && faults_->HeldSyncs() == 0; ++i) usleep(1000);
  ASSERT_EQ(faults_->HeldSyncs(), 1) << "the INCR's reply waits for its sync";
  reader.Send(Request({"GET", "n"}));
  EXPECT_FALSE(reader.AnswersWithin(300)) << "answered an unsynced value";
  faults_->HoldSyncs(false);
  EXPECT_EQ(writer.Receive(4), ":2\r\n");
  EXPECT_EQ(reader.Receive(7), "$1\r\n2\r\n");
  // Every write synced: a read waits for nothing, even with syncs held.
  faults_->HoldSyncs(true);
  EXPECT_EQ(reader.Call(Request({"GET", "n"}), 7), "$1\r\n2\r\n");
  faults_->HoldSyncs(false);
}

}  // namespace
}  // namespace plush::server
