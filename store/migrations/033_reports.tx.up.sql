-- Reports: files of an account's payments, refunds, ledger or payouts over
-- days of its time zone, built in the background and kept for 7 days.
CREATE TABLE reports (
    id             text COLLATE "C" PRIMARY KEY,
    account_id     text NOT NULL REFERENCES accounts (id),
    livemode       boolean NOT NULL,
    type           text NOT NULL CHECK (type IN ('payments', 'refunds', 'ledger', 'payouts')),
    format         text NOT NULL CHECK (format IN ('csv', 'xlsx', 'ofx')),
    -- The days it covers, both included, in time_zone (the account's when
    -- the report was asked for); period_end is the instant it stops at:
    -- the end of to_date, or the report's creation when that is sooner.
    from_date      date NOT NULL,
    to_date        date NOT NULL CHECK (to_date >= from_date),
    time_zone      text NOT NULL,
    period_start   timestamptz NOT NULL,
    period_end     timestamptz NOT NULL,
    -- scheduled: the daily reconciliation report (report_schedules).
    scheduled      boolean NOT NULL DEFAULT false,
    status         text NOT NULL CHECK (status IN ('pending', 'ready', 'failed')),
    row_count      bigint,
    size_bytes     bigint,
    sha256         text,
    failure_reason text,
    -- Where the file is served while it is kept (shown once ready).
    file_url       text NOT NULL,
    attempts       integer NOT NULL DEFAULT 0,
    -- A builder holds a pending report until then; past it, another takes it.
    leased_until   timestamptz,
    created_at     timestamptz NOT NULL,
    updated_at     timestamptz NOT NULL,
    completed_at   timestamptz,
    -- The file is served until then, and dropped after.
    expires_at     timestamptz,
    CHECK (format <> 'ofx' OR type = 'ledger')
);
CREATE INDEX reports_list_idx ON reports (account_id, livemode, id DESC);
CREATE INDEX reports_pending_idx ON reports (created_at) WHERE status = 'pending';
CREATE INDEX reports_expiry_idx ON reports (expires_at) WHERE expires_at IS NOT NULL;
-- One daily report per account, mode and day, however often the scheduler runs.
CREATE UNIQUE INDEX reports_scheduled_key ON reports (account_id, livemode, from_date) WHERE scheduled;

-- A report's file, in parts written one statement at a time while it is
-- built (no transaction held against the writers), read back in order.
CREATE TABLE report_parts (
    report_id text COLLATE "C" NOT NULL REFERENCES reports (id) ON DELETE CASCADE,
    seq       integer NOT NULL,
    data      bytea NOT NULL,
    PRIMARY KEY (report_id, seq)
);

-- The daily reconciliation report an account asked for, per mode: the
-- ledger of the day before, in format, made shortly after midnight in the
-- account's time zone. last_date is the last day made.
CREATE TABLE report_schedules (
    account_id text NOT NULL REFERENCES accounts (id),
    livemode   boolean NOT NULL,
    format     text NOT NULL CHECK (format IN ('csv', 'xlsx', 'ofx')),
    last_date  date NOT NULL,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    PRIMARY KEY (account_id, livemode)
);
