# Harn in Go — build, test and benchmark entry points.
GO      ?= go
GOBIN   ?= $(shell $(GO) env GOPATH)/bin
HARN    := $(GOBIN)/harn

.PHONY: install build test vet conformance bench fuzz fmt check-protocol-artifacts check-ts

## install: build and install `harn`, then run the example program
install:
	$(GO) install ./cmd/harn
	$(HARN) run examples/hello.harn

build:
	$(GO) build -o bin/harn ./cmd/harn

## test: everything CI runs
test: vet check-protocol-artifacts check-ts
	$(GO) test ./...

## check-protocol-artifacts: fail when spec/protocol-artifacts drifted from
## the catalog types (regenerate with `go generate ./tool`)
check-protocol-artifacts:
	$(GO) run ./tool/internal/gen -check

## check-ts: type-check spec/protocol-artifacts/harn-tools.ts and a sample
## catalog with tsc --strict (TypeScript pinned by tests/ts; skipped
## when npm is missing)
check-ts:
	@if command -v npm >/dev/null 2>&1; then \
		cd tests/ts && npm ci --no-audit --no-fund --loglevel=error && npx --no-install tsc -p tsconfig.json && echo "check-ts: ok"; \
	else echo "check-ts: npm not found, skipping"; fi

vet:
	@test -z "$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))" || (echo "gofmt needed:"; gofmt -l .; exit 1)
	$(GO) vet ./...

conformance: build
	./bin/harn test conformance

## bench: Go benchmarks and the .harn workloads against CPython
bench: build
	$(GO) test -run='^$$' -bench=. -benchmem ./...
	./bench/run.sh

## fuzz: run each fuzz target for FUZZTIME (default 1m)
FUZZTIME ?= 1m
fuzz:
	$(GO) test -run='^$$' -fuzz=FuzzParse -fuzztime=$(FUZZTIME) ./lang/syntax/
	$(GO) test -run='^$$' -fuzz=FuzzRun -fuzztime=$(FUZZTIME) ./interp/

fmt:
	gofmt -w $$(git ls-files '*.go')
