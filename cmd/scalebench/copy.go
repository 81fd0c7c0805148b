package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"payments/pix"
	"payments/store"
	"payments/store/ids"
)

// rows streams a table's rows to COPY: next fills row for payment i and
// reports how many rows it made of it (several for an event's deliveries,
// none for a payment with no such row).
type rows struct {
	n, i  int
	queue [][]any
	next  func(i int) [][]any
}

func (r *rows) Next() bool {
	for len(r.queue) == 0 {
		if r.i >= r.n {
			return false
		}
		r.queue = r.next(r.i)
		r.i++
	}
	return true
}

func (r *rows) Values() ([]any, error) {
	row := r.queue[0]
	r.queue = r.queue[1:]
	return row, nil
}

func (r *rows) Err() error { return nil }

// copyAll writes the history, one table after another.
func (h *history) copyAll(ctx context.Context, pool *pgxpool.Pool) error {
	tables := []struct {
		name    string
		columns []string
		next    func(i int) [][]any
	}{
		{"payments", []string{"id", "account_id", "livemode", "status", "amount_cents", "currency", "payment_method", "description",
			"external_id", "customer", "metadata", "correlation_id", "fee_cents", "br_code", "qr_code_url", "checkout_url", "created_at",
			"updated_at", "expires_at", "paid_at", "canceled_at", "expired_at", "refunded_at", "amount_refunded_cents", "fee_refunded_cents",
			"amount_paid_cents"}, h.payment},
		{"events", []string{"id", "account_id", "livemode", "type", "object_id", "data", "created_at", "actor"}, h.events},
		{"webhook_deliveries", []string{"id", "event_id", "webhook_id", "account_id", "livemode", "event_type", "status", "attempts",
			"next_attempt_at", "last_status_code", "created_at", "updated_at", "completed_at"}, h.deliveries},
		{"delivery_attempts", []string{"id", "delivery_id", "webhook_id", "event_id", "event_type", "attempt", "request_url",
			"request_headers", "request_body", "response_status", "response_headers", "response_body", "duration_ms", "created_at"}, h.attempts},
		{"psp_notifications", []string{"end_to_end_id", "txid", "amount_cents", "settled_at", "payment_id", "outcome", "raw", "received_at"}, h.notification},
		{"refunds", []string{"id", "account_id", "livemode", "payment_id", "amount_cents", "reason", "created_at", "status", "fee_cents",
			"end_to_end_id", "return_id", "updated_at", "completed_at"}, h.refund},
		{"ledger_entries", []string{"account_id", "livemode", "balance", "type", "amount_cents", "source_id", "created_at"}, h.ledger},
	}
	for _, t := range tables {
		began := time.Now()
		n, err := pool.CopyFrom(ctx, pgx.Identifier{t.name}, t.columns, &rows{n: h.sz.Payments, next: t.next})
		if err != nil {
			return fmt.Errorf("copy %s: %w", t.name, err)
		}
		elapsed(fmt.Sprintf("%s: %d rows", t.name, n), began)
	}
	return nil
}

var products = []string{"Camiseta Coração", "Caneca café", "Tênis corrida", "Livro ação", "Boné azul"}
var names = []string{"João", "Maria", "José", "Ana", "Conceição", "Antônio"}

func fee(i int) int64 { return amount(i) / 100 }

// payment is payment i's row.
func (h *history) payment(i int) [][]any {
	t := h.at(i)
	acct := h.accounts[h.account(i)]
	status := h.status(i)
	id := h.paymentID(i)
	customer := fmt.Sprintf(`{"name": "%s Silva %d", "email": "%s", "document": "%s", "phone": null}`, names[i%len(names)], i, email(i), cpf(i))
	code, _ := pix.BRCode{Key: "00000000-0000-4000-8000-000000000000", MerchantName: "Loja", MerchantCity: "SAO PAULO",
		AmountCents: amount(i), TxID: txid(i)}.Encode()
	var paidAt, canceledAt, expiredAt, refundedAt *time.Time
	var refunded, feeRefunded, paid int64
	switch status {
	case store.StatusPaid, store.StatusRefunded:
		at := t.Add(30 * time.Second)
		paidAt, paid = &at, amount(i)
		if status == store.StatusRefunded {
			r := t.Add(48 * time.Hour)
			refundedAt, refunded, feeRefunded = &r, amount(i), fee(i)
		}
	case store.StatusCanceled:
		at := t.Add(10 * time.Minute)
		canceledAt = &at
	case store.StatusExpired:
		at := t.Add(24 * time.Hour)
		expiredAt = &at
	}
	description := fmt.Sprintf("%s #%d", products[i%len(products)], i)
	return [][]any{{id, acct, false, status, amount(i), "BRL", "pix", description, externalID(i), customer, "{}", txid(i), fee(i), code,
		"http://127.0.0.1:8080/pay/" + id.String() + "/qr.png", "http://127.0.0.1:8080/pay/" + id.String(), t, t, t.Add(24 * time.Hour),
		paidAt, canceledAt, expiredAt, refundedAt, refunded, feeRefunded, paid}}
}

// eventsOf are payment i's events: created, then how it ended.
func (h *history) eventsOf(i int) (types []string, at []time.Time) {
	t := h.at(i)
	switch h.status(i) {
	case store.StatusPaid, store.StatusRefunded:
		return []string{store.EventPaymentCreated, store.EventPaymentPaid}, []time.Time{t, t.Add(30 * time.Second)}
	case store.StatusExpired:
		return []string{store.EventPaymentCreated, store.EventPaymentExpired}, []time.Time{t, t.Add(24 * time.Hour)}
	case store.StatusCanceled:
		return []string{store.EventPaymentCreated, store.EventPaymentCanceled}, []time.Time{t, t.Add(10 * time.Minute)}
	}
	return []string{store.EventPaymentCreated}, []time.Time{t}
}

