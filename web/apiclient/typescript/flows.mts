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
check(hook.response.status === 201 && hook.data?.secret?.startsWith("whsec_") === true, `create webhook: ${hook.response.status}`);
const hookId = hook.data!.id;
const tested = await client.POST("/api/v1/webhooks/{id}/test", { params: { path: { id: hookId } } });
check(tested.data?.success === true && tested.data.attempt.event_type === "payment.paid", `send test: ${tested.response.status}`);
const deliveries = await client.GET("/api/v1/webhooks/{id}/deliveries", { params: { path: { id: hookId } } });
check(deliveries.response.status === 200 && Array.isArray(deliveries.data?.data), "deliveries");
const rotated = await client.POST("/api/v1/webhooks/{id}/rotate_secret", { params: { path: { id: hookId } } });
check(rotated.data?.secret !== hook.data!.secret && rotated.data?.previous_secret_expires_at !== null, "rotate");
// The same webhook moved to ed25519: no secret comes back, a whpk_ public key does.
const moved = await client.POST("/api/v1/webhooks/{id}/rotate_secret", {
  params: { path: { id: hookId } },
  body: { signature_algorithm: "ed25519" },
});
// Ordered delivery, switched on by an update.
const ordered = await client.POST("/api/v1/webhooks/{id}", { params: { path: { id: hookId } }, body: { ordered: true } });
check(ordered.data?.ordered === true && ordered.data.mtls === null && ordered.data.paused_until === null, `ordered: ${ordered.response.status}`);
check(moved.data?.signature_algorithm === "ed25519" && moved.data.secret === undefined && /^whpk_[A-Za-z0-9+/]{43}=$/.test(moved.data.public_key ?? ""),
  `rotate to ed25519: ${moved.response.status}`);

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

// A due-date charge (cobv): 2% fine, 1% a month interest, 5% off until 5 days before.
const day = (n: number) => new Date(Date.now() + n * 86_400_000).toISOString().slice(0, 10);
const bill = await client.POST("/api/v1/payments", {
  body: {
    amount_cents: 100000, external_id: "mensalidade:03", due_date: day(10), days_after_due: 30,
    customer: { name: "Ana Lima", email: "ana@example.com", document: "529.982.247-25" },
    fine: { percent: "2.00" }, interest: { percent_per_month: "1.00" },
    discounts: { fixed: [{ until: day(5), percent: "5.00" }] },
  },
});
check(bill.response.status === 201 && bill.data?.due_date === day(10), `due-date charge: ${bill.response.status}`);
const owed = await client.GET("/api/v1/payments/{id_or_external_id}/amount_due", {
  params: { path: { id_or_external_id: "mensalidade:03" }, query: { date: day(25) } },
});
check(owed.data?.fine_cents === 2000 && owed.data.interest_cents === 500 && owed.data.amount_due_cents === 102500, "amount due 15 days late");
const late = await client.POST("/api/v1/test_helpers/payments/{id_or_external_id}/pay", {
  params: { path: { id_or_external_id: "mensalidade:03" } },
  body: { date: day(25) },
});
check(late.data?.amount_paid_cents === 102500, `paid late: ${late.response.status}`);

// A batch: each charge on its own; a bad one is refused, the others created.
const batch = await client.POST("/api/v1/payment_batches", {
  body: {
    payments: [
      { amount_cents: 2500, external_id: "lote:1", due_date: day(10), customer: { name: "Ana Lima", email: "ana@example.com", document: "529.982.247-25" } },
      { amount_cents: 2500, external_id: "lote:2", due_date: day(10) },
    ],
  },
});
check(batch.response.status === 201 && batch.data?.counts.created === 1 && batch.data.items[1]?.error?.param === "payments[1].customer", `batch: ${batch.response.status}`);

