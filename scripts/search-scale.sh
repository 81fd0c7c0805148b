#!/usr/bin/env bash
# search-scale.sh: how the payment search holds at scale (BENCHMARKS.md,
# "Search at scale"). Makes a database on the private test PostgreSQL,
# migrates it, writes N payments (default 1,000,000) for one account among
# 50, and times the statements the merchant's list and support's search run
# (Store.wherePaymentMatches) with EXPLAIN ANALYZE.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-1000000}
eval "$(scripts/services.sh test)"
ADMIN=$TEST_DATABASE_URL
DB=search_scale
psql "$ADMIN" -qc "DROP DATABASE IF EXISTS $DB" -c "CREATE DATABASE $DB"
URL=${ADMIN%/*}/$DB?sslmode=disable
DATABASE_URL=$URL SECRET_KEY=$(printf '7f%.0s' {1..32}) bin/payments migrate >/dev/null
psql "$URL" -q <<SQL
INSERT INTO accounts (id, name, email, fee_bps, fee_fixed_cents, created_at)
SELECT 'acct_' || i, 'Loja ' || i, 'loja' || i || '@example.com', 99, 0, now() FROM generate_series(1, 50) i;
INSERT INTO payments (id, account_id, livemode, status, amount_cents, currency, payment_method, description, external_id,
    customer, metadata, correlation_id, fee_cents, br_code, qr_code_url, checkout_url, created_at, updated_at, expires_at)
SELECT gen_random_uuid(), 'acct_' || (1 + i % 50), false, 'paid', 1000 + i % 5000, 'BRL', 'pix',
    (ARRAY['Camiseta Coração', 'Caneca café', 'Tênis corrida', 'Livro ação', 'Boné azul'])[1 + i % 5] || ' #' || i,
    'pedido-' || i,
    jsonb_build_object('name', (ARRAY['João', 'Maria', 'José', 'Ana', 'Conceição', 'Antônio'])[1 + i % 6] || ' Silva ' || i,
        'email', 'cliente' || i || '@example.com', 'document', lpad((i % 99999999999)::text, 11, '0'), 'phone', null),
    '{}', 'TX' || lpad(i::text, 30, '0'), 10, 'x', 'x', 'x', now(), now(), now() + interval '1 day'
FROM generate_series(1, $N) i;
ANALYZE payments;
SQL
explain() { # the statement of one branch of wherePaymentMatches, in one account's list
  echo "== merchant list, one account: $1"
  psql "$URL" -qAt -c "EXPLAIN (ANALYZE, COSTS OFF) SELECT id FROM payments AS payment
    WHERE account_id = 'acct_43' AND livemode = false AND ($2) ORDER BY id DESC LIMIT 26" |
    grep -oE "Execution Time: .*|(Index Scan|Index Only Scan|Bitmap Index Scan|Seq Scan) (using|on) [a-z_]+" | sort -u | paste -sd ';' -
}
words() { # the default branch: external_id, txid, name start, description words (the ids a
  # transfer's or a refund's id names are looked up first, and join as a list: none here)
  echo "payment.external_id = '$1' OR payment.correlation_id = '$1'
    OR payment.customer IS NOT NULL AND search_fold(payment.customer ->> 'name') LIKE search_fold('$1') || '%'
    OR payment.description IS NOT NULL AND search_fold(payment.description) LIKE '%' || search_fold('$1') || '%'"
}
explain '"joao silva 4242" (name start, no accent)' "$(words 'joao silva 4242')"
explain '"CORACAO #77777" (description, no accent)' "$(words 'CORACAO #77777')"
explain '"pedido-123456" (external_id)' "$(words 'pedido-123456')"
explain '"TX...555555" (txid)' "$(words "TX$(printf '%030d' 555555)")"
explain '"joao" (a name start a sixth of them share)' "$(words 'joao')"
explain '"camiseta" (a word a fifth of them have)' "$(words 'camiseta')"
explain '"Cliente98765@Example.com" (e-mail)' "payment.customer IS NOT NULL AND lower(payment.customer ->> 'email') = lower('Cliente98765@Example.com') OR payment.external_id = 'Cliente98765@Example.com'"
psql "$ADMIN" -qc "DROP DATABASE $DB"
