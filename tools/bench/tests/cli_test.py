#!/usr/bin/env python3
# Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
"""Runs plush-bench end to end against one engine with tiny sizes: the JSON
schema, the table, the exit codes and a correctness run per mode.

Usage: cli_test.py PATH/TO/plush-bench ENGINE
"""

import json
import os
import subprocess
import sys
import tempfile
import unittest

BINARY = ""
ENGINE = ""

# Field -> type of every member of the JSON object (docs/benchmarking-tool.md).
SCHEMA = {
    "engine": str, "workload": str, "mode": str, "status": str, "error": str,
    "threads": int, "records": int, "operations": int, "seconds": float,
    "mops": float, "load_seconds": float, "load_mops": float,
    "p50_ns": int, "p90_ns": int, "p99_ns": int, "p999_ns": int,
    "p9999_ns": int, "max_ns": int, "latency_samples": int,
    "dram_bytes": int, "dram_source": str, "rss_delta_bytes": int,
    "pool_bytes": int, "media_write_amp": float, "persist_per_op": float,
    "flushed_lines_per_op": float, "key_size": float,
    "key_size_stddev": float, "key_order": str, "value_size": float,
    "value_size_stddev": float, "distribution": str, "skew": float,
    "seed": int, "backend": str, "lookup_ratio": float,
    "negative_lookup_ratio": float, "insert_ratio": float,
    "update_ratio": float, "delete_ratio": float, "scan_ratio": float,
    "scan_size": int, "recovery_seconds": float,
    "engine_recovery_seconds": float, "recovered_log_entries": int,
    "verified_records": int, "checkpoint_threads": int,
    "checkpoint_seconds": float, "emulate_pmem": bool, "unlogged": bool,
    "model_write_amp": bool, "pool_path": str, "batch": int,
    "multiget": int, "latency_mode": str, "iterate_records": int,
    "iterate_seconds": float, "iterate_records_per_second": float,
    "backup_seconds": float, "backup_bytes": int, "sync": bool,
}

EXIT_FAILED, EXIT_USAGE, EXIT_UNSUPPORTED = 1, 2, 3


def run(*args, json_output=True):
    """Runs the binary; returns (exit code, parsed JSON or stdout text)."""
    command = [BINARY, "--engine", ENGINE, "--seed", "7", *args]
    if json_output:
        command.append("--json")
    proc = subprocess.run(command, capture_output=True, text=True, timeout=60)
    if proc.returncode < 0:
        raise AssertionError(f"{command} died of signal {-proc.returncode}:\n"
                             f"{proc.stderr}")
    if not json_output or proc.returncode == EXIT_USAGE:
        return proc.returncode, proc.stdout
    lines = proc.stdout.splitlines()
    if len(lines) != 1:
        raise AssertionError(f"{command} printed {len(lines)} lines, not 1:\n"
                             f"{proc.stdout}\n{proc.stderr}")
    return proc.returncode, json.loads(lines[0])


