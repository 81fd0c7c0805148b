package store

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"payments/pix"
)

// DisputeReminderBefore is how long before its deadline a dispute without
// a defense is reminded to the account's owners and admins.
const DisputeReminderBefore = 24 * time.Hour

// disputeReasonWords are the grounds as the reminder says them.
var disputeReasonWords = map[string]map[string]string{
	LocalePT: {"fraud": "fraude", "coercion": "coação", "operational_failure": "falha operacional"},
	"en":     {"fraud": "fraud", "coercion": "coercion", "operational_failure": "operational failure"},
}

// RemindDisputesAwaitingDefense e-mails the owners and admins of each
// account with an open dispute without a defense whose deadline is within
// DisputeReminderBefore (and not past), once per dispute, with an audit row
// (dispute.defense_reminded, by the service), at most limit disputes a
// call. It returns how many it reminded.
func (s *Store) RemindDisputesAwaitingDefense(ctx context.Context, limit int) (int, error) {
	var n int
	err := s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		now := s.Now()
		var due []Dispute
		err := tx.NewSelect().Model(&due).
			Where("status = ? AND defended_at IS NULL AND reminded_at IS NULL AND respond_by < ? AND respond_by > ?",
				DisputeOpen, now.Add(DisputeReminderBefore), now).
			Order("respond_by").Limit(int64(limit)).For("UPDATE SKIP LOCKED").Scan(ctx)
		if err != nil {
			return fmt.Errorf("store: disputes awaiting defense: %w", err)
		}
		for _, d := range due {
			people, account, err := s.ownersAndAdmins(ctx, tx, d.AccountID)
			if err != nil {
				return err
			}
			// The deadline on the account's clock, as its people read times.
			var zone string
			if err := tx.NewRaw(`SELECT time_zone FROM accounts WHERE id = ?`, d.AccountID).Scan(ctx, &zone); err != nil {
				return fmt.Errorf("store: account's time zone: %w", err)
			}
			loc, err := time.LoadLocation(zone)
			if err != nil {
				loc, zone = time.UTC, "UTC"
			}
			respondBy := d.RespondBy.In(loc).Format("02/01/2006 15:04") + " (" + zone + ")"
			for _, p := range people {
				words := disputeReasonWords[p.Locale]
				if words == nil {
					words = disputeReasonWords[LocalePT]
				}
				err := s.queueEmailOn(ctx, tx, NewEmail{AccountID: d.AccountID, To: p.Email, Kind: MailDisputeDefenseDue, Locale: p.Locale,
					Data: map[string]string{"account": account, "amount": pix.FormatBRL(d.AmountCents), "reason": words[d.Reason],
						"respond_by": respondBy,
						"link":       s.charges.BaseURL + "/dashboard/payments/" + d.PaymentID.String() + "#dispute-" + d.ID}})
				if err != nil {
					return err
				}
			}
			if err := s.auditOn(ctx, tx, AuditRecord{Scope: d.Scope(), Action: "dispute.defense_reminded", ObjectID: d.ID,
				Changes: Changes{"respond_by": {nil, d.RespondBy.UTC().Format(time.RFC3339)}, "notified": {nil, len(people)}}}); err != nil {
				return err
			}
			if _, err := tx.NewUpdate().Model((*Dispute)(nil)).Set("reminded_at = ?", now).Where("id = ?", d.ID).Exec(ctx); err != nil {
				return fmt.Errorf("store: dispute reminded: %w", err)
			}
		}
		n = len(due)
		return nil
	})
	return n, err
}
