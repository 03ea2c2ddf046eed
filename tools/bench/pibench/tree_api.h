// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// The plugin interface of PiBench
// (https://github.com/sfu-dis/pibench/blob/master/include/tree_api.hpp),
// declared here rather than copied: it is an ABI.
// PiBench dlopen()s a wrapper library, looks up create_tree with dlsym()
// and calls the tree through its virtual functions, so the declarations
// below must match PiBench's member for member and slot for slot:
// tree_options_t's members in this order, and tree_api's virtual functions
// in this order, bulk_load included (current PiBench has it; PiBench builds
// from before it was added expect find() in its slot and cannot load this
// wrapper).

#ifndef PLUSH_TOOLS_BENCH_PIBENCH_TREE_API_H_
#define PLUSH_TOOLS_BENCH_PIBENCH_TREE_API_H_

#include <cstddef>
#include <string>

struct tree_options_t {
  size_t key_size = 8;
  size_t value_size = 8;
  std::string pool_path = "";
  size_t pool_size = 0;
  size_t num_threads = 1;
};

class tree_api;
extern "C" tree_api* create_tree(const tree_options_t& opt);

// The names and signatures are PiBench's, hence not Google style.
class tree_api {
 public:
  virtual ~tree_api() {}

  // Loads `num_records` records laid out as key_sz + value_sz byte pairs.
  virtual bool bulk_load(const char* /*data*/, size_t /*num_records*/,
                         size_t /*key_sz*/, size_t /*value_sz*/) {
    return false;
  }
  // Copies the value of `key` to value_out; false if not found.
  virtual bool find(const char* key, size_t key_sz, char* value_out) = 0;
  virtual bool insert(const char* key, size_t key_sz, const char* value,
                      size_t value_sz) = 0;
  virtual bool update(const char* key, size_t key_sz, const char* value,
                      size_t value_sz) = 0;
  virtual bool remove(const char* key, size_t key_sz) = 0;
  // Reads up to scan_sz records from the first key >= key, in key order, and
  // points values_out at them: contiguous key + value pairs in memory the
  // wrapper owns. Returns how many it read.
  virtual int scan(const char* key, size_t key_sz, int scan_sz,
                   char*& values_out) = 0;
};

#endif  // PLUSH_TOOLS_BENCH_PIBENCH_TREE_API_H_
