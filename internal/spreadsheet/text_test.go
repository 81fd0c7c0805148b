package spreadsheet

import "testing"

func TestTextNeutralizesEveryFormulaStart(t *testing.T) {
	for in, want := range map[string]string{
		"=1+2*3":         "'=1+2*3",
		"+5561988880000": "'+5561988880000",
		"-2+3":           "'-2+3",
		"@SUM(1+1)":      "'@SUM(1+1)",
		"\t=1":           "'\t=1",
		"\r=1":           "'\r=1",
		"Maria =1":       "Maria =1",
		"":               "",
		"Pedido 42":      "Pedido 42",
	} {
		if got := Text(in); got != want {
			t.Errorf("Text(%q) = %q, want %q", in, got, want)
		}
	}
}
