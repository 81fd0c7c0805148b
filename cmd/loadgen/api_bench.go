package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/valyala/fasthttp"

	"payments/store"
	"payments/store/ids"
)

// apiClient calls the service with the benchmark's test key. It uses
// fasthttp's client, whose lower cost per request leaves more of the
// machine's two cores to the service and PostgreSQL being measured.
type apiClient struct {
	base, key string
	http      *fasthttp.Client
	// webhookFilter is the payload filter its webhooks get ("": none).
	webhookFilter string
}

// filterField is the webhook body's filter member, with its comma ("" for none).
func (a *apiClient) filterField() string {
	if a.webhookFilter == "" {
		return ""
	}
	return fmt.Sprintf(`, "filter": %q`, a.webhookFilter)
}

func newAPIClient(base, key string) *apiClient {
	return &apiClient{base: base, key: key, http: &fasthttp.Client{
		MaxConnsPerHost: 256, ReadTimeout: 30 * time.Second, WriteTimeout: 30 * time.Second,
	}}
}

func (a *apiClient) do(method, path string, body []byte, want int) ([]byte, error) {
	req := fasthttp.AcquireRequest()
	res := fasthttp.AcquireResponse()
	defer fasthttp.ReleaseRequest(req)
	defer fasthttp.ReleaseResponse(res)
	req.SetRequestURI(a.base + path)
	req.Header.SetMethod(method)
	req.Header.Set("Authorization", "Bearer "+a.key)
	if body != nil {
		req.Header.SetContentType("application/json")
		req.SetBody(body)
	}
	if err := a.http.Do(req, res); err != nil {
		return nil, err
	}
	out := bytes.Clone(res.Body())
	if res.StatusCode() != want {
		return nil, fmt.Errorf("%s %s: %d %s", method, path, res.StatusCode(), out)
	}
	return out, nil
}

// create POSTs body to path, expects 201 and returns the new object's id
// and its JSON.
func (a *apiClient) create(path string, body []byte) (string, []byte, error) {
	out, err := a.do("POST", path, body, http.StatusCreated)
	if err != nil {
		return "", nil, err
	}
	var obj struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(out, &obj); err != nil {
		return "", nil, err
	}
	return obj.ID, out, nil
}

// createBody carries a customer, as most charges do: their indexes (the
// name's, the e-mail's, the document's) are written by every creation.
var createBody = []byte(`{"amount_cents": 1990, "description": "Camiseta", "metadata": {"order": "bench"},
	"customer": {"name": "João da Silva", "email": "joao@example.com", "document": "52998224725"}}`)

// benchCreate measures POST /api/v1/payments and returns the ids it made.
func benchCreate(api *apiClient, c int, d time.Duration) (result, []string) {
	return benchCreateBody(api, createBody, c, d)
}

// benchCreateBody is benchCreate with body.
func benchCreateBody(api *apiClient, body []byte, c int, d time.Duration) (result, []string) {
	var mu sync.Mutex
	var ids []string
	r := closedLoop(c, d, func(int, int) error {
		id, _, err := api.create("/api/v1/payments", body)
		if err != nil {
			return err
		}
		mu.Lock()
		ids = append(ids, id)
		mu.Unlock()
		return nil
	})
	return r, ids
}

// benchCreateSQL is the ceiling for create: a payment built as the service
// builds one, its row written with the service's own insert and its
// payment.created event beside it, in one transaction, straight over SQL.
func benchCreateSQL(ctx context.Context, pool *pgxpool.Pool, st *store.Store, acct *store.Account, snapshot []byte,
	c int, d time.Duration,
) result {
	description := "Camiseta"
	in := store.NewPayment{AmountCents: 1990, Description: &description, Metadata: map[string]string{"order": "bench"}}
	return closedLoop(c, d, func(int, int) error {
		p, err := st.BuildPayment(acct, false, in)
		if err != nil {
			return err
		}
		tx, err := pool.Begin(ctx)
		if err != nil {
			return err
		}
		defer tx.Rollback(ctx) //nolint:errcheck // after Commit it is a no-op
		insert, args := store.PaymentRowInsert(p)
		if _, err = tx.Exec(ctx, insert, args...); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `INSERT INTO events (id, account_id, livemode, type, object_id, data, created_at)
			VALUES ($1, $2, false, 'payment.created', $3, $4, $5)`,
			ids.New(ids.PrefixEvent), acct.ID, p.ID.String(), string(snapshot), p.CreatedAt)
		if err != nil {
			return err
		}
		return tx.Commit(ctx)
	})
}

// benchGet measures GET /api/v1/payments/{id} over ids.
func benchGet(api *apiClient, ids []string, c int, d time.Duration) result {
	return closedLoop(c, d, func(w, i int) error {
		_, err := api.do("GET", "/api/v1/payments/"+ids[(w*7919+i)%len(ids)], nil, http.StatusOK)
		return err
	})
}

// benchGetSQL is the ceiling for get: one single-row SELECT by primary key.
func benchGetSQL(ctx context.Context, pool *pgxpool.Pool, ids []string, c int, d time.Duration) result {
	return closedLoop(c, d, func(w, i int) error {
		rows, err := pool.Query(ctx, `SELECT * FROM payments WHERE id = $1`, ids[(w*7919+i)%len(ids)])
		if err != nil {
			return err
		}
		defer rows.Close()
		n := 0
		for rows.Next() {
			if _, err := rows.Values(); err != nil {
				return err
			}
			n++
		}
		if n != 1 {
			return fmt.Errorf("found %d rows", n)
		}
		return rows.Err()
	})
}

// splitCreateBody is createBody split three ways, to three subaccounts it
// makes: 10% and 5% (the second bearing its share of the fee) and R$ 1,00
// fixed, as a marketplace's charge would be.
func splitCreateBody(api *apiClient) ([]byte, error) {
	var sellers []string
	for i := range 3 {
		body := fmt.Sprintf(`{"name": "Vendedor %d", "document": "52998224725", "email": "vendedor%d@example.com", "pix_key": "vendedor%d@example.com"}`, i, i, i)
		id, _, err := api.create("/api/v1/subaccounts", []byte(body))
		if err != nil {
			return nil, fmt.Errorf("subaccount: %w", err)
		}
		sellers = append(sellers, id)
	}
	return []byte(fmt.Sprintf(`{"amount_cents": 1990, "description": "Camiseta", "metadata": {"order": "bench"},
	"customer": {"name": "João da Silva", "email": "joao@example.com", "document": "52998224725"},
	"splits": [{"account": %q, "percent": 10}, {"account": %q, "percent": 5, "fee_payer": "recipient"}, {"account": %q, "amount_cents": 100}]}`,
		sellers[0], sellers[1], sellers[2])), nil
}
