package web_test

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/ledongthuc/pdf"
	"github.com/stretchr/testify/require"

	"payments/web/webtest"
)

// A paid charge has the payer's receipt, as a page and as a PDF that
// another library reads back: receiver (its CNPJ whole), payer (CPF
// masked), amount, date and time in Brasília, the Banco Central's
// end-to-end id and the txid. An unpaid charge has none (the payer's error
// page, in words); the links are on the paid checkout and the dashboard's
// payment.
func TestLiveReceiptPageAndPDF(t *testing.T) {
	t.Parallel()
	s := webtest.New(t, webtest.WithPSP(webtest.PSPOptions{}))
	ctx := context.Background()
	_, err := s.Store.DB().NewRaw("UPDATE accounts SET name = 'Padaria Pão Quente', document = '11222333000181', time_zone = 'America/Manaus' WHERE id = ?",
		s.Account.ID).Exec(ctx)
	require.NoError(t, err)
	p := s.CreateLivePayment(map[string]any{"amount_cents": 12_345, "description": "Pães e café",
		"customer": map[string]any{"name": "João da Silva", "email": "joao@example.com", "document": "529.982.247-25"}})
	id := p["id"].(string)

	for _, path := range []string{"/pay/" + id + "/receipt", "/pay/" + id + "/receipt.pdf"} {
		unpaid := s.DoRaw(webtest.Request{Method: "GET", Path: path})
		require.Equal(t, http.StatusNotFound, unpaid.Status, path)
		require.Contains(t, string(unpaid.Body), `data-testid="error-page"`, path)
		require.Contains(t, string(unpaid.Body), "Este pagamento ainda não tem comprovante: ele é emitido quando o Pix é recebido.", path)
	}

	pix := s.PSP.Pay(p["correlation_id"].(string))
	s.WaitForPayment(s.LiveKey, id, "paid", 10*time.Second)
	settled, err := time.Parse(time.RFC3339, pix.Horario)
	require.NoError(t, err)
	brasilia, err := time.LoadLocation("America/Sao_Paulo")
	require.NoError(t, err)
	when := settled.In(brasilia).Format("02/01/2006 15:04:05") + " (horário de Brasília)"

	want := map[string]string{
		"receipt-amount":            "R$ 123,45",
		"receipt-paid-at":           when,
		"receipt-receiver":          "Padaria Pão Quente",
		"receipt-receiver-document": "11.222.333/0001-81",
		"receipt-payer":             "João da Silva",
		"receipt-payer-document":    "***.982.247-**",
		"receipt-description":       "Pães e café",
		"receipt-e2e":               pix.EndToEndID,
		"receipt-txid":              p["correlation_id"].(string),
		"receipt-payment-id":        id,
	}
	page := s.DoRaw(webtest.Request{Method: "GET", Path: "/pay/" + id + "/receipt"})
	require.Equal(t, http.StatusOK, page.Status, "%s", page.Body)
	require.Equal(t, "no-store", page.Header.Get("Cache-Control"))
	require.Equal(t, "noindex", page.Header.Get("X-Robots-Tag"))
	doc, err := goquery.NewDocumentFromReader(bytes.NewReader(page.Body))
	require.NoError(t, err)
	for testID, value := range want {
		require.Equal(t, value, strings.TrimSpace(doc.Find(`[data-testid="`+testID+`"]`).Text()), testID)
	}
	require.Zero(t, doc.Find(`[data-testid="receipt-test"]`).Length(), "a live receipt is not marked as a test")
	require.Equal(t, "/pay/"+id+"/receipt.pdf", doc.Find(`[data-testid="receipt-pdf"]`).AttrOr("href", ""))
	require.NotContains(t, string(page.Body), "52998224725", "the payer's CPF never whole")

	file := s.DoRaw(webtest.Request{Method: "GET", Path: "/pay/" + id + "/receipt.pdf"})
	require.Equal(t, http.StatusOK, file.Status, "%s", file.Body)
	require.Equal(t, "application/pdf", file.Header.Get("Content-Type"))
	require.Equal(t, `inline; filename="comprovante-`+id+`.pdf"`, file.Header.Get("Content-Disposition"))
	require.Equal(t, "no-store", file.Header.Get("Cache-Control"))
	require.Equal(t, "noindex", file.Header.Get("X-Robots-Tag"))
	text := pdfText(t, file.Body)
	require.Contains(t, text, "Comprovante de pagamento Pix")
	for testID, value := range want {
		require.Contains(t, text, value, testID)
	}
	require.NotContains(t, text, "52998224725")

	checkout := s.DoRaw(webtest.Request{Method: "GET", Path: "/pay/" + id})
	require.Contains(t, string(checkout.Body), `href="/pay/`+id+`/receipt"`, "the paid checkout links its receipt")

	en := s.DoRaw(webtest.Request{Method: "GET", Path: "/pay/" + id + "/receipt", Headers: map[string]string{"Accept-Language": "en"}})
	require.Contains(t, string(en.Body), "PIX payment receipt")
	require.Contains(t, string(en.Body), settled.In(brasilia).Format("02/01/2006 15:04:05")+" (Brasília time)", "Brasília's time in any language")
}