// A subscription (Pix Automático): authorized with its first payment, a cycle retried then paid.
const subscription = await client.POST("/api/v1/subscriptions", {
  body: {
    payer: { name: "Ana Lima", document: "529.982.247-25" }, contract: "ALUNO-0042", interval: "monthly",
    start_date: day(3), amount_cents: 49000, retry_policy: "three_in_seven_days", journey: "authorization_with_first_payment",
  },
});
check(subscription.response.status === 201 && subscription.data?.status === "awaiting_authorization", `subscription: ${subscription.response.status}`);
const subID = subscription.data!.id;
const authorized = await client.POST("/api/v1/test_helpers/subscriptions/{id}/authorize", { params: { path: { id: subID } } });
check(authorized.data?.status === "active", `authorize: ${authorized.response.status}`);
const retried = await client.POST("/api/v1/test_helpers/subscriptions/{id}/run_cycle", {
  params: { path: { id: subID } }, body: { outcome: "insufficient_balance" },
});
check(retried.data?.cycle?.status === "retrying", `retry: ${retried.response.status}`);
const cyclePaid = await client.POST("/api/v1/test_helpers/subscriptions/{id}/run_cycle", {
  params: { path: { id: subID } }, body: { outcome: "pay" },
});
check(cyclePaid.data?.status === "paid" && cyclePaid.data.subscription === subID, `cycle paid: ${cyclePaid.response.status}`);
const ended = await client.POST("/api/v1/subscriptions/{id}/cancel", { params: { path: { id: subID } } });
check(ended.data?.status === "canceled" && ended.data.canceled_by === "receiver", `cancel subscription: ${ended.response.status}`);
// A request pushed to the payer's bank, to the account they gave (required live).
const pushed = await client.POST("/api/v1/subscriptions", {
  body: {
    payer: { name: "Ana Lima", document: "52998224725", bank_account: { ispb: "60701190", branch: "0001", number: "123456" } },
    contract: "PLANO-7", interval: "weekly", start_date: day(4), max_amount_cents: 15000, journey: "payer_bank_request",
  },
});
check(pushed.response.status === 201 && pushed.data?.payer.bank_account?.ispb === "60701190" && pushed.data.br_code === null,
  `payer_bank_request: ${pushed.response.status}`);

// Today's ledger for the accountant: asked for (built in the background), then read.
const today = new Intl.DateTimeFormat("en-CA", { timeZone: "America/Sao_Paulo" }).format(new Date());
const report = await client.POST("/api/v1/reports", { body: { type: "ledger", format: "xlsx", from: today, to: today } });
check(report.response.status === 201 && report.data?.status === "pending" && report.data.file_url === null,
  `report: ${report.response.status}`);
const reportRead = await client.GET("/api/v1/reports/{id}", { params: { path: { id: report.data!.id } } });
check(reportRead.response.status === 200 && reportRead.data?.id === report.data!.id && reportRead.data.format === "xlsx",
  `report read: ${reportRead.response.status}`);

// A platform: a seller's subaccount, a charge split with it and paid, the
// seller's balance read for it (the Payments-Account header).
const seller = await client.POST("/api/v1/subaccounts", {
  body: { name: "Padaria Pão Quente", document: "12.ABC.345/01DE-35", email: "padaria@example.com", pix_key: "padaria@example.com" },
});
check(seller.response.status === 201 && seller.data?.object === "account", `subaccount: ${seller.response.status}`);
const split = await client.POST("/api/v1/payments", {
  body: { amount_cents: 10000, splits: [{ account: seller.data!.id, percent: 30, fee_payer: "account" }] },
});
check(split.response.status === 201 && split.data?.splits[0]?.net_cents === null, `split charge: ${split.response.status}`);
const splitPaid = await client.POST("/api/v1/test_helpers/payments/{id_or_external_id}/pay", {
  params: { path: { id_or_external_id: split.data!.id } },
});
check(splitPaid.data?.splits[0]?.net_cents === 3000, `split paid: ${splitPaid.response.status}`);
const sellerBalance = await client.GET("/api/v1/balance", { headers: { "Payments-Account": seller.data!.id } });
check(sellerBalance.data !== undefined && sellerBalance.data.available_cents + sellerBalance.data.pending_cents === 3000,
  `seller's balance: ${sellerBalance.response.status}`);

// A payment link to share: a fixed amount, the payer's name and CPF, two uses.
const link = await client.POST("/api/v1/payment_links", {
  body: { description: "Ingresso — show de sábado", amount_cents: 4500, collect: ["name", "document"], max_uses: 2 },
});
check(link.response.status === 201 && link.data?.available === true && link.data.url.endsWith(`/pay/link/${link.data.id}`),
  `payment link: ${link.response.status}`);
const linkPage = await fetch(link.data!.url);
check(linkPage.status === 200, `payment link's page: ${linkPage.status}`);

console.log("ok");
