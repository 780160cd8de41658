# Harn in Go — build, test and benchmark entry points.
GO      ?= go
GOBIN   ?= $(shell $(GO) env GOPATH)/bin
HARN    := $(GOBIN)/harn

.PHONY: install build release test test-go test-norace test-deps pg-test-deps vet conformance bench bench-orchestrator bench-compare pgo fuzz fmt check-protocol-artifacts check-ts check-vscode mcp-client mcp-conformance mcp-gosdk mcp-inspector mcp-clients sdk-deps sdk-e2e soak

## install: build and install `harn` (the lite build, -tags harnlite) and
## next to it `harn-full`, which it runs for every command but run, fmt,
## version and help, and for programs that use a part of the library it
## leaves out (docs/architecture.md, "Start-up"); then run the example
## program
install:
	$(GO) install -tags harnlite ./cmd/harn
	$(GO) build -o $(GOBIN)/harn-full ./cmd/harn
	$(HARN) run examples/hello.harn

## build: bin/harn (lite) and bin/harn-full, as install does
LDFLAGS_DATE = -X main.buildDate=$$(date -u +%Y-%m-%dT%H:%M:%SZ)
build:
	$(GO) build -tags harnlite -ldflags "$(LDFLAGS_DATE)" -o bin/harn ./cmd/harn
	$(GO) build -ldflags "$(LDFLAGS_DATE)" -o bin/harn-full ./cmd/harn

## test: everything CI runs (the Go tests run under the race detector:
## tasks, generators and the MCP server are concurrent)
test: test-deps pg-test-deps vet check-protocol-artifacts check-ts check-vscode
	@$(GO_TEST_RACE)
	$(MAKE) test-norace mcp-clients sdk-e2e

## mcp-clients: every real MCP client against the servers of
## testdata/mcp-targets.json (harn serve mcp, harn mcp serve; MCP_TARGETS
## narrows them, e.g. MCP_TARGETS=orchestrator); the conformance suite
## runs last
mcp-clients: mcp-client mcp-gosdk mcp-inspector mcp-conformance

## test-go: only the Go tests (the conformance suite included), offline
## once the Go modules are cached; no npm packages, shells or servers
test-go:
	@$(GO_TEST_RACE)
	$(MAKE) test-norace

## test-norace: the tests that skip under the race detector (they count
## allocations, which -race instruments, or rely on sync.Pool keeping what
## it is given), run once more without it; docs/make_test.go checks that
## every such test and its package are listed here
NORACE_TESTS = TestUniverseSharesLibrary TestRegistrationAllocatesBySlab \
	TestSmallIntObject TestNativeMethodDoesNotBox TestHandleNameAllocs \
	TestFirstParseAllocs TestLongMemberChainIsLinear \
	TestCheckAnswerAllocations TestMarshalAllocations \
	TestJoinItemsStringsAllocatesOnce TestSmallIntTextAllocatesNothing
NORACE_PACKAGES = ./stdlib ./stdlib/internal/lib ./vm ./lang/types \
	./lang/syntax ./lang/check ./mcp/loadtest ./internal/jsonv
NORACE_SPACE := $(subst ,, )
test-norace:
	$(GO) test -count=1 -run '^($(subst $(NORACE_SPACE),|,$(strip $(NORACE_TESTS))))$$' $(NORACE_PACKAGES)

## GO_TEST_RACE runs go test -race ./... (which leaves out testdata/gosdk:
## mcp-gosdk runs it against the built binary) and, while it runs, says so every
## HEARTBEAT seconds: go test prints each package's result in package
## order, so one slow package can hold every line back for minutes
HEARTBEAT ?= 60
## RACE_TIMEOUT bounds each package's test binary: cmd/harn takes about
## 7 minutes under the race detector on two idle cores, close to go
## test's default of 10, and a loaded machine pushed it past that
RACE_TIMEOUT ?= 30m
GO_TEST_RACE = echo "$(GO) test -race -timeout $(RACE_TIMEOUT) ./..."; \
	( trap 'kill $$s 2>/dev/null; exit 0' TERM; n=0; \
	  while :; do sleep $(HEARTBEAT) & s=$$!; wait $$s; n=$$((n + $(HEARTBEAT))); echo "go test -race: still running ($${n}s)"; done ) & hb=$$!; \
	$(GO) test -race -timeout $(RACE_TIMEOUT) ./...; rc=$$?; kill $$hb; exit $$rc

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

