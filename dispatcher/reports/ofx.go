package reports

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/big"
	"strings"
	"time"

	"github.com/aclindsa/ofxgo"
	"github.com/aclindsa/xml"

	"payments/store"
)

// The ledger as an OFX 2.2 bank statement of the available balance, the
// money an accounting or bank-reconciliation program matches against the
// bank: each entry a STMTTRN (FITID its ledger id), LEDGERBAL and
// AVAILBAL the available balance at the period's end. Entries of the
// pending balance (money a dispute holds) are not in it: the CSV and XLSX
// ledger have them.
//
// ofxgo marshals whole responses in memory; the statement is made with it
// around an empty transaction list, and the transactions, each one
// ofxgo.Transaction encoded as ofxgo would, are written between as they
// are read.

// ofxBankID names the service as the statement's bank (an OFX BANKID is
// required; ours is no bank's routing number).
const ofxBankID = "PIX-PAYMENTS"

type ofxStatement struct {
	w      io.Writer
	enc    *xml.Encoder
	suffix []byte
	zone   *time.Location
	// count is the transactions written (the available balance's entries).
	count int64
}

func newOFX(w io.Writer, r *store.Report, zone *time.Location, closing int64, now time.Time) (*ofxStatement, error) {
	cur, err := ofxgo.NewCurrSymbol("BRL")
	if err != nil {
		return nil, err
	}
	stmt := &ofxgo.StatementResponse{
		TrnUID: ofxgo.UID(r.ID),
		Status: ofxgo.Status{Code: 0, Severity: "INFO"},
		CurDef: *cur,
		BankAcctFrom: ofxgo.BankAcct{BankID: ofxBankID, AcctID: ofxgo.String(r.AccountID),
			AcctType: ofxgo.AcctTypeChecking},
		BankTranList: &ofxgo.TransactionList{DtStart: ofxDate(r.PeriodStart, zone), DtEnd: ofxDate(r.PeriodEnd, zone)},
		BalAmt:       amount(closing),
		DtAsOf:       ofxDate(r.PeriodEnd, zone),
	}
	avail, asOf := amount(closing), ofxDate(r.PeriodEnd, zone)
	stmt.AvailBalAmt, stmt.AvailDtAsOf = &avail, &asOf
	resp := ofxgo.Response{
		Version: ofxgo.OfxVersion220,
		Signon: ofxgo.SignonResponse{Status: ofxgo.Status{Code: 0, Severity: "INFO"}, DtServer: ofxDate(now, zone),
			Language: "POR", Org: "Pix Payments", Fid: ofxBankID},
		Bank: []ofxgo.Message{stmt},
	}
	doc, err := resp.Marshal()
	if err != nil {
		return nil, fmt.Errorf("reports: ofx statement: %w", err)
	}
	head, tail, ok := bytes.Cut(doc.Bytes(), []byte("</BANKTRANLIST>"))
	if !ok {
		return nil, errors.New("reports: ofx statement: no transaction list")
	}
	if _, err := w.Write(head); err != nil {
		return nil, err
	}
	o := &ofxStatement{w: w, enc: xml.NewEncoder(w), suffix: append([]byte("</BANKTRANLIST>"), tail...), zone: zone}
	o.enc.Indent("\t\t\t\t", "    ")
	return o, nil
}

// ofxKind sets how a bank statement names the kind of entry.
func ofxKind(entryType string, tx *ofxgo.Transaction) {
	switch entryType {
	case store.EntryPayment, store.EntryFeeRefund, store.EntryRefundReversal, store.EntryDisputeRelease:
		tx.TrnType = ofxgo.TrnTypeCredit
	case store.EntryFee, store.EntryFeeRefundReversal:
		tx.TrnType = ofxgo.TrnTypeFee
	case store.EntryRefund, store.EntryDisputeHold, store.EntryDisputeLoss:
		tx.TrnType = ofxgo.TrnTypeDebit
	case store.EntryWithdrawal, store.EntryWithdrawalReversal:
		tx.TrnType = ofxgo.TrnTypeXfer
	default:
		tx.TrnType = ofxgo.TrnTypeOther
	}
}

// ofxNames are the entries' names on the statement, in Portuguese.
var ofxNames = map[string]string{
	store.EntryPayment: "Pix recebido", store.EntryFee: "Tarifa", store.EntryRefund: "Devolucao Pix",
	store.EntryFeeRefund: "Tarifa devolvida", store.EntryRefundReversal: "Devolucao nao realizada",
	store.EntryFeeRefundReversal: "Tarifa da devolucao nao realizada", store.EntryDisputeHold: "Disputa: valor retido",
	store.EntryDisputeRelease: "Disputa ganha: valor liberado", store.EntryDisputeLoss: "Disputa perdida",
	store.EntryWithdrawal: "Saque Pix", store.EntryWithdrawalReversal: "Saque nao realizado",
}

func (o *ofxStatement) entry(l ledgerLine) error {
	if l.Balance != store.BalanceAvailable {
		return nil
	}
	tx := ofxgo.Transaction{
		DtPosted: ofxDate(l.CreatedAt, o.zone), TrnAmt: amount(l.AmountCents),
		FiTID: ofxgo.String(fmt.Sprint(l.ID)), Name: ofxgo.String(ofxNames[l.Type]), Memo: ofxgo.String(ofxMemo(l)),
	}
	ofxKind(l.Type, &tx)
	if l.PaymentTxID != nil {
		tx.RefNum = ofxgo.String(*l.PaymentTxID)
	}
	if _, err := o.w.Write([]byte("\n")); err != nil {
		return err
	}
	if err := o.enc.Encode(&tx); err != nil {
		return fmt.Errorf("reports: ofx transaction: %w", err)
	}
	o.count++
	return o.enc.Flush()
}

// ofxMemo is what the entry is about, keyed as an accountant matches it.
func ofxMemo(l ledgerLine) string {
	parts := []string{l.Type, l.SourceID}
	if l.PaymentID != nil && l.PaymentID.String() != l.SourceID {
		parts = append(parts, "pagamento "+l.PaymentID.String())
	}
	if l.PaymentExternalID != nil {
		parts = append(parts, "externo "+*l.PaymentExternalID)
	}
	if e2e := l.PaymentEndToEndID; e2e != nil {
		parts = append(parts, "E2E "+*e2e)
	} else if l.WithdrawalE2E != nil {
		parts = append(parts, "E2E "+*l.WithdrawalE2E)
	}
	return strings.Join(parts, " | ")
}

func (o *ofxStatement) close() error {
	if _, err := o.w.Write([]byte("\n\t\t\t\t")); err != nil {
		return err
	}
	_, err := o.w.Write(o.suffix)
	return err
}

func amount(cents int64) ofxgo.Amount {
	var a ofxgo.Amount
	a.Rat = *big.NewRat(cents, 100)
	return a
}

func ofxDate(t time.Time, zone *time.Location) ofxgo.Date {
	return ofxgo.Date{Time: t.In(zone)}
}
