package api_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"mime/multipart"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"payments/web/webtest"
)

// Evidence files as their first bytes make them (the service reads the
// type from the content, not from the name).
var (
	pdfEvidence = append([]byte("%PDF-1.7\n"), bytes.Repeat([]byte("boletim de ocorrência "), 50)...)
	pngEvidence = append([]byte("\x89PNG\r\n\x1a\n"), bytes.Repeat([]byte{0}, 300)...)
	gifEvidence = []byte("GIF89a not taken")
)

type evidenceFile struct {
	name    string
	content []byte
}

// defense posts text and files as multipart/form-data, as curl -F does.
func defense(s *webtest.Server, id, text string, files ...evidenceFile) *webtest.Response {
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	if text != "" {
		_ = w.WriteField("text", text)
	}
	for _, f := range files {
		part, _ := w.CreateFormFile("evidence", f.name)
		_, _ = part.Write(f.content)
	}
	_ = w.Close()
	return s.Do(webtest.Request{Method: "POST", Path: "/api/v1/disputes/" + id + "/defense", Key: s.TestKey, Body: body.Bytes(),
		Headers: map[string]string{"Content-Type": w.FormDataContentType()}})
}

// MED 2.0 for money received, in test mode: a payment reported twice by
// the payer's bank holds what each claims of what is left; the merchant
// answers one with text and evidence (under review, dispute.updated, the
// files listed and served back byte for byte), once, before its deadline;
// the money ends where the decisions say.
func TestDisputesHoldWhatTheyClaimAndTakeADefense(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	now := time.Date(2026, 3, 2, 15, 0, 0, 0, time.UTC)
	s := webtest.New(t, webtest.WithClock(func() time.Time { mu.Lock(); defer mu.Unlock(); return now }))
	post := func(path string, body any, want int) map[string]any {
		t.Helper()
		r := s.Do(webtest.Request{Method: "POST", Path: path, Key: s.TestKey, Body: body})
		require.Equal(t, want, r.Status, "%s: %s", path, r.Body)
		return r.JSON(t)
	}
	paid := s.Fund(s.TestKey, 10_000)
	post("/api/v1/payments/"+paid+"/refund", map[string]any{"amount_cents": 3_000}, http.StatusOK)
	first := post("/api/v1/test_helpers/payments/"+paid+"/dispute", map[string]any{"reason": "coercion", "amount_cents": 5_000}, http.StatusCreated)
	second := post("/api/v1/test_helpers/payments/"+paid+"/dispute", nil, http.StatusCreated)
	require.Equal(t, []any{"coercion", 5_000.0, 5_000.0, "blocked", nil, nil},
		[]any{first["reason"], first["amount_reported_cents"], first["amount_held_cents"], first["stage"], first["infraction_id"], first["defense"]})
	require.Equal(t, []any{10_000.0, 2_000.0, 2_000.0}, []any{second["amount_reported_cents"], second["amount_held_cents"], second["amount_cents"]},
		"the second holds what is left: 10.000 less 3.000 refunded less 5.000 held")
	require.Equal(t, []any{"2026-03-05T15:00:00.000Z", "2026-03-09T15:00:00.000Z", "2026-03-13T15:00:00.000Z"},
		[]any{first["respond_by"], first["analysis_deadline"], first["return_deadline"]}, "3 days to answer, 7 to analyse, 11 to return")
	bal := s.Do(webtest.Request{Method: "GET", Path: "/api/v1/balance", Key: s.TestKey}).JSON(t)
	require.EqualValues(t, 7_000, bal["pending_cents"])
	list := s.Do(webtest.Request{Method: "GET", Path: "/api/v1/disputes", Key: s.TestKey}).JSON(t)["data"].([]any)
	require.Len(t, list, 2, "a payment may have several disputes")

	id := first["id"].(string)
	answered := defense(s, id, "  O pagador autorizou a compra no app; seguem o comprovante e a tela.  ",
		evidenceFile{"comprovante.pdf", pdfEvidence}, evidenceFile{"C:\\prints\\tela.png", pngEvidence})
	require.Equal(t, http.StatusOK, answered.Status, "%s", answered.Body)
	d := answered.JSON(t)
	require.Equal(t, "under_review", d["stage"])
	def := d["defense"].(map[string]any)
	require.Equal(t, "O pagador autorizou a compra no app; seguem o comprovante e a tela.", def["text"])
	require.Equal(t, "2026-03-02T15:00:00.000Z", def["submitted_at"])
	evidence := def["evidence"].([]any)
	require.Len(t, evidence, 2)
	for i, want := range []evidenceFile{{"comprovante.pdf", pdfEvidence}, {"tela.png", pngEvidence}} {
		e := evidence[i].(map[string]any)
		sum := sha256.Sum256(want.content)
		require.Equal(t, []any{want.name, float64(len(want.content)), hex.EncodeToString(sum[:])}, []any{e["file_name"], e["size_bytes"], e["sha256"]})
		got := s.Do(webtest.Request{Method: "GET", Path: e["url"].(string), Key: s.TestKey})
		require.Equal(t, http.StatusOK, got.Status, "%s", got.Body)
		require.Equal(t, want.content, got.Body)
		require.Equal(t, e["content_type"], got.Header.Get("Content-Type"))
		require.Equal(t, `attachment; filename=`+want.name, got.Header.Get("Content-Disposition"))
		require.Equal(t, "nosniff", got.Header.Get("X-Content-Type-Options"))
	}
	require.Equal(t, []string{"dispute.opened", "dispute.updated"}, s.EventTypes(id))
	require.Equal(t, d, s.Do(webtest.Request{Method: "GET", Path: "/api/v1/disputes/" + id, Key: s.TestKey}).JSON(t), "the dispute as read")

	again := defense(s, id, "De novo.")
	require.Equal(t, http.StatusConflict, again.Status)
	require.Equal(t, "dispute_defended", again.ErrorCode(t))

	// The other: refused as sent, then answered as JSON, without files.
	other := second["id"].(string)
	for _, bad := range []struct {
		text        string
		files       []evidenceFile
		code, param string
	}{
		{"", nil, "parameter_missing", "text"},
		{"Tela do app.", []evidenceFile{{"tela.pdf", gifEvidence}}, "file_type_invalid", "evidence[0]"},
		{"Tela do app.", []evidenceFile{{"a.pdf", pdfEvidence}, {"b.pdf", pdfEvidence}, {"c.pdf", pdfEvidence}, {"d.pdf", pdfEvidence},
			{"e.pdf", pdfEvidence}, {"f.pdf", pdfEvidence}}, "parameter_invalid", "evidence"},
		{string(bytes.Repeat([]byte("x"), 5001)), nil, "parameter_too_long", "text"},
	} {
		r := defense(s, other, bad.text, bad.files...)
		require.Equal(t, http.StatusBadRequest, r.Status, "%s", r.Body)
		require.Equal(t, []string{bad.code, bad.param}, []string{r.ErrorCode(t), r.ErrorParam(t)})
	}
	require.Equal(t, "blocked", s.Do(webtest.Request{Method: "GET", Path: "/api/v1/disputes/" + other, Key: s.TestKey}).JSON(t)["stage"],
		"a refused defense changes nothing")
	jsonDefense := post("/api/v1/disputes/"+other+"/defense", map[string]any{"text": "Compra entregue; rastreio BR123."}, http.StatusOK)
	require.Equal(t, []any{}, jsonDefense["defense"].(map[string]any)["evidence"])

	// Past its deadline, a third one takes no defense.
	third := post("/api/v1/test_helpers/payments/"+s.Fund(s.TestKey, 1_000)+"/dispute", nil, http.StatusCreated)
	mu.Lock()
	now = now.Add(3*24*time.Hour + time.Second)
	mu.Unlock()
	late := defense(s, third["id"].(string), "Tarde demais.")
	require.Equal(t, http.StatusConflict, late.Status)
	require.Equal(t, "dispute_deadline_passed", late.ErrorCode(t))

	// Decided: the first lost (its 5.000 go back to the payer), the second won.
	lost := post("/api/v1/test_helpers/disputes/"+id+"/lose", nil, http.StatusOK)
	require.Equal(t, []any{"lost", "decided"}, []any{lost["status"], lost["stage"]})
	require.Len(t, lost["defense"].(map[string]any)["evidence"], 2, "a decided dispute keeps its defense's files")
	events := s.Do(webtest.Request{Method: "GET", Path: "/api/v1/events?type=dispute.lost", Key: s.TestKey}).JSON(t)["data"].([]any)
	snapshot := events[0].(map[string]any)["data"].(map[string]any)["object"].(map[string]any)
	require.Equal(t, lost["defense"], snapshot["defense"], "the event carries the dispute whole, its files with it")
	post("/api/v1/test_helpers/disputes/"+other+"/win", nil, http.StatusOK)
	p := s.Do(webtest.Request{Method: "GET", Path: "/api/v1/payments/" + paid, Key: s.TestKey}).JSON(t)
	require.EqualValues(t, 8_000, p["amount_refunded_cents"], "3.000 refunded and the 5.000 the lost dispute held")
	bal = s.Do(webtest.Request{Method: "GET", Path: "/api/v1/balance", Key: s.TestKey}).JSON(t)
	require.EqualValues(t, 1_000, bal["pending_cents"], "only the third's hold is left")
}
