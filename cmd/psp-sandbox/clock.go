package main

import (
	"encoding/json"
	"net/http"
	"time"

	"payments/pix/calendar"
)

// The sandbox's clock: real time, moved by an offset a test (or a person
// trying fines and discounts) sets with POST /sandbox/clock {"date":
// "YYYY-MM-DD"}, to noon of that day in Brasília; {"date": null} puts it
// back. Due-date charges' amounts and every Pix received are dated by it.

func (sb *sandbox) now() time.Time { return time.Now().Add(time.Duration(sb.clockOffset.Load())) }

func (sb *sandbox) setClock(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Date *string `json:"date"`
	}
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": err.Error()})
		return
	}
	if in.Date == nil {
		sb.clockOffset.Store(0)
	} else {
		d, err := calendar.ParseDate(*in.Date)
		if err != nil {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": err.Error()})
			return
		}
		sb.clockOffset.Store(int64(time.Until(d.Start().Add(12 * time.Hour))))
	}
	// The payer's bank debits what came due on the new date.
	sb.runDueDebits()
	// And the infrações' deadlines pass.
	sb.runInfracaoDeadlines()
	sb.runMEDDeadlines()
	sb.getClock(w, r)
}

func (sb *sandbox) getClock(w http.ResponseWriter, _ *http.Request) {
	now := sb.now()
	writeJSON(w, http.StatusOK, map[string]string{"now": now.UTC().Format(time.RFC3339), "date": calendar.Today(now).String()})
}
