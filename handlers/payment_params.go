package handlers

import (
	"encoding/json"
	"net/mail"
	"regexp"
	"sort"
	"strings"
	"unicode/utf8"

	"payments/pix"
	"payments/store"
)

// Bounds of the create-payment body (DESIGN: Payments).
const (
	minAmountCents      = 1
	maxAmountCents      = 100_000_000
	maxDescription      = 500
	maxMetadataKeys     = 50
	maxMetadataKey      = 40
	maxMetadataValue    = 500
	minExpiresIn        = 300
	maxExpiresIn        = 2_592_000
	defaultExpiresIn    = 86_400
	maxCustomerName     = 120
	maxEmail            = 254
	maxPhoneInputLength = 32
)

var (
	externalIDPattern = regexp.MustCompile(`^[A-Za-z0-9._~:-]{1,128}$`)
	phonePattern      = regexp.MustCompile(`^\+?[0-9]{8,15}$`)
	phonePunctuation  = strings.NewReplacer(" ", "", "-", "", "(", "", ")", "", ".", "")
)

// createPaymentParams is a validated create-payment body.
type createPaymentParams struct {
	AmountCents int64
	Description *string
	ExternalID  *string
	Customer    *store.Customer
	Metadata    map[string]string
	ExpiresIn   int64
}

var createPaymentFields = []string{"amount_cents", "description", "external_id", "customer", "metadata", "expires_in"}

func parseCreatePayment(body []byte) (createPaymentParams, *Error) {
	p := createPaymentParams{ExpiresIn: defaultExpiresIn, Metadata: map[string]string{}}
	o, apiErr := decodeBody(body)
	if apiErr != nil {
		return p, apiErr
	}
	if apiErr := o.rejectUnknown(createPaymentFields...); apiErr != nil {
		return p, apiErr
	}

	if !o.present("amount_cents") {
		return p, o.missing("amount_cents")
	}
	p.AmountCents, apiErr = o.integerBounded("amount_cents", minAmountCents, maxAmountCents,
		func() *Error {
			return InvalidParam("amount_too_small", "amount_cents", "amount_cents must be at least %d.", minAmountCents)
		},
		func() *Error {
			return InvalidParam("amount_too_large", "amount_cents", "amount_cents must be at most %d (R$ 1.000.000,00).", maxAmountCents)
		})
	if apiErr != nil {
		return p, apiErr
	}

	if o.present("description") {
		d, apiErr := o.str("description", maxDescription)
		if apiErr != nil {
			return p, apiErr
		}
		p.Description = &d
	}

	if o.present("external_id") {
		id, apiErr := o.str("external_id", 128)
		if apiErr != nil {
			return p, apiErr
		}
		if !externalIDPattern.MatchString(id) {
			return p, InvalidParam("parameter_invalid", "external_id",
				"external_id must be 1 to 128 characters from A-Z a-z 0-9 . _ ~ : -")
		}
		p.ExternalID = &id
	}

	if o.present("expires_in") {
		outOfRange := func() *Error {
			return InvalidParam("parameter_invalid", "expires_in",
				"expires_in must be between %d and %d seconds.", minExpiresIn, maxExpiresIn)
		}
		if p.ExpiresIn, apiErr = o.integerBounded("expires_in", minExpiresIn, maxExpiresIn, outOfRange, outOfRange); apiErr != nil {
			return p, apiErr
		}
	}

	if o.present("metadata") {
		if p.Metadata, apiErr = parseMetadata(o); apiErr != nil {
			return p, apiErr
		}
	}

	if o.present("customer") {
		if p.Customer, apiErr = parseCustomer(o); apiErr != nil {
			return p, apiErr
		}
	}
	return p, nil
}

func parseMetadata(o jsonObject) (map[string]string, *Error) {
	m, apiErr := o.object("metadata")
	if apiErr != nil {
		return nil, apiErr
	}
	if len(m.fields) > maxMetadataKeys {
		return nil, InvalidParam("parameter_invalid", "metadata", "metadata can have at most %d keys.", maxMetadataKeys)
	}
	keys := make([]string, 0, len(m.fields))
	for k := range m.fields {
		keys = append(keys, k)
	}
	sort.Strings(keys) // report the same key first on every run
	out := make(map[string]string, len(keys))
	for _, k := range keys {
		param := "metadata[" + k + "]"
		if k == "" || utf8.RuneCountInString(k) > maxMetadataKey || strings.ContainsRune(k, 0) {
			return nil, InvalidParam("parameter_invalid", param, "metadata keys must be 1 to %d characters.", maxMetadataKey)
		}
		entry := jsonObject{fields: map[string]json.RawMessage{param: m.fields[k]}}
		v, apiErr := entry.str(param, maxMetadataValue)
		if apiErr != nil {
			return nil, apiErr
		}
		out[k] = v
	}
	return out, nil
}

var customerFields = []string{"name", "email", "document", "phone"}

func parseCustomer(o jsonObject) (*store.Customer, *Error) {
	c, apiErr := o.object("customer")
	if apiErr != nil {
		return nil, apiErr
	}
	if apiErr := c.rejectUnknown(customerFields...); apiErr != nil {
		return nil, apiErr
	}
	for _, required := range []string{"name", "email", "document"} {
		if !c.present(required) {
			return nil, c.missing(required)
		}
	}
	cust := &store.Customer{}
	if cust.Name, apiErr = c.str("name", maxCustomerName); apiErr != nil {
		return nil, apiErr
	}
	cust.Name = strings.TrimSpace(cust.Name)
	if cust.Name == "" {
		return nil, InvalidParam("parameter_invalid", c.param("name"), "customer.name must not be blank.")
	}

	email, apiErr := c.str("email", maxEmail)
	if apiErr != nil {
		return nil, apiErr
	}
	if !validEmail(email) {
		return nil, InvalidParam("parameter_invalid", c.param("email"), "customer.email must be a valid e-mail address.")
	}
	cust.Email = email

	doc, apiErr := c.str("document", 32)
	if apiErr != nil {
		return nil, apiErr
	}
	digits, _, ok := pix.NormalizeDocument(doc)
	if !ok {
		return nil, InvalidParam("document_invalid", c.param("document"),
			"customer.document must be a CPF (11 digits) or CNPJ (14 digits) with valid check digits.")
	}
	cust.Document = digits

	if c.present("phone") {
		phone, apiErr := c.str("phone", maxPhoneInputLength)
		if apiErr != nil {
			return nil, apiErr
		}
		phone = phonePunctuation.Replace(phone)
		if !phonePattern.MatchString(phone) {
			return nil, InvalidParam("parameter_invalid", c.param("phone"),
				"customer.phone must be 8 to 15 digits, optionally starting with +.")
		}
		cust.Phone = &phone
	}
	return cust, nil
}

func validEmail(s string) bool {
	addr, err := mail.ParseAddress(s)
	if err != nil || addr.Address != s || addr.Name != "" {
		return false
	}
	at := strings.LastIndexByte(s, '@')
	return at > 0 && strings.Contains(s[at+1:], ".")
}
