package reports

import (
	"context"
	"strings"
	"time"

	"github.com/google/uuid"

	"payments/pix"
	"payments/store"
)

// What each report holds: its columns (a key for CSV's header, a title in
// Portuguese for the spreadsheet's) and its rows, read a page at a time.

type kind int

const (
	text     kind = iota // a string; nil is empty
	integer              // an int64: cents, counts
	money                // an int64 of cents, written in reais
	instant              // a *time.Time, in the report's zone; nil is empty
	day                  // a *time.Time holding a calendar date (a due date); nil is empty
	document             // a string that may be a CPF or CNPJ (a payer's, a Pix key): text that looks like a number
)

type column struct {
	key, title string
	kind       kind
}

// table is a report's columns and the sheet it makes.
type table struct {
	sheet   string
	columns []column
}

// emit receives one row's cells, in the table's column order.
type emit func(cells []any) error

func str(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// twice is a money column as cents and as reais.
func twice(key, title string) []column {
	return []column{{key + "_cents", title + " (centavos)", integer}, {key, title + " (R$)", money}}
}

func cols(groups ...[]column) []column {
	var out []column
	for _, g := range groups {
		out = append(out, g...)
	}
	return out
}

var paymentsTable = table{sheet: "Pagamentos", columns: cols(
	[]column{{"id", "ID do pagamento", text}, {"created_at", "Criado em", instant}, {"status", "Status", text},
		{"external_id", "ID externo", text}, {"txid", "txid", text}, {"end_to_end_id", "ID fim a fim (E2E)", text},
		{"description", "Descrição", text}},
	twice("amount", "Valor cobrado"), twice("amount_paid", "Valor recebido"), twice("fee", "Tarifa"),
	twice("amount_refunded", "Devolvido"), twice("fee_refunded", "Tarifa devolvida"), twice("net", "Líquido"),
	[]column{{"payer_name", "Pagador", text}, {"payer_document", "CPF/CNPJ do pagador", document},
		{"paid_at", "Pago em", instant}, {"expires_at", "Expira em", instant}, {"subscription_id", "Assinatura", text},
		// Added after the columns above: a CSV read by position keeps them.
		{"due_date", "Vencimento", day}},
	// A split charge's parts: what went to other accounts in all, and to
	// whom ("acct_… 30,00; acct_… 11,87").
	twice("split", "Repassado em divisões"), []column{{"splits", "Divisões", text}},
)}

// splitCells are a payment's parts in all, and one by one as the report
// shows them.
func splitCells(p *store.Payment) (int64, string) {
	var total int64
	var each []string
	for i, part := range p.SplitParts() {
		total += part
		each = append(each, p.Splits[i].Account+" "+strings.TrimPrefix(pix.FormatBRL(part), "R$ "))
	}
	return total, strings.Join(each, "; ")
}

// paymentCells: what a payment received counts once it was paid; its fee
// and net are the API's (fee_cents and net_cents: what it costs and leaves
// the merchant, before it is paid too).
func paymentCells(p *store.PaymentReportRow) []any {
	var paid int64
	if p.PaidAt != nil {
		paid = p.ReceivedCents()
	}
	net := p.NetCents()
	var payer, document string
	if p.Customer != nil {
		payer, document = p.Customer.Name, p.Customer.Document
	}
	split, splits := splitCells(&p.Payment)
	return []any{p.ID.String(), &p.CreatedAt, p.Status, str(p.ExternalID), p.CorrelationID, str(p.EndToEndID), str(p.Description),
		p.AmountCents, p.AmountCents, paid, paid, p.FeeCents, p.FeeCents, p.AmountRefundedCents, p.AmountRefundedCents,
		p.FeeRefundedCents, p.FeeRefundedCents, net, net, payer, document, p.PaidAt, &p.ExpiresAt, str(p.SubscriptionID), p.DueDate,
		split, split, splits}
}

func readPayments(ctx context.Context, st *store.Store, r *store.Report, out emit) (int64, error) {
	return readPages(func(cursor uuid.UUID) ([]store.PaymentReportRow, error) { return st.ReportPayments(ctx, r, cursor) },
		func(p *store.PaymentReportRow) uuid.UUID { return p.ID }, paymentCells, out)
}

var refundsTable = table{sheet: "Devoluções", columns: cols(
	[]column{{"id", "ID da devolução", text}, {"created_at", "Criada em", instant}, {"status", "Status", text},
		{"payment_id", "ID do pagamento", text}, {"external_id", "ID externo", text}, {"txid", "txid", text},
		{"end_to_end_id", "ID fim a fim (E2E) do Pix devolvido", text}, {"return_id", "ID da devolução no PSP (rtrId)", text}},
	twice("amount", "Valor devolvido"), twice("fee_returned", "Tarifa devolvida"), twice("net", "Líquido"),
	[]column{{"reason", "Motivo", text}, {"description", "Descrição", text}, {"completed_at", "Concluída em", instant},
		{"failure_reason", "Motivo da falha", text}},
)}

func refundCells(r *store.RefundReportRow) []any {
	net := -r.AmountCents + r.FeeCents
	return []any{r.ID, &r.CreatedAt, r.Status, r.PaymentID.String(), str(r.PaymentExternalID), r.PaymentTxID,
		str(r.EndToEndID), str(r.ReturnID), r.AmountCents, r.AmountCents, r.FeeCents, r.FeeCents, net, net,
		r.Reason, str(r.Description), r.CompletedAt, str(r.FailureReason)}
}

func readRefunds(ctx context.Context, st *store.Store, r *store.Report, out emit) (int64, error) {
	return readPages(func(cursor string) ([]store.RefundReportRow, error) { return st.ReportRefunds(ctx, r, cursor) },
		func(x *store.RefundReportRow) string { return x.ID }, refundCells, out)
}

var payoutsTable = table{sheet: "Saques", columns: cols(
	[]column{{"id", "ID do saque", text}, {"created_at", "Criado em", instant}, {"status", "Status", text}},
	twice("amount", "Valor"),
	[]column{{"pix_key", "Chave Pix", document}, {"pix_key_type", "Tipo da chave", text}, {"end_to_end_id", "ID fim a fim (E2E)", text},
		{"description", "Descrição", text}, {"completed_at", "Concluído em", instant}, {"failed_at", "Falhou em", instant},
		{"failure_reason", "Motivo da falha", text}},
)}

func payoutCells(w *store.Withdrawal) []any {
	return []any{w.ID, &w.CreatedAt, w.Status, w.AmountCents, w.AmountCents, w.PixKey, w.PixKeyType, str(w.EndToEndID),
		str(w.Description), w.CompletedAt, w.FailedAt, str(w.FailureReason)}
}

func readPayouts(ctx context.Context, st *store.Store, r *store.Report, out emit) (int64, error) {
	return readPages(func(cursor string) ([]store.Withdrawal, error) { return st.ReportPayouts(ctx, r, cursor) },
		func(w *store.Withdrawal) string { return w.ID }, payoutCells, out)
}

// readPages reads a report's rows a page at a time, each page after the
// last row's key, and emits each row's cells; it returns how many.
func readPages[R any, K any](page func(after K) ([]R, error), key func(*R) K, cells func(*R) []any, out emit) (int64, error) {
	var n int64
	var after K
	for {
		rows, err := page(after)
		if err != nil {
			return n, err
		}
		for i := range rows {
			if err := out(cells(&rows[i])); err != nil {
				return n, err
			}
			n++
		}
		if len(rows) < store.ReportPageSize {
			return n, nil
		}
		after = key(&rows[len(rows)-1])
	}
}

var ledgerTable = table{sheet: "Extrato", columns: cols(
	[]column{{"id", "ID do lançamento", integer}, {"created_at", "Data", instant}, {"balance", "Saldo", text},
		{"type", "Tipo", text}},
	twice("amount", "Valor"), twice("running_balance", "Saldo após"),
	[]column{{"source_id", "Origem", text}, {"payment_id", "ID do pagamento", text}, {"external_id", "ID externo", text},
		{"txid", "txid", text}, {"end_to_end_id", "ID fim a fim (E2E)", text}, {"description", "Descrição", text},
		{"pix_key", "Chave Pix do saque", document}},
)}

// ledgerLine is an entry of the report's period with the running balance
// (of the entry's own balance, available or pending) after it.
type ledgerLine struct {
	*store.LedgerReportRow
	running int64
}

func ledgerCells(l ledgerLine) []any {
	paymentID := ""
	if l.PaymentID != nil {
		paymentID = l.PaymentID.String()
	}
	e2e := l.PaymentEndToEndID
	if l.WithdrawalE2E != nil {
		e2e = l.WithdrawalE2E
	}
	return []any{l.ID, &l.CreatedAt, l.Balance, l.Type, l.AmountCents, l.AmountCents, l.running, l.running,
		l.SourceID, paymentID, str(l.PaymentExternalID), str(l.PaymentTxID), str(e2e), str(l.PaymentDesc), str(l.WithdrawalPixKey)}
}

// readLedger calls out with each entry of the report's period, in the
// order they were written, with the running balances from opening.
func readLedger(ctx context.Context, st *store.Store, r *store.Report, opening [2]int64, out func(ledgerLine) error) (int64, error) {
	cursor, err := st.LedgerStart(ctx, r)
	if err != nil {
		return 0, err
	}
	running := map[string]int64{store.BalanceAvailable: opening[0], store.BalancePending: opening[1]}
	var n int64
	for {
		rows, done, err := st.ReportLedger(ctx, r, cursor)
		if err != nil {
			return n, err
		}
		for i := range rows {
			e := &rows[i]
			if e.CreatedAt.Before(r.PeriodStart) || !e.CreatedAt.Before(r.PeriodEnd) {
				continue
			}
			running[e.Balance] += e.AmountCents
			if err := out(ledgerLine{e, running[e.Balance]}); err != nil {
				return n, err
			}
			n++
		}
		if done {
			return n, nil
		}
		cursor = rows[len(rows)-1].ID
	}
}

// zoneOf is the report's time zone (UTC when it no longer loads).
func zoneOf(r *store.Report) *time.Location {
	if loc, err := time.LoadLocation(r.TimeZone); err == nil {
		return loc
	}
	return time.UTC
}
