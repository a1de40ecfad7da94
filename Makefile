# README's two commands: `make lab` runs the product without Docker, `make test` tests it.
# Fragments add their own targets: docker/*.mk the runtime (make lab, make engine), docker/test/*.mk
# the tests. `make test` runs the test targets in the two lanes named below (LANE_SIDE, LANE_LAB).
SHELL := /bin/bash
GO ?= go
export GOTOOLCHAIN := local


.PHONY: test test-go fmt-check vet bench-card
-include docker/lab.mk
-include docker/test/lab.mk
-include docker/test/image.mk
-include docker/test/hub.mk
-include docker/test/text.mk
-include docker/engine.mk
-include docker/test/engine.mk
-include docker/test/warehouse.mk

# The deliverable notebook, filled with the reference card and with typical
# mistakes, passes or fails its self-check for real (GoNB kernel from lab.mk).
.PHONY: test-deliverable
test-deliverable: $(LAB_READY)
	cd $(LAB_REPO) && $(LAB_ENV) $(LAB_PY) docker/test/deliverable_test.py

# The class report `coursekit grade` writes (OUT/class.html), opened offline in Debian's
# chromium: charts drawn, learner strings shown as text. Screenshots: out/class-report/.
.PHONY: test-class-report
test-class-report: browser-setup
	@test -x /usr/bin/chromium || { echo "test-class-report: /usr/bin/chromium is missing: run 'bash docker/host-setup.sh test' as root" >&2; exit 1; }
	cd $(LAB_REPO) && node docker/test/browser/class-report.test.mjs

# As root on Debian it first installs the packages the tests need (docker/host-setup.sh, as CI
# does); as another user it names the missing ones and stops.
#
# Two lanes run side by side (docker/test/lanes.sh). The lab lane sets the lab up, executes
# every notebook once (out/notebooks), then runs what needs the browser; the side lane runs the
# Go tests and the SQL engines, then, once the lab lane has got that far (after:TARGET waits for
# it), the engine and the checks that read the executed notebooks. Each target runs even when one
# before it failed; the run ends with a table of each target's wall time and the load average
# (the rows stay in out/timing/test.tsv). docs/testing.md says what each target proves.
TIMING_DIR ?= out/timing
LANE_LAB  := test-setup notebooks-executed test-browser test-deliverable test-class-report test-spark
LANE_SIDE := test-go test-sql after:test-setup test-engine after:notebooks-executed test-notebooks test-notebook-text
test:
	@mkdir -p $(TIMING_DIR); rm -f $(TIMING_DIR)/test.tsv out/notebooks/.stamp out/notebooks.failed
	@bash docker/test/timed.sh run $(TIMING_DIR)/test.tsv host-setup -- bash docker/host-setup.sh test || { \
	  bash docker/test/timed.sh failures $(TIMING_DIR)/test.tsv; bash docker/test/timed.sh table $(TIMING_DIR)/test.tsv "make test"; exit 1; }
	@IN_MAKE_TEST=1 bash docker/test/lanes.sh $(TIMING_DIR)/test.tsv "make test" "$(LANE_SIDE)" "$(LANE_LAB)"

# The race detector runs on the packages whose own code or tests start goroutines or share memory
# between them (RACE_PKGS); a race needs two goroutines, and code of another package that such a
# package runs concurrently is instrumented in its race build. The rest run without it, on the
# build go vet has just made. coursekit's TestRaceScope derives this list from the source and fails
# when it differs. go vet ran in full, so go test runs none of its own (-vet=off). The race run
# runs also when the other failed.
RACE_PKGS := ./coursekit/capacity ./coursekit/charts/tracefig ./coursekit/cmd/coursekit \
	./coursekit/grade ./coursekit/grade/execute ./coursekit/grade/grader \
	./coursekit/internal/capture ./coursekit/internal/spill ./coursekit/judge ./coursekit/lab \
	./coursekit/loadgen ./coursekit/metrics ./coursekit/sim ./coursekit/trace
