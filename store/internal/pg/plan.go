package pg

// Settings a statement runs under, as set_config calls for a SELECT list,
// local to its transaction. A pipeline sends them as its first statement
// (the transaction is the pipeline's), a prepared statement as a CTE.

// KeyProbePlan is the settings under which a batch statement over arrays
// runs (the finish of deliveries, the creation of payments). A generic plan,
// planned once per connection: a custom plan would be planned again for
// every batch, the arrays' lengths making it look cheaper (see
// GenericPlanSQL). And that plan is made of key probes only: with
// sequential scans, hash and merge joins off, the planner cannot choose what
// it would for the small tables of a fresh database (a hash join over a
// sequential scan of webhook_deliveries, for the finish), which a cached
// generic plan would keep doing once the tables are large. Every access such
// a statement makes is by key, so probes are the right plan at any size.
// And it is never compiled (NoJIT).
const KeyProbePlan = `set_config('plan_cache_mode', 'force_generic_plan', true),
	set_config('enable_seqscan', 'off', true), set_config('enable_hashjoin', 'off', true),
	set_config('enable_mergejoin', 'off', true), ` + NoJIT

// NoJIT keeps a statement from being compiled with LLVM. A generic plan's
// estimates are guesses (an array parameter of any length, a CTE's rows),
// and a path turned off above adds a huge cost to the estimate: a plan
// estimated past jit_above_cost is compiled at every execution, and past
// jit_inline_above_cost inlined and optimized too. The finish of one
// success, 17 buffers of work, took 2.5 s so (197 functions), and the fault
// suite's dispatchers fell behind by minutes (BENCHMARKS.md, "Compiled at
// every execution"). These statements take a millisecond: compiling them
// never pays.
const NoJIT = `set_config('jit', 'off', true)`

// RelaxedCommit lets the transaction commit without waiting for its WAL
// flush. Only the dispatcher's bookkeeping uses it: a crash can lose the
// last fraction of a second of leases and outcomes, and losing one means
// the delivery is made again, which at-least-once delivery allows. Payments
// and events never do.
const RelaxedCommit = `set_config('synchronous_commit', 'off', true)`

// GenericPlanSQL precedes a batch read in its round trip, for that
// transaction only. A custom plan (PostgreSQL's choice while the batches'
// sizes make one look cheaper) is planned again on every execution, which
// cost more than the batch's reads; the generic plan is planned once per
// connection and the same for any batch size.
const GenericPlanSQL = `SELECT set_config('plan_cache_mode', 'force_generic_plan', true), ` + NoJIT

// KeyProbePlanSQL precedes a batch write in its round trip (see KeyProbePlan).
const KeyProbePlanSQL = `SELECT ` + KeyProbePlan

// RelaxedKeyProbePlanSQL is KeyProbePlanSQL with a relaxed commit, for the
// dispatcher's batch of finishes.
const RelaxedKeyProbePlanSQL = `SELECT ` + RelaxedCommit + `, ` + KeyProbePlan
