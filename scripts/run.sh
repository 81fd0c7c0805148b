#!/usr/bin/env bash
# `make run`: a private PostgreSQL, the demo account, then the service in the foreground.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
eval "$(scripts/services.sh dev)"
export DATABASE_URL

# A stable local SECRET_KEY, so encrypted data survives restarts of `make run`.
if [ -z "${SECRET_KEY:-}" ]; then
  mkdir -p .data
  [ -s .data/secret_key ] || od -An -tx1 -N32 /dev/urandom | tr -d ' \n' > .data/secret_key
  export SECRET_KEY=$(cat .data/secret_key)
fi

# Development: let webhooks reach receivers on this machine over http.
export WEBHOOK_ALLOW_PRIVATE_NETWORKS=${WEBHOOK_ALLOW_PRIVATE_NETWORKS:-true}

demo=$(bin/payments demo)
field() { echo "$demo" | sed -n "s/.*\"$1\":\"\([^\"]*\)\".*/\1/p"; }
# Saved for the README's examples: export API_KEY=$(cat .data/test_api_key)
field test_key > .data/test_api_key
addr=${LISTEN_ADDR:-127.0.0.1:8080}
cat <<INFO

  Payments is starting on http://$addr

  Dashboard login   $(field email) / $(field password)
  Account           $(field account_id)
  Test API key      $(field test_key)

  Try it (the key is also in .data/test_api_key):
    export API_KEY=\$(cat .data/test_api_key)
    curl -s http://$addr/api/v1/payments -H "Authorization: Bearer \$API_KEY" \\
      -H 'Content-Type: application/json' -d '{"amount_cents": 1990, "description": "Camiseta"}'

INFO
exec bin/payments serve
