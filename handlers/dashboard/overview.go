package dashboard

import (
	"cmp"
	"math"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/gofiber/fiber/v2"

	"payments/handlers/reply"
	"payments/pix"
	"payments/store"
	"payments/views"
)

// overviewMaxDays bounds a chosen range: a year and a day, a leap year's.
const overviewMaxDays = 366

// overviewPeriod is the overview's period in the account's zone: days
// [from, from+days) (hours of one day when byHour), and the same number of
// days before it.
type overviewPeriod struct {
	name   string
	from   time.Time
	days   int
	byHour bool
}

func (p overviewPeriod) end() time.Time           { return p.from.AddDate(0, 0, p.days) }
func (p overviewPeriod) previousStart() time.Time { return p.from.AddDate(0, 0, -p.days) }

// readOverviewPeriod reads ?period= (today, 7d, 30d, range with from and
// to, days of the account's zone); 7 days when none is given.
func readOverviewPeriod(c *fiber.Ctx, today time.Time) (overviewPeriod, error) {
	name := c.Query("period", "7d")
	switch name {
	case "today":
		return overviewPeriod{name: name, from: today, days: 1, byHour: true}, nil
	case "7d":
		return overviewPeriod{name: name, from: today.AddDate(0, 0, -6), days: 7}, nil
	case "30d":
		return overviewPeriod{name: name, from: today.AddDate(0, 0, -29), days: 30}, nil
	case "range":
		from, before, err := localDays(c, c.Query("from"), c.Query("to"))
		if err != nil {
			return overviewPeriod{}, err
		}
		if from.IsZero() || before.IsZero() {
			return overviewPeriod{}, reply.InvalidParam("parameter_missing", "from", "A range needs both from and to (YYYY-MM-DD).")
		}
		days := int(before.Sub(from).Round(time.Hour).Hours()+12) / 24
		if days < 1 || days > overviewMaxDays {
			return overviewPeriod{}, reply.InvalidParam("parameter_invalid", "to", "to must be on or after from, at most %d days later.", overviewMaxDays-1)
		}
		return overviewPeriod{name: name, from: from, days: days, byHour: days == 1}, nil
	}
	return overviewPeriod{}, reply.InvalidParam("parameter_invalid", "period", "period must be one of %v.", views.OverviewPeriods)
}

// Overview handles GET /dashboard: the account's figures over a period of
// its zone, each beside the period before, and their charts, read from
// the hourly rollups (store.OverviewSeries, store.WebhookDays).
func (d *Dashboard) Overview(c *fiber.Ctx) error {
	ctx := c.UserContext()
	tz := views.LocaleOf(ctx).TZ
	now := d.Store.Now().In(tz)
	today := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, tz)
	period, err := readOverviewPeriod(c, today)
	if err != nil {
		return err
	}
	scope := dashScope(c)
	step := store.StepDay
	if period.byHour {
		step = store.StepHour
	}
	points, err := d.Store.OverviewSeries(ctx, scope, period.from, period.end(), step, tz)
	if err != nil {
		return err
	}
	before, err := d.Store.OverviewSeries(ctx, scope, period.previousStart(), period.from, store.StepDay, tz)
	if err != nil {
		return err
	}
	webhookDays, err := d.Store.WebhookDays(ctx, scope, period.from, period.end(), tz)
	if err != nil {
		return err
	}
	balance, err := d.Store.Balance(ctx, scope)
	if err != nil {
		return err
	}
	var current, previous store.OverviewFigures
	for i := range points {
		current.Add(&points[i].OverviewFigures)
	}
	for i := range before {
		previous.Add(&before[i].OverviewFigures)
	}
	// Split charges' parts, when the account moved any: read from the
	// ledger (its own index), not the rollups.
	splitNow, err := d.Store.SplitNet(ctx, scope, period.from, period.end())
	if err != nil {
		return err
	}
	splitBefore, err := d.Store.SplitNet(ctx, scope, period.previousStart(), period.from)
	if err != nil {
		return err
	}
	last := period.end().AddDate(0, 0, -1)
	page := views.OverviewPage{Nav: d.nav(c, "overview"), Period: period.name, ByHour: period.byHour,
		From: period.from.Format(time.DateOnly), To: last.Format(time.DateOnly),
		PeriodLabel:    dayRange(period.from, last),
		PreviousLabel:  dayRange(period.previousStart(), period.from.AddDate(0, 0, -1)),
		Cards:          append(overviewCards(c, &current, &previous), splitCard(splitNow, splitBefore)...),
		AvailableLabel: pix.FormatBRL(balance.AvailableCents), PendingLabel: pix.FormatBRL(balance.PendingCents),
		Received:    receivedBars(c, period, points),
		Outcomes:    outcomeShares(c, &current),
		PayTimes:    payTimeBars(c, &current),
		WebhookDays: webhookDayBars(c, period, webhookDays),
		Webhooks:    webhookRates(c, webhookDays),
	}
	return reply.Page(c, http.StatusOK, views.Overview(page))
}

