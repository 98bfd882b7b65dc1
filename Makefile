# emsolve - the two commands of a fresh machine:
#   make run     install what is missing (as root), build, run cases/dra.geo
#   make check   install what is missing (as root), build, run the tests
# (plus the unit tests again under AddressSanitizer + UBSan)

BUILD    ?= build
ASAN     ?= build-asan
JOBS     ?= $(shell nproc)
CASE     ?= cases/dra.geo
CMAKE_FLAGS ?=

.PHONY: all deps build run check check-fast asan format clean

all: build

deps:
	@scripts/install-deps.sh

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS)

build: deps $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j$(JOBS)

run: build
	$(BUILD)/app/emsolve $(CASE)

check: build
	cd $(BUILD) && ctest -LE slow --output-on-failure -j$(JOBS)
	$(MAKE) --no-print-directory asan

# The unit tests again, built without CUDA and without MPI (dist/'s serial
# implementation alone: the build of a machine without MPI) under ASan + UBSan.
asan: deps
	cmake -S . -B $(ASAN) -DCMAKE_BUILD_TYPE=Debug -DEMSOLVE_SANITIZE=ON -DEMSOLVE_CUDA=OFF -DEMSOLVE_MPI=OFF
	cmake --build $(ASAN) -j$(JOBS)
	cd $(ASAN) && ctest -L unit --output-on-failure -j$(JOBS)

format:
	find core dist graph mesh assembly formats solver eigen post model app bench tests \
	  -name '*.c' -o -name '*.h' -o -name '*.cu' -o -name '*.cuh' | xargs clang-format -i

clean:
	rm -rf $(BUILD) $(ASAN)
