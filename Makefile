# The two commands of the README:
#   make bench   install dependencies, build, run the default benchmark
#   make test    install dependencies, build, run the whole test suite
# Everything else here is a building block of those two.

JOBS ?= 2
BUILD := build/release

.PHONY: bench test deps build build-asan build-tsan test-release test-asan test-tsan test-fuzz test-clang soak fuzz format clean

deps:
	@scripts/install_deps.sh

build: deps
	@cmake --preset release >/dev/null
	@cmake --build --preset release -j $(JOBS)

build-asan: deps
	@cmake --preset asan >/dev/null
	@cmake --build --preset asan -j $(JOBS) --target plush_sanitize_tests

build-tsan: deps
	@cmake --preset tsan >/dev/null
	@cmake --build --preset tsan -j $(JOBS) --target plush_concurrency_tests

bench: build
	@scripts/bench_default.sh $(BUILD)

test-release: build
	@ctest --preset release -L default

# Sanitizer runs cover the tests labelled 'sanitize' (concurrency, crash,
# fuzz and bad-input tests), keeping the whole of `make test` in CI's budget.
test-asan: build-asan
	@ctest --preset asan -L sanitize

test-tsan: build-tsan
	@ctest --preset tsan -L concurrency

# Bounded runs of the damaged-pool fuzzer and of plush-server's request
# parser fuzzer (clang-14, libFuzzer, ASan+UBSan).
test-fuzz: deps
	@scripts/fuzz.sh 2000 pool
	@scripts/fuzz.sh 20s request

# The locking rules (GUARDED_BY, REQUIRES: src/util/thread_annotations.h),
# checked at compile time by clang's thread-safety analysis.
test-clang: deps
	@cmake --preset clang >/dev/null
	@cmake --build --preset clang -j $(JOBS)

test: test-release test-asan test-tsan test-fuzz test-clang
	@scripts/test_extra.sh $(BUILD)

# Long runs behind a flag: more crash states, kill rounds, fuzz inputs and
# linearizability runs of plush-server (about half an hour);
# docs/reliability.md records the last one.
soak: build
	@scripts/soak.sh $(BUILD)

fuzz: deps
	@scripts/fuzz.sh 600s

format:
	@find include src tools tests examples -name '*.h' -o -name '*.cc' | xargs clang-format -i

clean:
	rm -rf build
