# The two commands: `make run` and `make test`. Each installs missing Debian
# packages (scripts/deps.sh), configures with a CMake preset and builds.
JOBS ?= $(shell nproc)

.PHONY: run test build deps test-release test-debug test-tsan clean

run: deps
	cmake --preset release >/dev/null
	cmake --build --preset release -j $(JOBS) --target sluiced
	./build/release/sluiced $(ARGS)

# Every test, twice: an optimised build, then the debug build with
# AddressSanitizer and UndefinedBehaviorSanitizer.
test: deps test-release test-debug

test-release:
	cmake --preset release >/dev/null
	cmake --build --preset release -j $(JOBS)
	ctest --preset release -j $(JOBS)

test-debug:
	cmake --preset debug >/dev/null
	cmake --build --preset debug -j $(JOBS)
	ctest --preset debug -j $(JOBS)

test-tsan:
	cmake --preset tsan >/dev/null
	cmake --build --preset tsan -j $(JOBS)
	ctest --preset tsan -j $(JOBS)

deps:
	@scripts/deps.sh

clean:
	rm -rf build
