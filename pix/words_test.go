package pix_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"payments/pix"
)

func TestAmountInWords(t *testing.T) {
	t.Parallel()
	for cents, want := range map[int64]string{
		1:           "um centavo",
		100:         "um real",
		101:         "um real e um centavo",
		2_000:       "vinte reais",
		3_050:       "trinta reais e cinquenta centavos",
		10_000:      "cem reais",
		10_100:      "cento e um reais",
		123_456:     "mil duzentos e trinta e quatro reais e cinquenta e seis centavos",
		100_000:     "mil reais",
		110_000:     "mil e cem reais",
		101_000:     "mil e dez reais",
		200_099:     "dois mil reais e noventa e nove centavos",
		100_000_000: "um milhão de reais",
		123_400_000: "um milhão duzentos e trinta e quatro mil reais",
		99_999_999:  "novecentos e noventa e nove mil novecentos e noventa e nove reais e noventa e nove centavos",
	} {
		require.Equal(t, want, pix.AmountInWords(cents, "pt-BR"), "%d", cents)
	}
	require.Equal(t, "one thousand two hundred thirty-four reais and fifty-six centavos", pix.AmountInWords(123_456, "en"))
	require.Equal(t, "one real", pix.AmountInWords(100, "en"))
}

func TestDocumentsFormattedAndMasked(t *testing.T) {
	t.Parallel()
	require.Equal(t, "529.982.247-25", pix.FormatDocument("52998224725"))
	require.Equal(t, "11.222.333/0001-81", pix.FormatDocument("11222333000181"))
	require.Equal(t, "***.982.247-**", pix.MaskDocument("52998224725"))
	require.Equal(t, "**.222.333/0001-**", pix.MaskDocument("11222333000181"))
	require.Equal(t, "12.ABC.345/01DE-35", pix.FormatDocument("12ABC34501DE35"))
	require.Equal(t, "**.ABC.345/01DE-**", pix.MaskDocument("12ABC34501DE35"))
	require.Equal(t, "12abc34501de35", pix.FormatDocument("12abc34501de35"), "not a stored document: left as it is")
	require.Equal(t, "1.234,56", pix.FormatBRLInput(123_456))
}
