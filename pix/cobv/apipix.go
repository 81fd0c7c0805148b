package cobv

import (
	"fmt"

	"payments/pix/apipix"
)

// Juros and desconto modalities by their rule, as API Pix's domain tables
// number them.
const (
	multaValor = 1
	multaPerc  = 2

	jurosValorCorridos = 1 // +4 for business days
	jurosDiaCorridos   = 2
	jurosMesCorridos   = 3
	jurosAnoCorridos   = 4
	jurosUteis         = 4

	descontoValorData = 1
	descontoPercData  = 2
	descontoValorDia  = 3 // 4 for business days
	descontoPercDia   = 5 // 6 for business days
)

// Valor is the terms as API Pix's CobVValor, for a charge of amountCents.
func (t *Terms) Valor(amountCents int64) apipix.ValorV {
	v := apipix.ValorV{Original: apipix.FormatValor(amountCents)}
	v.Multa = t.Fine.modality(multaValor, multaPerc)
	v.Abatimento = t.Abatement.modality(multaValor, multaPerc)
	if i := t.Interest; i != nil {
		shift := 0
		if i.BusinessDays {
			shift = jurosUteis
		}
		switch {
		case i.AmountCentsPerDay != nil:
			v.Juros = &apipix.ModalidadeValor{Modalidade: jurosValorCorridos + shift, ValorPerc: apipix.FormatValor(*i.AmountCentsPerDay)}
		case i.PercentPerDay != nil:
			v.Juros = &apipix.ModalidadeValor{Modalidade: jurosDiaCorridos + shift, ValorPerc: i.PercentPerDay.String()}
		case i.PercentPerMonth != nil:
			v.Juros = &apipix.ModalidadeValor{Modalidade: jurosMesCorridos + shift, ValorPerc: i.PercentPerMonth.String()}
		case i.PercentPerYear != nil:
			v.Juros = &apipix.ModalidadeValor{Modalidade: jurosAnoCorridos + shift, ValorPerc: i.PercentPerYear.String()}
		}
	}
	if d := t.Discounts; d != nil {
		switch {
		case d.PerDayEarly != nil:
			business := 0
			if d.BusinessDays != nil && *d.BusinessDays {
				business = 1
			}
			m := d.PerDayEarly.modality(descontoValorDia+business, descontoPercDia+business)
			v.Desconto = &apipix.Desconto{Modalidade: m.Modalidade, ValorPerc: m.ValorPerc}
		case len(d.Fixed) > 0:
			v.Desconto = &apipix.Desconto{Modalidade: descontoValorData}
			if d.Fixed[0].Percent != nil {
				v.Desconto.Modalidade = descontoPercData
			}
			for _, f := range d.Fixed {
				m := (&Value{AmountCents: f.AmountCents, Percent: f.Percent}).modality(descontoValorData, descontoPercData)
				v.Desconto.DescontoDataFixa = append(v.Desconto.DescontoDataFixa, apipix.DescontoDataFixa{Data: f.Until, ValorPerc: m.ValorPerc})
			}
		}
	}
	return v
}

func (v *Value) modality(amount, percent int) *apipix.ModalidadeValor {
	switch {
	case v == nil:
		return nil
	case v.AmountCents != nil:
		return &apipix.ModalidadeValor{Modalidade: amount, ValorPerc: apipix.FormatValor(*v.AmountCents)}
	case v.Percent != nil:
		return &apipix.ModalidadeValor{Modalidade: percent, ValorPerc: v.Percent.String()}
	}
	return nil
}

