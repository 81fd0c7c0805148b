// Package store is the persistence layer: one group of files per table,
// the embedded migrations, and the sentinel errors handlers map to API
// error codes.
//
// A table's files, named after it:
//
//	<table>.go           the model, its rules, and its queries through bun
//	<table>_prepared.go  its hot statements through pgx, single and batch side by side
//	<table>_json.go      its public JSON: what the API answers and events freeze
//
// Which statements go through pgx and which through bun: a statement on a
// hot path is SQL text with $1, $2 ... parameters in a *_prepared.go file,
// prepared once per connection through pgx (PostgreSQL plans it once) and
// run without database/sql's and bun's reflection. The hot paths are a
// payment's creation, read and status changes (payments_prepared.go), the
// outbox write every state change makes (events_prepared.go), the ledger
// posting (ledger_prepared.go) and the dispatcher's claim and finish
// (deliveries_prepared.go). A payment's status change runs its statements
// in two pipelines, the lock and then the writes with the commit
// (transition). Everything else (lists, the dashboard, admin
// commands, maintenance) goes through bun in <table>.go: its queries carry
// their values in the SQL text and are planned on every call, which is
// fine off the hot paths and reads better.
//
// A call made inside a transaction goes through it, never through the pool
// (held_conn.go): test binaries panic when one does not.
//
// Beside it: store/internal/pg is the plumbing the prepared statements run
// on (pipelines, the coalescer that batches concurrent calls, planner
// settings) and holds no table's SQL; store/ids mints every id;
// store/jsonw writes JSON by hand; store/storetest gives each test its own
// database.
package store
