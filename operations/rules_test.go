package operations_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"payments/operations"
	"payments/pix"
	"payments/pix/calendar"
	"payments/pix/cobv"
	"payments/store"
	"payments/store/storetest"
)

func percent(t *testing.T, s string) *cobv.Percent {
	t.Helper()
	p, err := cobv.ParsePercent(s)
	require.NoError(t, err)
	return &p
}

// The most each term may be, and the worst case: what the last payable
// day would owe is at most the largest payment.
func TestCheckDueTerms(t *testing.T) {
	today, _ := calendar.ParseDate("2026-03-02")
	terms := func(amount int64, f func(*cobv.Terms)) *cobv.Problem {
		tm := &cobv.Terms{DueDate: "2026-03-10", DaysAfterDue: 30}
		f(tm)
		return operations.CheckDueTerms(tm, amount, today)
	}
	cents := func(n int64) *int64 { return &n }
	for name, c := range map[string]struct {
		amount int64
		set    func(*cobv.Terms)
		param  string
	}{
		"2% and 1% a month": {100_000, func(tm *cobv.Terms) {
			tm.Fine = &cobv.Value{Percent: percent(t, "2.00")}
			tm.Interest = &cobv.Interest{PercentPerMonth: percent(t, "1.00")}
		}, ""},
		"a fine of 10%":                {100_000, func(tm *cobv.Terms) { tm.Fine = &cobv.Value{Percent: percent(t, "10.00")} }, ""},
		"a fine of 10.01%":             {100_000, func(tm *cobv.Terms) { tm.Fine = &cobv.Value{Percent: percent(t, "10.01")} }, "fine.percent"},
		"a fine of 10% in reais":       {100_000, func(tm *cobv.Terms) { tm.Fine = &cobv.Value{AmountCents: cents(10_000)} }, ""},
		"a fine above 10% in reais":    {100_000, func(tm *cobv.Terms) { tm.Fine = &cobv.Value{AmountCents: cents(10_001)} }, "fine.amount_cents"},
		"0.33% a day":                  {100_000, func(tm *cobv.Terms) { tm.Interest = &cobv.Interest{PercentPerDay: percent(t, "0.33")} }, ""},
		"0.34% a day":                  {100_000, func(tm *cobv.Terms) { tm.Interest = &cobv.Interest{PercentPerDay: percent(t, "0.34")} }, "interest.percent_per_day"},
		"100% a year":                  {100_000, func(tm *cobv.Terms) { tm.Interest = &cobv.Interest{PercentPerYear: percent(t, "100.00")} }, ""},
		"a day's interest in reais":    {100_000, func(tm *cobv.Terms) { tm.Interest = &cobv.Interest{AmountCentsPerDay: cents(333)} }, ""},
		"too much a day in reais":      {100_000, func(tm *cobv.Terms) { tm.Interest = &cobv.Interest{AmountCentsPerDay: cents(334)} }, "interest.amount_cents_per_day"},
		"the largest charge, a fine":   {store.MaxAmountCents, func(tm *cobv.Terms) { tm.Fine = &cobv.Value{Percent: percent(t, "0.01")} }, "fine"},
		"the largest charge, no terms": {store.MaxAmountCents, func(*cobv.Terms) {}, ""},
		"interest for ten years": {50_000_000, func(tm *cobv.Terms) {
			tm.DaysAfterDue = 3650
			tm.Interest = &cobv.Interest{PercentPerMonth: percent(t, "1.00")}
		}, "interest"},
		"API Pix's own rules first": {100_000, func(tm *cobv.Terms) { tm.DueDate = "2026-03-01" }, "due_date"},
	} {
		p := terms(c.amount, c.set)
		if c.param == "" {
			require.Nil(t, p, name)
			continue
		}
		require.NotNil(t, p, name)
		require.Equal(t, c.param, p.Param, name)
	}
}

// A CPF payer is a consumer: a fine above 2% or interest above 1% a month
// (however given) is said; at the limits, nothing.
func TestConsumerWarnings(t *testing.T) {
	cents := func(n int64) *int64 { return &n }
	require.Empty(t, operations.ConsumerWarnings(&cobv.Terms{Fine: &cobv.Value{Percent: percent(t, "2.00")},
		Interest: &cobv.Interest{PercentPerDay: percent(t, "0.03")}}, 100_000))
	require.Equal(t, []string{"fine", "interest"}, operations.ConsumerWarnings(&cobv.Terms{Fine: &cobv.Value{AmountCents: cents(2_001)},
		Interest: &cobv.Interest{PercentPerYear: percent(t, "13.00")}}, 100_000))
	require.Equal(t, []string{"interest"}, operations.ConsumerWarnings(&cobv.Terms{Interest: &cobv.Interest{AmountCentsPerDay: cents(34)}}, 100_000))
	require.Nil(t, operations.ConsumerWarnings(nil, 100))
}

// A key a person makes holds what they asked that their role may have.
func TestKeyPermissionsFor(t *testing.T) {
	require.Nil(t, operations.KeyPermissionsFor(store.RoleOwner, nil), "an owner's full key")
	require.Equal(t, []string{"withdrawals:write"}, operations.KeyPermissionsFor(store.RoleAdmin, []string{"withdrawals:write"}))
	require.Equal(t, []string{"balance:read", "disputes:write", "events:write", "payments:write", "refunds:read", "subaccounts:read", "webhooks:write", "withdrawals:read"},
		operations.KeyPermissionsFor(store.RoleDeveloper, nil))
	require.Equal(t, []string{"payments:read", "withdrawals:read"},
		operations.KeyPermissionsFor(store.RoleDeveloper, []string{"withdrawals:write", "payments:read", "withdrawals:read"}))
	require.Equal(t, []string{"refunds:write", "webhooks:read"}, operations.KeyPermissionsFor(store.RoleFinance, []string{"refunds:write", "webhooks:write"}))
}

// CreatePayment trusts no door: an amount or terms no door should have let
// through are refused by the operation itself, nothing stored.
func TestCreatePaymentChecksItsWholeInput(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, err := store.New(storetest.DB(t), store.Options{SecretKey: make([]byte, 32), Charges: store.Charges{
		Receiver: pix.Receiver{Key: "00000000-0000-4000-8000-000000000000", City: "SAO PAULO"}, BaseURL: "http://127.0.0.1:8080"}})
	require.NoError(t, err)
	ops := &operations.Operations{Store: st}
	acct, err := st.CreateAccount(ctx, store.NewAccount{Name: "Loja", Email: "loja@example.com"})
	require.NoError(t, err)
	fine := percent(t, "100.00")
	today := calendar.Today(st.Now())
	for param, in := range map[string]store.NewPayment{
		"amount_cents": {AmountCents: store.MaxAmountCents + 1},
		"fine.percent": {AmountCents: 100_000, DueTerms: &cobv.Terms{DueDate: today.AddDays(5).String(), Fine: &cobv.Value{Percent: fine}}},
	} {
		_, _, err := ops.CreatePayment(ctx, store.ActorSystem, acct, false, in, "", nil)
		var bad *operations.InputError
		require.True(t, errors.As(err, &bad), "%s: %v", param, err)
		require.Equal(t, param, bad.Param)
	}
	var n int
	require.NoError(t, st.DB().NewRaw("SELECT count(*) FROM payments").Scan(ctx, &n))
	require.Zero(t, n)
}