// snapshot is the payment as an event carries it.
func (h *history) snapshot(i int, status string) string {
	id := h.paymentID(i)
	return fmt.Sprintf(`{"id": "%s", "object": "payment", "livemode": false, "status": "%s", "amount_cents": %d, "currency": "BRL", `+
		`"description": "%s #%d", "external_id": "%s", "customer": {"name": "%s Silva %d", "email": "%s", "document": "%s", "phone": null}, `+
		`"correlation_id": "%s", "fee_cents": %d, "metadata": {}, "created_at": "%s"}`,
		id, status, amount(i), products[i%len(products)], i, externalID(i), names[i%len(names)], i, email(i), cpf(i), txid(i), fee(i),
		h.at(i).UTC().Format(time.RFC3339Nano))
}

func (h *history) events(i int) [][]any {
	types, at := h.eventsOf(i)
	acct := h.accounts[h.account(i)]
	var out [][]any
	for k, typ := range types {
		status := strings.TrimPrefix(typ, "payment.")
		if status == "created" {
			status = store.StatusPending
		}
		out = append(out, []any{mint(ids.PrefixEvent, at[k], i, k), acct, false, typ, h.paymentID(i).String(), h.snapshot(i, status), at[k], "system"})
	}
	return out
}

func (h *history) deliveries(i int) [][]any {
	types, at := h.eventsOf(i)
	a := h.account(i)
	var out [][]any
	for k, typ := range types {
		done := at[k].Add(150 * time.Millisecond)
		out = append(out, []any{mint(ids.PrefixDelivery, at[k], i, k), mint(ids.PrefixEvent, at[k], i, k), h.webhooks[a], h.accounts[a], false, typ,
			"succeeded", 1, at[k], 200, at[k], done, done})
	}
	return out
}

func (h *history) attempts(i int) [][]any {
	types, at := h.eventsOf(i)
	a := h.account(i)
	var out [][]any
	for k, typ := range types {
		eventID := mint(ids.PrefixEvent, at[k], i, k)
		body := fmt.Sprintf(`{"id": "%s", "object": "event", "type": "%s", "api_version": "v2", "created_at": "%s", "data": {"object": %s}}`,
			eventID, typ, at[k].UTC().Format(time.RFC3339Nano), h.snapshot(i, strings.TrimPrefix(typ, "payment.")))
		headers := fmt.Sprintf(`{"Content-Type": "application/json", "User-Agent": "Payments-Webhooks/1.0", "webhook-id": "%s", `+
			`"webhook-timestamp": "%d", "webhook-signature": "v1,c2lnbmF0dXJlLW9mLXRoZS1ib2R5LWhtYWMtc2hhMjU2"}`, eventID, at[k].Unix())
		out = append(out, []any{mint(ids.PrefixAttempt, at[k], i, k), mint(ids.PrefixDelivery, at[k], i, k), h.webhooks[a], eventID, typ, 1,
			"https://hooks.example.com/" + h.accounts[a], headers, body, 200, `{"Content-Type": ["text/plain"]}`, []byte("ok"), 42,
			at[k].Add(150 * time.Millisecond)})
	}
	return out
}

func (h *history) notification(i int) [][]any {
	if st := h.status(i); st != store.StatusPaid && st != store.StatusRefunded {
		return nil
	}
	at := h.at(i).Add(30 * time.Second)
	e2e := endToEndID(i, at)
	raw := fmt.Sprintf(`{"endToEndId": "%s", "txid": "%s", "valor": "%s", "horario": "%s"}`, e2e, txid(i), pixValor(amount(i)), at.UTC().Format(time.RFC3339))
	return [][]any{{e2e, txid(i), amount(i), at, h.paymentID(i), "paid", raw, at}}
}

func pixValor(cents int64) string { return fmt.Sprintf("%d.%02d", cents/100, cents%100) }

func (h *history) refund(i int) [][]any {
	if h.status(i) != store.StatusRefunded {
		return nil
	}
	t := h.at(i).Add(48 * time.Hour)
	return [][]any{{mint(ids.PrefixRefund, t, i, 0), h.accounts[h.account(i)], false, h.paymentID(i), amount(i), "requested", t, "succeeded",
		fee(i), endToEndID(i, h.at(i).Add(30*time.Second)), fmt.Sprintf("D99999999%s%011d", t.UTC().Format("200601021504"), i), t, t}}
}

func (h *history) ledger(i int) [][]any {
	st := h.status(i)
	if st != store.StatusPaid && st != store.StatusRefunded {
		return nil
	}
	acct, id, at := h.accounts[h.account(i)], h.paymentID(i).String(), h.at(i).Add(30*time.Second)
	out := [][]any{{acct, false, "available", "payment", amount(i), id, at}, {acct, false, "available", "fee", -fee(i), id, at}}
	if st == store.StatusRefunded {
		re, rt := mint(ids.PrefixRefund, h.at(i).Add(48*time.Hour), i, 0), h.at(i).Add(48*time.Hour)
		out = append(out, []any{acct, false, "available", "refund", -amount(i), re, rt}, []any{acct, false, "available", "fee_refund", fee(i), re, rt})
	}
	return out
}