// dayRange says days from..last as pages write days.
func dayRange(from, last time.Time) string {
	if from.Equal(last) {
		return from.Format("02/01/2006")
	}
	return from.Format("02/01/2006") + " – " + last.Format("02/01/2006")
}

// overviewCards are the period's figures beside the period before's.
func overviewCards(c *fiber.Ctx, now, then *store.OverviewFigures) []views.OverviewCard {
	ctx := c.UserContext()
	count := func(n int64) string { return views.FormatInt(ctx, n) }
	card := func(key string, value, before int64, label func(int64) string) views.OverviewCard {
		k := views.OverviewCard{Key: key, Value: label(value), Before: label(before)}
		if before != 0 {
			k.Change = signed(views.PercentOf(ctx, float64(value-before)*100/float64(before)), value >= before)
			k.Down = value < before
		}
		return k
	}
	conversion := func(f *store.OverviewFigures) string { return views.Percent(ctx, f.Paid, f.Created) }
	return []views.OverviewCard{
		card("received_gross", now.GrossCents, then.GrossCents, pix.FormatBRL),
		card("received_net", now.GrossCents-now.FeeCents, then.GrossCents-then.FeeCents, pix.FormatBRL),
		card("paid", now.Paid, then.Paid, count),
		{Key: "conversion", Value: conversion(now), Before: conversion(then)},
		{Key: "pay_time_median", Value: payTimeQuantile(c, now, 0.5), Before: payTimeQuantile(c, then, 0.5)},
		{Key: "pay_time_p90", Value: payTimeQuantile(c, now, 0.9), Before: payTimeQuantile(c, then, 0.9)},
		{Key: "refunds", Value: count(now.Refunds) + " · " + pix.FormatBRL(now.RefundedCents),
			Before: count(then.Refunds) + " · " + pix.FormatBRL(then.RefundedCents)},
		{Key: "disputes", Value: count(now.Disputes) + " · " + pix.FormatBRL(now.DisputedCents),
			Before: count(then.Disputes) + " · " + pix.FormatBRL(then.DisputedCents)},
	}
}

// splitCard is what split charges moved, beside the period before: none
// for an account that moved nothing by them in either.
func splitCard(now, before int64) []views.OverviewCard {
	if now == 0 && before == 0 {
		return nil
	}
	return []views.OverviewCard{{Key: "splits", Value: pix.FormatBRL(now), Before: pix.FormatBRL(before)}}
}

func signed(percent string, up bool) string {
	if up {
		return "+" + percent
	}
	return percent
}

// payTimeQuantile is the bucket of the histogram that holds the q-th
// quantile of the times to pay, in words ("1 a 2 min"): the rollups keep
// buckets, so the bucket is what can be said exactly. "—" with none paid.
func payTimeQuantile(c *fiber.Ctx, f *store.OverviewFigures, q float64) string {
	var total int64
	for _, n := range f.PayTimes {
		total += n
	}
	if total == 0 {
		return "—"
	}
	// The smallest bucket whose running count reaches q of the total
	// (nearest rank).
	rank := int64(math.Ceil(q * float64(total)))
	var seen int64
	for i, n := range f.PayTimes {
		if seen += n; seen >= rank {
			return t(c, "overview.pay_time_"+strconv.Itoa(i))
		}
	}
	return t(c, "overview.pay_time_9")
}

