SHELL := /bin/bash
.DEFAULT_GOAL := help
GO ?= go
export GOFLAGS := -buildvcs=false

.PHONY: help run test build openapi services-stop clean

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed 's/:.*## /\t/' | column -t -s $$'\t'

run: build ## serve the API on 127.0.0.1:8080 with a private PostgreSQL and a demo account
	@scripts/run.sh

test: ## run the whole suite against a private PostgreSQL and Redis
	@set -e; eval "$$(scripts/services.sh test)"; \
	unformatted=$$(gofmt -l $$(git ls-files '*.go')); \
	if [ -n "$$unformatted" ]; then echo "gofmt needed: $$unformatted"; exit 1; fi; \
	$(GO) vet ./... && \
	$(GO) test -count=1 -race -timeout 15m ./...

build: ## build bin/payments
	$(GO) build -o bin/payments ./cmd/payments

openapi: ## regenerate handlers/openapi.json from scripts/openapi.py
	python3 scripts/openapi.py

services-stop: ## stop the private PostgreSQL and Redis this checkout started
	@scripts/services.sh stop

clean: services-stop ## stop services and delete .data/ and bin/
	rm -rf .data bin
