package operations

import (
	"context"

	"payments/store"
)

// PSPNotice is what one of the PSP's callbacks says happened: Pix
// received (their end-to-end ids), devoluções and payouts that moved (the
// refunds' and withdrawals' ids). A callback proves nothing by itself:
// each is queued to be read back from the PSP, which says what happened.
type PSPNotice struct {
	Received    []string
	Devolucoes  []string
	Payouts     []string
	Recurrences []store.Subscription // live subscriptions whose recurrence changed
	Cycles      []store.Payment      // live cycles whose recurring charge changed
	Infracoes   []string             // infrações (MED 2.0) opened or moved on, by the PSP's id
	Contests    []string             // contested withdrawals whose request for a return moved on
}

// ReceivePSPNotice queues, in one transaction, the reads a PSP callback
// asks for: a confirmation read of each Pix received (once: a repeated
// notice queues nothing), and the checks of the devoluções, payouts,
// recurrences and cycles it names, now. It returns how many Pix were
// newly queued. Only the PSP's door (and the service's own jobs) ask it.
func (o *Operations) ReceivePSPNotice(ctx context.Context, who store.Actor, n PSPNotice) (queued int, err error) {
	if err := Allow(who, rule("ReceivePSPNotice")); err != nil {
		return 0, err
	}
	err = o.Store.InTx(store.WithActor(ctx, who), func(ctx context.Context) error {
		queued = 0
		for _, e2eid := range n.Received {
			fresh, err := o.Store.QueuePixConfirmation(ctx, e2eid)
			if err != nil {
				return err
			}
			if fresh {
				queued++
			}
		}
		if err := o.Store.WakeChecks(ctx, store.CallDevolucaoCheck, n.Devolucoes); err != nil {
			return err
		}
		if err := o.Store.WakeChecks(ctx, store.CallPayoutCheck, n.Payouts); err != nil {
			return err
		}
		if err := o.Store.WakeChecks(ctx, store.CallMEDCheck, n.Contests); err != nil {
			return err
		}
		for _, sub := range n.Recurrences {
			if err := o.Store.QueueCheck(ctx, &sub.AccountID, store.CallRecCheck, sub.ID); err != nil {
				return err
			}
		}
		for _, cycle := range n.Cycles {
			if err := o.Store.QueueCheck(ctx, &cycle.AccountID, store.CallCobRCheck, cycle.ID.String()); err != nil {
				return err
			}
		}
		for _, id := range n.Infracoes {
			// Whose it is is known once it is read (its Pix names the charge).
			if err := o.Store.QueueCheck(ctx, nil, store.CallInfracaoCheck, id); err != nil {
				return err
			}
		}
		return nil
	})
	return queued, err
}

// HurryCharge asks the PSP worker to register a live charge that is still
// registering now, rather than after its retry's backoff: a retry of its
// creation is waiting for it.
func (o *Operations) HurryCharge(ctx context.Context, who store.Actor, p *store.Payment) error {
	if err := Allow(who, rule("HurryCharge")); err != nil {
		return err
	}
	return o.Store.WakeCalls(store.WithActor(ctx, who), store.CallCobCreate, []string{p.ID.String()})
}

// OpenSession opens a dashboard session for u, who proved who they are
// (a password and second factor, or an e-mailed link), from who's address
// and browser, and returns its id: listed on their Segurança page, ended
// with the others. The sign-in itself is recorded by RecordSignIn.
func (o *Operations) OpenSession(ctx context.Context, who store.Actor, u *store.User) (string, error) {
	if err := Allow(who, rule("OpenSession")); err != nil {
		return "", err
	}
	return o.Store.OpenSession(store.WithActor(ctx, who), u.ID, u.SessionEpoch, who.IP, who.UserAgent)
}