## pg-test-deps: install PostgreSQL's server binaries (Debian package
## postgresql) when they are missing, with apt-get when running as root. The
## event log tests start their own throwaway server from them on loopback
## and stop it; without them those tests skip, or fail when CI is set. The
## cluster the package may start on install is stopped: the tests need none.
pg-test-deps:
	@if command -v pg_ctl >/dev/null 2>&1 || ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then exit 0; fi; \
	if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
		echo "pg-test-deps: installing postgresql"; \
		export DEBIAN_FRONTEND=noninteractive; \
		if apt-get update -qq && apt-get install -y -qq --no-install-recommends postgresql >/dev/null; then \
			pg_lsclusters -h 2>/dev/null | while read v c rest; do pg_ctlcluster "$$v" "$$c" stop 2>/dev/null || true; done; \
		else echo "pg-test-deps: could not install postgresql; the event log's PostgreSQL tests will skip (and fail under CI)"; fi; \
	else \
		echo "pg-test-deps: PostgreSQL missing (install the postgresql package, or run make as root); its tests will skip"; \
	fi

## check-protocol-artifacts: fail when spec/protocol-artifacts drifted from
## the catalog types (regenerate with `go generate ./tool`)
check-protocol-artifacts:
	$(GO) run ./tool/internal/gen -check

## check-ts: type-check spec/protocol-artifacts/harn-tools.ts and a sample
## catalog with tsc --strict (TypeScript pinned by testdata/ts; skipped
## when npm is missing)
check-ts:
	@if command -v npm >/dev/null 2>&1; then \
		cd testdata/ts && npm ci --no-audit --no-fund --loglevel=error && npx --no-install tsc -p tsconfig.json && echo "check-ts: ok"; \
	else echo "check-ts: npm not found, skipping"; fi

## check-vscode: package the VS Code extension (editors/vscode) with vsce,
## dependencies pinned by its package-lock.json; nothing is published
## (skipped when npm is missing)
check-vscode:
	@if command -v npm >/dev/null 2>&1; then \
		cd editors/vscode && npm ci --no-audit --no-fund --loglevel=error && npm run --silent package >/dev/null && \
		test -s harn.vsix && echo "check-vscode: packaged editors/vscode/harn.vsix"; \
	else echo "check-vscode: npm not found, skipping"; fi

## mcp-client: the official TypeScript MCP SDK clients: v1 (released
## protocol) drives `harn serve mcp` over stdio; v2 (2026-07-28) drives
## every target over stdio and HTTP (pinned by
## testdata/mcp-client/package-lock.json)
mcp-client: build
	@if command -v npm >/dev/null 2>&1; then \
		cd testdata/mcp-client && npm ci --no-audit --no-fund --loglevel=error && HARN_BIN=../../bin/harn npm test; \
	else echo "mcp-client: npm not found, skipping"; fi

## mcp-gosdk: the official Go SDK as a client of every target, over stdio
## (2026-07-28 and 2025-11-25) and HTTP (testdata/gosdk). The go tool
## leaves directories named testdata out of ./..., so this is the one
## place the package's tests run (and vet names it explicitly)
mcp-gosdk: build
	HARN_BIN=$(CURDIR)/bin/harn $(GO) test -count=1 ./testdata/gosdk

## mcp-inspector: the MCP Inspector CLI in its modern (2026-07-28) protocol
## era against every target, over stdio and HTTP (pinned by
## testdata/mcp-inspector/package-lock.json, run on the Node 22 it installs)
mcp-inspector: build
	@if command -v npm >/dev/null 2>&1; then \
		cd testdata/mcp-inspector && npm ci --no-audit --no-fund --loglevel=error && \
		HARN_BIN=../../bin/harn node_modules/node/bin/node --test inspector.test.mjs; \
	elif [ "$$CI" = true ]; then echo "mcp-inspector: npm not found (required on CI)"; exit 1; \
	else echo "mcp-inspector: npm not found, skipping"; fi

## mcp-conformance: the official MCP conformance suite (pinned by
## testdata/mcp-conformance/package-lock.json, run on the Node 22 it installs):
## its 2026-07-28 mode over HTTP against every target (known deviations in
## testdata/mcp-conformance/expected/), then every released-protocol server
## scenario against testdata/mcp-conformance/server.harn
mcp-conformance: build
	@if command -v npm >/dev/null 2>&1; then \
		cd testdata/mcp-conformance && npm ci --no-audit --no-fund --loglevel=error && ./run.sh ../../bin/harn; \
	else echo "mcp-conformance: npm not found, skipping"; fi

