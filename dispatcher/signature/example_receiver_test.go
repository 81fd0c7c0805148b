package signature_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"payments/dispatcher/signature"
)

// orders stands in for the receiver's own database: external_id -> amount and state.
type orders map[string]*order

type order struct {
	AmountCents int64
	Paid        bool
}

// webhookHandler follows the seed's receiver checklist (section 6.6).
func webhookHandler(secret string, db orders) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if err != nil {
			http.Error(w, "read error", http.StatusBadRequest)
			return
		}
		// 1. Validate the HMAC signature over the raw body.
		if err := signature.Verify(body, r.Header.Get(signature.Header), secret, signature.DefaultTolerance); err != nil {
			http.Error(w, "bad signature", http.StatusBadRequest)
			return
		}
		var event struct {
			ID   string `json:"id"`
			Type string `json:"type"`
			Data struct {
				Object struct {
					Status      string `json:"status"`
					AmountCents int64  `json:"amount_cents"`
					ExternalID  string `json:"external_id"`
				} `json:"object"`
			} `json:"data"`
		}
		if err := json.Unmarshal(body, &event); err != nil {
			http.Error(w, "bad json", http.StatusBadRequest)
			return
		}
		// 2. Check the event type. Other types are acknowledged and ignored.
		if event.Type != "payment.paid" {
			w.WriteHeader(http.StatusOK)
			return
		}
		// 3. Check status and amount against the order; 4. mark it paid by external_id.
		p := event.Data.Object
		o, ok := db[p.ExternalID]
		if !ok || p.Status != "paid" || p.AmountCents != o.AmountCents {
			http.Error(w, "does not match an order", http.StatusUnprocessableEntity)
			return
		}
		o.Paid = true // idempotent: a redelivery (same X-Service-Event-Id) changes nothing
		// 5. Answer 200.
		w.WriteHeader(http.StatusOK)
	}
}

func Example_receiver() {
	secret := "whsec_example_secret"
	db := orders{"order-1001": {AmountCents: 12990}}
	srv := httptest.NewServer(webhookHandler(secret, db))
	defer srv.Close()

	// What the service sends for a paid payment (v2 envelope).
	body := []byte(`{"id":"evt_1","type":"payment.paid","api_version":"v2","created":1700000000,` +
		`"created_at":"2023-11-14T22:13:20.000Z","livemode":false,"data":{"object":{"id":"p1","status":"paid",` +
		`"amount_cents":12990,"external_id":"order-1001"}},"source":"service"}`)
	send := func(header string) int {
		req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(string(body)))
		req.Header.Set(signature.Header, header)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0
		}
		res.Body.Close()
		return res.StatusCode
	}
	fmt.Println("forged:", send("t=1700000000,v1=00"), db["order-1001"].Paid)
	fmt.Println("signed:", send(signature.Sign(body, time.Now(), secret)), db["order-1001"].Paid)
	// Output:
	// forged: 400 false
	// signed: 200 true
}