// A test payment's receipt says no money moved and has no end-to-end id;
// the dashboard's payment page links it.
func TestTestReceiptIsMarkedAndLinkedFromTheDashboard(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	r := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/payments", Key: s.TestKey, Body: map[string]any{"amount_cents": 500}})
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	id := r.JSON(t)["id"].(string)
	require.Equal(t, http.StatusOK, s.Do(webtest.Request{Method: "POST", Path: "/api/v1/test_helpers/payments/" + id + "/pay", Key: s.TestKey}).Status)

	page := s.DoRaw(webtest.Request{Method: "GET", Path: "/pay/" + id + "/receipt"})
	require.Equal(t, http.StatusOK, page.Status, "%s", page.Body)
	doc, err := goquery.NewDocumentFromReader(bytes.NewReader(page.Body))
	require.NoError(t, err)
	require.Equal(t, "Pagamento de teste: nenhum dinheiro foi movimentado.", strings.TrimSpace(doc.Find(`[data-testid="receipt-test"]`).Text()))
	require.Equal(t, "Não há: pagamento de teste", strings.TrimSpace(doc.Find(`[data-testid="receipt-e2e"]`).Text()))
	require.Equal(t, "Não informado", strings.TrimSpace(doc.Find(`[data-testid="receipt-payer"]`).Text()))
	require.Zero(t, doc.Find(`[data-testid="receipt-receiver-document"]`).Length(), "an account without a document shows none")
	text := pdfText(t, s.DoRaw(webtest.Request{Method: "GET", Path: "/pay/" + id + "/receipt.pdf"}).Body)
	require.Contains(t, text, "Pagamento de teste: nenhum dinheiro foi movimentado.")

	ownerFor(t, s, s.Account.ID, "dona@example.com")
	b := newBrowser(t, s)
	b.login("dona@example.com", "correct-horse-battery")
	detail := b.do("GET", "/dashboard/payments/"+id, nil, nil)
	require.Equal(t, "/pay/"+id+"/receipt", detail.doc.Find(`[data-testid="payment-receipt"]`).AttrOr("href", ""))
	require.Equal(t, "/pay/"+id+"/receipt.pdf", detail.doc.Find(`[data-testid="payment-receipt-pdf"]`).AttrOr("href", ""))
}

// pdfText is the text of a PDF as a reader other than the one that wrote
// it extracts it.
func pdfText(t *testing.T, file []byte) string {
	t.Helper()
	r, err := pdf.NewReader(bytes.NewReader(file), int64(len(file)))
	require.NoError(t, err, "a PDF another library opens")
	require.Equal(t, 1, r.NumPage())
	var b strings.Builder
	rows, err := r.Page(1).GetTextByRow()
	require.NoError(t, err)
	for _, row := range rows {
		for _, word := range row.Content {
			b.WriteString(word.S)
		}
		b.WriteString("\n")
	}
	return b.String()
}
