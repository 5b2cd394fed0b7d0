# The two commands of the README:
#   make run    installs what is missing, builds the CLI, runs the default scenario on the Philly trace
#   make test   the same set-up, builds everything (tests, benchmarks, the Python module), runs every test
# Also: make test-sanitize (the tests under ASan+UBSan, and the same database from both builds),
#       make bench (kernel vs SimPy/SimGrid peers; the full Philly run's time and memory;
#       the inference scenarios' time and memory; the fabric solver against SimGrid's;
#       mltwin-scheduler's cycle and snapshot reading at 1,000 and 5,000 nodes),
#       make test-shared (the policy library built shared with hidden visibility: its tests and
#       the install-and-consume check against it),
#       make docs (rewrites the generated blocks of docs/results-schema.md from the schema, and
#       docs/conformance.md from the conformance suite's results),
#       make test-fuzz (the libFuzzer targets: replay the committed corpus, then FUZZ_SECONDS
#       of fuzzing each; CI runs it with 15 s), make fuzz (the same, FUZZ_SECONDS=600 each),
#       make lab (real etcd, kube-apiserver, KWOK and volcano-scheduler on loopback, built once per
#       machine from upstream; docs/lab.md), make lab-down (stops it), make lab-status, make lab-smoke,
#       make conformance (500 seeded cluster states decided by the real volcano-scheduler and by
#       mltwin-scheduler, the agreement written into docs/conformance.md; needs the lab),
#       make conformance-sample (20 of them: CI runs it where the lab's binaries are cached).
BUILD ?= build
SAN_BUILD ?= build-asan
SHARED_BUILD ?= build-shared
GEN := $(shell command -v ninja >/dev/null 2>&1 && echo "-G Ninja")
CMAKE_FLAGS ?= -DCMAKE_BUILD_TYPE=Release -DMLTWIN_WERROR=ON -DMLTWIN_TEST_VENV=$(abspath $(BUILD))/venv
JOBS ?= $(shell nproc)
SCENARIO ?= scenarios/eks-trn1-philly.json
OUT ?= results/eks-trn1-philly.sqlite
# Determinism check across builds: the first DET_JOBS Philly jobs, one seed.
DET_JOBS ?= 3000

.PHONY: deps cli scheduler build venv notebooks docs run test san-build test-sanitize test-shared check-promises test-fuzz fuzz bench clean \
  lab lab-build lab-down lab-status lab-smoke conformance conformance-sample
deps:
	@bash scripts/install-deps.sh

build: deps
	@cmake -S . -B $(BUILD) $(GEN) $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)
	@# Earlier releases wrote a mltwin-build.pth into the user's site-packages; Python is now
	@# installed as Python users install (pyproject.toml: pip install into a venv): remove it.
	@site=$$(/usr/bin/python3 -m site --user-site 2>/dev/null) && if [ -f "$$site/mltwin-build.pth" ]; then \
	  rm -f "$$site/mltwin-build.pth" && \
	  echo "note: removed $$site/mltwin-build.pth (an earlier mltwin's); 'import mltwin' now needs 'pip install .' into a venv (README)"; fi

# The Python package installed the way users install it, into a venv under the build folder
# (Debian's packages through --system-site-packages; offline); the Python tests use it.
venv: build
	@test -x $(BUILD)/venv/bin/python || /usr/bin/python3 -m venv --system-site-packages $(BUILD)/venv
	@MLTWIN_BUILD_DIR=$(abspath $(BUILD)) $(BUILD)/venv/bin/pip install -q --no-build-isolation --no-index --no-deps . \
	  --disable-pip-version-check

# `make run` builds only what the run needs: the CLI (no tests, benchmarks or Python module).
cli: deps
	@cmake -S . -B $(BUILD) $(GEN) $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(BUILD) -j $(JOBS) --target mltwin

# mltwin-scheduler alone (README, "Try the policy on your cluster's state").
scheduler: deps
	@cmake -S . -B $(BUILD) $(GEN) $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(BUILD) -j $(JOBS) --target mltwin-scheduler

run: cli
	@mkdir -p $(dir $(OUT))
	./$(BUILD)/apps/mltwin run $(SCENARIO) --out $(OUT)

