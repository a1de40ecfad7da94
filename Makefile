# README's two commands: `make lab` runs the product without Docker, `make test` tests it.
# Fragments under docker/ add their own targets and append to TESTS.
SHELL := /bin/bash
GO ?= go
export GOTOOLCHAIN := local

TESTS := test-go

.PHONY: test test-go fmt-check vet bench-card
-include docker/lab.mk
-include docker/image.mk

test: $(TESTS)

test-go: fmt-check vet
	$(GO) test -race -count=1 ./...

fmt-check:
	@out=$$(gofmt -l $$(git ls-files -co --exclude-standard -- '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...

# The card benchmark against the Python reference (figures go to README).
bench-card:
	coursekit/bench/card/run.sh
