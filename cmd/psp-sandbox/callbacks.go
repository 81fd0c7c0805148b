package main

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"sync/atomic"
	"time"

	"payments/pix/apipix"
)

// caller posts the PSP's callbacks to the registered webhookUrl + "/pix",
// as API Pix prescribes, presenting the sandbox's client certificate when
// it has one (the receiver may require mutual TLS). A failed post is tried
// again a few times; the faults may drop a callback or send it twice.
type caller struct {
	st     *state
	client *http.Client
	log    *slog.Logger

	sent, dropped atomic.Int64
}

// notify sends item to the webhook, in the background.
func (c *caller) notify(item apipix.CallbackItem) {
	body, _ := json.Marshal(apipix.Callback{Pix: []apipix.CallbackItem{item}})
	c.st.mu.Lock()
	defer c.st.mu.Unlock()
	c.notifyLocked("/pix", body)
}

// notifyLocked posts body to every registered webhook + suffix (/pix,
// /infracoes, /med), in the background; the caller holds the lock.
func (c *caller) notifyLocked(suffix string, body []byte) {
	webhooks := make([]string, 0, len(c.st.webhooks))
	for _, url := range c.st.webhooks {
		webhooks = append(webhooks, url)
	}
	c.deliverLocked(webhooks, suffix, body)
}

// notifyRec posts a recurrence's new status to the webhookrec ("/rec"),
// and notifyCobR a recurring charge's to the webhookcobr ("/cobr"); the
// caller holds the lock, and the posts leave in the background.
func (c *caller) notifyRec(rec *recState) {
	if c.st.webhookRec == "" {
		return
	}
	body, _ := json.Marshal(apipix.RecCallback{Recs: []apipix.RecNotification{{IDRec: rec.IDRec, Status: rec.Status,
		Atualizacao: rec.Atualizacao}}})
	c.deliverLocked([]string{c.st.webhookRec}, "/rec", body)
}

func (c *caller) notifyCobR(cobr *cobrState) {
	if c.st.webhookCobR == "" {
		return
	}
	body, _ := json.Marshal(apipix.CobRCallback{CobsR: []apipix.CobRNotification{{IDRec: cobr.IDRec, TxID: cobr.TxID,
		Status: cobr.Status, Atualizacao: cobr.Atualizacao, Tentativas: cobr.Tentativas}}})
	c.deliverLocked([]string{c.st.webhookCobR}, "/cobr", body)
}

// deliverLocked posts body to each webhook + suffix, in the background, as
// the faults say (dropped, or sent twice); the caller holds the lock.
func (c *caller) deliverLocked(webhooks []string, suffix string, body []byte) {
	f := c.st.faults
	for _, url := range webhooks {
		if chance(f.DropCallbacks) {
			c.dropped.Add(1)
			continue
		}
		times := 1
		if chance(f.DuplicateCallbacks) {
			times = 2
		}
		for range times {
			go c.post(url+suffix, body)
		}
	}
}

func (c *caller) post(url string, body []byte) {
	for attempt, wait := 0, 200*time.Millisecond; attempt < 5; attempt, wait = attempt+1, wait*2 {
		res, err := c.client.Post(url, "application/json", bytes.NewReader(body))
		if err == nil {
			res.Body.Close()
			if res.StatusCode >= 200 && res.StatusCode < 300 {
				c.sent.Add(1)
				return
			}
			c.log.Warn("sandbox: callback refused", "status", res.StatusCode)
		} else {
			c.log.Warn("sandbox: callback failed", "error", err.Error())
		}
		time.Sleep(wait)
	}
}
