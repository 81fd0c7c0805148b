package api

import (
	"strings"
	"time"

	"payments/handlers/reply"
	"payments/handlers/request"
	"payments/pix"
	"payments/pix/calendar"
	"payments/store"
)

// maxPhoneInput bounds a customer phone as sent, punctuation included.
const maxPhoneInput = 32

// maxDocumentInput bounds a CPF or CNPJ as sent, punctuation included.
const maxDocumentInput = 32

var phonePunctuation = strings.NewReplacer(" ", "", "-", "", "(", "", ")", "", ".", "")

var createPaymentFields = append([]string{"amount_cents", "description", "external_id", "customer", "metadata", "expires_in", "due_date", "splits"}, dueFields...)

// parseCreatePayment reads a create-payment body by the payment's rules
// (store/payments.go; a due-date charge's, pix/cobv), made on today.
func parseCreatePayment(o request.Object, today calendar.Date) (store.NewPayment, *reply.Error) {
	p := store.NewPayment{ExpiresIn: store.DefaultExpiresIn * time.Second, Metadata: map[string]string{}}
	if !o.Present("amount_cents") {
		return p, o.Missing("amount_cents")
	}
	var apiErr *reply.Error
	p.AmountCents, apiErr = o.IntegerBounded("amount_cents", store.MinAmountCents, store.MaxAmountCents,
		func() *reply.Error {
			return reply.InvalidParam("amount_too_small", o.Param("amount_cents"), "amount_cents must be at least %d.", store.MinAmountCents)
		},
		func() *reply.Error {
			return reply.InvalidParam("amount_too_large", o.Param("amount_cents"), "amount_cents must be at most %d (R$ 1.000.000,00).", store.MaxAmountCents)
		})
	if apiErr != nil {
		return p, apiErr
	}

	if o.Present("description") {
		d, apiErr := o.Str("description", store.MaxDescription)
		if apiErr != nil {
			return p, apiErr
		}
		p.Description = &d
	}

	if o.Present("external_id") {
		id, apiErr := o.Str("external_id", store.MaxExternalID)
		if apiErr != nil {
			return p, apiErr
		}
		if !store.ExternalIDPattern.MatchString(id) {
			return p, reply.InvalidParam("parameter_invalid", o.Param("external_id"),
				"external_id must be 1 to 128 characters from A-Z a-z 0-9 . _ ~ : -")
		}
		p.ExternalID = &id
	}

	if o.Present("expires_in") {
		outOfRange := func() *reply.Error {
			return reply.InvalidParam("parameter_invalid", o.Param("expires_in"),
				"expires_in must be between %d and %d seconds.", store.MinExpiresIn, store.MaxExpiresIn)
		}
		secs, apiErr := o.IntegerBounded("expires_in", store.MinExpiresIn, store.MaxExpiresIn, outOfRange, outOfRange)
		if apiErr != nil {
			return p, apiErr
		}
		p.ExpiresIn = time.Duration(secs) * time.Second
	}

	if o.Present("metadata") {
		if p.Metadata, apiErr = parseMetadata(o); apiErr != nil {
			return p, apiErr
		}
	}

	if o.Present("customer") {
		if p.Customer, apiErr = parseCustomer(o); apiErr != nil {
			return p, apiErr
		}
	}

	if o.Present("splits") {
		if p.Splits, apiErr = parseSplits(o); apiErr != nil {
			return p, apiErr
		}
	}

	if p.DueTerms, apiErr = parseDueTerms(o, p.AmountCents, today); apiErr != nil {
		return p, apiErr
	}
	if p.DueTerms != nil && p.Customer == nil {
		// API Pix's cobv requires its devedor.
		return p, reply.InvalidParam("parameter_missing", o.Param("customer"),
			"A due-date charge requires customer (its name and CPF or CNPJ), as API Pix's cobv does.")
	}
	return p, nil
}

var customerFields = []string{"name", "email", "document", "phone"}

func parseCustomer(o request.Object) (*store.Customer, *reply.Error) {
	c, apiErr := o.Object("customer")
	if apiErr != nil {
		return nil, apiErr
	}
	if apiErr := c.RejectUnknown(customerFields...); apiErr != nil {
		return nil, apiErr
	}
	for _, required := range []string{"name", "email", "document"} {
		if !c.Present(required) {
			return nil, c.Missing(required)
		}
	}
	cust := &store.Customer{}
	if cust.Name, apiErr = c.Str("name", store.MaxCustomerName); apiErr != nil {
		return nil, apiErr
	}
	cust.Name = strings.TrimSpace(cust.Name)
	if cust.Name == "" {
		return nil, reply.InvalidParam("parameter_invalid", c.Param("name"), "customer.name must not be blank.")
	}

	email, apiErr := c.Str("email", store.MaxEmail)
	if apiErr != nil {
		return nil, apiErr
	}
	if !store.ValidEmail(email) {
		return nil, reply.InvalidParam("parameter_invalid", c.Param("email"), "customer.email must be a valid e-mail address.")
	}
	cust.Email = email

	doc, apiErr := c.Str("document", maxDocumentInput)
	if apiErr != nil {
		return nil, apiErr
	}
	digits, _, ok := pix.NormalizeDocument(doc)
	if !ok {
		return nil, reply.InvalidParam("document_invalid", c.Param("document"),
			"customer.document must be a CPF (11 digits) or a CNPJ (14 characters, digits or letters, as in 12.ABC.345/01DE-35) with valid check digits.")
	}
	cust.Document = digits

	if c.Present("phone") {
		phone, apiErr := c.Str("phone", maxPhoneInput)
		if apiErr != nil {
			return nil, apiErr
		}
		phone = phonePunctuation.Replace(phone)
		if !store.PhonePattern.MatchString(phone) {
			return nil, reply.InvalidParam("parameter_invalid", c.Param("phone"),
				"customer.phone must be 8 to 15 digits, optionally starting with +.")
		}
		cust.Phone = &phone
	}
	return cust, nil
}
