SHELL := /bin/bash
.DEFAULT_GOAL := help
GO ?= go
export GOFLAGS := -buildvcs=false

.PHONY: help run test bench bench-batch bench-scale bench-reports build generate assets check-generated services-stop clean

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed 's/:.*## /\t/' | column -t -s $$'\t'

run: build ## serve the API on 127.0.0.1:8080 with a private PostgreSQL, the PSP sandbox (live mode) and a demo account
	@scripts/run.sh

# go test runs packages in the order they are named, two at a time here;
# ./web, the longest by far (its browser tests), goes first so that the
# others run beside it rather than after it.
TEST_PACKAGES = ./web ./...

test: check-generated ## run the whole suite against a private PostgreSQL and Redis
	@set -e; eval "$$(scripts/services.sh test)"; \
	unformatted=$$(gofmt -l $$(git ls-files '*.go')); \
	if [ -n "$$unformatted" ]; then echo "gofmt needed: $$unformatted"; exit 1; fi; \
	$(GO) vet ./... && $(GO) tool staticcheck ./... && \
	$(GO) build -o bin/payments ./cmd/payments && $(GO) build -o bin/psp-sandbox ./cmd/psp-sandbox && \
	CGO_ENABLED=0 $(GO) build -o bin/paymentsctl ./cmd/paymentsctl && \
	PAYMENTS_BIN=$(CURDIR)/bin/payments PSP_SANDBOX_BIN=$(CURDIR)/bin/psp-sandbox PAYMENTSCTL_BIN=$(CURDIR)/bin/paymentsctl $(GO) test -count=1 -race -timeout 15m $(TEST_PACKAGES)

bench-batch: build ## a batch of 1,000 due-date charges: created (test and live) and registered at the PSP sandbox (see BENCHMARKS.md)
	@eval "$$(scripts/services.sh test)" && PSP_SANDBOX_BIN=$$PWD/bin/psp-sandbox $(GO) test -run '^$$' -bench BatchOf1000 -benchtime 5x ./dispatcher/pspcalls/

bench-scale: build ## every list, get and search, and webhook deliveries, at 2M payments of history (SCALE_FLAGS="-payments 20000" for the small size; see BENCHMARKS.md)
	@set -e; eval "$$(scripts/services.sh bench)"; $(GO) build -o bin/loadgen ./cmd/loadgen; $(GO) run ./cmd/scalebench -binary bin/payments -loadgen bin/loadgen $(SCALE_FLAGS)

bench-reports: ## the ledger report of 1,000,000 entries in each format: time, peak RSS, longest open transaction (REPORT_FLAGS="-entries 100000"; see BENCHMARKS.md)
	@set -e; eval "$$(scripts/services.sh bench)"; $(GO) build -o bin/reportbench ./cmd/reportbench; bin/reportbench $(REPORT_FLAGS)

bench: build ## load-test the service against ceilings measured in the same run (see BENCHMARKS.md)
	@set -e; eval "$$(scripts/services.sh bench)"; go run ./cmd/loadgen -binary bin/payments $(BENCH_FLAGS)

build: ## build bin/payments, bin/psp-sandbox and bin/paymentsctl (the integrators' CLI, static)
	$(GO) build -o bin/payments ./cmd/payments
	$(GO) build -o bin/psp-sandbox ./cmd/psp-sandbox
	CGO_ENABLED=0 $(GO) build -o bin/paymentsctl ./cmd/paymentsctl

generate: ## regenerate the templ components, the OpenAPI document (from Go), the API changelog and the Go clients generated from the documents
	$(GO) tool templ generate -include-version=false -path views
	$(GO) run ./cmd/openapi web/openapi.json
	$(GO) run ./cmd/changelog API_CHANGELOG.md
	$(GO) tool oapi-codegen -config web/apiclient/oapi-codegen.yaml web/openapi.json
	$(GO) tool oapi-codegen -config web/apiclient/v20261126/oapi-codegen.yaml web/apiclient/v20261126/openapi.json

# No lock file: npm 11 writes one that `npm ci` then rejects (it drops other
# platforms' optional Tailwind binaries). package.json pins every tool exactly.
node_modules/.installed: package.json
	npm install --no-audit --no-fund --no-package-lock
	touch $@

assets: node_modules/.installed ## rebuild static/app.css (Tailwind) and vendor htmx into static/
	npm run --silent build

check-generated: generate assets ## fail when generated or built files differ from what is committed
	@stale=$$(git status --porcelain -- views static web/openapi.json web/apiclient API_CHANGELOG.md); \
	if [ -n "$$stale" ]; then echo "$$stale"; echo "generated files are stale: run 'make generate assets' and commit"; exit 1; fi

services-stop: ## stop the private PostgreSQL, Redis and PSP sandbox this checkout started
	@scripts/services.sh stop

clean: services-stop ## stop services and delete .data/ and bin/
	rm -rf .data bin
