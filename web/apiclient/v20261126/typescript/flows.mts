// The README's flows, run by the suite against a real server through a
// client generated from web/openapi.json with openapi-typescript and
// openapi-fetch, compiled with tsc --strict: what a TypeScript integrator
// writes. It exits non-zero at the first answer that is not what the
// README says. BASE_URL and API_KEY come from the environment.
import createClient from "openapi-fetch";
import type { paths } from "./schema.js";

// Node's globals this script uses (no @types/node needed for two names).
declare const process: { env: Record<string, string | undefined>; exit(code: number): never };

const baseUrl = process.env.BASE_URL ?? "";
const key = process.env.API_KEY ?? "";
const client = createClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${key}` } });

function check(ok: boolean, what: string): void {
  if (!ok) {
    console.error(`FAIL: ${what}`);
    process.exit(1);
  }
}

// Create a payment, with an Idempotency-Key, then again: the same payment, replayed.
const body = {
  amount_cents: 12990,
  description: "Pedido #1001",
  external_id: "order:1001",
  customer: { name: "Maria Silva", email: "maria@example.com", document: "529.982.247-25" },
  metadata: { cart: "c_77" },
  expires_in: 3600,
};
const created = await client.POST("/api/v1/payments", {
  params: { header: { "Idempotency-Key": "order-1001-create" } },
  body,
});
check(created.response.status === 201 && created.data !== undefined, `create: ${created.response.status}`);
const payment = created.data!;
check(payment.status === "pending" && payment.amount_label === "R$ 129,90", "create: the payment as created");
check(payment.customer?.document === "52998224725", "create: the document as digits");
const again = await client.POST("/api/v1/payments", {
  params: { header: { "Idempotency-Key": "order-1001-create" } },
  body,
});
check(again.response.headers.get("Idempotent-Replayed") === "true" && again.data?.id === payment.id, "replay");

// A minimal payment: every optional field left out.
const small = await client.POST("/api/v1/payments", { body: { amount_cents: 500 } });
check(small.response.status === 201 && small.data?.expires_at !== undefined, `minimal create: ${small.response.status}`);

// Read it by its external_id, which has a ':' (openapi-fetch percent-encodes it).
const byRef = await client.GET("/api/v1/payments/{id_or_external_id}", {
  params: { path: { id_or_external_id: "order:1001" } },
});
check(byRef.response.status === 200 && byRef.data?.id === payment.id, `get by external_id: ${byRef.response.status}`);

// List with cursors: newest first, pages that neither skip nor repeat.
for (let i = 0; i < 3; i++) {
  await client.POST("/api/v1/payments", { body: { amount_cents: 100 + i } });
}
const first = await client.GET("/api/v1/payments", { params: { query: { limit: 2 } } });
check(first.response.status === 200 && first.data?.data.length === 2 && first.data.has_more, "list: first page");
const last = first.data!.data[1]!;
const next = await client.GET("/api/v1/payments", { params: { query: { limit: 2, starting_after: last.id } } });
check(next.response.status === 200 && next.data?.data[0]?.id !== last.id, "list: next page");
const back = await client.GET("/api/v1/payments", { params: { query: { limit: 2, ending_before: next.data!.data[0]!.id } } });
check(back.data?.data[1]?.id === last.id, "list: back a page");
const pending = await client.GET("/api/v1/payments", { params: { query: { status: "pending", limit: 100 } } });
check((pending.data?.data.length ?? 0) >= 5, "list: status filter");

// Cancel a pending payment; a second cancel answers the same.
const canceled = await client.DELETE("/api/v1/payments/{id_or_external_id}", {
  params: { path: { id_or_external_id: small.data!.id } },
});
check(canceled.data?.status === "canceled", `cancel: ${canceled.response.status}`);

// Test mode: pay it, then refund it.
const paid = await client.POST("/api/v1/test_helpers/payments/{id_or_external_id}/pay", {
  params: { path: { id_or_external_id: "order:1001" } },
});
check(paid.data?.status === "paid", `pay: ${paid.response.status}`);
const notCancelable = await client.DELETE("/api/v1/payments/{id_or_external_id}", {
  params: { path: { id_or_external_id: "order:1001" } },
});
check(notCancelable.response.status === 409 && notCancelable.error?.error.code === "payment_not_cancelable", "cancel a paid payment");
const refunded = await client.POST("/api/v1/payments/{id_or_external_id}/refund", {
  params: { path: { id_or_external_id: "order:1001" } },
});
check(refunded.data?.status === "refunded", `refund: ${refunded.response.status}`);

// Webhooks: create (the defaults left out), send a test, read its deliveries, rotate the secret.
const hook = await client.POST("/api/v1/webhooks", {
  body: { url: process.env.RECEIVER_URL ?? "", name: "Orders", events: ["payment.paid", "payment.expired"] },
});
check(hook.response.status === 201 && hook.data?.secret.startsWith("whsec_") === true, `create webhook: ${hook.response.status}`);
const hookId = hook.data!.id;
const tested = await client.POST("/api/v1/webhooks/{id}/test", { params: { path: { id: hookId } } });
check(tested.data?.success === true && tested.data.attempt.event_type === "payment.paid", `send test: ${tested.response.status}`);
const deliveries = await client.GET("/api/v1/webhooks/{id}/deliveries", { params: { path: { id: hookId } } });
check(deliveries.response.status === 200 && Array.isArray(deliveries.data?.data), "deliveries");
const rotated = await client.POST("/api/v1/webhooks/{id}/rotate_secret", { params: { path: { id: hookId } } });
check(rotated.data?.secret !== hook.data!.secret && rotated.data?.previous_secret_expires_at !== null, "rotate");

// Withdraw to a PIX key: more than the balance is refused; what is there is paid out.
const broke = await client.POST("/api/v1/withdrawals", { body: { amount_cents: 100_000_000, pix_key: "+5561988880000" } });
check(broke.response.status === 409 && broke.error?.error.code === "balance_insufficient", "withdraw too much");
const funded = await client.POST("/api/v1/payments", { body: { amount_cents: 5000, external_id: "order:1002" } });
await client.POST("/api/v1/test_helpers/payments/{id_or_external_id}/pay", { params: { path: { id_or_external_id: funded.data!.id } } });
const wd = await client.POST("/api/v1/withdrawals", {
  params: { header: { "Idempotency-Key": "payout-2026-11-22" } },
  body: { amount_cents: 2000, pix_key: "+5561988880000", description: "Saque" },
});
check(wd.response.status === 201 && wd.data?.status === "pending" && wd.data.pix_key_type === "phone", `withdraw: ${wd.response.status}`);
const done = await client.POST("/api/v1/test_helpers/withdrawals/{id}/complete", { params: { path: { id: wd.data!.id } } });
check(done.data?.status === "completed", `complete withdrawal: ${done.response.status}`);
const balance = await client.GET("/api/v1/balance");
check(balance.response.status === 200 && typeof balance.data?.available_cents === "number", "balance");

console.log("ok");
