package pix

import "strings"

// AmountInWords writes an amount of cents in full, as on a cheque: in
// Portuguese ("mil duzentos e trinta e quatro reais e cinquenta e seis
// centavos") or, for lang "en", in English ("one thousand two hundred
// thirty-four reais and fifty-six centavos"). A confirmation states the
// money so, beside the figures, before it moves.
func AmountInWords(cents int64, lang string) string {
	if cents < 0 {
		cents = -cents
	}
	reais, centavos := cents/100, cents%100
	if lang == "en" {
		return enAmount(reais, centavos)
	}
	return ptAmount(reais, centavos)
}

var (
	ptUnits = []string{"zero", "um", "dois", "três", "quatro", "cinco", "seis", "sete", "oito", "nove", "dez", "onze", "doze",
		"treze", "catorze", "quinze", "dezesseis", "dezessete", "dezoito", "dezenove"}
	ptTens     = []string{"", "", "vinte", "trinta", "quarenta", "cinquenta", "sessenta", "setenta", "oitenta", "noventa"}
	ptHundreds = []string{"", "cento", "duzentos", "trezentos", "quatrocentos", "quinhentos", "seiscentos", "setecentos",
		"oitocentos", "novecentos"}
)

// ptBelowThousand writes 1..999.
func ptBelowThousand(n int64) string {
	if n == 100 {
		return "cem"
	}
	var parts []string
	if h := n / 100; h > 0 {
		parts = append(parts, ptHundreds[h])
	}
	switch r := n % 100; {
	case r >= 20:
		t := ptTens[r/10]
		if r%10 > 0 {
			t += " e " + ptUnits[r%10]
		}
		parts = append(parts, t)
	case r > 0:
		parts = append(parts, ptUnits[r])
	}
	return strings.Join(parts, " e ")
}

// ptNumber writes n (0 .. 999 999 999 999) in full.
func ptNumber(n int64) string {
	if n == 0 {
		return "zero"
	}
	type group struct {
		value            int64
		singular, plural string
	}
	groups := []group{{n / 1_000_000_000, "um bilhão", "bilhões"}, {n / 1_000_000 % 1000, "um milhão", "milhões"},
		{n / 1000 % 1000, "mil", "mil"}, {n % 1000, "", ""}}
	var parts []string
	for i, g := range groups {
		switch {
		case g.value == 0:
			continue
		case i == 2 && g.value == 1:
			parts = append(parts, "mil")
		case i < 2 && g.value == 1:
			parts = append(parts, g.singular)
		case g.plural != "":
			parts = append(parts, ptBelowThousand(g.value)+" "+g.plural)
		default:
			parts = append(parts, ptBelowThousand(g.value))
		}
	}
	// The last group joins with "e" when it is below a hundred or a round hundred.
	if len(parts) > 1 {
		last := n % 1000
		if last > 0 && (last < 100 || last%100 == 0) {
			return strings.Join(parts[:len(parts)-1], " ") + " e " + parts[len(parts)-1]
		}
	}
	return strings.Join(parts, " ")
}

func ptAmount(reais, centavos int64) string {
	var parts []string
	if reais > 0 {
		word := ptNumber(reais)
		switch {
		case reais == 1:
			word += " real"
		case reais%1_000_000 == 0:
			word += " de reais"
		default:
			word += " reais"
		}
		parts = append(parts, word)
	}
	if centavos > 0 {
		word := ptNumber(centavos)
		if centavos == 1 {
			word += " centavo"
		} else {
			word += " centavos"
		}
		parts = append(parts, word)
	}
	if len(parts) == 0 {
		return "zero real"
	}
	return strings.Join(parts, " e ")
}

var (
	enUnits = []string{"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
		"thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen"}
	enTens = []string{"", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"}
)

func enBelowThousand(n int64) string {
	var parts []string
	if h := n / 100; h > 0 {
		parts = append(parts, enUnits[h]+" hundred")
	}
	switch r := n % 100; {
	case r >= 20:
		t := enTens[r/10]
		if r%10 > 0 {
			t += "-" + enUnits[r%10]
		}
		parts = append(parts, t)
	case r > 0:
		parts = append(parts, enUnits[r])
	}
	return strings.Join(parts, " ")
}

func enNumber(n int64) string {
	if n == 0 {
		return "zero"
	}
	var parts []string
	for _, g := range []struct {
		value int64
		name  string
	}{{n / 1_000_000_000, "billion"}, {n / 1_000_000 % 1000, "million"}, {n / 1000 % 1000, "thousand"}, {n % 1000, ""}} {
		if g.value == 0 {
			continue
		}
		w := enBelowThousand(g.value)
		if g.name != "" {
			w += " " + g.name
		}
		parts = append(parts, w)
	}
	return strings.Join(parts, " ")
}

func enAmount(reais, centavos int64) string {
	var parts []string
	if reais > 0 {
		unit := " reais"
		if reais == 1 {
			unit = " real"
		}
		parts = append(parts, enNumber(reais)+unit)
	}
	if centavos > 0 {
		unit := " centavos"
		if centavos == 1 {
			unit = " centavo"
		}
		parts = append(parts, enNumber(centavos)+unit)
	}
	if len(parts) == 0 {
		return "zero reais"
	}
	return strings.Join(parts, " and ")
}

// FormatBRLInput writes cents as a person types them in a form: 1.234,56.
func FormatBRLInput(cents int64) string { return strings.TrimPrefix(FormatBRL(cents), "R$ ") }