# -timeout guards against a hang, not a slow machine: the CLI's tests under -race take about 5
# minutes alone and went past 10 (go test's default) at load average 17-27.
GO_TEST_TIMEOUT := 30m
test-go: fmt-check vet
	$(GO) test -vet=off -count=1 -timeout $(GO_TEST_TIMEOUT) $$($(GO) list ./... | grep -vxF "$$($(GO) list $(RACE_PKGS))"); s=$$?; \
	$(GO) test -vet=off -race -count=1 -timeout $(GO_TEST_TIMEOUT) $(RACE_PKGS) && exit $$s

fmt-check:
	@out=$$(gofmt -l $$(git ls-files -co --exclude-standard -- '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...

# The CLI reference docs/cli.md is the CLI's own help (a test in coursekit/cmd/coursekit checks
# it). readme-cli is the old name, kept as an alias.
.PHONY: cli-doc readme-cli
cli-doc:
	$(GO) test ./coursekit/cmd/coursekit -run '^TestCLIReference$$' -count=1 -update
readme-cli: cli-doc

# The flake hunt (docker/test/flakehunt.py), while stress-ng keeps 2 CPU workers busy: the tests
# of the packages that measure time (loadgen, sim, capacity, the CLI, lab) -count=10 in five go
# test processes at a time, every test changed since the commit in .ci/base -count=10, then the
# other packages round after round for FLAKE_BUDGET seconds. A test that fails 1 run in 5
# survives 10 runs 11 % of the time. A flake found here is fixed with its failing seed or
# interleaving written into the test. test-under-load is the first phase alone, under a heavier
# load (stress-ng --cpu 4).
FLAKE_COUNT ?= 10
FLAKE_CHANGED_COUNT ?= 10
FLAKE_BUDGET ?= 180
STRESS = stress-ng --cpu $(1) --timeout 2h --quiet & load=$$!; \
	trap 'kill $$load 2>/dev/null' INT TERM EXIT; sleep 1; \
	echo "$@: stress-ng --cpu $(1); load average $$(cut -d' ' -f1-3 /proc/loadavg)"
.PHONY: test-flakes test-under-load
test-flakes:
	@bash docker/host-setup.sh load
	@$(call STRESS,2); python3 docker/test/flakehunt.py --count $(FLAKE_COUNT) --changed-count $(FLAKE_CHANGED_COUNT) --budget $(FLAKE_BUDGET)

test-under-load:
	@bash docker/host-setup.sh load
	@$(call STRESS,4); python3 docker/test/flakehunt.py --phases time --count 2

# The card benchmark beside DuckDB, polars and the Python reference (figures go to docs/benchmarks.md).
bench-card:
	coursekit/bench/card/run.sh

# compare of two 1M-request traces against two card runs (figures go to docs/benchmarks.md).
.PHONY: bench-compare
bench-compare:
	coursekit/bench/compare/run.sh

# The client-accuracy benchmark against a Python client (figures go to docs/benchmarks.md).
.PHONY: bench-client
bench-client:
	coursekit/bench/client/run.sh

# The prompt-cache figures of docs/engineers.md on the default engine (1 thread, 1 slot):
# fresh prompts, a --prompt-salt replay, a repeated dataset, --prompt-reuse same and shared-prefix.
.PHONY: bench-prompt-cache
bench-prompt-cache:
	coursekit/bench/promptcache/run.sh

# What coursekit bench, an older coursekit, guidellm and AIPerf count for the same load against
# the real engine (figures go to docs/bench-real-engines.md).
.PHONY: bench-tools
bench-tools:
	coursekit/bench/tools/run.sh

# The grading benchmarks: 1,000 submissions read (no execution), then 20
# re-executed in the course image (needs `make test-image` first; IMAGE=...).
.PHONY: bench-grade
bench-grade:
	$(GO) test -run '^$$' -bench 'Grade1000|Execute20' -benchtime 1x ./coursekit/grade/
