package pix_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"payments/pix"
)

// The static BR Code published as a test vector in the design notes.
const designVector = "00020126580014br.gov.bcb.pix0136123e4567-e12b-12d1-a456-4266554400005204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***63041D3D"

func TestEncodeMatchesDesignVector(t *testing.T) {
	t.Parallel()
	code, err := pix.BRCode{
		Key:          "123e4567-e12b-12d1-a456-426655440000",
		MerchantName: "Fulano de Tal",
		MerchantCity: "BRASILIA",
	}.Encode()
	require.NoError(t, err)
	require.Equal(t, designVector, code)
}

func TestDecodeVerifiesCRC(t *testing.T) {
	t.Parallel()
	d, err := pix.Decode(designVector)
	require.NoError(t, err)
	require.Equal(t, "br.gov.bcb.pix", d.MerchantAccount["00"])
	require.Equal(t, "***", d.AdditionalData["05"])

	tampered := strings.Replace(designVector, "BRASILIA", "BRASILIO", 1)
	_, err = pix.Decode(tampered)
	require.ErrorIs(t, err, pix.ErrBadCRC)
}

func TestEncodeChargeRoundTrip(t *testing.T) {
	t.Parallel()
	txid := pix.NewTxID()
	code, err := pix.BRCode{
		Key: "pix@example.com", MerchantName: "Padaria São João Ltda e Filhos Reunidos",
		MerchantCity: "São Paulo", AmountCents: 123456, TxID: txid, SingleUse: true,
	}.Encode()
	require.NoError(t, err)
	d, err := pix.Decode(code)
	require.NoError(t, err)
	require.Equal(t, "12", d.Fields["01"])
	require.Equal(t, "1234.56", d.Fields["54"])
	require.Equal(t, "986", d.Fields["53"])
	require.Equal(t, "Padaria Sao Joao Ltda e F", d.Fields["59"], "name folded to ASCII, cut at 25")
	require.Equal(t, "Sao Paulo", d.Fields["60"])
	require.Equal(t, txid, d.AdditionalData["05"])
	require.Equal(t, "pix@example.com", d.MerchantAccount["01"])
}

func TestEncodeAmounts(t *testing.T) {
	t.Parallel()
	for cents, want := range map[int64]string{1: "0.01", 10: "0.10", 99: "0.99", 100: "1.00", 1990: "19.90", 100_000_000: "1000000.00"} {
		code, err := pix.BRCode{Key: "pix@example.com", MerchantName: "Loja", MerchantCity: "Recife", AmountCents: cents}.Encode()
		require.NoError(t, err)
		d, err := pix.Decode(code)
		require.NoError(t, err, "CRC and lengths check out")
		require.Equal(t, want, d.Fields["54"])
	}
}

func TestCRC16CCITTFalseCheckValue(t *testing.T) {
	t.Parallel()
	// The catalogued check value of CRC-16/CCITT-FALSE for "123456789".
	require.Equal(t, uint16(0x29B1), pix.CRC16("123456789"))
}

// A txid has the shape the Banco Central allows a charge's: 26 to 35
// letters and digits.
var validTxID = regexp.MustCompile(`^[A-Za-z0-9]{26,35}$`)

func TestTxID(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for range 1000 {
		id := pix.NewTxID()
		require.True(t, validTxID.MatchString(id), id)
		require.False(t, seen[id])
		seen[id] = true
	}
}

func TestNormalizeDocument(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in     string
		digits string
		kind   pix.DocumentKind
		ok     bool
	}{
		{"529.982.247-25", "52998224725", pix.CPF, true},
		{"52998224725", "52998224725", pix.CPF, true},
		{"52998224724", "", "", false},
		{"111.111.111-11", "", "", false},
		{"11.222.333/0001-81", "11222333000181", pix.CNPJ, true},
		{"11222333000182", "", "", false},
		{"00000000000000", "", "", false},
		{"1234", "", "", false},
		{"529.982.247-2x", "", "", false},
		// Alphanumeric CNPJs (IN RFB 2.229/2024): the Receita's example, in
		// any case, and others whose check digits were worked out apart.
		{"12.ABC.345/01DE-35", "12ABC34501DE35", pix.CNPJ, true},
		{"12.abc.345/01de-35", "12ABC34501DE35", pix.CNPJ, true},
		{"12ABC34501DE35", "12ABC34501DE35", pix.CNPJ, true},
		{"A1B2C3D4E5F668", "A1B2C3D4E5F668", pix.CNPJ, true},
		{"ZZ.ZZZ.ZZZ/0001-91", "ZZZZZZZZ000191", pix.CNPJ, true},
		{"12ABC34501DE36", "", "", false},
		{"12ABC34501DE53", "", "", false},
		{"12ABC34501DF35", "", "", false},
		{"12ABC34501DE3A", "", "", false},
		{"12ABC345O1DE35", "", "", false}, // a letter O for the zero
		{"5299822472A", "", "", false},    // a CPF has digits only
		{"12.ÀBC.345/01DE-35", "", "", false},
		{"", "", "", false},
	}
	for _, c := range cases {
		digits, kind, ok := pix.NormalizeDocument(c.in)
		require.Equal(t, c.ok, ok, c.in)
		if c.ok {
			require.Equal(t, c.digits, digits, c.in)
			require.Equal(t, c.kind, kind, c.in)
		}
	}
}

