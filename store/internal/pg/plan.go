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
const KeyProbePlan = `set_config('plan_cache_mode', 'force_generic_plan', true),
	set_config('enable_seqscan', 'off', true), set_config('enable_hashjoin', 'off', true),
	set_config('enable_mergejoin', 'off', true)`

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
const GenericPlanSQL = `SELECT set_config('plan_cache_mode', 'force_generic_plan', true)`

// KeyProbePlanSQL precedes a batch write in its round trip (see KeyProbePlan).
const KeyProbePlanSQL = `SELECT ` + KeyProbePlan

// RelaxedKeyProbePlanSQL is KeyProbePlanSQL with a relaxed commit, for the
// dispatcher's batch of finishes.
const RelaxedKeyProbePlanSQL = `SELECT ` + RelaxedCommit + `, ` + KeyProbePlan
