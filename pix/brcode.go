// Package pix holds the Brazilian PIX domain rules the service depends on:
// the EMV BR Code ("copia e cola"), transaction ids, CPF/CNPJ documents and
// the pt-BR money format.
package pix

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// Field lengths fixed by the BR Code manual (Manual de Padrões para Iniciação do Pix).
const (
	maxMerchantName = 25
	maxMerchantCity = 15
	maxFieldValue   = 99
)

// BRCode is the content of a PIX EMV QR code.
type BRCode struct {
	// Key is the receiver's PIX key (EVP, e-mail, phone, CPF/CNPJ).
	Key          string
	MerchantName string
	MerchantCity string
	// AmountCents is omitted from the code when zero (the payer types the amount).
	AmountCents int64
	// TxID is the reference label; "***" when empty, as the manual requires.
	TxID string
	// SingleUse marks the code as usable once (point of initiation method 12).
	SingleUse bool
	// Location, when set, makes the code dynamic: the payer's bank reads
	// the charge (its txid and amount) from this URL (without its scheme) at
	// the receiver's PSP instead of the code carrying a key; the txid is
	// then "***". A PSP's charges (cob) are dynamic.
	Location string
	// RecurrenceLocation, when set, adds Pix Automático's recurrence to
	// the code (field 80, the "QR composto"): the payer's bank reads the
	// recurrence to authorize (without its scheme).
	RecurrenceLocation string
}

// Encode renders the code as the "copia e cola" string, CRC included.
func (b BRCode) Encode() (string, error) {
	if b.Key == "" && b.Location == "" {
		return "", errors.New("pix: brcode: a key or a location is required")
	}
	name := emvText(b.MerchantName, maxMerchantName)
	city := emvText(b.MerchantCity, maxMerchantCity)
	if name == "" || city == "" {
		return "", errors.New("pix: brcode: merchant name and city are required")
	}
	txid := b.TxID
	if txid == "" || b.Location != "" {
		txid = "***"
	}
	account := tlv("00", "br.gov.bcb.pix") + tlv("01", b.Key)
	if b.Location != "" {
		account = tlv("00", "br.gov.bcb.pix") + tlv("25", b.Location)
	}

	fields := []field{{"00", "01"}}
	if b.SingleUse {
		fields = append(fields, field{"01", "12"})
	}
	fields = append(fields,
		field{"26", account},
		field{"52", "0000"},
		field{"53", "986"},
	)
	if b.AmountCents > 0 {
		fields = append(fields, field{"54", formatAmount(b.AmountCents)})
	}
	fields = append(fields,
		field{"58", "BR"},
		field{"59", name},
		field{"60", city},
		field{"62", tlv("05", txid)},
	)
	if b.RecurrenceLocation != "" {
		fields = append(fields, field{"80", tlv("00", "br.gov.bcb.pix") + tlv("25", b.RecurrenceLocation)})
	}

	var sb strings.Builder
	sb.Grow(160)
	for _, f := range fields {
		if len(f.value) > maxFieldValue {
			return "", fmt.Errorf("pix: brcode: field %s longer than %d", f.id, maxFieldValue)
		}
		sb.WriteString(tlv(f.id, f.value))
	}
	sb.WriteString("6304")
	crc := CRC16(sb.String())
	const hex = "0123456789ABCDEF"
	sb.Write([]byte{hex[crc>>12], hex[crc>>8&0xF], hex[crc>>4&0xF], hex[crc&0xF]})
	return sb.String(), nil
}

type field struct{ id, value string }

// tlv is one EMV field: id, two-digit length, value (values are at most
// maxFieldValue bytes, which Encode checks).
func tlv(id, value string) string {
	n := len(value)
	return id + string([]byte{byte('0' + n/10%10), byte('0' + n%10)}) + value
}

func formatAmount(cents int64) string {
	frac := cents % 100
	return strconv.FormatInt(cents/100, 10) + "." + string([]byte{byte('0' + frac/10), byte('0' + frac%10)})
}

// emvText folds accents away and keeps printable ASCII, because BR Code
// readers only accept that alphabet in the name and city fields.
func emvText(s string, max int) string {
	var out []rune
	for _, r := range norm.NFD.String(s) {
		if unicode.Is(unicode.Mn, r) {
			continue
		}
		if r < 0x20 || r > 0x7e {
			continue
		}
		out = append(out, r)
	}
	res := strings.TrimSpace(string(out))
	if len(res) > max {
		res = strings.TrimSpace(res[:max])
	}
	return res
}

// CRC16 is CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF), the checksum of field 63.
func CRC16(s string) uint16 {
	crc := uint16(0xFFFF)
	for i := 0; i < len(s); i++ {
		crc = crc<<8 ^ crcTable[byte(crc>>8)^s[i]]
	}
	return crc
}