class CliTest(unittest.TestCase):

    def check_schema(self, result):
        for field, kind in SCHEMA.items():
            self.assertIn(field, result)
            value = result[field]
            if kind is float:
                self.assertIsInstance(value, (int, float), field)
            elif kind is int:
                self.assertIsInstance(value, int, field)
                self.assertNotIsInstance(value, bool, field)
            else:
                self.assertIsInstance(value, kind, field)
        self.assertEqual(result["engine"], ENGINE)

    def assert_ok(self, code, result):
        self.assertEqual(code, 0, result)
        self.assertEqual(result["status"], "ok", result["error"])
        self.assertEqual(result["error"], "")

    def test_mixed_run_passes_its_checks(self):
        code, result = run("-n", "3000", "-p", "4000", "-t", "2",
                           "--lookup", "0.4", "--negative-lookup", "0.1",
                           "--insert", "0.2", "--update", "0.2",
                           "--delete", "0.1", "--latency-sample", "1")
        self.check_schema(result)
        self.assert_ok(code, result)
        self.assertEqual(result["records"], 3000)
        self.assertEqual(result["operations"], 4000)
        self.assertEqual(result["threads"], 2)
        self.assertEqual(result["latency_samples"], 4000)
        self.assertGreater(result["mops"], 0)
        self.assertGreater(result["load_mops"], 0)
        self.assertLessEqual(result["p50_ns"], result["p99_ns"])
        self.assertLessEqual(result["p99_ns"], result["max_ns"])
        # The loaded records plus about 800 inserted ones were read back.
        self.assertGreater(result["verified_records"], 3000)
        self.assertEqual(result["workload"],
                         "lookup=0.4,negative-lookup=0.1,insert=0.2,"
                         "update=0.2,delete=0.1")
        # The temporary pool is gone.
        self.assertFalse(os.path.exists(result["pool_path"]))

    def test_latency_all_times_every_operation(self):
        code, result = run("-n", "1000", "-p", "3000", "-t", "2",
                           "--lookup", "0.5", "--insert", "0.5",
                           "--latency", "all")
        self.check_schema(result)
        self.assert_ok(code, result)
        self.assertEqual(result["latency_mode"], "all")
        self.assertEqual(result["latency_samples"], 3000)
        self.assertGreater(result["p50_ns"], 0)
        self.assertLessEqual(result["p50_ns"], result["p90_ns"])
        self.assertLessEqual(result["p9999_ns"], result["max_ns"])
        code, text = run("-n", "100", "-p", "100", "--latency", "all",
                         json_output=False)
        self.assertEqual(code, 0, text)
        self.assertIn("(100 samples, every operation)", text)
        # The default samples; the two flags contradict each other.
        code, result = run("-n", "100", "-p", "100")
        self.assertEqual(result["latency_mode"], "sample")
        code, _ = run("-n", "100", "--latency", "all",
                      "--latency-sample", "0.5")
        self.assertEqual(code, EXIT_USAGE)

    def test_iterate_sees_every_record_once(self):
        # After the load only, then after a run that inserts, updates and
        # deletes: the iteration is checked against both.
        code, result = run("-n", "3000", "-p", "0", "-t", "2", "--iterate")
        self.check_schema(result)
        self.assert_ok(code, result)
        self.assertEqual(result["iterate_records"], 3000)
        self.assertGreater(result["iterate_seconds"], 0)
        self.assertGreater(result["iterate_records_per_second"], 0)
        code, result = run("-n", "3000", "-p", "3000", "-t", "2",
                           "--insert", "0.4", "--update", "0.3",
                           "--delete", "0.3", "--iterate")
        self.assert_ok(code, result)
        self.assertGreater(result["iterate_records"], 3000 - 1000)
        code, text = run("-n", "100", "-p", "0", "--iterate",
                         json_output=False)
        self.assertEqual(code, 0, text)
        self.assertIn("M records/s", text)
        if ENGINE == "plush":
            code, result = run("-n", "2000", "-p", "0", "--iterate",
                               "--partitioning", "range", "--key-size",
                               "normal:16,3.2", "--value-size", "100")
            self.assert_ok(code, result)
            self.assertEqual(result["iterate_records"], 2000)
        code, _ = run("--recovery", "-n", "100", "--iterate")
        self.assertEqual(code, EXIT_USAGE)

    def test_backup(self):
        with tempfile.TemporaryDirectory() as directory:
            path = os.path.join(directory, "backup.pool")
            code, result = run("-n", "2000", "-p", "1000", "--backup", path)
            if ENGINE != "plush":
                self.assertEqual(code, EXIT_UNSUPPORTED, result)
                self.assertFalse(os.path.exists(path))
                return
            self.check_schema(result)
            self.assert_ok(code, result)
            self.assertGreater(result["backup_seconds"], 0)
            self.assertEqual(result["backup_bytes"], os.path.getsize(path))
            # A backup never overwrites a file.
            code, result = run("-n", "100", "-p", "0", "--backup", path)
            self.assertEqual(code, EXIT_FAILED, result)
            self.assertIn(path, result["error"])

    def test_insert_only_is_the_default(self):
        code, result = run("-n", "1000", "-p", "1000", "--model-write-amp")
        self.assert_ok(code, result)
        self.assertEqual(result["workload"], "insert")
        self.assertEqual(result["insert_ratio"], 1)
        self.assertEqual(result["verified_records"], 2000)
        if ENGINE == "plush":
            # Logged inserts persist, and are fed to the media model.
            self.assertGreater(result["persist_per_op"], 0)
            self.assertGreater(result["flushed_lines_per_op"], 0)
            self.assertGreater(result["pool_bytes"], 0)
            self.assertGreater(result["media_write_amp"], 0)
            self.assertEqual(result["dram_source"], "engine")

    def test_table_output(self):
        code, text = run("-n", "1000", "-p", "1000", "--lookup", "1",
                         json_output=False)
        self.assertEqual(code, 0, text)
        self.assertIn("Mops/s", text)
        self.assertIn("result    ok", text)

    def test_time_based_run(self):
        code, result = run("-n", "1000", "--seconds", "0.2", "--lookup", "1",
                           "-t", "2")
        self.assert_ok(code, result)
        self.assertGreater(result["operations"], 0)
        self.assertGreater(result["seconds"], 0.15)

    def test_skewed_distributions(self):
        for distribution in ("zipfian", "selfsimilar"):
            code, result = run("-n", "2000", "-p", "2000", "--lookup", "0.5",
                               "--update", "0.5", "--distribution",
                               distribution)
            self.assert_ok(code, result)
            self.assertEqual(result["distribution"], distribution)
            self.assertGreater(result["skew"], 0)

    def test_variable_sizes(self):
        code, result = run("-n", "1000", "-p", "1000", "--key-size",
                           "normal:16,3.2", "--value-size", "normal:200,40")
        self.check_schema(result)
        self.assertEqual(result["key_size"], 16)
        self.assertEqual(result["value_size_stddev"], 40)
        self.assert_ok(code, result)

    def test_scans(self):
        code, result = run("-n", "1000", "-p", "200", "--scan", "1",
                           "--scan-size", "10")
        if ENGINE == "rocksdb":
            self.assert_ok(code, result)
        else:
            # Hash-partitioned plush pools and the DRAM hash map keep no order.
            self.assertEqual(code, EXIT_UNSUPPORTED, result)
            self.assertEqual(result["status"], "unsupported")
        if ENGINE == "plush":
            code, result = run("-n", "1000", "-p", "200", "--scan", "1",
                               "--scan-size", "10", "--partitioning", "range")
            self.assert_ok(code, result)

    def test_ordered_keys(self):
        for order in ("user", "sequential"):
            code, result = run("-n", "2000", "-p", "500", "--key-order", order,
                               "--lookup", "0.5", "--insert", "0.5",
                               "--iterate")
            self.assert_ok(code, result)
            self.assertEqual(result["key_order"], order)
            self.assertEqual(result["key_size"], 13 if order == "user" else 8)
            self.assertGreaterEqual(result["verified_records"], 2000)
        if ENGINE == "plush":
            code, result = run("-n", "3000", "-p", "300", "--key-order", "user",
                               "--scan", "1", "--partitioning", "range",
                               "--range-sample", "500")
            self.assert_ok(code, result)

    def test_checkpoint(self):
        code, result = run("-n", "2000", "-p", "2000", "--unlogged",
                           "--checkpoint-threads", "2")
        if ENGINE == "dram":
            self.assertEqual(code, EXIT_UNSUPPORTED, result)
            return
        self.assert_ok(code, result)
        self.assertEqual(result["checkpoint_threads"], 2)
        self.assertGreater(result["checkpoint_seconds"], 0)

    def test_recovery(self):
        code, result = run("--recovery", "-n", "20000", "--kill-after", "0.05")
        if ENGINE == "dram":
            self.assertEqual(code, EXIT_USAGE)
            return
        self.check_schema(result)
        self.assert_ok(code, result)
        self.assertEqual(result["mode"], "recovery")
        self.assertGreater(result["recovery_seconds"], 0)
        self.assertEqual(result["verified_records"], 20000)

    def test_payload_log_options(self):
        if ENGINE != "plush":
            return
        # Records other than 8/8 go through payload logs, so their options
        # reach the pool: a pool without them refuses such records.
        code, result = run("-n", "1000", "-p", "1000", "--key-size", "16",
                           "--value-size", "100", "--payload-log-count", "1",
                           "--payload-chunk-size", "131072")
        self.assert_ok(code, result)
        code, result = run("-n", "100", "-p", "0", "--key-size", "16",
                           "--payload-log-count", "0")
        self.assertEqual(code, EXIT_UNSUPPORTED, result)
        self.assertIn("payload_log_count = 0", result["error"])
        code, result = run("-n", "100", "-p", "0", "--payload-chunk-size",
                           "100")
        self.assertEqual(code, EXIT_FAILED, result)
        self.assertIn("payload_chunk_size", result["error"])

    def test_keep_pool(self):
        code, result = run("-n", "100", "-p", "100", "--keep-pool")
        self.assert_ok(code, result)
        # The temporary directory holding the pool (the DRAM engine leaves
        # it empty) is kept.
        directory = os.path.dirname(result["pool_path"])
        self.assertTrue(os.path.isdir(directory))
        subprocess.run(["rm", "-rf", directory], check=True)

    def test_usage_errors(self):
        for args in (["--lookup", "0.5"],             # ratios sum to 0.5
                     ["--key-size", "4"],             # below 8 bytes
                     ["--distribution", "zipfian", "--skew", "0"],
                     ["--threads", "0"],
                     ["--key-order", "random"],
                     ["--range-sample", "10"]):   # needs a range pool
            code, _ = run(*args)
            self.assertEqual(code, EXIT_USAGE, args)


if __name__ == "__main__":
    BINARY, ENGINE = sys.argv[1], sys.argv[2]
    unittest.main(argv=sys.argv[:1], verbosity=2)
