# README's two commands: `make lab` runs the product without Docker, `make test` tests it.
# Fragments under docker/ add their own targets and append to TESTS.
SHELL := /bin/bash
GO ?= go
export GOTOOLCHAIN := local

TESTS := test-go

.PHONY: test test-go fmt-check vet bench-card
-include docker/lab.mk
-include docker/image.mk
-include docker/hub.mk
-include docker/text.mk
-include docker/warehouse.mk

# The deliverable notebook, filled with the reference card and with typical
# mistakes, passes or fails its self-check for real (GoNB kernel from lab.mk).
TESTS += test-deliverable
.PHONY: test-deliverable
test-deliverable: lab-setup
	cd $(LAB_REPO) && $(LAB_ENV) $(LAB_PY) docker/deliverable_test.py

# The class report `coursekit grade` writes (OUT/class.html), opened offline in Debian's
# chromium: charts drawn, learner strings shown as text. Screenshots: out/class-report/.
TESTS += test-class-report
.PHONY: test-class-report
test-class-report: browser-setup
	@test -x /usr/bin/chromium || { echo "test-class-report: /usr/bin/chromium is missing: run 'bash docker/host-setup.sh test' as root" >&2; exit 1; }
	cd $(LAB_REPO) && node docker/browser/class-report.test.mjs

# As root on Debian it first installs the packages the tests need (docker/host-setup.sh, as CI
# does); as another user it names the missing ones and stops.
test:
	bash docker/host-setup.sh test
	$(MAKE) $(TESTS)

test-go: fmt-check vet
	$(GO) test -race -count=1 ./...

fmt-check:
	@out=$$(gofmt -l $$(git ls-files -co --exclude-standard -- '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...

# README's CLI section is the CLI's own help (a test in coursekit/cmd/coursekit checks it).
.PHONY: readme-cli
readme-cli:
	$(GO) test ./coursekit/cmd/coursekit -run '^TestREADMECLI$$' -count=1 -update

# The tests of the packages that measure time (loadgen, sim, the CLI), twice and with the race
# detector, while stress-ng keeps 4 CPU workers busy: tests state properties, not timings, so
# they pass on a loaded machine (docker/host-setup.sh load installs stress-ng).
UNDER_LOAD_PKGS := ./coursekit/loadgen/ ./coursekit/sim/ ./coursekit/cmd/coursekit/
.PHONY: test-under-load
test-under-load:
	bash docker/host-setup.sh load
	@stress-ng --cpu 4 --timeout 1h --quiet & load=$$!; \
	trap 'kill $$load 2>/dev/null' INT TERM; \
	echo "test-under-load: stress-ng --cpu 4 (pid $$load); load average $$(cut -d' ' -f1-3 /proc/loadavg)"; \
	status=0; $(GO) test -race -count=2 $(UNDER_LOAD_PKGS) || status=$$?; \
	echo "test-under-load: load average $$(cut -d' ' -f1-3 /proc/loadavg)"; \
	kill $$load; wait $$load 2>/dev/null; exit $$status

# The card benchmark against the Python reference (figures go to README).
bench-card:
	coursekit/bench/card/run.sh

# The client-accuracy benchmark against a Python client (figures go to README).
.PHONY: bench-client
bench-client:
	coursekit/bench/client/run.sh

# The grading benchmarks: 1,000 submissions read (no execution), then 20
# re-executed in the course image (needs `make test-image` first; IMAGE=...).
.PHONY: bench-grade
bench-grade:
	$(GO) test -run '^$$' -bench 'Grade1000|Execute20' -benchtime 1x ./coursekit/grade/
