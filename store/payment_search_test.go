package store_test

import (
	"context"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"payments/store"
)

// The merchant's list and support's search find a payment by everything
// either reads out, the same way: ids, the txid, a refund's id and its
// devolução's, the customer's e-mail in any case, CPF/CNPJ with or without
// punctuation, the start of the name and a word of the description in any
// case and with or without accents.
func TestMerchantAndSupportSearchFindTheSame(t *testing.T) {
	t.Parallel()
	f := newMoneyFixture(t)
	ctx := context.Background()
	p := f.createPayment(5_000)
	other := f.createPayment(7_000)
	ext, desc := "pedido-77", "Camiseta Coração azul"
	_, err := f.db.NewRaw(`UPDATE payments SET external_id = ?, description = ?,
		customer = '{"name": "João Conceição", "email": "Joao@Example.com", "document": "52998224725", "phone": null}'
		WHERE id = ?`, ext, desc, p.ID).Exec(ctx)
	require.NoError(t, err)
	_, err = f.db.NewRaw(`UPDATE payments SET description = 'Caneca', customer = '{"name": "Maria", "email": "m@example.com", "document": "11222333000181", "phone": null}'
		WHERE id = ?`, other.ID).Exec(ctx)
	require.NoError(t, err)
	_, err = f.st.MarkPaymentPaid(ctx, f.scope, p.ID.String(), nil)
	require.NoError(t, err)
	r, _, err := f.st.RefundPayment(ctx, f.scope, p.ID.String(), store.NewRefund{AmountCents: 100})
	require.NoError(t, err)

	merchant := func(q string) []uuid.UUID {
		page, _, err := f.st.ListPayments(ctx, store.PaymentListParams{Scope: f.scope, Limit: 10, Search: q})
		require.NoError(t, err, q)
		var out []uuid.UUID
		for _, p := range page {
			out = append(out, p.ID)
		}
		return out
	}
	support := func(q string) []uuid.UUID {
		found, err := f.st.SearchPayments(ctx, q, 10)
		require.NoError(t, err, q)
		var out []uuid.UUID
		for _, p := range found {
			out = append(out, p.ID)
		}
		return out
	}
	for _, q := range []string{p.ID.String(), ext, p.CorrelationID, r.ID, "joao@example.COM", "529.982.247-25", "52998224725",
		"Joao", "joão conc", "JOAO", "coracao", "CORAÇÃO AZ", "camiseta"} {
		require.Equal(t, []uuid.UUID{p.ID}, merchant(q), "merchant: %q", q)
		require.Equal(t, []uuid.UUID{p.ID}, support(q), "support: %q", q)
	}
	for _, q := range []string{"Conceição", "azul x", "jo", "%", "_oão", "re_nothing", "a'b"} {
		require.Empty(t, merchant(q), "merchant: %q", q)
		require.Empty(t, support(q), "support: %q", q)
	}
	require.Equal(t, []uuid.UUID{other.ID}, merchant("11.222.333/0001-81"))
}

// An identifier names exactly its payments: an external_id that another
// payment's description happens to contain finds the one it identifies;
// the description finds both only when no identifier matches.
func TestAnIdentifierNamesExactlyItsPayments(t *testing.T) {
	t.Parallel()
	f := newMoneyFixture(t)
	ctx := context.Background()
	p, mention := f.createPayment(5_000), f.createPayment(6_000)
	_, err := f.db.NewRaw(`UPDATE payments SET external_id = 'pedido-991' WHERE id = ?`, p.ID).Exec(ctx)
	require.NoError(t, err)
	_, err = f.db.NewRaw(`UPDATE payments SET description = 'troca do pedido-991 e pedido-992' WHERE id = ?`, mention.ID).Exec(ctx)
	require.NoError(t, err)
	find := func(q string) []uuid.UUID {
		found, err := f.st.SearchPayments(ctx, q, 10)
		require.NoError(t, err)
		var out []uuid.UUID
		for _, p := range found {
			out = append(out, p.ID)
		}
		return out
	}
	require.Equal(t, []uuid.UUID{p.ID}, find("pedido-991"))
	require.Equal(t, []uuid.UUID{mention.ID}, find("pedido-992"), "no payment is pedido-992: the description names it")
}

// A merchant's search by name or description reads the account's newest
// payments first, then the indexes: a name many share fills its pages from
// the newest, and one only an old payment has is still found.
func TestNameSearchPastTheNewestPayments(t *testing.T) {
	t.Parallel()
	f := newMoneyFixture(t)
	ctx := context.Background()
	old := f.createPayment(5_000)
	_, err := f.db.NewRaw(`UPDATE payments SET customer = '{"name": "Zuleica Antiga", "email": "z@example.com", "document": "52998224725", "phone": null}'
		WHERE id = ?`, old.ID).Exec(ctx)
	require.NoError(t, err)
	// 2,100 newer ones (past recentWalk, twice), each a millisecond apart, all Maria's.
	_, err = f.db.NewRaw(`INSERT INTO payments SELECT (jsonb_populate_record(p, jsonb_build_object(
			'id', (lpad(to_hex(('x' || substr(replace(p.id::text, '-', ''), 1, 12))::bit(48)::bigint + g), 12, '0')
				|| '70008000' || lpad(to_hex(g), 12, '0'))::uuid,
			'correlation_id', 'TXNAME' || lpad(g::text, 20, '0'),
			'customer', '{"name": "Maria Nova", "email": "m@example.com", "document": "11222333000181", "phone": null}'::jsonb))).*
		FROM payments p, generate_series(1, 2100) g WHERE p.id = ?`, old.ID).Exec(ctx)
	require.NoError(t, err)
	search := func(q string, after *uuid.UUID) ([]store.Payment, bool) {
		page, more, err := f.st.ListPayments(ctx, store.PaymentListParams{Scope: f.scope, Limit: 10, Search: q, StartingAfter: after})
		require.NoError(t, err, q)
		return page, more
	}
	for _, q := range []string{"zuleica", "ZULÉICA ANT", "Zuleica Antiga"} {
		page, more := search(q, nil)
		require.False(t, more, q)
		require.Len(t, page, 1, q)
		require.Equal(t, old.ID, page[0].ID, q)
	}
	page, _ := search("zuleica antigas", nil)
	require.Empty(t, page)
	var newest uuid.UUID
	require.NoError(t, f.db.NewRaw("SELECT id FROM payments ORDER BY id DESC LIMIT 1").Scan(ctx, &newest))
	page, _ = search("zuleica", &newest)
	require.Len(t, page, 1, "past a cursor too")
	page, _ = search("zuleica", &old.ID)
	require.Empty(t, page, "nothing past the last one")
	page, more := search("maria n", nil)
	require.True(t, more)
	require.Len(t, page, 10)
	require.Equal(t, newest, page[0].ID)
	next, more := search("maria n", &page[9].ID)
	require.True(t, more)
	require.Len(t, next, 10)
	require.Less(t, next[0].ID.String(), page[9].ID.String())
	page, more = search("nobody at all", nil)
	require.False(t, more)
	require.Empty(t, page)
}