// receivedBars is the gross received per day (or hour) of the period.
func receivedBars(c *fiber.Ctx, period overviewPeriod, points []store.OverviewPoint) []views.ChartBar {
	byStart := map[int64]int64{}
	for _, p := range points {
		byStart[p.At.Unix()] = p.GrossCents
	}
	var keys, labels []string
	var values []int64
	if period.byHour {
		for h := range 24 {
			at := period.from.Add(time.Duration(h) * time.Hour)
			keys, labels = append(keys, at.Format("15")), append(labels, at.Format("15h"))
			values = append(values, byStart[at.Unix()])
		}
	} else {
		for d := range period.days {
			at := period.from.AddDate(0, 0, d)
			keys, labels = append(keys, at.Format(time.DateOnly)), append(labels, at.Format("02/01"))
			values = append(values, byStart[at.Unix()])
		}
	}
	return views.Bars(keys, labels, values, pix.FormatBRL)
}

// outcomeShares are the period's charges that ended: paid, expired, canceled.
func outcomeShares(c *fiber.Ctx, f *store.OverviewFigures) []views.OutcomeShare {
	ctx := c.UserContext()
	ended := f.Paid + f.Expired + f.Canceled
	shares := []views.OutcomeShare{{Key: "paid", Count: f.Paid}, {Key: "expired", Count: f.Expired}, {Key: "canceled", Count: f.Canceled}}
	for i := range shares {
		shares[i].PercentLabel = views.Percent(ctx, shares[i].Count, ended)
		if ended > 0 {
			shares[i].Percent = float64(shares[i].Count) * 100 / float64(ended)
		}
	}
	return shares
}

// payTimeBars is the time-to-pay histogram.
func payTimeBars(c *fiber.Ctx, f *store.OverviewFigures) []views.ChartBar {
	ctx := c.UserContext()
	n := len(store.PayTimeBuckets) + 1
	keys, labels, values := make([]string, n), make([]string, n), make([]int64, n)
	for i := range n {
		keys[i], labels[i] = strconv.Itoa(i), t(c, "overview.pay_time_"+strconv.Itoa(i))
		if i < len(f.PayTimes) {
			values[i] = f.PayTimes[i]
		}
	}
	return views.Bars(keys, labels, values, func(v int64) string { return views.FormatInt(ctx, v) })
}

// webhookDayBars is the share of attempts acknowledged per day, in tenths
// of a percent (a day without attempts is empty).
func webhookDayBars(c *fiber.Ctx, period overviewPeriod, days []store.WebhookDay) []views.ChartBar {
	ctx := c.UserContext()
	type tally struct{ attempts, succeeded int64 }
	byDay := map[string]*tally{}
	for _, d := range days {
		key := d.Day.In(period.from.Location()).Format(time.DateOnly)
		if byDay[key] == nil {
			byDay[key] = &tally{}
		}
		byDay[key].attempts += d.Attempts
		byDay[key].succeeded += d.Succeeded
	}
	// Not views.Bars: a share's scale is 100%, not the period's best day.
	bars := make([]views.ChartBar, period.days)
	for i := range bars {
		at := period.from.AddDate(0, 0, i)
		bars[i] = views.ChartBar{Key: at.Format(time.DateOnly), Label: at.Format("02/01"), ValueLabel: "—"}
		if d := byDay[bars[i].Key]; d != nil && d.attempts > 0 {
			bars[i].Value = d.succeeded * 1000 / d.attempts
			bars[i].ValueLabel = views.Percent(ctx, d.succeeded, d.attempts)
			bars[i].Height = float64(bars[i].Value) / 10
		}
	}
	return bars
}

// webhookRates is each webhook's share of attempts acknowledged over the period.
func webhookRates(c *fiber.Ctx, days []store.WebhookDay) []views.WebhookRate {
	var rates []views.WebhookRate
	index := map[string]int{}
	for _, d := range days {
		i, ok := index[d.WebhookID]
		if !ok {
			i = len(rates)
			index[d.WebhookID] = i
			rates = append(rates, views.WebhookRate{URL: d.URL})
		}
		rates[i].Attempts += d.Attempts
		rates[i].Succeeded += d.Succeeded
	}
	for i := range rates {
		rates[i].RateLabel = views.Percent(c.UserContext(), rates[i].Succeeded, rates[i].Attempts)
	}
	slices.SortFunc(rates, func(a, b views.WebhookRate) int { return cmp.Compare(b.Attempts, a.Attempts) })
	return rates
}
