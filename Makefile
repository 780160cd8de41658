# Harn in Go — build, test and benchmark entry points.
GO      ?= go
GOBIN   ?= $(shell $(GO) env GOPATH)/bin
HARN    := $(GOBIN)/harn

.PHONY: install build test test-deps vet conformance bench fuzz fmt check-protocol-artifacts check-ts check-vscode mcp-client mcp-conformance

## install: build and install `harn`, then run the example program
install:
	$(GO) install ./cmd/harn
	$(HARN) run examples/hello.harn

build:
	$(GO) build -o bin/harn ./cmd/harn

## test: everything CI runs (the Go tests run under the race detector:
## tasks, generators and the MCP server are concurrent)
test: test-deps vet check-protocol-artifacts check-ts check-vscode
	$(GO) test -race ./...
	$(MAKE) mcp-client mcp-conformance

## test-deps: install the shells the completion tests of `harn tool
## completions` drive (zsh, fish; bash is assumed) and Neovim, the editor
## the `harn lsp` end-to-end test drives, when they are missing, with
## apt-get when running as root; otherwise those tests skip and say why
## (under CI the Neovim test fails instead)
test-deps:
	@missing=""; for s in zsh fish; do command -v $$s >/dev/null 2>&1 || missing="$$missing $$s"; done; \
	command -v nvim >/dev/null 2>&1 || missing="$$missing neovim"; \
	if [ -z "$$missing" ]; then exit 0; fi; \
	if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
		echo "test-deps: installing$$missing"; \
		export DEBIAN_FRONTEND=noninteractive; \
		{ apt-get update -qq && apt-get install -y -qq --no-install-recommends $$missing >/dev/null; } \
			|| echo "test-deps: could not install$$missing; the tests that need them will skip"; \
	else \
		echo "test-deps:$$missing missing (install them, or run make as root); the tests that need them will skip"; \
	fi

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

## check-vscode: package the VS Code extension (editors/vscode) with vsce,
## dependencies pinned by its package-lock.json; nothing is published
## (skipped when npm is missing)
check-vscode:
	@if command -v npm >/dev/null 2>&1; then \
		cd editors/vscode && npm ci --no-audit --no-fund --loglevel=error && npm run --silent package >/dev/null && \
		test -s harn.vsix && echo "check-vscode: packaged editors/vscode/harn.vsix"; \
	else echo "check-vscode: npm not found, skipping"; fi

## mcp-client: the official TypeScript MCP SDK client drives `harn serve mcp`
## over stdio (SDK version pinned by tests/mcp-client/package-lock.json)
mcp-client: build
	@if command -v npm >/dev/null 2>&1; then \
		cd tests/mcp-client && npm ci --no-audit --no-fund --loglevel=error && HARN_BIN=../../bin/harn npm test; \
	else echo "mcp-client: npm not found, skipping"; fi

## mcp-conformance: every server scenario of the official MCP conformance
## suite (pinned by tests/mcp-conformance/package-lock.json, run on the Node
## 22 it installs) against tests/mcp-conformance/server.harn
mcp-conformance: build
	@if command -v npm >/dev/null 2>&1; then \
		cd tests/mcp-conformance && npm ci --no-audit --no-fund --loglevel=error && ./run.sh ../../bin/harn; \
	else echo "mcp-conformance: npm not found, skipping"; fi

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
	$(GO) test -run='^$$' -fuzz=FuzzFormat -fuzztime=$(FUZZTIME) ./lang/format/

fmt:
	gofmt -w $$(git ls-files '*.go')
