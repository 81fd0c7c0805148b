-- The overview's figures, one row per account, mode and hour (UTC), so
-- the overview sums at most a few thousand rows however many payments the
-- account holds. Hours, not days: a day in the account's zone (whole hours
-- off UTC in Brazil) is 24 of them, whatever zone it chooses later. Each
-- event that moves a figure adds a row to rollup_deltas in the transaction
-- of its change; a worker folds them in here every second (store.FoldRollups).
CREATE TABLE overview_hours (
    account_id     text COLLATE "C" NOT NULL,
    livemode       boolean NOT NULL,
    hour           timestamptz NOT NULL,
    created        bigint NOT NULL DEFAULT 0,
    paid           bigint NOT NULL DEFAULT 0,
    gross_cents    bigint NOT NULL DEFAULT 0,
    fee_cents      bigint NOT NULL DEFAULT 0,
    expired        bigint NOT NULL DEFAULT 0,
    canceled       bigint NOT NULL DEFAULT 0,
    refunds        bigint NOT NULL DEFAULT 0,
    refunded_cents bigint NOT NULL DEFAULT 0,
    disputes       bigint NOT NULL DEFAULT 0,
    disputed_cents bigint NOT NULL DEFAULT 0,
    -- Paid charges by the time from charge to payment, up to 30 s, 1 min,
    -- 2, 5, 10, 30 min, 1 h, 6 h, 24 h, and longer (pay_time_bucket).
    pay_0 bigint NOT NULL DEFAULT 0, pay_1 bigint NOT NULL DEFAULT 0, pay_2 bigint NOT NULL DEFAULT 0,
    pay_3 bigint NOT NULL DEFAULT 0, pay_4 bigint NOT NULL DEFAULT 0, pay_5 bigint NOT NULL DEFAULT 0,
    pay_6 bigint NOT NULL DEFAULT 0, pay_7 bigint NOT NULL DEFAULT 0, pay_8 bigint NOT NULL DEFAULT 0,
    pay_9 bigint NOT NULL DEFAULT 0,
    -- Every figure in the key's index too: an account's hours are spread
    -- over as many pages as it has hours (written among every account's),
    -- and a period read from the index alone touches a few of its pages
    -- (90 days at 2M payments: 2,144 pages and 10.6 ms from the table).
    PRIMARY KEY (account_id, livemode, hour) INCLUDE (created, paid, gross_cents, fee_cents, expired, canceled,
        refunds, refunded_cents, disputes, disputed_cents, pay_0, pay_1, pay_2, pay_3, pay_4, pay_5, pay_6, pay_7,
        pay_8, pay_9)
);

-- What the events of committed changes added and no fold has moved yet:
-- one row per event, appended without an index (a row that every event of
-- an account updated in place cost its creation 150 µs of PostgreSQL's
-- time: BENCHMARKS.md, "Overview"). The overview adds these to
-- overview_hours; customers are the payers the charges' rows name.
CREATE TABLE rollup_deltas (
    account_id     text COLLATE "C" NOT NULL,
    livemode       boolean NOT NULL,
    hour           timestamptz NOT NULL,
    created        integer NOT NULL,
    paid           integer NOT NULL,
    gross_cents    bigint NOT NULL,
    fee_cents      bigint NOT NULL,
    expired        integer NOT NULL,
    canceled       integer NOT NULL,
    refunds        integer NOT NULL,
    refunded_cents bigint NOT NULL,
    disputes       integer NOT NULL,
    disputed_cents bigint NOT NULL,
    pay_bucket     integer,
    -- A charge's payer (payment.created and payment.paid naming one).
    document       text COLLATE "C",
    name           text,
    email          text,
    charged_at     timestamptz
);

-- The histogram bucket of a time from charge to payment.
CREATE FUNCTION pay_time_bucket(took interval) RETURNS integer LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT CASE
        WHEN took <= interval '30 seconds' THEN 0
        WHEN took <= interval '1 minute' THEN 1
        WHEN took <= interval '2 minutes' THEN 2
        WHEN took <= interval '5 minutes' THEN 3
        WHEN took <= interval '10 minutes' THEN 4
        WHEN took <= interval '30 minutes' THEN 5
        WHEN took <= interval '1 hour' THEN 6
        WHEN took <= interval '6 hours' THEN 7
        WHEN took <= interval '24 hours' THEN 8
        ELSE 9 END
$$;

-- The history before this migration, from the tables themselves.
INSERT INTO overview_hours (account_id, livemode, hour, created, paid, gross_cents, fee_cents, expired, canceled,
    refunds, refunded_cents, disputes, disputed_cents, pay_0, pay_1, pay_2, pay_3, pay_4, pay_5, pay_6, pay_7, pay_8, pay_9)
SELECT account_id, livemode, hour, sum(created), sum(paid), sum(gross_cents), sum(fee_cents), sum(expired), sum(canceled),
    sum(refunds), sum(refunded_cents), sum(disputes), sum(disputed_cents),
    sum(pay_0), sum(pay_1), sum(pay_2), sum(pay_3), sum(pay_4), sum(pay_5), sum(pay_6), sum(pay_7), sum(pay_8), sum(pay_9)
FROM (
    SELECT p.account_id, p.livemode, date_trunc('hour', f.at, 'UTC') AS hour,
        (f.kind = 'created')::int AS created, (f.kind = 'paid')::int AS paid,
        CASE WHEN f.kind = 'paid' THEN CASE WHEN p.amount_paid_cents > 0 THEN p.amount_paid_cents ELSE p.amount_cents END ELSE 0 END AS gross_cents,
        CASE WHEN f.kind = 'paid' THEN p.fee_cents ELSE 0 END AS fee_cents,
        (f.kind = 'expired')::int AS expired, (f.kind = 'canceled')::int AS canceled,
        0 AS refunds, 0 AS refunded_cents, 0 AS disputes, 0 AS disputed_cents,
        (f.kind = 'paid' AND pay_time_bucket(p.paid_at - p.created_at) = 0)::int AS pay_0,
        (f.kind = 'paid' AND pay_time_bucket(p.paid_at - p.created_at) = 1)::int AS pay_1,
        (f.kind = 'paid' AND pay_time_bucket(p.paid_at - p.created_at) = 2)::int AS pay_2,
        (f.kind = 'paid' AND pay_time_bucket(p.paid_at - p.created_at) = 3)::int AS pay_3,
        (f.kind = 'paid' AND pay_time_bucket(p.paid_at - p.created_at) = 4)::int AS pay_4,
        (f.kind = 'paid' AND pay_time_bucket(p.paid_at - p.created_at) = 5)::int AS pay_5,
        (f.kind = 'paid' AND pay_time_bucket(p.paid_at - p.created_at) = 6)::int AS pay_6,
        (f.kind = 'paid' AND pay_time_bucket(p.paid_at - p.created_at) = 7)::int AS pay_7,
        (f.kind = 'paid' AND pay_time_bucket(p.paid_at - p.created_at) = 8)::int AS pay_8,
        (f.kind = 'paid' AND pay_time_bucket(p.paid_at - p.created_at) = 9)::int AS pay_9
    FROM payments p
    CROSS JOIN LATERAL (VALUES ('created', p.created_at), ('paid', p.paid_at), ('expired', p.expired_at), ('canceled', p.canceled_at)) AS f(kind, at)
    WHERE f.at IS NOT NULL
    UNION ALL
    SELECT account_id, livemode, date_trunc('hour', coalesce(completed_at, created_at), 'UTC'), 0, 0, 0, 0, 0, 0,
        1, amount_cents, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
    FROM refunds WHERE status = 'succeeded'
    UNION ALL
    SELECT account_id, livemode, date_trunc('hour', created_at, 'UTC'), 0, 0, 0, 0, 0, 0,
        0, 0, 1, amount_cents, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
    FROM disputes
) facts
GROUP BY account_id, livemode, hour;

-- Each webhook's attempts per hour (UTC) and how many its receiver
-- acknowledged (2xx), for the overview's success rates (the attempts
-- themselves are 160k a month for a busy webhook): kept by the statements
-- that record attempts (deliveries_prepared.go), a batch at a time, sharded
-- by connection (0-7) since the dispatcher's workers finish one webhook's
-- attempts side by side.
CREATE TABLE webhook_hours (
    webhook_id text COLLATE "C" NOT NULL,
    hour       timestamptz NOT NULL,
    shard      smallint NOT NULL,
    attempts   bigint NOT NULL DEFAULT 0,
    succeeded  bigint NOT NULL DEFAULT 0,
    -- The counts in the key's index too, read from it alone (as overview_hours).
    PRIMARY KEY (webhook_id, hour, shard) INCLUDE (attempts, succeeded)
);