## sdk-deps: what the end-to-end tests of `harn tool sdk` compile the
## generated packages with: TypeScript, @types/node and the official MCP
## SDK (pinned by testdata/sdk/ts/package-lock.json), Debian's mypy and
## jsonschema (installed with apt-get when root), and the Go module graph
## of the generated Go packages (go mod download of a golden package)
sdk-deps:
	@if command -v npm >/dev/null 2>&1; then \
		cd testdata/sdk/ts && npm ci --no-audit --no-fund --loglevel=error; \
	else echo "sdk-deps: npm not found; the TypeScript SDK tests will skip"; fi
	@if command -v mypy >/dev/null 2>&1 && /usr/bin/python3 -c 'import jsonschema' 2>/dev/null; then exit 0; fi; \
	if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
		echo "sdk-deps: installing mypy python3-jsonschema"; \
		export DEBIAN_FRONTEND=noninteractive; \
		{ apt-get update -qq && apt-get install -y -qq --no-install-recommends mypy python3-jsonschema >/dev/null; } \
			|| echo "sdk-deps: could not install mypy; the Python SDK tests will skip"; \
	else echo "sdk-deps: mypy missing (install it, or run make as root); the Python SDK tests will skip"; fi
	cd tool/sdkgen/testdata/golden/shop/go && $(GO) mod download

## sdk-e2e: generate the TypeScript, Go and Python SDKs of every golden
## catalog, compile them strictly (tsc --strict, go vet + go build,
## mypy --strict) and run each language's program against a live
## `harn serve mcp` (tool/sdkgen/e2e_test.go)
sdk-e2e: build sdk-deps
	SDK_E2E=1 HARN_BIN=$(CURDIR)/bin/harn $(GO) test -count=1 -timeout 30m -v -run TestEndToEnd ./tool/sdkgen/

## vet: gofmt, and go vet of the default build (with testdata/gosdk,
## which ./... leaves out) and of the lite harn's own files
## (cmd/harn/lite.go; the packages it shares are vetted above, and library
## packages it leaves out do not build with -tags harnlite)
vet:
	@test -z "$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))" || (echo "gofmt needed:"; gofmt -l .; exit 1)
	$(GO) vet ./... ./testdata/gosdk
	$(GO) vet -tags harnlite ./cmd/harn

conformance: build
	./bin/harn test conformance

## bench: Go benchmarks and the .harn workloads against CPython (run by
## bin/harn, the lite build)
bench: build
	$(GO) test -run='^$$' -bench=. -benchmem ./...
	./bench/run.sh

## bench-orchestrator: issue 11's speed figures alone — HTTP tools/call
## latency with 64 clients (mcp/loadtest: the protocol layer, harn serve
## mcp, harn mcp serve, in and out of process) and the harn.trigger.fire
## dispatch rate on the memory, SQLite and PostgreSQL logs (a throwaway
## server from pg-test-deps, or HARN_BENCH_POSTGRES_URL). Each reports
## CPU time per call and log writes per dispatch besides the wall-clock
## figures, which a shared machine skews. `make bench` runs them too.
bench-orchestrator: build pg-test-deps
	$(GO) test -run='^$$' -bench=. -benchtime=3000x ./mcp/loadtest
	$(GO) test -run='^$$' -bench=Fire -benchtime=3s ./orchestrator
	$(GO) test -run='^$$' -bench=ToolFire -benchtime=3s ./orchestrator/mcpserver

## bench-compare: the side-by-side harness of ../shared/bench (harn against
## CPython run as the real interpreter with -I, the Go-hosted interpreters,
## Lua, Node and native Go; outputs cross-checked, medians, ratios from one
## run). BENCH_RUNS, BENCH_WORKLOADS, BENCH_IMPLS … pass through;
## BENCH_RSS=1 adds each median run's peak RSS. It times bin/harn, the lite
## build users run, with bin/harn-full next to it: a workload that needs
## harn-full pays the hand-over as users do (none of the workloads does).
SHARED_BENCH ?= ../shared/bench
BENCH_OUT    ?= bench/out
bench-compare: build
	@test -x $(SHARED_BENCH)/bench.sh || { echo "bench-compare: $(SHARED_BENCH)/bench.sh not found (set SHARED_BENCH)"; exit 1; }
	$(SHARED_BENCH)/bench.sh $(CURDIR)/bin/harn $(BENCH_OUT)