// crcTable holds CRC16's step for each byte value (a byte at a time
// instead of a bit at a time: every payment computes one).
var crcTable = func() (t [256]uint16) {
	for b := range t {
		crc := uint16(b) << 8
		for range 8 {
			if crc&0x8000 != 0 {
				crc = crc<<1 ^ 0x1021
			} else {
				crc <<= 1
			}
		}
		t[b] = crc
	}
	return t
}()

// Decoded is a parsed BR Code: top-level fields by id, and the nested
// templates 26 (merchant account) and 62 (additional data) by sub-id.
type Decoded struct {
	Fields          map[string]string
	MerchantAccount map[string]string
	AdditionalData  map[string]string
	// Recurrence is template 80 (Pix Automático's recurrence), empty
	// when the code carries none.
	Recurrence map[string]string
}

// ErrBadCRC means the code parsed but its checksum does not match its content.
var ErrBadCRC = errors.New("pix: brcode: CRC mismatch")

// Decode parses a BR Code and verifies its CRC.
func Decode(code string) (Decoded, error) {
	fields, err := parseTLV(code)
	if err != nil {
		return Decoded{}, err
	}
	crc, ok := fields["63"]
	if !ok || len(code) < 4 || !strings.HasSuffix(code, crc) {
		return Decoded{}, errors.New("pix: brcode: CRC field 63 must come last")
	}
	want := fmt.Sprintf("%04X", CRC16(code[:len(code)-4]))
	if crc != want {
		return Decoded{}, ErrBadCRC
	}
	d := Decoded{Fields: fields}
	if d.MerchantAccount, err = parseTLV(fields["26"]); err != nil {
		return Decoded{}, fmt.Errorf("pix: brcode: field 26: %w", err)
	}
	if d.AdditionalData, err = parseTLV(fields["62"]); err != nil {
		return Decoded{}, fmt.Errorf("pix: brcode: field 62: %w", err)
	}
	if d.Recurrence, err = parseTLV(fields["80"]); err != nil {
		return Decoded{}, fmt.Errorf("pix: brcode: field 80: %w", err)
	}
	return d, nil
}

// WithRecurrence adds Pix Automático's recurrence at location (without its
// scheme) to a code a PSP made (its charge's "copia e cola"): the "QR
// composto" that pays the charge and authorizes the recurrence. Field 80
// goes last before the CRC, which is computed again.
func WithRecurrence(code, location string) (string, error) {
	d, err := Decode(code)
	if err != nil {
		return "", err
	}
	if _, ok := d.Fields["80"]; ok {
		return "", errors.New("pix: brcode: the code already carries a recurrence")
	}
	value := tlv("00", "br.gov.bcb.pix") + tlv("25", location)
	if len(value) > maxFieldValue {
		return "", fmt.Errorf("pix: brcode: field 80 longer than %d", maxFieldValue)
	}
	out := code[:len(code)-len("6304XXXX")] + tlv("80", value) + "6304"
	return out + fmt.Sprintf("%04X", CRC16(out)), nil
}

// WithMerchantName names the merchant (field 59) in a code a PSP made,
// which names the PSP's customer, the platform: the payer then reads the
// name of the account that charges them. The fields keep their order; the
// CRC is computed again.
func WithMerchantName(code, name string) (string, error) {
	if _, err := Decode(code); err != nil {
		return "", err
	}
	text := emvText(name, maxMerchantName)
	if text == "" {
		return "", errors.New("pix: brcode: merchant name is required")
	}
	body := code[:len(code)-len("6304XXXX")]
	var out strings.Builder
	for i := 0; i < len(body); {
		id := body[i : i+2]
		n, _ := strconv.Atoi(body[i+2 : i+4])
		value := body[i+4 : i+4+n]
		if id == "59" {
			value = text
		}
		out.WriteString(tlv(id, value))
		i += 4 + n
	}
	out.WriteString("6304")
	return out.String() + fmt.Sprintf("%04X", CRC16(out.String())), nil
}

func parseTLV(s string) (map[string]string, error) {
	out := map[string]string{}
	for i := 0; i < len(s); {
		if i+4 > len(s) {
			return nil, errors.New("pix: brcode: truncated field header")
		}
		id := s[i : i+2]
		n, err := strconv.Atoi(s[i+2 : i+4])
		if err != nil || n < 0 {
			return nil, fmt.Errorf("pix: brcode: bad length for field %s", id)
		}
		if i+4+n > len(s) {
			return nil, fmt.Errorf("pix: brcode: field %s overruns the code", id)
		}
		out[id] = s[i+4 : i+4+n]
		i += 4 + n
	}
	return out, nil
}

// Receiver is the PIX account charges are paid into: the platform's key at
// its PSP and the city its BR Codes name.
type Receiver struct {
	Key  string
	City string
}
