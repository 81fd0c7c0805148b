package views

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

// OverviewPage is the dashboard's landing page (Visão geral): the
// account's figures over a period of its zone beside the period before,
// and their charts.
type OverviewPage struct {
	Nav Nav
	// Period is today, 7d, 30d or range; From and To are its days
	// (YYYY-MM-DD, both included), PeriodLabel and PreviousLabel say them.
	Period, From, To           string
	PeriodLabel, PreviousLabel string
	Cards                      []OverviewCard
	AvailableLabel             string
	PendingLabel               string
	// ByHour: Received's bars are the hours of one day, else its days.
	ByHour      bool
	Received    []ChartBar
	Outcomes    []OutcomeShare
	PayTimes    []ChartBar
	WebhookDays []ChartBar
	Webhooks    []WebhookRate
}

// OverviewPeriods are the periods the overview offers, in its order.
var OverviewPeriods = []string{"today", "7d", "30d", "range"}

// OverviewCard is one figure: its value over the period, over the period
// before, and the change between them ("" when it cannot be said).
type OverviewCard struct {
	Key, Value, Before, Change string
	// Down: the figure fell.
	Down bool
}

// ChartBar is one bar of a chart: Key names it for machines (a day, an
// hour, a bucket), Label for people; Height is its share of the chart's
// tallest bar, 0-100.
type ChartBar struct {
	Key, Label, ValueLabel string
	Value                  int64
	Height                 float64
}

// Bars makes a chart's bars of values, each labelled by label and
// valueLabel, scaled to the tallest.
func Bars(keys, labels []string, values []int64, valueLabel func(int64) string) []ChartBar {
	var most int64
	for _, v := range values {
		most = max(most, v)
	}
	bars := make([]ChartBar, len(values))
	for i, v := range values {
		bars[i] = ChartBar{Key: keys[i], Label: labels[i], Value: v, ValueLabel: valueLabel(v)}
		if most > 0 {
			bars[i].Height = float64(v) * 100 / float64(most)
		}
	}
	return bars
}

// OutcomeShare is how many of the period's ended charges ended one way.
type OutcomeShare struct {
	Key          string
	Count        int64
	Percent      float64
	PercentLabel string
}

// WebhookRate is one webhook's attempts over the period and the share
// its receiver acknowledged.
type WebhookRate struct {
	URL                 string
	Attempts, Succeeded int64
	RateLabel           string
}

// barWidth is a bar's slot in a chart's coordinates; the chart is
// len(bars)*barWidth wide and 100 high, stretched to its box.
const barWidth = 10

func chartViewBox(bars []ChartBar) string {
	return fmt.Sprintf("0 0 %d 100", max(len(bars), 1)*barWidth)
}

func barX(i int) string { return strconv.Itoa(i*barWidth + 1) }

func barY(b ChartBar) string { return strconv.FormatFloat(100-b.Height, 'f', 2, 64) }

func barHeight(b ChartBar) string { return strconv.FormatFloat(b.Height, 'f', 2, 64) }

// Percent writes part/whole as a percentage in ctx's language ("62,5%"),
// one decimal; "—" when whole is zero.
func Percent(ctx context.Context, part, whole int64) string {
	if whole == 0 {
		return "—"
	}
	return PercentOf(ctx, float64(part)*100/float64(whole))
}

// PercentOf writes p (a percentage) with one decimal in ctx's language.
func PercentOf(ctx context.Context, p float64) string {
	s := strconv.FormatFloat(p, 'f', 1, 64)
	if LocaleOf(ctx).Lang != LangEN {
		s = strings.Replace(s, ".", ",", 1)
	}
	return s + "%"
}

// outcomeColor is the colour of a way a charge ended, in the bar (fill)
// and its legend (background); whole class names, for Tailwind to find.
func outcomeColor(key, prefix string) string {
	if prefix == "fill" {
		return map[string]string{"paid": "fill-emerald-600", "expired": "fill-amber-500", "canceled": "fill-slate-500"}[key]
	}
	return map[string]string{"paid": "bg-emerald-600", "expired": "bg-amber-500", "canceled": "bg-slate-500"}[key]
}

// outcomeX is where outcome i's part of the bar starts (0-100).
func outcomeX(outcomes []OutcomeShare, i int) string {
	var x float64
	for _, o := range outcomes[:i] {
		x += o.Percent
	}
	return strconv.FormatFloat(x, 'f', 2, 64)
}

func outcomeWidth(o OutcomeShare) string { return strconv.FormatFloat(o.Percent, 'f', 2, 64) }

// outcomesText says the outcomes' bar in words, for screen readers.
func outcomesText(ctx context.Context, outcomes []OutcomeShare) string {
	parts := make([]string, len(outcomes))
	for i, o := range outcomes {
		parts[i] = T(ctx, "overview.outcome_"+o.Key) + ": " + FormatInt(ctx, o.Count) + " (" + o.PercentLabel + ")"
	}
	return strings.Join(parts, "; ")
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
