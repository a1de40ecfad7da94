# README's two commands: `make lab` runs the product without Docker, `make test` tests it.
# Fragments under docker/ add their own targets and append to TESTS.
SHELL := /bin/bash
GO ?= go
export GOTOOLCHAIN := local

TESTS := test-go

.PHONY: test test-go fmt-check vet bench-card
-include docker/lab.mk
-include docker/image.mk

# The deliverable notebook, filled with the reference card and with typical
# mistakes, passes or fails its self-check for real (GoNB kernel from lab.mk).
TESTS += test-deliverable
.PHONY: test-deliverable
test-deliverable: lab-setup
	cd $(LAB_REPO) && $(LAB_ENV) $(LAB_PY) docker/deliverable_test.py

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
