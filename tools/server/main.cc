// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// plush-server: serves one Plush pool over the Redis protocol. Run
// `plush-server --help` for the options; docs/api.md lists the commands.

#include <linux/magic.h>
#include <sys/resource.h>
#include <sys/vfs.h>

#include <CLI/CLI.hpp>
#include <csignal>
#include <filesystem>
#include <iostream>
#include <string>
#include <thread>

#include "flushable_pool.h"
#include "password.h"
#include "pool_args.h"
#include "protected_mode.h"
#include "reply_guarantee.h"
#include "server.h"
#include "server_config.h"

namespace {

// File descriptors the server needs besides its clients' (the pool, the
// listening socket, the event loop's own).
constexpr rlim_t kReservedDescriptors = 32;

int Fail(const plush::Status& status) {
  std::cerr << "plush-server: " << status.ToString() << '\n';
  return static_cast<int>(status.code());
}

// --sync-writes promises that answered writes survive power loss, which
// no sync gives a pool in memory (tmpfs, ramfs: /dev/shm): refused there
// rather than promised falsely.
plush::Status CheckSyncWritesCanHold(const std::string& pool_path) {
  std::filesystem::path dir = std::filesystem::absolute(pool_path).parent_path();
  struct statfs fs {};
  if (statfs(dir.c_str(), &fs) != 0) return plush::Status::OK();  // Open tells
  if (fs.f_type == TMPFS_MAGIC || fs.f_type == RAMFS_MAGIC) {
    return plush::Status::InvalidArgument(
        "--sync-writes: " + dir.string() +
        " is a file system in memory (tmpfs or ramfs), whose contents do not "
        "survive power loss; put the pool on a disk");
  }
  return plush::Status::OK();
}

// Raises the file descriptor limit to what --maxclients needs, as far as
// the hard limit allows, and lowers maxclients to what it allows.
void FitDescriptorLimit(uint32_t* maxclients) {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return;
  const rlim_t wanted = *maxclients + kReservedDescriptors;
  if (limit.rlim_cur < wanted) {
    limit.rlim_cur = std::min(wanted, limit.rlim_max);
    setrlimit(RLIMIT_NOFILE, &limit);
    getrlimit(RLIMIT_NOFILE, &limit);
  }
  if (limit.rlim_cur < wanted) {
    const auto fitting =
        static_cast<uint32_t>(limit.rlim_cur > kReservedDescriptors
                                  ? limit.rlim_cur - kReservedDescriptors
                                  : 1);
    std::cerr << "plush-server: --maxclients " << *maxclients
              << " exceeds the file descriptor limit; serving at most "
              << fitting << " clients\n";
    *maxclients = fitting;
  }
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app(
      "Serve a Plush pool over the Redis protocol (RESP2; RESP3 after "
      "HELLO 3). A write is answered once it is durable within the back "
      "end's guarantee.",
      "plush-server");
  app.set_version_flag("--version",
                       std::string(PLUSH_VERSION) + " (pool format " +
                           std::to_string(plush::kFormatVersion) + ")");
  plush::tools::PoolArgs pool;
  plush::tools::AddBackendOption(&app, &pool.backend);
  app.add_option("--pool", pool.path, "Path of the pool file")->required();
  bool create = false;
  app.add_flag("--create", create,
               "Create the pool, with the default options, if it does not "
               "exist (`plush create` makes pools with other options)");

  plush::server::ServerConfig config;
  std::string password_file;
  std::string protected_mode = "yes";
  app.add_option("--bind", config.bind,
                 "Address to listen on (default loopback only)")
      ->capture_default_str();
  app.add_option("--protected-mode", protected_mode,
                 "yes: without a password, serve only clients on the "
                 "loopback interface and refuse others with an error saying "
                 "why, as Redis does; no: serve every client")
      ->capture_default_str()
      ->check(CLI::IsMember({"yes", "no"}));
  app.add_option("--port", config.port, "TCP port (0: any free one)")
      ->capture_default_str();
  app.add_option("--threads", config.threads,
                 "Event-loop threads (default: one per core)");
  app.add_option("--requirepass-file", password_file,
                 "File holding the password clients must AUTH with")
      ->check(CLI::ExistingFile);
  app.add_option("--maxclients", config.maxclients,
                 "Clients served at once; more are refused")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  app.add_option("--idle-timeout", config.idle_timeout_seconds,
                 "Close clients idle for this many seconds (0: never)")
      ->capture_default_str();
  app.add_flag("--sync-writes", config.sync_writes,
               "Answer a write only once it survives power loss: the file "
               "back end syncs the pool (msync) once per pass of an event "
               "loop, as Redis's appendfsync always; without it a write is "
               "answered once it survives a crash of the server process");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);  // --help and --version: 0
    return code == 0 ? 0
                     : static_cast<int>(plush::Status::Code::kInvalidArgument);
  }

  config.protected_mode = protected_mode == "yes";
  if (!password_file.empty()) {
    std::string password;
    plush::Status s = plush::server::ReadPasswordFile(password_file, &password);
    if (!s.ok()) return Fail(s);
    config.password = std::move(password);
  }
  if (config.sync_writes) {
    plush::Status s = CheckSyncWritesCanHold(pool.path);
    if (!s.ok()) return Fail(s);
  }
  if (config.threads == 0) {
    config.threads = std::max(1u, std::thread::hardware_concurrency());
  }
  FitDescriptorLimit(&config.maxclients);
  // A client that leaves while its reply is sent must not end the server.
  std::signal(SIGPIPE, SIG_IGN);

  plush::Options options = plush::tools::ExistingPoolOptions(pool);
  options.create_if_missing = create;
  // Replies to sync writes promise power-fail durability for good.
  options.power_fail_safe = config.sync_writes;
  std::unique_ptr<plush::DB> opened;
  plush::Status s = plush::DB::Open(options, pool.path, &opened);
  if (!s.ok()) return Fail(s);
  // FLUSHDB replaces the pool file by an empty pool made with `options`.
  plush::server::FlushablePool db(std::move(opened), pool.path, options);
  plush::Stats stats;
  s = db.GetStats(&stats);

  plush::server::Server server(&db, config);
  if (s.ok()) s = server.Listen();
  if (!s.ok()) {
    // Nothing was served: the error to report is the one above.
    static_cast<void>(db.Close());
    return Fail(s);
  }
  std::cerr << "plush-server: serving " << pool.path << " on " << config.bind
            << ':' << server.port() << " (" << stats.backend << " back end: "
            << plush::server::GuaranteeOfReplies(stats, config.sync_writes).text
            << ")\n";
  if (plush::server::ProtectedModeApplies(config) &&
      !plush::server::IsLoopbackAddress(config.bind)) {
    std::cerr << "plush-server: protected mode: no password is set, so only "
                 "clients on the loopback interface are served; clients of "
                 "other hosts are refused (-DENIED) unless the server is "
                 "restarted with --requirepass-file or --protected-mode no\n";
  }
  server.Run();
  // Every client is gone: no write is in flight.
  s = db.Close();
  if (!s.ok()) return Fail(s);
  std::cerr << "plush-server: closed " << pool.path << '\n';
  return 0;
}