func TestFormatBRL(t *testing.T) {
	t.Parallel()
	for cents, want := range map[int64]string{
		0: "R$ 0,00", 1: "R$ 0,01", 99: "R$ 0,99", 100: "R$ 1,00", 123456: "R$ 1.234,56",
		100000000: "R$ 1.000.000,00", 12345678901: "R$ 123.456.789,01", -250: "-R$ 2,50",
	} {
		require.Equal(t, want, pix.FormatBRL(cents))
	}
}

func TestNormalizeKey(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in, key string
		kind    pix.KeyType
	}{
		{"529.982.247-25", "52998224725", pix.KeyCPF},
		{"11222333000181", "11222333000181", pix.KeyCNPJ},
		{"12.ABC.345/01DE-35", "12ABC34501DE35", pix.KeyCNPJ}, // alphanumeric, as the DICT holds it
		{"12abc34501de35", "12ABC34501DE35", pix.KeyCNPJ},
		{"12ABC34501DE36", "", ""},
		{"Ana@Example.com", "ana@example.com", pix.KeyEmail},
		{"+5561988880000", "+5561988880000", pix.KeyPhone},
		// Phones as Brazilians write them.
		{"(61) 98888-0000", "+5561988880000", pix.KeyPhone},
		{"+55 61 98888-0000", "+5561988880000", pix.KeyPhone},
		{"+55 (61) 98888-0000", "+5561988880000", pix.KeyPhone},
		{"61 98888-0000", "+5561988880000", pix.KeyPhone},
		{"61 988880000", "+5561988880000", pix.KeyPhone},
		{"(061) 98888-0000", "+5561988880000", pix.KeyPhone},
		{"0xx61 98888-0000", "+5561988880000", pix.KeyPhone},
		{"55 61 98888 0000", "+5561988880000", pix.KeyPhone},
		{"61-98888-0000", "+5561988880000", pix.KeyPhone},
		{"(11) 3333-4444", "+551133334444", pix.KeyPhone}, // a landline
		{"+1 (415) 555-0100", "+14155550100", pix.KeyPhone},
		{"(20) 98888-0000", "", ""},   // no such area code
		{"(61) 8888-0000", "", ""},    // a mobile without its 9, or a landline starting 8
		{"(61) 98888-00000", "", ""},  // a digit too many
		{"+55 61 8888-00000", "", ""}, // +55 and not a Brazilian number
		{"(61) 98888-0000 ramal 2", "", ""},
		{"529982247-25", "52998224725", pix.KeyCPF}, // a CPF with only its dash
		{"123E4567-E89B-12D3-A456-426614174000", "123e4567-e89b-12d3-a456-426614174000", pix.KeyEVP},
		{"52998224724", "", ""},                            // bad CPF check digit
		{"61988880000", "", ""},                            // a phone needs +country
		{"+55", "", ""},                                    // too short
		{"ana@example", "", ""},                            // no domain dot
		{"Ana <ana@example.com>", "", ""},                  // a name is not a key
		{strings.Repeat("a", 70) + "@example.com", "", ""}, // over 77 chars
		{"123e4567e89b12d3a456426614174000", "", ""},
		{"", "", ""},
		{"ana\u202e@example.com", "", ""}, // a bidi override
		{"an\u200ba@example.com", "", ""}, // a zero-width space
		{"ana@exa\x00mple.com", "", ""},   // NUL
		{"ana\t@example.com", "", ""},     // a control character
		{"anа@example.com", "", ""},       // a Cyrillic а that looks Latin
		{"ana@exámple.com", "", ""},       // non-ASCII domain
		{"ana.o'neil+pix@example.com.br", "ana.o'neil+pix@example.com.br", pix.KeyEmail},
	}
	for _, c := range cases {
		key, kind, ok := pix.NormalizeKey(c.in)
		require.Equal(t, c.kind != "", ok, c.in)
		require.Equal(t, c.key, key, c.in)
		require.Equal(t, c.kind, kind, c.in)
	}
}

