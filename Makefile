# The two commands: `make run` and `make test`. Each installs missing Debian
# packages (scripts/deps.sh), configures with a CMake preset and builds.
JOBS ?= $(shell nproc)

.PHONY: run test build deps peers test-release test-debug test-concurrency test-tsan test-cortex-m check-headers clean

run: deps
	cmake --preset release >/dev/null
	cmake --build --preset release -j $(JOBS) --target sluiced sluice_cli
	./build/release/sluiced $(ARGS)

# Every test, twice: an optimised build, then the debug build with
# AddressSanitizer and UndefinedBehaviorSanitizer; then the portable core's
# tests on a Cortex-M4 under QEMU.
test: deps peers test-release test-debug test-concurrency test-cortex-m

# Under the sanitizers, every test but those whose peer is a browser or
# Prometheus: they drive the same server paths other tests drive, and would
# cost the sanitizer run some forty seconds. They run in test-release.
RELEASE_ONLY_TESTS = Chromium|Prometheus

test-release: peers
	cmake --preset release >/dev/null
	cmake --build --preset release -j $(JOBS)
	ctest --preset release -j $(JOBS)

test-debug: peers
	cmake --preset debug >/dev/null
	cmake --build --preset debug -j $(JOBS)
	ctest --preset debug -j $(JOBS) -E '$(RELEASE_ONLY_TESTS)'

# The tests that share state between threads, again under ThreadSanitizer
# (the whole suite under TSan is `make test-tsan`).
test-concurrency:
	cmake --preset tsan >/dev/null
	cmake --build --preset tsan -j $(JOBS) --target buf_tests io_tests hub_tests threads_tests metrics_tests log_tests
	ctest --preset tsan -j $(JOBS) -R '^(MpscQueue|SlabWriterThreads|HubThreads|threads\.Concurrency|threads\.WsPublisher|threads\.AuthorizationThreads|threads\.ReloadThreads|threads\.PublishWaiting|MetricsCells|MetricsRegistry|LogOutput)\.'

test-tsan: peers
	cmake --preset tsan >/dev/null
	cmake --build --preset tsan -j $(JOBS)
	ctest --preset tsan -j $(JOBS)

# Every header compiles on its own (include what you use, no hidden order).
check-headers:
	cmake --preset release >/dev/null
	cmake --build --preset release -j $(JOBS) --target check_headers

# The portable core built for a Cortex-M4 and its unit tests run on QEMU's
# MPS2-AN386 board (tests/cortex_m/README.md), with lwIP compiled for the
# board from Debian's source package (scripts/lwip-source.sh).
test-cortex-m:
	scripts/lwip-source.sh
	cmake --preset cortex-m >/dev/null
	cmake --build --preset cortex-m -j $(JOBS)
	ctest --preset cortex-m -j $(JOBS)

deps:
	@scripts/deps.sh

# The npm packages of the real-client tests (tests/peers, docs/PEERS.md),
# exactly as locked. Installed again only when the lock file changes, so a
# machine that has them needs no network. No package runs an install script,
# so nothing (no browser either) is downloaded behind the lock file's back.
peers: tests/peers/node_modules/.package-lock.json

tests/peers/node_modules/.package-lock.json: tests/peers/package-lock.json
	npm ci --prefix tests/peers --ignore-scripts --prefer-offline --no-audit --no-fund

clean:
	rm -rf build