// FromValor reads a CobVValor and its calendar back into terms and the
// original amount, as a PSP does with a charge it was sent.
func FromValor(cal apipix.CalendarioV, v apipix.ValorV) (t Terms, amountCents int64, err error) {
	if amountCents, err = apipix.ParseValor(v.Original); err != nil {
		return t, 0, fmt.Errorf("valor.original: %w", err)
	}
	t.DueDate = cal.DataDeVencimento
	if cal.ValidadeAposVencimento != nil {
		t.DaysAfterDue = *cal.ValidadeAposVencimento
	} else {
		t.DaysAfterDue = 30 // API Pix's default
	}
	if t.Fine, err = fromModality(v.Multa, "valor.multa"); err != nil {
		return t, 0, err
	}
	if t.Abatement, err = fromModality(v.Abatimento, "valor.abatimento"); err != nil {
		return t, 0, err
	}
	if j := v.Juros; j != nil {
		t.Interest = &Interest{BusinessDays: j.Modalidade > jurosUteis}
		m := j.Modalidade
		if t.Interest.BusinessDays {
			m -= jurosUteis
		}
		switch m {
		case jurosValorCorridos:
			c, err := apipix.ParseValor(j.ValorPerc)
			if err != nil {
				return t, 0, fmt.Errorf("valor.juros.valorPerc: %w", err)
			}
			t.Interest.AmountCentsPerDay = &c
		case jurosDiaCorridos, jurosMesCorridos, jurosAnoCorridos:
			p, err := ParsePercent(j.ValorPerc)
			if err != nil {
				return t, 0, fmt.Errorf("valor.juros.valorPerc: %w", err)
			}
			switch m {
			case jurosDiaCorridos:
				t.Interest.PercentPerDay = &p
			case jurosMesCorridos:
				t.Interest.PercentPerMonth = &p
			default:
				t.Interest.PercentPerYear = &p
			}
		default:
			return t, 0, fmt.Errorf("valor.juros.modalidade %d is none of 1 to 8", j.Modalidade)
		}
	}
	if d := v.Desconto; d != nil {
		t.Discounts = &Discounts{}
		switch d.Modalidade {
		case descontoValorData, descontoPercData:
			for _, f := range d.DescontoDataFixa {
				m, err := fromModality(&apipix.ModalidadeValor{Modalidade: d.Modalidade, ValorPerc: f.ValorPerc}, "valor.desconto.descontoDataFixa")
				if err != nil {
					return t, 0, err
				}
				t.Discounts.Fixed = append(t.Discounts.Fixed, FixedDiscount{Until: f.Data, AmountCents: m.AmountCents, Percent: m.Percent})
			}
		case descontoValorDia, descontoValorDia + 1, descontoPercDia, descontoPercDia + 1:
			business := d.Modalidade == descontoValorDia+1 || d.Modalidade == descontoPercDia+1
			m := multaValor
			if d.Modalidade >= descontoPercDia {
				m = multaPerc
			}
			per, err := fromModality(&apipix.ModalidadeValor{Modalidade: m, ValorPerc: d.ValorPerc}, "valor.desconto.valorPerc")
			if err != nil {
				return t, 0, err
			}
			t.Discounts.PerDayEarly, t.Discounts.BusinessDays = per, &business
		default:
			return t, 0, fmt.Errorf("valor.desconto.modalidade %d is none of 1 to 6", d.Modalidade)
		}
	}
	return t, amountCents, nil
}

// fromModality reads a multa or abatimento (1: value, 2: percent).
func fromModality(m *apipix.ModalidadeValor, field string) (*Value, error) {
	switch {
	case m == nil:
		return nil, nil
	case m.Modalidade == multaValor:
		c, err := apipix.ParseValor(m.ValorPerc)
		if err != nil {
			return nil, fmt.Errorf("%s.valorPerc: %w", field, err)
		}
		return &Value{AmountCents: &c}, nil
	case m.Modalidade == multaPerc:
		p, err := ParsePercent(m.ValorPerc)
		if err != nil {
			return nil, fmt.Errorf("%s.valorPerc: %w", field, err)
		}
		return &Value{Percent: &p}, nil
	}
	return nil, fmt.Errorf("%s.modalidade %d is neither 1 nor 2", field, m.Modalidade)
}