## release: the release build of harn, optimised with the CPU profile
## cmd/harn/release.pgo (kept out of the default build: a profile makes the
## first build recompile every dependency, which tests and `make install`
## would pay for no measured gain on this machine).
release:
	$(GO) build -pgo=cmd/harn/release.pgo -trimpath -ldflags "-X main.buildDate=$$(date -u +%Y-%m-%dT%H:%M:%SZ)" -o bin/harn-release ./cmd/harn

## pgo: regenerate cmd/harn/release.pgo, the CPU profile `make release`
## builds harn with, from the nine workloads of
## $(SHARED_BENCH)/workloads run by a harn built without it (each one's
## profile is taken with HARN_CPUPROFILE; pprof merges them). Regenerate
## after changes to the interpreter loop or the builtins; a stale profile
## costs only part of the gain.
PGO_WORKLOADS ?= fib loop strings lists dicts closures json sort methods
pgo:
	@test -d $(SHARED_BENCH)/workloads || { echo "pgo: $(SHARED_BENCH)/workloads not found (set SHARED_BENCH)"; exit 1; }
	$(GO) build -pgo=off -o bin/harn-nopgo ./cmd/harn
	@mkdir -p $(BENCH_OUT)/pgo
	@for w in $(PGO_WORKLOADS); do \
		echo "pgo: profiling $$w"; \
		HARN_CPUPROFILE=$(BENCH_OUT)/pgo/$$w.prof ./bin/harn-nopgo run $(SHARED_BENCH)/workloads/$$w.harn >/dev/null || exit 1; \
	done
	$(GO) tool pprof -proto $(addprefix $(BENCH_OUT)/pgo/,$(addsuffix .prof,$(PGO_WORKLOADS))) > cmd/harn/release.pgo

## fuzz: run each fuzz target for FUZZTIME (default 1m)
FUZZTIME ?= 1m
fuzz:
	$(GO) test -run='^$$' -fuzz=FuzzParse -fuzztime=$(FUZZTIME) ./lang/syntax/
	$(GO) test -run='^$$' -fuzz=FuzzRun -fuzztime=$(FUZZTIME) ./interp/
	$(GO) test -run='^$$' -fuzz=FuzzFormat -fuzztime=$(FUZZTIME) ./lang/format/
	$(GO) test -run='^$$' -fuzz=FuzzReaders -fuzztime=$(FUZZTIME) ./stdlib/
	$(GO) test -run='^$$' -fuzz='^FuzzTOMLStringifyRoundTrip$$' -fuzztime=$(FUZZTIME) ./stdlib/
	$(GO) test -run='^$$' -fuzz=FuzzJQ -fuzztime=$(FUZZTIME) ./stdlib/json/
	$(GO) test -run='^$$' -fuzz=FuzzBuiltinArgs -fuzztime=$(FUZZTIME) ./stdlib/junkargs/
	$(GO) test -run='^$$' -fuzz='^FuzzNormalize$$' -fuzztime=$(FUZZTIME) ./tool/
	$(GO) test -run='^$$' -fuzz='^FuzzParseCatalog$$' -fuzztime=$(FUZZTIME) ./tool/
	$(GO) test -run='^$$' -fuzz=FuzzParseArgs -fuzztime=$(FUZZTIME) ./adapter/cli/
	$(GO) test -run='^$$' -fuzz=FuzzServe -fuzztime=$(FUZZTIME) ./mcp/protocol/
	$(GO) test -run='^$$' -fuzz=FuzzScan -fuzztime=$(FUZZTIME) ./internal/secretscan/
	$(GO) test -run='^$$' -fuzz=FuzzParse -fuzztime=$(FUZZTIME) ./orchestrator/manifest/

fmt:
	gofmt -w $$(git ls-files '*.go')

## soak: the leak check, outside make test: `harn serve mcp` and `harn mcp
## serve` over stdio and HTTP under 100,000 mixed valid and hostile
## messages from 8 clients (SOAK_MESSAGES), memory and goroutines sampled
## each second (cmd/harn/soak_test.go)
SOAK_MESSAGES ?= 100000
soak:
	HARN_SOAK=1 HARN_SOAK_MESSAGES=$(SOAK_MESSAGES) $(GO) test -count=1 -v -timeout 60m -run '^TestSoak$$' ./cmd/harn/