# The notebooks run and saved with their outputs (plots show where the repository is browsed).
notebooks: venv
	$(BUILD)/venv/bin/python notebooks/execute.py

# The column tables and indexes of docs/results-schema.md, from the one description of the
# results tables (store/include/mltwin/store/results_schema.hpp), and docs/conformance.md, from
# the conformance suite's run (tests/conformance); `make test` checks both.
docs: deps
	@cmake -S . -B $(BUILD) $(GEN) $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(BUILD) --target test_results_schema_doc test_conformance
	MLTWIN_UPDATE_DOCS=1 $(BUILD)/tests/store/test_results_schema_doc
	MLTWIN_UPDATE_DOCS=1 $(BUILD)/tests/conformance/test_conformance

test: venv
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# The tests again under AddressSanitizer + UndefinedBehaviorSanitizer, then one run of the
# Philly scenario from the release and the sanitizer builds: the databases must be identical.
# One clang build serves this and the fuzz targets (test-fuzz): its libraries are instrumented
# for libFuzzer's coverage too (-fsanitize=fuzzer-no-link), which only slows them a little, and
# the release build (gcc) and this one (clang) writing the same database is the stronger check
# of determinism across builds. The suites labelled slow are not built (ctest -LE slow would
# not run them), and it compiles with -O1 and line tables only (-g1: file and line in a
# sanitizer's report, no variables): about 0.6x the compile time of -O2 -g.
FUZZ_SECONDS ?= 15
SAN_FLAGS := -DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG" \
  -DCMAKE_CXX_COMPILER=clang++ -DMLTWIN_SANITIZE=address,undefined -DMLTWIN_FUZZ=ON \
  -DMLTWIN_FUZZ_SECONDS=$(FUZZ_SECONDS) -DMLTWIN_WERROR=ON -DMLTWIN_BUILD_SLOW_TESTS=OFF \
  -DMLTWIN_BUILD_BENCH=OFF -DMLTWIN_BUILD_PYTHON=OFF
san-build: deps
	@cmake -S . -B $(SAN_BUILD) $(GEN) $(SAN_FLAGS) >/dev/null
	@cmake --build $(SAN_BUILD) -j $(JOBS)

test-sanitize: build san-build
	cd $(SAN_BUILD) && ctest --output-on-failure -j $(JOBS) -LE 'slow|fuzz'
	./$(BUILD)/apps/mltwin run $(SCENARIO) --max-jobs $(DET_JOBS) --seed 7 --no-progress --out $(BUILD)/determinism.sqlite >/dev/null
	./$(SAN_BUILD)/apps/mltwin run $(SCENARIO) --max-jobs $(DET_JOBS) --seed 7 --no-progress --out $(SAN_BUILD)/determinism.sqlite >/dev/null
	cmp $(BUILD)/determinism.sqlite $(SAN_BUILD)/determinism.sqlite && echo "determinism: release (gcc) and sanitizer (clang) builds wrote identical databases"
	./$(BUILD)/apps/mltwin run scenarios/eks-trn1-philly-derived.json --max-jobs $(DET_JOBS) --seed 7 --no-progress --out $(BUILD)/determinism-derived.sqlite >/dev/null
	./$(SAN_BUILD)/apps/mltwin run scenarios/eks-trn1-philly-derived.json --max-jobs $(DET_JOBS) --seed 7 --no-progress --out $(SAN_BUILD)/determinism-derived.sqlite >/dev/null
	cmp $(BUILD)/determinism-derived.sqlite $(SAN_BUILD)/determinism-derived.sqlite && echo "determinism: the same with derived durations on a shared fabric"
	./$(BUILD)/apps/mltwin run scenarios/mme-djl-blog-top-n.json --until 3m --seed 7 --no-progress --out $(BUILD)/determinism-mme.sqlite >/dev/null
	./$(SAN_BUILD)/apps/mltwin run scenarios/mme-djl-blog-top-n.json --until 3m --seed 7 --no-progress --out $(SAN_BUILD)/determinism-mme.sqlite >/dev/null
	cmp $(BUILD)/determinism-mme.sqlite $(SAN_BUILD)/determinism-mme.sqlite && echo "determinism: the same for an inference run"