func TestParseBRL(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]int64{
		"1.234,56": 123456, "1234,56": 123456, "1234.56": 123456, "R$ 12": 1200, "0,5": 50, " 7 ": 700, "1.000.000,00": 100000000,
	} {
		got, ok := pix.ParseBRL(in)
		require.True(t, ok, in)
		require.Equal(t, want, got, in)
	}
	for _, in := range []string{"", "abc", "1,234,56", "12,345", "-5", "1e3", "1.234.56", "12.3.4"} {
		_, ok := pix.ParseBRL(in)
		require.False(t, ok, in)
	}
}

// Pix Automático's composed code carries the recurrence's location in
// field 80, after the additional data, as API Pix's example does.
func TestBRCodeWithRecurrence(t *testing.T) {
	code, err := pix.BRCode{Key: "ana@example.com", MerchantName: "Escola", MerchantCity: "SAO PAULO", AmountCents: 1000, TxID: "abc",
		RecurrenceLocation: "pix.example.com/qr/v2/rec/3ffa640fa4f14080adccb949fa2dc0d0"}.Encode()
	if err != nil {
		t.Fatal(err)
	}
	// As the example in API Pix 2.9.0 (pixCopiaECola of a QR composto).
	want := "80800014br.gov.bcb.pix2558pix.example.com/qr/v2/rec/3ffa640fa4f14080adccb949fa2dc0d0"
	if !strings.Contains(code, "62070503abc"+want+"6304") {
		t.Fatalf("field 80 missing or misplaced: %s", code)
	}
	if _, err := pix.Decode(code); err != nil {
		t.Fatalf("decode: %v", err)
	}
}

// A PSP's charge code gains the recurrence (field 80) before a recomputed
// CRC, and reads back with both the charge's and the recurrence's location.
func TestWithRecurrenceComposesAPSPCode(t *testing.T) {
	charge, err := pix.BRCode{Location: "psp.example.com/qr/v2/9d36b84f", MerchantName: "Escola", MerchantCity: "SAO PAULO",
		AmountCents: 4990, SingleUse: true}.Encode()
	if err != nil {
		t.Fatal(err)
	}
	composed, err := pix.WithRecurrence(charge, "psp.example.com/qr/v2/rec/77aa")
	if err != nil {
		t.Fatal(err)
	}
	d, err := pix.Decode(composed)
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	if d.MerchantAccount["25"] != "psp.example.com/qr/v2/9d36b84f" || d.Recurrence["25"] != "psp.example.com/qr/v2/rec/77aa" {
		t.Fatalf("locations: %v %v", d.MerchantAccount, d.Recurrence)
	}
	if !strings.HasPrefix(composed, charge[:len(charge)-8]) {
		t.Fatalf("the charge's fields changed: %s", composed)
	}
	if _, err := pix.WithRecurrence(composed, "x"); err == nil {
		t.Fatal("a second recurrence was added")
	}
}

// A PSP's code names the merchant instead of the platform: only field 59
// changes (the name as BR Codes write it), in place, with a new CRC.
func TestWithMerchantNameRenamesAPSPCode(t *testing.T) {
	charge, err := pix.BRCode{Location: "psp.example.com/qr/v2/9d36b84f", MerchantName: "Payments", MerchantCity: "SAO PAULO",
		AmountCents: 4990, SingleUse: true}.Encode()
	if err != nil {
		t.Fatal(err)
	}
	renamed, err := pix.WithMerchantName(charge, "Padaria São João & Filhos Ltda")
	if err != nil {
		t.Fatal(err)
	}
	d, err := pix.Decode(renamed)
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	before, _ := pix.Decode(charge)
	if d.Fields["59"] != "Padaria Sao Joao & Filhos" {
		t.Fatalf("field 59: %q", d.Fields["59"])
	}
	before.Fields["59"], before.Fields["63"], d.Fields["63"] = d.Fields["59"], "", ""
	if fmt.Sprint(before.Fields) != fmt.Sprint(d.Fields) {
		t.Fatalf("other fields changed:\n%v\n%v", before.Fields, d.Fields)
	}
	if want := strings.Replace(charge[:len(charge)-4], "5908Payments", "5925Padaria Sao Joao & Filhos", 1); renamed[:len(renamed)-4] != want {
		t.Fatalf("not in place: %s", renamed)
	}
	if _, err := pix.WithMerchantName(charge[:len(charge)-1]+"0", "Loja"); err == nil {
		t.Fatal("a code with a bad CRC was renamed")
	}
	if _, err := pix.WithMerchantName(charge, "   "); err == nil {
		t.Fatal("renamed to nothing")
	}
}