INSERT INTO webhook_hours (webhook_id, hour, shard, attempts, succeeded)
SELECT webhook_id, date_trunc('hour', created_at, 'UTC'), 0, count(*),
    count(*) FILTER (WHERE response_status BETWEEN 200 AND 299)
FROM delivery_attempts
GROUP BY 1, 2;

-- The account's payers (Clientes), by CPF or CNPJ (digits), folded from
-- rollup_deltas like overview_hours. Name and e-mail are the latest
-- charge's.
CREATE TABLE customers (
    account_id      text COLLATE "C" NOT NULL,
    livemode        boolean NOT NULL,
    document        text COLLATE "C" NOT NULL,
    name            text NOT NULL,
    email           text NOT NULL,
    payments        bigint NOT NULL DEFAULT 0,
    paid            bigint NOT NULL DEFAULT 0,
    paid_cents      bigint NOT NULL DEFAULT 0,
    first_charge_at timestamptz NOT NULL,
    last_charge_at  timestamptz NOT NULL,
    PRIMARY KEY (account_id, livemode, document)
);
-- The list: most recently charged first.
CREATE INDEX customers_recent_idx ON customers (account_id, livemode, last_charge_at DESC, document DESC);

INSERT INTO customers (account_id, livemode, document, name, email, payments, paid, paid_cents, first_charge_at, last_charge_at)
SELECT account_id, livemode, customer ->> 'document',
    (array_agg(customer ->> 'name' ORDER BY id DESC))[1], (array_agg(coalesce(customer ->> 'email', '') ORDER BY id DESC))[1],
    count(*), count(*) FILTER (WHERE paid_at IS NOT NULL),
    coalesce(sum(CASE WHEN amount_paid_cents > 0 THEN amount_paid_cents ELSE amount_cents END) FILTER (WHERE paid_at IS NOT NULL), 0),
    min(created_at), max(created_at)
FROM payments
WHERE customer IS NOT NULL AND coalesce(customer ->> 'document', '') <> ''
GROUP BY account_id, livemode, customer ->> 'document';