# The plugins' performance promises, checked: every scheduling session of a Philly slice runs
# again without them (--check-promises; policy::Scheduler::set_check_promises), with Volcano's
# default configuration (the first 3,000 jobs on 32 nodes) and with preempt and reclaim (the
# same jobs on 8 nodes, tests/scenarios/promise-check-preempt-reclaim.json, where 24 pods are
# evicted); the first session that decides differently fails the run.
check-promises: build
	./$(BUILD)/apps/mltwin run scenarios/eks-trn1-philly.json --max-jobs 3000 --check-promises --no-progress --out $(BUILD)/promises.sqlite >/dev/null
	./$(BUILD)/apps/mltwin run tests/scenarios/promise-check-preempt-reclaim.json --check-promises --no-progress --out $(BUILD)/promises-pr.sqlite >/dev/null
	@echo "promises: every session decided the same without them (3,000 Philly jobs; default, and preempt and reclaim)"

# The policy library as a shared library (BUILD_SHARED_LIBS=ON: only it follows the switch), with
# only MLTWIN_POLICY_EXPORT symbols visible: the policy tests link it, and the install check
# (tests/consumer/install_and_consume.cmake) consumes its installed tree.
test-shared: deps
	@cmake -S . -B $(SHARED_BUILD) $(GEN) -DCMAKE_BUILD_TYPE=Release -DMLTWIN_WERROR=ON -DBUILD_SHARED_LIBS=ON \
	  -DMLTWIN_BUILD_BENCH=OFF -DMLTWIN_BUILD_PYTHON=OFF >/dev/null
	@cmake --build $(SHARED_BUILD) -j $(JOBS) --target mltwin_policy test_policies
	cd $(SHARED_BUILD) && ctest --output-on-failure -R '^(test_policies|policy_install)$$'

# The parsers under libFuzzer with ASan+UBSan (clang), in the sanitizer build: tests/fuzz/. A
# finding fails the test and is kept in $(SAN_BUILD)/tests/fuzz/findings/<target>/.
test-fuzz: san-build
	cd $(SAN_BUILD) && ctest --output-on-failure -j $(JOBS) -L fuzz

fuzz:
	$(MAKE) test-fuzz FUZZ_SECONDS=600

# The lab (issue 22, docs/lab.md): test tooling only, never shipped. Binaries, Go caches, state
# and logs live in ${MLTWIN_LAB_CACHE:-$HOME/.cache/mltwin-lab}, outside the repository.
lab-build:
	@bash tools/lab/build.sh

lab:
	@bash tools/lab/up.sh

lab-down:
	@bash tools/lab/down.sh

lab-status:
	@bash tools/lab/status.sh

# A KWOK node with cpu, memory and aws.amazon.com/neuroncore, a PodGroup of 2 and its pods: the
# real scheduler must bind them (needs `make lab`).
lab-smoke:
	@bash tools/lab/smoke.sh

# The differential run (docs/lab.md, "The differential runner"): CONFORMANCE_SEEDS seeded random
# cluster states, each decided by the real volcano-scheduler in the lab and by mltwin-scheduler,
# the agreement written into docs/conformance.md. Results are kept in the lab's cache: a run
# interrupted goes on where it stopped. About 6.6 s a seed (3,300 s, 55 minutes, for 500).
CONFORMANCE_SEEDS ?= 500
conformance: scheduler
	@bash tools/lab/up.sh >/dev/null
	python3 tools/lab/conformance.py --count $(CONFORMANCE_SEEDS) --doc docs/conformance.md

# The CI sample: 20 seeds where the lab's binaries are cached, else skipped with the reason.
conformance-sample: scheduler
	@bash tools/lab/sample.sh

bench: build
	bash bench/run-kernel-bench.sh
	bash bench/run-philly-bench.sh
	bash bench/run-inference-bench.sh
	bash bench/run-fabric-bench.sh
	bash bench/run-scheduler-bench.sh

clean:
	rm -rf $(BUILD) $(SAN_BUILD) $(SHARED_BUILD)
