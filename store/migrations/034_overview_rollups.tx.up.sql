-- The overview's figures, one row per account, mode, hour (UTC) and shard:
-- kept by the outbox statement that writes each event (events_prepared.go),
-- in the transaction of the change, so the overview sums at most a few
-- thousand rows however many payments the account holds. Hours, not days:
-- a day in the account's zone (whole hours off UTC in Brazil) is 24 of
-- them, whatever zone it chooses later. The shard (0-7, from the event's id)
-- spreads one busy account's concurrent writers over eight rows.
CREATE TABLE overview_hours (
    account_id     text COLLATE "C" NOT NULL,
    livemode       boolean NOT NULL,
    hour           timestamptz NOT NULL,
    shard          smallint NOT NULL,
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
    PRIMARY KEY (account_id, livemode, hour, shard)
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
INSERT INTO overview_hours (account_id, livemode, hour, shard, created, paid, gross_cents, fee_cents, expired, canceled,
    refunds, refunded_cents, disputes, disputed_cents, pay_0, pay_1, pay_2, pay_3, pay_4, pay_5, pay_6, pay_7, pay_8, pay_9)
SELECT account_id, livemode, hour, 0, sum(created), sum(paid), sum(gross_cents), sum(fee_cents), sum(expired), sum(canceled),
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
-- acknowledged (2xx): kept by the statements that record attempts
-- (deliveries_prepared.go), sharded like overview_hours, for the overview's
-- success rates (the attempts themselves are 160k a month for a busy
-- webhook).
CREATE TABLE webhook_hours (
    webhook_id text COLLATE "C" NOT NULL,
    hour       timestamptz NOT NULL,
    shard      smallint NOT NULL,
    attempts   bigint NOT NULL DEFAULT 0,
    succeeded  bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (webhook_id, hour, shard)
);

INSERT INTO webhook_hours (webhook_id, hour, shard, attempts, succeeded)
SELECT webhook_id, date_trunc('hour', created_at, 'UTC'), 0, count(*),
    count(*) FILTER (WHERE response_status BETWEEN 200 AND 299)
FROM delivery_attempts
GROUP BY 1, 2;
