#!/usr/bin/env bash
# `make run`: a private PostgreSQL, the PSP sandbox (live mode's bank), the
# demo account, then the service in the foreground. Ctrl-C stops the service
# and the sandbox this script started (by their pid files).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
eval "$(scripts/services.sh dev)"
export DATABASE_URL SMTP_URL WEBHOOK_PROXY_URL
if [ -n "${MIGRATE_DATABASE_URL:-}" ]; then export MIGRATE_DATABASE_URL; fi
mkdir -p .data
secret() { [ -s "$1" ] || od -An -tx1 -N32 /dev/urandom | tr -d ' \n' > "$1"; cat "$1"; }

# A stable local SECRET_KEY, so encrypted data survives restarts of `make run`.
export SECRET_KEY=${SECRET_KEY:-$(secret .data/secret_key)}

# Development: let webhooks reach receivers on this machine over http.
export WEBHOOK_ALLOW_PRIVATE_NETWORKS=${WEBHOOK_ALLOW_PRIVATE_NETWORKS:-true}
addr=${LISTEN_ADDR:-127.0.0.1:8080}
# localhost, not the address: passkeys name the site by its domain.
export BASE_URL=${BASE_URL:-http://localhost:${addr##*:}}

# Live mode against the PSP sandbox, unless a real PSP is configured: a
# separate server with mutual TLS and OAuth2, like a real PSP.
sandbox_pid=.data/psp/sandbox.pid
stop_sandbox() {
  if [ -s "$sandbox_pid" ]; then
    kill "$(cat "$sandbox_pid")" 2>/dev/null || true
    rm -f "$sandbox_pid"
  fi
  return 0
}
if [ -z "${PSP_BASE_URL:-}" ]; then
  mkdir -p .data/psp
  stop_sandbox # one left by a run that was killed
  [ -s .data/psp/ca.pem ] || bin/psp-sandbox certs -dir .data/psp
  api_addr=${PSP_SANDBOX_API_ADDR:-127.0.0.1:8443}
  payer_addr=${PSP_SANDBOX_PAYER_ADDR:-127.0.0.1:8444}
  export PSP_SANDBOX_CLIENT_SECRET=$(secret .data/psp/client_secret)
  export PIX_KEY=${PIX_KEY:-7d9f0335-8dcc-4054-9bf9-0dbd61d36906} PSP_ACCOUNT_NUMBER=${PSP_ACCOUNT_NUMBER:-1234567}
  : > .data/psp/ready.json
  bin/psp-sandbox serve -api-addr "$api_addr" -payer-addr "$payer_addr" -tls-dir .data/psp -mtls \
    -client-id payments-dev -chave "$PIX_KEY" -account "$PSP_ACCOUNT_NUMBER" \
    > .data/psp/ready.json 2> .data/psp/sandbox.log &
  echo $! > "$sandbox_pid"
  trap stop_sandbox EXIT
  for _ in $(seq 100); do [ -s .data/psp/ready.json ] && break; sleep 0.1; done
  [ -s .data/psp/ready.json ] || { echo "the PSP sandbox did not start; see .data/psp/sandbox.log" >&2; exit 1; }
  export PSP_BASE_URL=https://$api_addr/v2 PSP_TOKEN_URL=https://$api_addr/oauth/token \
    PSP_CLIENT_ID=payments-dev PSP_CLIENT_SECRET=$PSP_SANDBOX_CLIENT_SECRET \
    PSP_CERT_FILE=.data/psp/service-client.pem PSP_KEY_FILE=.data/psp/service-client-key.pem PSP_CA_FILE=.data/psp/ca.pem \
    PSP_CALLBACK_TOKEN=${PSP_CALLBACK_TOKEN:-$(secret .data/psp/callback_token)} \
    PSP_SANDBOX_PAYER_URL=http://$payer_addr/payer PSP_RECONCILE_INTERVAL=${PSP_RECONCILE_INTERVAL:-15s}
  unset PSP_SANDBOX_CLIENT_SECRET
  bin/payments psp register-webhook >/dev/null
fi

demo=$(bin/payments demo)
field() { echo "$demo" | sed -n "s/.*\"$1\":\"\([^\"]*\)\".*/\1/p"; }
# Saved for the README's examples: export API_KEY=$(cat .data/test_api_key)
field test_key > .data/test_api_key
field live_key > .data/live_api_key
cat <<INFO

  Payments is starting on $BASE_URL

  Dashboard login   $(field email) / $(field password)
  Account           $(field account_id)
  Test API key      $(field test_key)
  Live API key      $(field live_key)   (live mode: the PSP sandbox)
  Payer's bank      ${PSP_SANDBOX_PAYER_URL:-(a real PSP is configured)}
  E-mail sent       ${MAILPIT_URL:-$SMTP_URL}   (sign-up, resets, invitations: read them there)
  Webhook egress    ${WEBHOOK_PROXY_URL:-direct}   (smokescreen: deliveries leave through it)
  Sign up           $BASE_URL/signup

  Try it (the keys are also in .data/test_api_key and .data/live_api_key):
    export API_KEY=\$(cat .data/test_api_key)
    curl -s $BASE_URL/api/v1/payments -H "Authorization: Bearer \$API_KEY" \\
      -H 'Content-Type: application/json' -d '{"amount_cents": 1990, "description": "Camiseta"}'

  Receive its events on your machine (another terminal), then make one happen:
    export PAYMENTS_API_KEY=\$(cat .data/test_api_key) PAYMENTS_BASE_URL=$BASE_URL
    bin/paymentsctl listen --forward-to http://localhost:3000/hooks
    bin/paymentsctl trigger payment.paid

  A live charge, paid at the sandbox's bank: create it with the live key,
  open its checkout_url and press "Pagar no banco de testes".

INFO
bin/payments serve &
payments=$!
echo $payments > .data/payments.pid
stop_all() {
  kill "$payments" 2>/dev/null || true
  wait "$payments" 2>/dev/null || true
  rm -f .data/payments.pid
  stop_sandbox
}
trap stop_all EXIT
trap 'exit 0' INT TERM
wait "$payments" || true
