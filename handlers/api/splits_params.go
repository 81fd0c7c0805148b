package api

import (
	"math"
	"strconv"

	"payments/handlers/reply"
	"payments/handlers/request"
	"payments/store"
)

var splitFields = []string{"account", "amount_cents", "percent", "fee_payer"}

// parseSplits reads a charge's splits: up to store.MaxSplits entries, each
// an account and either amount_cents or percent (0.01 to 100, at most two
// decimals), and who bears the fee. Whether the accounts may receive, and
// whether the parts fit the charge, is the operation's to say.
func parseSplits(o request.Object) ([]store.Split, *reply.Error) {
	items, apiErr := o.Array("splits")
	if apiErr != nil {
		return nil, apiErr
	}
	if len(items) > store.MaxSplits {
		return nil, reply.InvalidParam("parameter_invalid", o.Param("splits"), "splits takes at most %d entries.", store.MaxSplits)
	}
	out := make([]store.Split, len(items))
	for i, item := range items {
		if apiErr := item.RejectUnknown(splitFields...); apiErr != nil {
			return nil, apiErr
		}
		s := store.Split{FeePayer: store.FeePayerAccount}
		if !item.Present("account") {
			return nil, item.Missing("account")
		}
		if s.Account, apiErr = item.Str("account", 64); apiErr != nil {
			return nil, apiErr
		}
		switch amount, percent := item.Present("amount_cents"), item.Present("percent"); {
		case amount == percent:
			return nil, reply.InvalidParam("parameter_invalid", item.Param("amount_cents"),
				"Each split takes amount_cents or percent, one of the two.")
		case amount:
			cents, apiErr := item.ClaimedCents("amount_cents")
			if apiErr != nil {
				return nil, apiErr
			}
			s.AmountCents = &cents
		default:
			bps, ok := percentBPS(string(item.Raw("percent")))
			if !ok {
				return nil, reply.InvalidParam("parameter_invalid", item.Param("percent"),
					"%s must be a number from 0.01 to 100, with at most two decimals.", item.Param("percent"))
			}
			s.PercentBPS = &bps
		}
		if item.Present("fee_payer") {
			if s.FeePayer, apiErr = item.Enum("fee_payer", store.FeePayers); apiErr != nil {
				return nil, apiErr
			}
		}
		out[i] = s
	}
	return out, nil
}

// percentBPS reads a JSON number of percent, 0.01 to 100 with at most two
// decimals, as basis points.
func percentBPS(raw string) (int64, bool) {
	f, err := strconv.ParseFloat(raw, 64)
	if err != nil || raw == "" || raw[0] == '"' {
		return 0, false
	}
	bps := math.Round(f * 100)
	if math.Abs(f*100-bps) > 1e-6 || bps < 1 || bps > 10_000 {
		return 0, false
	}
	return int64(bps), true
}
