package web

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	"payments/dispatcher"
	"payments/dispatcher/envelope"
	"payments/handlers/api"
	"payments/handlers/psp"
	"payments/handlers/reply"
	"payments/operations"
	"payments/pix"
	"payments/pix/cobv"
	"payments/store"
	"payments/store/eventfilter"
	"payments/versions"
)

// OpenAPIDocument is the OpenAPI 3.1 description of every JSON route, as
// `go run ./cmd/openapi` generates it from OpenAPI (below); `make
// check-generated` fails when the two differ.
//
//go:embed openapi.json
var OpenAPIDocument []byte

// OpenAPI builds the document from the rules the handlers validate with:
// the store's limits, patterns, statuses and event catalog, the PSP
// ingress's patterns, the error types. Every enum and const has a type,
// request bodies are written inline, components hold the resources, and
// every operation lists every status the server can answer it with.
func OpenAPI() ([]byte, error) {
	b, err := json.MarshalIndent(document(), "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// Schema pieces.
var (
	timestampPattern = `^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$`
	moneyLabel       = o("type", "string", "pattern", `^-?R\$ \d{1,3}(\.\d{3})*,\d{2}$`, "examples", []string{"R$ 1.234,56"})
)

func str() obj                     { return o("type", "string") }
func nullableStr() obj             { return o("type", []string{"string", "null"}) }
func integer() obj                 { return o("type", "integer") }
func boolean() obj                 { return o("type", "boolean") }
func ref(schema string) obj        { return o("$ref", "#/components/schemas/"+schema) }
func constant(v string) obj        { return o("type", "string", "const", v) }
func timestamp() obj               { return o("type", "string", "format", "date-time", "pattern", timestampPattern) }
func nullableTimestamp() obj       { return timestamp().with("type", []string{"string", "null"}) }
func arrayOf(items any) obj        { return o("type", "array", "items", items) }
func describe(s obj, d string) obj { return s.with("description", d) }

// enum is a string enum of values.
func enum[T ~string](values []T) obj { return o("type", "string", "enum", values) }

// nullableEnum is a string enum of values, or null.
func nullableEnum(values []string) obj {
	all := make([]any, 0, len(values)+1)
	for _, v := range values {
		all = append(all, v)
	}
	return o("type", []string{"string", "null"}, "enum", append(all, nil))
}

// object is a closed object: props, all required unless required is given.
func object(props obj, required ...string) obj {
	if required == nil {
		for _, f := range props {
			required = append(required, f.key)
		}
	}
	return o("type", "object", "additionalProperties", false, "properties", props, "required", required)
}

// optional marks an object's fields none of which is required.
var optional = []string{}

func listOf(url, item string, maxItems int) obj {
	data := arrayOf(ref(item))
	if maxItems > 0 {
		data = data.with("maxItems", maxItems)
	}
	urlSchema := str()
	if url != "" {
		urlSchema = constant(url)
	}
	return describe(object(o("object", constant("list"), "url", urlSchema, "has_more", boolean(), "data", data)),
		"One page, newest first; has_more says whether older objects follow.")
}

// metadata is the integrator's key/value map as given.
func metadataInput() obj {
	return o("type", []string{"object", "null"}, "maxProperties", store.MaxMetadataKeys,
		"propertyNames", o("type", "string", "minLength", 1, "maxLength", store.MaxMetadataKey),
		"additionalProperties", o("type", "string", "maxLength", store.MaxMetadataValue))
}

func metadata() obj { return o("type", "object", "additionalProperties", str()) }

// Parameters.
func pathParam(name, desc string, schema obj) obj {
	return o("name", name, "in", "path", "required", true, "description", desc, "schema", schema)
}

func queryParam(name, desc string, schema obj) obj {
	p := o("name", name, "in", "query", "required", false, "schema", schema)
	if desc != "" {
		p = p.with("description", desc)
	}
	return p
}

var (
	paymentRef = pathParam("id_or_external_id",
		"A payment id, or the external_id given at creation (percent-encoded or not). A UUID that matches a payment id wins.",
		o("type", "string", "maxLength", store.MaxExternalID))
	webhookID      = pathParam("id", "A webhook id (wh_...).", str())
	deliveryID     = pathParam("delivery_id", "A delivery id (whd_...).", str())
	disputeID      = pathParam("id", "A dispute id (dsp_...).", str())
	withdrawalID   = pathParam("id", "A withdrawal id (wd_...).", str())
	reportID       = pathParam("id", "A report id (rpt_...).", str())
	refundID       = pathParam("id", "A refund id (re_...).", str())
	eventID        = pathParam("id", "An event id (evt_...).", str())
	subscriptionID = pathParam("id", "A subscription id (sub_...).", str())
	limit          = queryParam("limit", "", o("type", "integer", "minimum", 1, "maximum", api.MaxListLimit, "default", api.DefaultListLimit))
	idempotencyKey = o("$ref", "#/components/parameters/IdempotencyKey")
)

func idList(status obj, cursor string) []any {
	return []any{limit, queryParam("status", "", status), queryParam("starting_after", cursor, str())}
}

// Responses.
func jsonResponse(desc string, schema obj, headers obj) obj {
	r := o("description", desc, "content", o("application/json", o("schema", schema)))
	if headers != nil {
		r = r.with("headers", headers)
	}
	return r
}

// apiHeaders are on every /api/v1 answer.
func apiHeaders(extra ...any) obj {
	h := o()
	for _, name := range []string{"RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset", "X-Request-Id", versions.Header} {
		h = h.with(name, o("$ref", "#/components/headers/"+name))
	}
	return h.with(extra...)
}

// postHeaders are on a POST's answer: it may be a replay.
func postHeaders(extra ...any) obj {
	return apiHeaders(append([]any{"Idempotent-Replayed", o("$ref", "#/components/headers/Idempotent-Replayed")}, extra...)...)
}

var location = o("description", "The new object's URL.", "schema", str())

// pspUnavailable answers a live creation the PSP has not registered yet.
var pspUnavailable = o("description", "503 psp_unavailable: the PSP has not registered the charge yet; retry with the same Idempotency-Key. 503 service_unavailable: the database is briefly out of reach; nothing was created; retry likewise.",
	"headers", o("X-Request-Id", o("$ref", "#/components/headers/X-Request-Id"),
		"Retry-After", o("description", "Seconds to wait before retrying.", "schema", integer())),
	"content", o("application/json", o("schema", ref("Error"))))

// responses is the success answer at status, then one error answer per
// status in errors.
func responses(status int, success obj, errors ...int) obj {
	r := o(strconv.Itoa(status), success)
	for _, code := range errors {
		r = r.with(strconv.Itoa(code), o("$ref", "#/components/responses/Error"))
	}
	return r
}

// What every /api/v1 operation can be answered with besides its own: a
// bad header or query (400), no or a wrong key (401), a restricted key
// without the permission (403 permission_denied) or a key used from outside
// its allow-list (403 ip_not_allowed), a body over the limit
// (413, on any method), too many requests (429), a failure of ours (500),
// the database briefly out of reach (503 service_unavailable, Retry-After).
// POSTs add a key still in flight (409) and a key reused with another body
// (422); operations on an object add 404; those reading a body, 415.
var (
	getErrors  = []int{400, 401, 403, 413, 429, 500, 503}
	postErrors = []int{400, 401, 403, 409, 413, 422, 429, 500, 503}
)

func with(base []int, more ...int) []int {
	out := append(append([]int(nil), base...), more...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return slices.Compact(out)
}

func body(required bool, schema obj) obj {
	return o("required", required, "content", o("application/json", o("schema", schema)))
}

func op(id, summary, tag string, kv ...any) obj {
	return o("operationId", id, "summary", summary, "tags", []string{tag}).with(kv...)
}

// Request bodies, inline in their operations.
func createPaymentBody() obj {
	return object(o(
		"amount_cents", o("type", "integer", "minimum", store.MinAmountCents, "maximum", store.MaxAmountCents),
		"description", nullableStr().with("maxLength", store.MaxDescription),
		"external_id", describe(nullableStr().with("pattern", store.ExternalIDPattern.String()),
			"Your reference, unique per account and mode; usable in place of the id."),
		"customer", o("oneOf", []any{ref("CustomerInput"), o("type", "null")}),
		"metadata", metadataInput(),
		"expires_in", describe(o("type", []string{"integer", "null"}, "minimum", store.MinExpiresIn, "maximum", store.MaxExpiresIn,
			"default", store.DefaultExpiresIn), "Seconds until the charge expires. Not with due_date."),
		"due_date", describe(o("type", "string", "format", "date"),
			"Makes a due-date charge (API Pix cobv): the date it is due, YYYY-MM-DD in Brasília, not before today. It then requires customer (its name and CPF or CNPJ) and refuses expires_in."),
		"days_after_due", describe(o("type", "integer", "minimum", 0, "maximum", cobv.MaxDaysAfterDue, "default", 0),
			"Calendar days it stays payable after due_date (validadeAposVencimento); then it expires (payment.expired). A due date on a weekend or a national holiday stays payable, without fine or interest, on the next business day."),
		"fine", ref("DueValue").with("description", "Charged once when paid late: amount_cents, or percent of the amount less the abatement (multa modalities 1 and 2)."),
		"interest", ref("DueInterest"),
		"discounts", ref("DueDiscounts"),
		"abatement", ref("DueValue").with("description", "Deducted whatever the day: amount_cents, or percent of the amount (abatimento modalities 1 and 2). Less than the amount."),
		"splits", describe(o("type", "array", "maxItems", store.MaxSplits, "items", ref("SplitInput")),
			"Parts of the charge for other accounts of its platform (the platform, or another of its subaccounts), credited when it is paid, in its transaction. A part is its amount_cents, or its percent of what is paid, rounded down; with fee_payer recipient it gives its share of the fee (rounded down). Parts that exceed the net (a discount) shrink in proportion. The charge's account keeps the rest of the net, every rounding's remainder with it. A refund or a lost dispute takes back from each account its part times the amount over what was paid, rounded down; the charge's account gives the rest. Refused: an account outside the platform or the charge's own (split_account_invalid), parts above the net on the amount (splits_too_large)."),
	), "amount_cents")
}

// bankAccountSchema is a payer's account at their bank (API Pix's DadosBancarios).
func bankAccountSchema() obj {
	return object(o(
		"ispb", describe(o("type", "string", "pattern", "^[0-9A-Z]{8}$"), "The bank's ISPB."),
		"branch", o("type", "string", "pattern", "^[0-9]{1,4}$"),
		"number", o("type", "string", "pattern", "^[0-9]{1,20}$"),
	), "ispb", "number")
}

// subscriptionSchemas are Pix Automático's subscription and a payment's cycle.
func subscriptionSchemas() obj {
	date := o("type", "string", "format", "date")
	nullableDate := o("type", []string{"string", "null"}, "format", "date")
	return o(
		"BankAccount", bankAccountSchema(),
		"SubscriptionStatus", describe(enum(store.SubscriptionStatuses),
			"created (live: not yet at the PSP) -> awaiting_authorization -> active | rejected | expired (not authorized in time); active -> canceled (by the receiver or the payer) | expired (past end_date)."),
		"Subscription", object(o(
			"id", o("type", "string", "pattern", "^sub_[0-9A-Za-z]{22}$"),
			"object", constant("subscription"),
			"livemode", boolean(),
			"status", ref("SubscriptionStatus"),
			"journey", describe(enum(store.Journeys), "authorization_only: a QR whose scan authorizes (API Pix's jornada 2); authorization_with_first_payment: a QR that pays the first cycle and authorizes (jornada 3); payer_bank_request: a request pushed to the payer's bank (jornada 1)."),
			"payer", object(o("name", str(), "document", describe(o("type", "string", "pattern", `^(\d{11}|[0-9A-Z]{12}\d{2})$`), "CPF (11 digits) or CNPJ (14 characters: 12 digits or upper-case letters, as alphanumeric CNPJs have since July 2026, then 2 check digits)."),
				"bank_account", describe(o("oneOf", []any{ref("BankAccount"), o("type", "null")}), "Where payer_bank_request pushes its request; null when not given."))),
			"contract", describe(str(), "The contract the payer recognizes (API Pix's vinculo.contrato)."),
			"description", nullableStr(),
			"interval", enum(store.Intervals),
			"start_date", describe(date, "The first cycle's due date."),
			"end_date", nullableDate,
			"amount_cents", describe(o("type", []string{"integer", "null"}, "minimum", 1), "Each cycle's amount (fixed); null for variable amounts."),
			"max_amount_cents", describe(o("type", []string{"integer", "null"}, "minimum", 1), "The most a cycle may charge (variable amounts); null for a fixed amount."),
			"retry_policy", describe(enum(store.RetryPolicies), "three_in_seven_days: a cycle the payer's balance could not cover is tried again, up to three times within seven days of its due date."),
			"rec_id", describe(o("type", []string{"string", "null"}, "pattern", "^R[RN][0-9A-Za-z]{27}$"), "The recurrence's id in Pix (API Pix's idRec); live, null until the PSP has the recurrence (status created)."),
			"br_code", describe(nullableStr(), "The QR journeys' code (a QR composto: the recurrence in field 80, on the first cycle's charge for authorization_with_first_payment); null for payer_bank_request."),
			"checkout_url", o("type", []string{"string", "null"}, "format", "uri"),
			"first_payment", describe(o("type", []string{"string", "null"}, "format", "uuid"), "authorization_with_first_payment: the first cycle's payment, paid as the payer authorizes."),
			"next_cycle_date", describe(nullableDate, "The due date of the next cycle to be made; null unless active."),
			"canceled_by", o("type", []string{"string", "null"}, "enum", []any{store.CanceledByReceiver, store.CanceledByPayer, nil}),
			"metadata", metadata(),
			"created_at", timestamp(), "updated_at", timestamp(), "activated_at", nullableTimestamp(), "ended_at", nullableTimestamp(),
			"splits", describe(arrayOf(ref("Split")), "Each cycle's charge is split as these say (empty: none); net_cents is on each cycle's payment."),
		)),
		"SubscriptionList", listOf("/api/v1/subscriptions", "Subscription", 0),
		"Cycle", describe(object(o(
			"number", o("type", "integer", "minimum", 1),
			"due_date", date,
			"status", describe(enum(store.CycleStatuses), "scheduled -> paid | retrying | failed | canceled; retrying -> paid | retrying | failed | canceled."),
			"attempts", describe(o("type", "integer", "minimum", 0), "Debits the payer's bank refused."),
			"retry_policy", enum(store.RetryPolicies),
			"next_attempt_date", nullableDate,
			"failure_reason", nullableStr(),
		)), "The payment's place in its subscription. A cycle that fails for good ends its payment expired, with payment.failed."),
	)
}

// dueSchemas are a due-date charge's terms and what it owes on a day.
func dueSchemas() obj {
	percent := describe(o("type", "string", "pattern", `^\d{1,10}\.\d{2}$`, "examples", []string{"2.00"}), "A percent with two decimals, as a string.")
	cents := o("type", "integer", "minimum", 1, "maximum", store.MaxAmountCents)
	return o(
		"DueValue", describe(object(o("amount_cents", cents, "percent", percent), optional...),
			"Exactly one of amount_cents and percent."),
		"DueInterest", describe(object(o(
			"amount_cents_per_day", cents, "percent_per_day", percent, "percent_per_month", percent, "percent_per_year", percent,
			"business_days", describe(boolean(), "Count business days (weekdays that are no national holiday) instead of calendar days; false when left out.")), optional...),
			"Added for each day late, counted from the due date: exactly one rate (juros modalities 1 to 8). Per month and per year are pro rata: 30 and 360 calendar days, or 21 and 252 business days. Simple interest, rounded half up to the cent."),
		"DueDiscounts", describe(object(o(
			"fixed", o("type", "array", "minItems", 1, "maxItems", cobv.MaxDiscounts, "items", object(o(
				"until", describe(o("type", "string", "format", "date"), "Paid on or before this date (not after due_date)."),
				"amount_cents", cents, "percent", percent), "until")),
			"per_day_early", ref("DueValue").with("description", "For each day paid before the due date: amount_cents, or percent of the amount less the abatement."),
			"business_days", describe(boolean(), "With per_day_early: count business days; false when left out.")), optional...),
			"Exactly one of fixed (up to 3 dates, all amounts or all percents: desconto modalities 1 and 2; the earliest date on or after the payment's applies) and per_day_early (modalities 3 to 6). Never below R$ 0,01."),
		"AmountDue", object(o(
			"object", constant("amount_due"),
			"date", o("type", "string", "format", "date"),
			"amount_cents", describe(integer(), "The charge's amount."),
			"abatement_cents", o("type", "integer", "minimum", 0),
			"discount_cents", o("type", "integer", "minimum", 0),
			"fine_cents", o("type", "integer", "minimum", 0),
			"interest_cents", o("type", "integer", "minimum", 0),
			"amount_due_cents", describe(integer(), "amount_cents - abatement_cents - discount_cents + fine_cents + interest_cents."),
			"payable", describe(boolean(), "Whether the charge can be paid that day: pending, and (a due-date charge) not past due_date + days_after_due."),
		)),
		"PaymentBatchItemError", object(o("type", enum(reply.Types), "code", str(), "param", str(), "message", str()), "type", "code", "message"),
		"PaymentBatch", object(o(
			"id", o("type", "string", "pattern", "^pbat_[0-9A-Za-z]{22}$"),
			"object", constant("payment_batch"),
			"livemode", boolean(),
			"description", nullableStr(),
			"created_at", timestamp(),
			"counts", object(o(store.BatchItemCreated, integer(), store.BatchItemRegistered, integer(), store.BatchItemRefused, integer())),
			"items", arrayOf(object(o(
				"position", describe(o("type", "integer", "minimum", 0), "The item's place in the request's payments."),
				"external_id", nullableStr(),
				"status", describe(enum(store.BatchItemStatuses), "created: the payment exists (live: not yet registered at the PSP); registered: the PSP registered its charge (live); refused: see error."),
				"payment_id", describe(o("type", []string{"string", "null"}, "format", "uuid"), "null when the item was refused before a payment was made."),
				"error", o("oneOf", []any{ref("PaymentBatchItemError"), o("type", "null")}),
			))).with("maxItems", store.MaxBatchItems),
		)),
	)
}

func webhookBody(create bool) obj {
	props := o(
		"url", describe(o("type", "string", "format", "uri", "maxLength", store.MaxWebhookURL), "Public https endpoint."),
		"name", o("type", "string", "maxLength", store.MaxWebhookName),
		"api_version", enum(store.APIVersions),
		"events", o("type", "array", "minItems", 1, "items", ref("EventType")),
		"enabled", boolean(),
		"rate_limit", describe(o("type", []string{"integer", "null"}, "minimum", 1, "maximum", store.MaxRateLimit),
			rateLimitDescription+" null removes the limit."),
		"ordered", describe(boolean(), orderedDescription+" Applies to deliveries queued from then on."),
		"forward_trace", describe(boolean(), forwardTraceDescription),
		"payments_version", describe(enum(versions.API.Dates()), paymentsVersionDescription),
		"filter", describe(o("type", []string{"string", "null"}, "maxLength", eventfilter.MaxLength), filterDescription+" null (or empty) removes it."),
		"mtls", describe(o("oneOf", []any{ref("WebhookMTLSInput"), o("type", "null")}),
			"Mutual TLS to the receiver. Replaces the settings whole; null (on update) removes them."),
	)
	if !create {
		return object(props, optional...)
	}
	props = props.with(
		"api_version", enum(store.APIVersions).with("default", store.APIVersions[0]),
		"enabled", boolean().with("default", true),
		"ordered", describe(boolean().with("default", false), orderedDescription),
		"forward_trace", describe(boolean().with("default", false), forwardTraceDescription),
		"payments_version", describe(enum(versions.API.Dates()), paymentsVersionDescription+" Default: the request's version (its Payments-Version header, else the account's pin)."),
		"secret", describe(str(), fmt.Sprintf("Optional custom HMAC secret, %d to %d printable ASCII characters, not beginning with whsk_; generated (whsec_...) when absent or empty. Not accepted with signature_algorithm ed25519.",
			store.MinCustomSecret, store.MaxCustomSecret)),
		"signature_algorithm", signatureAlgorithm().with("default", store.SignatureHMAC),
	)
	return object(props, "url", "events")
}

func signatureAlgorithm() obj {
	return describe(enum(store.SignatureAlgorithms), "hmac-sha256: a shared secret signs X-Service-Signature (t=,v1=) and webhook-signature (v1,...). "+
		"ed25519: a signing key the service holds signs webhook-signature only (v1a,<base64> over webhook-id.webhook-timestamp.body, Standard Webhooks); "+
		"receivers verify with public_key and no X-Service-Signature is sent.")
}

const orderedDescription = "true: the deliveries of one object (the payment, subscription, refund, dispute or withdrawal an event is about) " +
	"reach the receiver in the order their events happened, one at a time; while one is retried the later ones of that object wait, other objects' flow. " +
	"A delivery given up (failed) releases those behind it: the gap shows as that failed delivery."

const filterDescription = "A payload filter: a CEL expression (https://cel.dev) over the event, true or false; the webhook receives only the events of its types it passes. " +
	"It sees type, livemode and data.object (the object as the payload carries it; numbers without a fraction are integers), e.g. " +
	"data.object.amount_cents >= 10000 && data.object.metadata.channel == \"loja\". Checked when saved (400 naming filter, saying why). " +
	"An event it cannot be evaluated on (a field the object lacks) does not pass: test with has(data.object.metadata.channel) first. " +
	"Recover and replay apply it; a resend of one named event does not. A change applies within a second in every process."

const paymentsVersionDescription = "The dated API version its events are rendered in (GET /api/v1/api_versions lists them): each attempt sends it " +
	"as Payments-Version, and data.object has that version's shape. Its own pin: changing the account's leaves it as it is."

const forwardTraceDescription = "true: each attempt carries the W3C Trace Context headers traceparent and tracestate of the request " +
	"whose change made the event (POST /api/v1/payments with your traceparent, for one), continued through the delivery attempt " +
	"when the service traces: your webhook handler's span joins the trace your own request began. No webhook anchor (Svix, Hookdeck, " +
	"Convoy, Stripe) forwards it. An event made without a caller's trace (a payer paying, the PSP's callback) starts its own when " +
	"the service traces, and sends none when it does not."

const rateLimitDescription = "Deliveries per second this webhook accepts, across every dispatcher process (null: no limit). " +
	"No second at the receiver holds more; the rest wait in the queue."

func createWithdrawalBody() obj {
	return object(o(
		"amount_cents", o("type", "integer", "minimum", 1, "maximum", int64(store.MaxWithdrawalCents)),
		"pix_key", describe(o("type", "string", "maxLength", store.MaxPixKeyInput),
			"CPF or CNPJ (check digits valid; . - / stripped; an alphanumeric CNPJ's letters in any case, stored in upper case), e-mail (any case), a phone as Brazilians write one (+5561988880000, +55 61 98888-0000, (61) 98888-0000, 61 98888-0000; without a country code it must be a Brazilian number with its area code), or a random key (UUID, any case). Stored as the DICT holds it."),
		"description", nullableStr().with("maxLength", store.MaxWithdrawalDescription),
		"metadata", metadataInput(),
	), "amount_cents", "pix_key")
}

// noBody is the body of a POST that takes no parameters: none, or {}.
func noBody() obj { return body(false, object(o(), optional...)) }

func paths() obj {
	created := func(desc, schema string) obj {
		return jsonResponse(desc, ref(schema), postHeaders("Location", location))
	}
	ok := func(desc, schema string) obj { return jsonResponse(desc, ref(schema), apiHeaders()) }
	posted := func(desc, schema string) obj { return jsonResponse(desc, ref(schema), postHeaders()) }
	pspErrors := []int{400, 401, 404, 409, 413, 415, 500}
	pspSecurity := []any{o("pspToken", []string{})}
	return o(
		"/api/v1/payments", o(
			"post", op("createPayment", "Create a PIX payment", "Payments",
				"description", "Test mode: the payment is created with its BR Code at once. Live mode: the charge is registered at the PSP (API Pix PUT /cob/{txid}) and the request waits a few seconds (PSP_CHARGE_WAIT) for it: 201 carries the PSP's BR Code; 502 psp_refused means the PSP refused the charge (the payment is canceled); 503 psp_unavailable (Retry-After) means the PSP has not registered it yet: the message names the payment, which has no BR Code and cannot be paid until it is registered, and a retry with the same Idempotency-Key answers 201 with it once it is. A live key on a service without a PSP is 403 live_mode_disabled.",
				"parameters", []any{idempotencyKey},
				"requestBody", body(true, createPaymentBody()),
				"responses", responses(201, created("The created payment, status pending.", "Payment"), with(postErrors, 403, 415, 502)...).
					with("503", pspUnavailable)),
			"get", op("listPayments", "List payments, newest first", "Payments",
				"parameters", []any{limit,
					queryParam("status", "", ref("PaymentStatus")),
					queryParam("created[gte]", "Created at or after this Unix time (seconds).", o("type", "integer", "minimum", 0)),
					queryParam("created[lte]", "Created at or before this Unix time (seconds), that second included.", o("type", "integer", "minimum", 0)),
					queryParam("due_date[gte]", "Due-date charges due on or after this day (YYYY-MM-DD).", o("type", "string", "format", "date")),
					queryParam("due_date[lte]", "Due-date charges due on or before this day (YYYY-MM-DD).", o("type", "string", "format", "date")),
					queryParam("subscription", "A subscription id (sub_...): its cycles.", str()),
					queryParam("pix_qr_code", "A static code's id (pqr_...): the payments into it.", str()),
					queryParam("payment_link", "A payment link's id (plink_...): the charges its payers made.", str()),
					queryParam("starting_after", "A payment id: return the page of older payments after it.", o("type", "string", "format", "uuid")),
					queryParam("ending_before", "A payment id: return the page of newer payments before it.", o("type", "string", "format", "uuid"))},
				"responses", responses(200, ok("One page of payments.", "PaymentList"), getErrors...))),
		"/api/v1/payments/{id_or_external_id}", o(
			"parameters", []any{paymentRef},
			"get", op("getPayment", "Retrieve a payment", "Payments",
				"responses", responses(200, ok("The payment.", "Payment"), with(getErrors, 404)...)),
			"delete", op("cancelPayment", "Cancel a pending payment", "Payments",
				"description", "A pending payment becomes canceled. Canceling a canceled payment returns it unchanged. Any other status is 409 payment_not_cancelable.",
				"responses", responses(200, ok("The canceled payment.", "Payment"), with(getErrors, 404, 409)...))),
		"/api/v1/payments/{id_or_external_id}/amount_due", o(
			"parameters", []any{paymentRef},
			"get", op("getPaymentAmountDue", "What the payer owes on a date", "Payments",
				"description", "The amount, abatement, discount, fine and interest on date, computed as the checkout, the PSP and the payer's bank compute them (the Banco Central's cobv rules). An immediate charge owes its amount.",
				"parameters", []any{queryParam("date", "YYYY-MM-DD; today in Brasília by default.", o("type", "string", "format", "date"))},
				"responses", responses(200, ok("What is owed that day.", "AmountDue"), with(getErrors, 404)...))),
		"/api/v1/payment_batches", o(
			"post", op("createPaymentBatch", "Create up to 1,000 charges at once", "Payments",
				"description", "Each item is a create-payment body with its external_id, validated on its own: a refused item (its error names payments[i].field) does not stop the others. Test mode: the charges are created at once, each with payment.created. Live mode: the due-date charges are registered at the PSP together (API Pix PUT /lotecobv/{id}), the others one by one (PUT /cob/{txid}); each item becomes registered (its payment payable, payment.created sent) or refused as the PSP answers: read the batch again.",
				"parameters", []any{idempotencyKey},
				"requestBody", body(true, object(o(
					"payments", describe(o("type", "array", "minItems", 1, "maxItems", store.MaxBatchItems,
						"items", createPaymentBody().with("required", []string{"amount_cents", "external_id"})),
						"Create-payment bodies, each with its external_id."),
					"description", nullableStr().with("maxLength", store.MaxDescription)), "payments")),
				"responses", responses(201, created("The batch and each item's outcome.", "PaymentBatch"), with(postErrors, 403, 415)...))),
		"/api/v1/payment_batches/{id}", o(
			"parameters", []any{pathParam("id", "A payment batch id (pbat_...).", str())},
			"get", op("getPaymentBatch", "Retrieve a batch and each item's status", "Payments",
				"responses", responses(200, ok("The batch.", "PaymentBatch"), with(getErrors, 404)...))),
		"/api/v1/subscriptions", o(
			"post", op("createSubscription", "Create a Pix Automático subscription", "Subscriptions",
				"description", "A recurrence its payer authorizes once in their bank; its cycles are then payments made ahead of each due date and paid without the payer acting. The QR journeys answer with a br_code and a checkout_url for the payer; authorization_with_first_payment needs amount_cents and makes the first cycle's payment at once. Live, the PSP registers the recurrence (its location, the recurrence, and on payer_bank_request the request to the payer's bank): the answer waits a few seconds for it and comes with status awaiting_authorization and the PSP's code, or with status created (GET it again); subscription.created is sent once the PSP has it, with the object GET then answers.",
				"parameters", []any{idempotencyKey},
				"requestBody", body(true, object(o(
					"payer", object(o("name", o("type", "string", "maxLength", 140), "document", describe(str(), "CPF or CNPJ with valid check digits (alphanumeric CNPJs too, letters in any case, stored in upper case); . - / stripped."),
						"bank_account", describe(o("oneOf", []any{ref("BankAccount"), o("type", "null")}), "The payer's account, where payer_bank_request pushes its request: required live for that journey.")),
						"name", "document"),
					"contract", o("type", "string", "minLength", 1, "maxLength", store.MaxContract),
					"description", o("type", "string", "maxLength", store.MaxSubscriptionDescription),
					"interval", enum(store.Intervals),
					"start_date", describe(o("type", "string", "format", "date"), "The first cycle's due date, not before today (Brasília)."),
					"end_date", describe(o("type", "string", "format", "date"), "After start_date; none: until canceled."),
					"amount_cents", describe(o("type", "integer", "minimum", 1, "maximum", store.MaxAmountCents), "A fixed amount each cycle. Exactly one of amount_cents and max_amount_cents."),
					"max_amount_cents", describe(o("type", "integer", "minimum", 1, "maximum", store.MaxAmountCents), "Variable amounts up to it: each cycle is made with POST .../cycles and its amount."),
					"retry_policy", enum(store.RetryPolicies).with("default", store.RetryNone),
					"journey", enum(store.Journeys),
					"metadata", metadataInput(),
					"splits", describe(o("type", "array", "maxItems", store.MaxSplits, "items", ref("SplitInput")),
						"Each cycle's charge split as a charge's splits say; checked on amount_cents (or max_amount_cents)."),
				), "payer", "contract", "interval", "start_date", "journey")),
				"responses", responses(201, created("The subscription, awaiting its payer's authorization.", "Subscription"), with(postErrors, 403, 415)...)),
			"get", op("listSubscriptions", "List subscriptions, newest first", "Subscriptions",
				"parameters", []any{limit, queryParam("starting_after", "A subscription id: the page of older ones after it.", str())},
				"responses", responses(200, ok("One page of subscriptions.", "SubscriptionList"), getErrors...))),
		"/api/v1/subscriptions/{id}", o(
			"parameters", []any{subscriptionID},
			"get", op("getSubscription", "Retrieve a subscription", "Subscriptions",
				"responses", responses(200, ok("The subscription.", "Subscription"), with(getErrors, 404)...))),
		"/api/v1/subscriptions/{id}/cancel", o(
			"parameters", []any{subscriptionID},
			"post", op("cancelSubscription", "Cancel a subscription (its receiver)", "Subscriptions",
				"description", "No more cycles are made and the open one is canceled (payment.canceled); subscription.canceled with canceled_by receiver. Canceling a canceled subscription returns it unchanged; a rejected or expired one is 409 subscription_invalid_state.",
				"parameters", []any{idempotencyKey},
				"requestBody", noBody(),
				"responses", responses(200, posted("The canceled subscription.", "Subscription"), with(postErrors, 404, 415)...))),
		"/api/v1/subscriptions/{id}/cycles", o(
			"parameters", []any{subscriptionID},
			"post", op("createCycle", "Make the subscription's next cycle now", "Subscriptions",
				"description", "A variable subscription's cycles are made this way, with their amount (at most max_amount_cents); a fixed one's are made by the service ahead of each due date, or now this way. The previous cycle must be settled (409 cycle_open); past end_date, 409 subscription_ended.",
				"parameters", []any{idempotencyKey},
				"requestBody", body(false, object(o("amount_cents", o("type", "integer", "minimum", 1, "maximum", store.MaxAmountCents)), optional...)),
				"responses", responses(201, created("The cycle's payment.", "Payment"), with(postErrors, 404, 415)...))),
		"/api/v1/test_helpers/subscriptions/{id}/authorize", o(
			"parameters", []any{subscriptionID},
			"post", op("testHelperAuthorizeSubscription", "Test mode: the payer authorizes the subscription in their bank", "Test helpers",
				"description", "It becomes active (subscription.activated); on authorization_with_first_payment its first cycle is paid with it.",
				"parameters", []any{idempotencyKey},
				"requestBody", noBody(),
				"responses", responses(200, posted("The active subscription.", "Subscription"), with(postErrors, 403, 404, 415)...))),
		"/api/v1/test_helpers/subscriptions/{id}/reject", o(
			"parameters", []any{subscriptionID},
			"post", op("testHelperRejectSubscription", "Test mode: the payer rejects the subscription", "Test helpers",
				"parameters", []any{idempotencyKey},
				"requestBody", noBody(),
				"responses", responses(200, posted("The rejected subscription.", "Subscription"), with(postErrors, 403, 404, 415)...))),
		"/api/v1/test_helpers/subscriptions/{id}/payer_cancel", o(
			"parameters", []any{subscriptionID},
			"post", op("testHelperPayerCancelSubscription", "Test mode: the payer cancels the subscription in their bank", "Test helpers",
				"parameters", []any{idempotencyKey},
				"requestBody", noBody(),
				"responses", responses(200, posted("The canceled subscription (canceled_by payer).", "Subscription"), with(postErrors, 403, 404, 415)...))),
		"/api/v1/test_helpers/subscriptions/{id}/run_cycle", o(
			"parameters", []any{subscriptionID},
			"post", op("testHelperRunCycle", "Test mode: the payer's bank settles the open cycle's attempt", "Test helpers",
				"description", "Without an open cycle it makes the next one first (a variable subscription's with amount_cents). outcome pay: paid (payment.paid). insufficient_balance: retried the next day within three_in_seven_days (payment.retry_scheduled, cycle retrying), else failed for good (payment.failed; the payment ends expired).",
				"parameters", []any{idempotencyKey},
				"requestBody", body(false, object(o("outcome", enum(operations.CycleOutcomes).with("default", operations.CyclePay),
					"amount_cents", o("type", "integer", "minimum", 1, "maximum", store.MaxAmountCents)), optional...)),
				"responses", responses(200, posted("The cycle's payment.", "Payment"), with(postErrors, 403, 404, 415)...))),
		"/api/v1/payments/{id_or_external_id}/refund", o(
			"parameters", []any{paymentRef},
			"post", op("refundPayment", "Refund a paid payment, in full or in part", "Payments",
				"description", "Creates a refund (the same as POST /api/v1/refunds) of amount_cents, or of everything the payment has left to refund when the body is empty or has no amount_cents. Test mode: it succeeds at once and the answer is the payment (refunded once its refunds add up to it). Live mode: the refund is pending while the PSP returns the money (devolução); the payment becomes refunded, with payment.refunded, when its refunds that succeeded add up to it. Any other status than paid is 409 payment_not_refundable; an open dispute is 409 payment_disputed; more than is left, 400 amount_too_large; refunds already adding up to the amount, 409 payment_not_refundable; an available balance that cannot cover the amount less the fee is 409 balance_insufficient; an unknown parameter, 400 parameter_unknown.",
				"parameters", []any{idempotencyKey},
				"requestBody", body(false, object(o(
					"amount_cents", describe(o("type", "integer", "minimum", 1, "maximum", store.MaxAmountCents), "Omitted: all the payment has left to refund."),
					"description", describe(o("type", "string", "maxLength", store.MaxRefundDescription), "Shown to the payer by their bank.")), optional...)),
				"responses", responses(200, posted("The payment: refunded in test mode when the refund makes it whole, still paid in live mode until the devoluções succeed.", "Payment"), with(postErrors, 403, 404, 415)...))),
		"/api/v1/test_helpers/payments/{id_or_external_id}/pay", o(
			"parameters", []any{paymentRef},
			"post", op("testHelperPayPayment", "Test mode: confirm a payment as the PSP would", "Test helpers",
				"description", "date: the day the payer pays (today in Brasília by default). A due-date charge is paid what it owes that day, its discount, fine and interest applied (amount_paid_cents); a date past due_date + days_after_due is 409 payment_not_payable_on_date.",
				"parameters", []any{idempotencyKey},
				"requestBody", body(false, object(o("date", o("type", "string", "format", "date")), optional...)),
				"responses", responses(200, posted("The paid payment.", "Payment"), with(postErrors, 403, 404, 415)...))),
		"/api/v1/test_helpers/payments/{id_or_external_id}/expire", o(
			"parameters", []any{paymentRef},
			"post", op("testHelperExpirePayment", "Test mode: expire a pending payment now", "Test helpers",
				"parameters", []any{idempotencyKey},
				"responses", responses(200, posted("The expired payment.", "Payment"), with(postErrors, 403, 404)...))),
		"/api/v1/test_helpers/payments/{id_or_external_id}/dispute", o(
			"parameters", []any{paymentRef},
			"post", op("testHelperDisputePayment", "Test mode: the payer's bank opens a PIX MED dispute on a paid payment", "Test helpers",
				"description", "What the dispute holds moves from available to pending until it closes; dispute.opened is sent. A payment may have several disputes (the payer's bank may report several). The dispute is blocked, answerable until respond_by (3 days), analysed within 7 days and returned within 11.",
				"parameters", []any{idempotencyKey},
				"requestBody", body(false, object(o("reason", ref("DisputeReason").with("default", store.DisputeReasons[0]),
					"amount_cents", describe(o("type", "integer", "minimum", 1), "What the payer's bank claims (MED 2.0): all that was received by default. The dispute holds what it claims of what is still the merchant's (received, less refunds, less what other open disputes hold).")),
					optional...)),
				"responses", responses(201, created("The open dispute.", "Dispute"), with(postErrors, 403, 404, 415)...))),
		"/api/v1/test_helpers/disputes/{id}/win", o(
			"parameters", []any{disputeID},
			"post", op("testHelperWinDispute", "Test mode: close an open dispute in the merchant's favour", "Test helpers",
				"description", "The held amount goes back to available; dispute.won is sent. Winning a won dispute returns it unchanged.",
				"parameters", []any{idempotencyKey},
				"requestBody", noBody(),
				"responses", responses(200, posted("The won dispute.", "Dispute"), with(postErrors, 403, 404, 415)...))),
		"/api/v1/test_helpers/disputes/{id}/lose", o(
			"parameters", []any{disputeID},
			"post", op("testHelperLoseDispute", "Test mode: close an open dispute in the payer's favour", "Test helpers",
				"description", "The held amount returns to the payer, the fee returns to the merchant and the payment becomes refunded; dispute.lost and payment.refunded are sent.",
				"parameters", []any{idempotencyKey},
				"requestBody", noBody(),
				"responses", responses(200, posted("The lost dispute.", "Dispute"), with(postErrors, 403, 404, 415)...))),
		"/api/v1/test_helpers/withdrawals/{id}/complete", o(
			"parameters", []any{withdrawalID},
			"post", op("testHelperCompleteWithdrawal", "Test mode: the PSP confirms a withdrawal", "Test helpers",
				"parameters", []any{idempotencyKey},
				"requestBody", noBody(),
				"responses", responses(200, posted("The completed withdrawal.", "Withdrawal"), with(postErrors, 403, 404, 415)...))),
		"/api/v1/test_helpers/withdrawals/{id}/fail", o(
			"parameters", []any{withdrawalID},
			"post", op("testHelperFailWithdrawal", "Test mode: the PSP reports a withdrawal failed; its amount returns to available", "Test helpers",
				"parameters", []any{idempotencyKey},
				"requestBody", body(false, object(o("failure_reason", o("type", "string", "maxLength", store.MaxFailureReason)), optional...)),
				"responses", responses(200, posted("The failed withdrawal.", "Withdrawal"), with(postErrors, 403, 404, 415)...))),
		"/api/v1/test_helpers/withdrawals/{id}/contest_result", o(
			"parameters", []any{withdrawalID},
			"post", op("testHelperContestResult", "Test mode: a contested withdrawal's request for a return ends", "Test helpers",
				"description", "amount_returned_cents came back: all of it (returned), part (partially_returned) or 0 (refused). What came back is credited to the available balance.",
				"parameters", []any{idempotencyKey},
				"requestBody", body(true, object(o("amount_returned_cents", o("type", "integer", "minimum", 0)))),
				"responses", responses(200, posted("The withdrawal, its contest ended.", "Withdrawal"), with(postErrors, 403, 404, 409, 415)...))),
		"/api/v1/test_helpers/refunds/{id}/succeed", o(
			"parameters", []any{refundID},
			"post", op("testHelperSucceedRefund", "Test mode: the payer's bank took a pending refund back", "Test helpers",
				"description", "refund.succeeded is sent; the payment becomes refunded (payment.refunded) when its succeeded refunds add up to its amount. Succeeding a succeeded refund returns it unchanged; a failed one is 409 refund_invalid_state.",
				"parameters", []any{idempotencyKey},
				"requestBody", noBody(),
				"responses", responses(200, posted("The succeeded refund.", "Refund"), with(postErrors, 403, 404, 415)...))),
		"/api/v1/test_helpers/refunds/{id}/fail", o(
			"parameters", []any{refundID},
			"post", op("testHelperFailRefund", "Test mode: a pending refund failed; its amount returns to available", "Test helpers",
				"description", "refund.failed is sent and the amount and fee share come back to the available balance. Failing a failed refund returns it unchanged; a succeeded one is 409 refund_invalid_state.",
				"parameters", []any{idempotencyKey},
				"requestBody", body(false, object(o("failure_reason", o("type", "string", "maxLength", store.MaxFailureReason)), optional...)),
				"responses", responses(200, posted("The failed refund.", "Refund"), with(postErrors, 403, 404, 415)...))),
		"/api/v1/refunds", o(
			"post", op("createRefund", "Refund all or part of a paid payment", "Refunds",
				"description", "The refund is pending and its amount (less the part of the fee it gives back) leaves the available balance at once. Live mode: the PSP returns the money to the payer (API Pix devolução) and refund.succeeded or refund.failed tells how it ended; a failed refund's amount comes back. Test mode: it stays pending until a test helper ends it. Several refunds per payment add up to at most its amount; the payment becomes refunded when succeeded refunds reach it. More than is left is 400 amount_too_large; nothing left, 409 payment_not_refundable; a payment not paid, 409 payment_not_refundable; an open dispute, 409 payment_disputed; a balance that cannot cover it, 409 balance_insufficient.",
				"parameters", []any{idempotencyKey},
				"requestBody", body(true, object(o(
					"payment", describe(str(), "The payment's id or external_id."),
					"amount_cents", describe(o("type", "integer", "minimum", 1, "maximum", store.MaxAmountCents), "Omitted: all the payment has left to refund."),
					"description", describe(o("type", "string", "maxLength", store.MaxRefundDescription), "Shown to the payer by their bank.")), "payment")),
				"responses", responses(201, created("The pending refund.", "Refund"), with(postErrors, 403, 404, 415)...)),
			"get", op("listRefunds", "List refunds, newest first", "Refunds",
				"description", "With payment, the refunds of that payment only (named by its id or its external_id; an unknown one is 400 resource_missing).",
				"parameters", append(idList(ref("RefundStatus"), "A refund id (re_...): return the older refunds after it."),
					queryParam("payment", "A payment's id or external_id: only its refunds.", str())),
				"responses", responses(200, ok("One page of refunds.", "RefundList"), getErrors...))),
		"/api/v1/refunds/{id}", o(
			"parameters", []any{refundID},
			"get", op("getRefund", "Retrieve a refund", "Refunds",
				"responses", responses(200, ok("The refund.", "Refund"), with(getErrors, 404)...))),
		"/api/v1/balance", o(
			"get", op("getBalance", "The account's balance in this mode", "Balance",
				"description", "available: what can be withdrawn now (paid amounts less fees, refunds, lost disputes and withdrawals). pending: received money held by open disputes. Both are running sums of the ledger.",
				"responses", responses(200, ok("The balance.", "Balance"), getErrors...))),
		"/api/v1/disputes", o(
			"get", op("listDisputes", "List disputes, newest first", "Disputes",
				"parameters", idList(ref("DisputeStatus"), "A dispute id (dsp_...): return the older disputes after it."),
				"responses", responses(200, ok("One page of disputes.", "DisputeList"), getErrors...))),
		"/api/v1/disputes/{id}", o(
			"parameters", []any{disputeID},
			"get", op("getDispute", "Retrieve a dispute", "Disputes",
				"responses", responses(200, ok("The dispute.", "Dispute"), with(getErrors, 404)...))),
		"/api/v1/disputes/{id}/defense", o(
			"parameters", []any{disputeID},
			"post", op("defendDispute", "Answer a dispute (MED 2.0): the merchant's account and its evidence", "Disputes",
				"description", fmt.Sprintf("Once, before respond_by, while the dispute is open: multipart/form-data with a text field (1 to %d characters) and up to %d evidence files (each at most %d bytes, a PDF, PNG or JPEG by its content; the whole request at most 4 MiB), or JSON {\"text\": ...} without files. The dispute goes under_review and dispute.updated is sent; live, the defense goes to the PSP. The files are listed under defense.evidence and served at their url. A second defense is 409 dispute_defended; after respond_by, 409 dispute_deadline_passed; a closed dispute, 409 dispute_invalid_state.",
					store.MaxDefenseText, store.MaxEvidenceFiles, store.MaxEvidenceBytes),
				"parameters", []any{idempotencyKey},
				"requestBody", o("required", true, "content", o(
					"multipart/form-data", o("schema", object(o(
						"text", o("type", "string", "minLength", 1, "maxLength", store.MaxDefenseText),
						"evidence", o("type", "array", "maxItems", store.MaxEvidenceFiles, "items", o("type", "string", "format", "binary")),
					), "text"), "encoding", o("evidence", o("contentType", "application/pdf, image/png, image/jpeg"))),
					"application/json", o("schema", object(o("text", o("type", "string", "minLength", 1, "maxLength", store.MaxDefenseText)), "text")))),
				"responses", responses(200, ok("The dispute, under review with its defense.", "Dispute"), with(postErrors, 404, 409, 415)...))),
		"/api/v1/disputes/{id}/evidence/{file}", o(
			"parameters", []any{disputeID, pathParam("file", "An evidence file id (file_...).", str())},
			"get", op("getDisputeEvidence", "Download a defense's evidence file", "Disputes",
				"description", "The file as it was sent, as an attachment (Content-Disposition names it), never cached.",
				"responses", responses(200, o("description", "The file.", "content", o(
					"application/pdf", o("schema", o("type", "string", "format", "binary")),
					"image/png", o("schema", o("type", "string", "format", "binary")),
					"image/jpeg", o("schema", o("type", "string", "format", "binary")))),
					with(getErrors, 404)...))),
		"/api/v1/withdrawals", o(
			"post", op("createWithdrawal", "Withdraw available balance to a PIX key", "Withdrawals",
				"description", "The amount leaves the available balance at once and the withdrawal is pending until the PSP completes it (withdrawal.completed) or fails it (withdrawal.failed, the amount comes back). Live mode: the PSP is asked to pay the key out (idempotent by the withdrawal id). More than the available balance is 409 balance_insufficient; concurrent withdrawals never overdraw.",
				"parameters", []any{idempotencyKey},
				"requestBody", body(true, createWithdrawalBody()),
				"responses", responses(201, posted("The pending withdrawal.", "Withdrawal"), with(postErrors, 403, 415)...)),
			"get", op("listWithdrawals", "List withdrawals, newest first", "Withdrawals",
				"parameters", idList(ref("WithdrawalStatus"), "A withdrawal id (wd_...): return the older withdrawals after it."),
				"responses", responses(200, ok("One page of withdrawals.", "WithdrawalList"), getErrors...))),
		"/api/v1/withdrawals/{id}", o(
			"parameters", []any{withdrawalID},
			"get", op("getWithdrawal", "Retrieve a withdrawal", "Withdrawals",
				"responses", responses(200, ok("The withdrawal.", "Withdrawal"), with(getErrors, 404)...))),
		"/api/v1/pix_qr_codes", o(
			"post", op("createPixQRCode", "Make a static Pix QR code, paid any number of times", "Static QR codes",
				"description", fmt.Sprintf("A static BR Code (EMV) with the receiver's key, its txid (field 62-05) and a fixed amount_cents, or none: the payer types the amount. Each payment into it is a payment of its own with pix_qr_code set (GET /api/v1/payments?pix_qr_code=...), paid when the Pix arrives. description: at most %d characters (the payer's bank shows it); expires_at: RFC 3339, in the future, or none.", store.MaxQRCodeDescription),
				"parameters", []any{idempotencyKey},
				"requestBody", body(false, object(o(
					"amount_cents", describe(o("type", "integer", "minimum", 1), "A fixed amount; left out, the payer types it."),
					"description", o("type", "string", "maxLength", store.MaxQRCodeDescription),
					"expires_at", o("type", "string", "format", "date-time")), optional...)),
				"responses", responses(201, created("The static code.", "PixQRCode"), with(postErrors, 403, 415)...)),
			"get", op("listPixQRCodes", "List static QR codes, newest first", "Static QR codes",
				"parameters", idList(enum([]string{store.QRCodeActive, store.QRCodeDisabled}), "A static code id (pqr_...): return the older codes after it."),
				"responses", responses(200, ok("One page of static codes.", "PixQRCodeList"), getErrors...))),
		"/api/v1/pix_qr_codes/{id}", o(
			"parameters", []any{pathParam("id", "A static code id (pqr_...).", str())},
			"get", op("getPixQRCode", "Retrieve a static QR code", "Static QR codes",
				"responses", responses(200, ok("The static code.", "PixQRCode"), with(getErrors, 404)...))),
		"/api/v1/pix_qr_codes/{id}/deactivate", o(
			"parameters", []any{pathParam("id", "A static code id (pqr_...).", str())},
			"post", op("deactivatePixQRCode", "Deactivate a static QR code: it takes no more payments", "Static QR codes",
				"description", "Its status becomes disabled and its public page and image are withdrawn. A code printed already can still be scanned: a Pix paid into it arrives at the key, pays no payment and waits to be returned, as a Pix naming no charge does. A code deactivated already is answered as it is.",
				"parameters", []any{idempotencyKey},
				"requestBody", body(false, object(o(), optional...)),
				"responses", responses(200, ok("The static code.", "PixQRCode"), with(postErrors, 403, 404, 415)...))),
		"/api/v1/test_helpers/pix_qr_codes/{id}/pay", o(
			"parameters", []any{pathParam("id", "A static code id (pqr_...).", str())},
			"post", op("testHelperPayPixQRCode", "Test mode: a payer pays a static code", "Test helpers",
				"description", "A payment of its own, created and paid (payment.created, payment.paid), with pix_qr_code set. amount_cents: the code's when fixed (any other is 400 amount_invalid), required when open. A disabled or expired code is 409 pix_qr_code_inactive.",
				"parameters", []any{idempotencyKey},
				"requestBody", body(false, object(o("amount_cents", o("type", "integer", "minimum", 1)), optional...)),
				"responses", responses(201, created("The paid payment.", "Payment"), with(postErrors, 403, 404, 409, 415)...))),
		"/api/v1/subaccounts", o(
			"post", op("createSubaccount", "Make a subaccount: an account of the platform's, for one of its sellers", "Subaccounts",
				"description", "An account of its own (balance and ledger, payments, refunds, disputes, withdrawals, webhooks, events, reports) that the platform acts for with the Payments-Account header. Its events reach its own webhooks and the platform's, which name it in the envelope's account. Its pricing and live mode are the platform's. name: 1 to 140 characters; document: CPF or CNPJ (alphanumeric too) with valid check digits; pix_key: where its withdrawals go, in the DICT's form. A subaccount has no subaccounts (400 platform_only).",
				"parameters", []any{idempotencyKey},
				"requestBody", body(true, object(o(
					"name", o("type", "string", "minLength", 1, "maxLength", operations.MaxSubaccountName),
					"document", str(),
					"email", o("type", "string", "format", "email", "maxLength", store.MaxEmail),
					"pix_key", str()))),
				"responses", responses(201, created("The subaccount.", "Account"), with(postErrors, 415)...)),
			"get", op("listSubaccounts", "List the platform's subaccounts, newest first", "Subaccounts",
				"parameters", []any{queryParam("limit", "1 to 100; 10 by default.", o("type", "integer", "minimum", 1, "maximum", 100)),
					queryParam("starting_after", "A subaccount id: return the older ones after it.", str())},
				"responses", responses(200, ok("One page of subaccounts.", "AccountList"), getErrors...))),
		"/api/v1/subaccounts/{id}", o(
			"parameters", []any{pathParam("id", "A subaccount id (acct_...).", str())},
			"get", op("getSubaccount", "Retrieve a subaccount", "Subaccounts",
				"responses", responses(200, ok("The subaccount.", "Account"), with(getErrors, 404)...))),
		"/api/v1/payment_links", o(
			"post", op("createPaymentLink", "Make a payment link: a hosted page that makes a charge per payer", "Payment links",
				"description", fmt.Sprintf("Its url opens a page (pt-BR, or English by the browser's language) where each payer gives the amount (amount_cents fixed, or one they choose between min_amount_cents and max_amount_cents, by default %d and %d) and what collect asks: name and document (CPF or CNPJ) go together, as API Pix's devedor, and email goes with them. Each payer's charge (payment_link set, the link's description, payable for %d minutes) opens the usual checkout. max_uses counts paid charges; a charge still payable holds a use until it ends. description: 1 to %d characters.", store.MinAmountCents, store.MaxAmountCents, int(store.LinkChargeExpiresIn.Minutes()), store.MaxLinkDescription),
				"parameters", []any{idempotencyKey},
				"requestBody", body(true, object(o(
					"description", o("type", "string", "minLength", 1, "maxLength", store.MaxLinkDescription),
					"amount_cents", describe(o("type", "integer", "minimum", store.MinAmountCents, "maximum", store.MaxAmountCents), "A fixed amount; left out, the payer chooses it."),
					"min_amount_cents", o("type", "integer", "minimum", store.MinAmountCents, "maximum", store.MaxAmountCents),
					"max_amount_cents", o("type", "integer", "minimum", store.MinAmountCents, "maximum", store.MaxAmountCents),
					"collect", o("type", "array", "items", enum(store.LinkCollectables), "uniqueItems", true),
					"max_uses", o("type", "integer", "minimum", 1, "maximum", operations.MaxLinkUses),
					"expires_at", o("type", "string", "format", "date-time")), "description")),
				"responses", responses(201, created("The payment link.", "PaymentLink"), with(postErrors, 403, 415)...)),
			"get", op("listPaymentLinks", "List payment links, newest first", "Payment links",
				"parameters", idList(enum([]string{store.LinkActive, store.LinkDisabled}), "A payment link id (plink_...): return the older links after it."),
				"responses", responses(200, ok("One page of payment links.", "PaymentLinkList"), getErrors...))),
		"/api/v1/payment_links/{id}", o(
			"parameters", []any{pathParam("id", "A payment link id (plink_...).", str())},
			"get", op("getPaymentLink", "Retrieve a payment link", "Payment links",
				"responses", responses(200, ok("The payment link.", "PaymentLink"), with(getErrors, 404)...))),
		"/api/v1/payment_links/{id}/deactivate", o(
			"parameters", []any{pathParam("id", "A payment link id (plink_...).", str())},
			"post", op("deactivatePaymentLink", "Deactivate a payment link: its page takes no more payers", "Payment links",
				"description", "The charges it made stay payable until they end. A link deactivated already is answered as it is.",
				"parameters", []any{idempotencyKey},
				"requestBody", body(false, object(o(), optional...)),
				"responses", responses(200, ok("The payment link.", "PaymentLink"), with(postErrors, 403, 404, 415)...))),
		"/api/v1/withdrawals/{id}/contest", o(
			"parameters", []any{withdrawalID},
			"post", op("contestWithdrawal", "Contest a withdrawal (MED 2.0 for money sent): defrauded, coerced, or an institution's failure", "Withdrawals",
				"description", fmt.Sprintf("A completed withdrawal, within 80 days of the transfer, once: contest.status pending and withdrawal.contested. Live, the PSP asks the receiving institution to block and return the money, and the contest ends returned (in whole), partially_returned or refused; what comes back is credited to the available balance (withdrawal.contest_returned), or withdrawal.contest_refused. Who needs the money-out permission (withdrawals:write); a person with a second factor confirms it as for a withdrawal. description: 1 to %d characters. 409 withdrawal_contested (contested already), contest_window_passed (older than 80 days), withdrawal_invalid_state (not completed).", store.MaxContestDescription),
				"parameters", []any{idempotencyKey},
				"requestBody", body(true, object(o(
					"reason", ref("DisputeReason"),
					"description", o("type", "string", "minLength", 1, "maxLength", store.MaxContestDescription)))),
				"responses", responses(200, ok("The withdrawal, its contest pending.", "Withdrawal"), with(postErrors, 403, 404, 409, 415)...))),
		"/api/v1/reports", o(
			"post", op("createReport", "Ask for a report: a file of payments, refunds, the ledger or payouts over days", "Reports",
				"description", "A report covers the days from..to (both included, at most 366) in the account's time zone (Settings), never after today there; a period that includes today stops at the report's creation. It is built in the background: pending, then ready (report.ready, with file_url) or failed (report.failed). Rows are oldest first and key by what an accountant matches on: payment id, external_id, txid, the end-to-end id of the Pix, fees, net, dates. csv, csv_dialect rfc4180 (the default): UTF-8 with a header of column names, times in ISO 8601 with the zone's offset, dates YYYY-MM-DD, each amount in cents and in reais (1234.56). csv, csv_dialect excel_br (the dashboard's default in Portuguese): what Excel in pt-BR opens as columns: a UTF-8 BOM, ';' between fields, CRLF lines, the Portuguese titles as the header, amounts with a decimal comma (1234,56), times dd/mm/aaaa hh:mm:ss and dates dd/mm/aaaa; the same rows and values. Fee and net are the API's fee_cents and net_cents, pending rows included. xlsx: one sheet, Portuguese titles, typed cells (numbers, dates in the account's time zone, money as \"R$\" #,##0.00). ofx: the ledger only, an OFX 2.2 bank statement of the available balance (LEDGERBAL and AVAILBAL at the period's end; FITID the ledger entry's id). Who asks needs read permission on what it holds: payments (payments), refunds (refunds), ledger (balance), payouts (withdrawals).",
				"parameters", []any{idempotencyKey},
				"requestBody", body(true, object(o(
					"type", ref("ReportType"),
					"format", ref("ReportFormat"),
					"csv_dialect", describe(ref("CSVDialect"), "A CSV's dialect (csv only; rfc4180 when left out)."),
					"from", describe(o("type", "string", "format", "date"), "The first day, YYYY-MM-DD in the account's time zone."),
					"to", describe(o("type", "string", "format", "date"), "The last day, included, not after today."),
				), "type", "format", "from", "to")),
				"responses", responses(201, posted("The pending report.", "Report"), with(postErrors, 415)...)),
			"get", op("listReports", "List reports, newest first", "Reports",
				"description", "The reports of the types the key may read.",
				"parameters", idList(ref("ReportStatus"), "A report id (rpt_...): return the older reports after it."),
				"responses", responses(200, ok("One page of reports.", "ReportList"), getErrors...))),
		"/api/v1/reports/{id}", o(
			"parameters", []any{reportID},
			"get", op("getReport", "Retrieve a report", "Reports",
				"responses", responses(200, ok("The report.", "Report"), with(getErrors, 404)...))),
		"/api/v1/reports/{id}/file", o(
			"parameters", []any{reportID},
			"get", op("getReportFile", "Download a ready report's file (its file_url)", "Reports",
				"description", "Served for 7 days after the report is ready, to the account's keys here and to its people signed in to the dashboard (a browser opening this address without a key is sent there). Content-Disposition names the file; Digest carries its SHA-256 (the report's sha256). A report not ready is 409 report_not_ready; past its 7 days, 410 report_expired.",
				"responses", responses(200, o("description", "The file.",
					"headers", apiHeaders("Content-Disposition", o("description", "attachment; filename=\"<type>-<from>[-a-<to>].<format>\"", "schema", str()),
						"Digest", o("description", "sha-256=<the file's SHA-256, hex>", "schema", str())),
					"content", o(
						"text/csv", o("schema", str()),
						"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", o("schema", o("type", "string", "format", "binary")),
						"application/x-ofx", o("schema", str()))),
					with(getErrors, 404, 409, 410)...))),
		"/api/v1/events", o(
			"get", op("listEvents", "List events, newest first", "Events",
				"description", "Each item is byte for byte the v2 body a webhook receives for the event. Events are kept EVENT_RETENTION (at least 30 days). delivery_success=false lists the events some webhook has not yet acknowledged with a 2xx (a later successful recovery or resend counts); true, those every webhook they were queued for has acknowledged.",
				"parameters", []any{limit,
					queryParam("type", "Event types, repeated (type=a&type=b) or comma-separated.", ref("EventType")),
					queryParam("created[gte]", "Created at or after this Unix time (seconds).", o("type", "integer", "minimum", 0)),
					queryParam("created[lte]", "Created at or before this Unix time (seconds), that second included.", o("type", "integer", "minimum", 0)),
					queryParam("delivery_success", "", boolean()),
					queryParam("starting_after", "An event id: the page of older events after it.", str()),
					queryParam("ending_before", "An event id: the page of newer events before it.", str())},
				"responses", responses(200, ok("One page of events.", "EventList"), getErrors...))),
		"/api/v1/events/stream", o(
			"get", op("streamEvents", "Receive events as they happen (Server-Sent Events)", "Events",
				"description", "One SSE message per event: `id:` the event id, `event:` its type, `data:` the body a webhook of api_version receives. Comments (`: keep-alive`) every 15 s when idle. Reconnect with `Last-Event-ID` (or starting_after) to get every event after that one, none missed and none repeated. This is what `paymentsctl listen` reads. A key may hold 10 streams open at once and an account 25 (per service process, EVENT_STREAMS_PER_KEY and EVENT_STREAMS_PER_ACCOUNT): beyond them, 429 `too_many_streams` with `Retry-After: 1`. A stream the client closes gives its place back at once.",
				"parameters", []any{
					queryParam("type", "Event types, repeated or comma-separated (default: all).", ref("EventType")),
					queryParam("api_version", "The body's shape.", enum(store.APIVersions).with("default", "v2")),
					queryParam("starting_after", "An event id: start after it (as Last-Event-ID).", str()),
					o("name", "Last-Event-ID", "in", "header", "required", false, "description", "The last event id received: the stream resumes after it.", "schema", str())},
				"responses", responses(200, o("description", "The stream.", "headers", apiHeaders(),
					"content", o("text/event-stream", o("schema", str()))), getErrors...))),
		"/api/v1/event_types", o(
			"get", op("listEventTypes", "List the event types, each with its payload's JSON Schema", "Events",
				"description", "Every event type webhooks can subscribe to, what it means, the kind of object it carries, and a self-contained JSON Schema (draft 2020-12) of the payload a webhook receives, for each api_version (v2 and v1). The same schemas are this document's webhooks section. Any key may read it.",
				"responses", responses(200, ok("The catalog.", "EventTypeList"), getErrors...))),
		"/api/v1/api_versions", o(
			"get", op("listAPIVersions", "List the API's dated versions, newest first, with what each changed", "Meta",
				"description", "The changelog: each dated version and the breaking changes it made from the one before (with how older versions keep their shapes). "+
					"The version the request itself is answered in is its answer's Payments-Version header. Any key may read it.",
				"responses", responses(200, ok("The versions.", "APIVersionList"), getErrors...))),
		"/api/v1/events/{id}", o(
			"parameters", []any{eventID},
			"get", op("getEvent", "Retrieve an event with its deliveries", "Events",
				"description", "The v2 body a webhook receives, with one more member: deliveries, each with every attempt.",
				"responses", responses(200, ok("The event.", "EventWithDeliveries"), with(getErrors, 404)...))),
		"/api/v1/events/{id}/resend", o(
			"parameters", []any{eventID},
			"post", op("resendEvent", "Deliver an event again, as new deliveries", "Events",
				"description", "A new delivery of the event to the webhook named, or to every enabled webhook of this mode subscribed to its type. Earlier deliveries stay as they ended. A disabled webhook is 409 webhook_disabled.",
				"parameters", []any{idempotencyKey},
				"requestBody", body(false, object(o("webhook", describe(str(), "A webhook id (wh_...).")), optional...)),
				"responses", responses(200, posted("The deliveries queued.", "DeliveryList"), with(postErrors, 404, 415)...))),
		"/api/v1/webhooks", o(
			"post", op("createWebhook", "Create a webhook endpoint", "Webhooks",
				"description", fmt.Sprintf("The response carries the signing secret in `secret`, the only time it is shown. At most %d webhooks per account, test and live together (409 webhook_limit_reached).", store.MaxWebhooksPerAccount),
				"parameters", []any{idempotencyKey},
				"requestBody", body(true, webhookBody(true)),
				"responses", responses(201, created("The webhook, with its secret.", "WebhookWithSecret"), with(postErrors, 415)...)),
			"get", op("listWebhooks", "List the webhooks of this mode", "Webhooks",
				"responses", responses(200, ok(fmt.Sprintf("Every webhook (at most %d).", store.MaxWebhooksPerAccount), "WebhookList"), getErrors...))),
		"/api/v1/webhooks/{id}", o(
			"parameters", []any{webhookID},
			"get", op("getWebhook", "Retrieve a webhook", "Webhooks",
				"responses", responses(200, ok("The webhook.", "Webhook"), with(getErrors, 404)...)),
			"post", op("updateWebhook", "Update a webhook", "Webhooks",
				"description", "Setting enabled to true clears a disabled reason and the failure streak.",
				"parameters", []any{idempotencyKey},
				"requestBody", body(true, webhookBody(false)),
				"responses", responses(200, posted("The updated webhook.", "Webhook"), with(postErrors, 404, 415)...)),
			"delete", op("deleteWebhook", "Delete a webhook, its queued deliveries and their history", "Webhooks",
				"responses", responses(200, ok("Deleted.", "DeletedWebhook"), with(getErrors, 404)...))),
		"/api/v1/webhooks/{id}/rotate_secret", o(
			"parameters", []any{webhookID},
			"post", op("rotateWebhookSecret", "Rotate the signing secret", "Webhooks",
				"description", "The new secret (generated, or the one given) or ed25519 key signs from now on; the previous one keeps signing beside it for 24 hours, "+
					"so deliveries carry two signatures. signature_algorithm (default: the webhook's) moves the webhook to the other algorithm the same way. "+
					"An HMAC secret is returned once in secret; an ed25519 webhook's new public key is in public_key (no secret is returned).",
				"parameters", []any{idempotencyKey},
				"requestBody", body(false, object(o("secret", o("type", "string", "minLength", store.MinCustomSecret, "maxLength", store.MaxCustomSecret),
					"signature_algorithm", signatureAlgorithm()), optional...)),
				"responses", responses(200, posted("The webhook, with its new secret (HMAC).", "WebhookWithSecret"), with(postErrors, 404, 415)...))),
		"/api/v1/webhooks/{id}/test", o(
			"parameters", []any{webhookID},
			"post", op("testWebhook", "Send a sample event now and report what the receiver answered", "Webhooks",
				"parameters", []any{idempotencyKey},
				"requestBody", body(false, object(o("event_type", describe(ref("EventType"), "payment.paid when subscribed, else the first subscribed type.")), optional...)),
				"responses", responses(200, posted("The attempt's result (success false when the receiver failed).", "WebhookTest"), with(postErrors, 404, 415)...))),
		"/api/v1/webhooks/{id}/resend_failed", o(
			"parameters", []any{webhookID},
			"post", op("resendFailedDeliveries", "Queue again every failed delivery created since a time", "Webhooks",
				"parameters", []any{idempotencyKey},
				"requestBody", body(true, object(o("since", describe(o("type", "integer", "minimum", 0), "Unix seconds.")))),
				"responses", responses(200, posted("How many were queued.", "WebhookResend"), with(postErrors, 404, 415)...))),
		"/api/v1/webhooks/{id}/recover", o(
			"parameters", []any{webhookID},
			"post", op("recoverWebhook", "Deliver again every event of a time window", "Webhooks",
				"description", "Queues a new delivery of every event of the webhook's subscribed types created from since to until (default: now), whatever became of earlier deliveries; they stay as they ended. A disabled webhook is 409 webhook_disabled: enable it first.",
				"parameters", []any{idempotencyKey},
				"requestBody", body(true, object(o(
					"since", describe(o("type", "integer", "minimum", 0), "Unix seconds."),
					"until", describe(o("type", "integer", "minimum", 0), "Unix seconds, that second included; default now.")), "since")),
				"responses", responses(200, posted("How many were queued.", "WebhookRecovery"), with(postErrors, 404, 415)...))),
		"/api/v1/webhooks/{id}/replay", o(
			"parameters", []any{webhookID},
			"post", op("replayWebhook", "Replay a window of events, in the background", "Webhooks",
				"description", fmt.Sprintf("Delivers again every event created from `from` to `to` (both included; a `to` past now is now, as later events are delivered as they happen) of `types` (default: every type the webhook subscribes to; each must be one of them), whatever became of earlier deliveries, which stay as they ended. "+
					"Answered at once (202) with the replay, counted; its deliveries are queued in the background, a chunk every second, and GET /api/v1/webhooks/{id}/replays/{replay_id} says how far it has gone (events_queued of events_total) until it is completed. "+
					"At most %d events (400 replay_too_large naming to: split the window); one replay of a webhook at a time (409 replay_running); a disabled webhook is 409 webhook_disabled. Audited (webhook.replay_started).", store.MaxReplayEvents),
				"parameters", []any{idempotencyKey},
				"requestBody", body(true, object(o(
					"from", describe(o("oneOf", []any{o("type", "integer", "minimum", 0), o("type", "string", "format", "date-time")}), "Unix seconds or an RFC 3339 time."),
					"to", describe(o("oneOf", []any{o("type", "integer", "minimum", 0), o("type", "string", "format", "date-time")}), "Unix seconds (that second included) or an RFC 3339 time (included)."),
					"types", describe(o("type", "array", "minItems", 1, "items", ref("EventType")), "Event types among the webhook's; default all of them.")), "from", "to")),
				"responses", responses(202, posted("The replay, started (or completed at once when the window holds no event).", "WebhookReplay"), with(postErrors, 404, 415)...))),
		"/api/v1/webhooks/{id}/replays", o(
			"parameters", []any{webhookID},
			"get", op("listWebhookReplays", "List a webhook's replays, newest first", "Webhooks",
				"parameters", []any{limit},
				"responses", responses(200, ok("Its latest replays.", "WebhookReplayList"), with(getErrors, 404)...))),
		"/api/v1/webhooks/{id}/replays/{replay_id}", o(
			"parameters", []any{webhookID, pathParam("replay_id", "A replay id (rpl_...).", str())},
			"get", op("getWebhookReplay", "Retrieve a replay and its progress", "Webhooks",
				"responses", responses(200, ok("The replay.", "WebhookReplay"), with(getErrors, 404)...))),
		"/api/v1/webhooks/{id}/deliveries", o(
			"parameters", []any{webhookID},
			"get", op("listWebhookDeliveries", "List a webhook's deliveries with every attempt, newest first", "Webhooks",
				"parameters", idList(describe(enum(store.DeliveryFilters), "A status, or failing: every delivery whose last attempt failed, given up (failed) or still retrying (pending after an attempt)."), "A delivery id (whd_...)."),
				"responses", responses(200, ok("One page of deliveries.", "DeliveryList"), with(getErrors, 404)...))),
		"/api/v1/webhooks/{id}/deliveries/{delivery_id}", o(
			"parameters", []any{webhookID, deliveryID},
			"get", op("getWebhookDelivery", "Retrieve a delivery with every attempt", "Webhooks",
				"responses", responses(200, ok("The delivery.", "Delivery"), with(getErrors, 404)...))),
		"/api/v1/webhooks/{id}/deliveries/{delivery_id}/resend", o(
			"parameters", []any{webhookID, deliveryID},
			"post", op("resendWebhookDelivery", "Attempt a delivery again now, whatever its status", "Webhooks",
				"parameters", []any{idempotencyKey},
				"responses", responses(200, posted("The delivery, queued.", "Delivery"), with(postErrors, 404)...))),
		"/api/v1/openapi.json", o(
			"get", op("getOpenAPI", "This document", "Meta", "security", []any{},
				"description", "The current version's; with a Payments-Version header, that version's (info.version names it): what its integrators' clients were generated from.",
				"responses", responses(200, jsonResponse("The OpenAPI 3.1 document.", o("type", "object", "required", []string{"openapi", "info", "paths"},
					"properties", o("openapi", str(), "info", o("type", "object"), "paths", o("type", "object"))), nil), 400, 413))),
		"/healthz", o(
			"get", op("healthz", "Liveness", "Meta", "security", []any{},
				"responses", responses(200, jsonResponse("The process is up.", ref("Health"), nil), 413))),
		"/readyz", o(
			"get", op("readyz", "Readiness: the database (and Redis, when configured) answer", "Meta", "security", []any{},
				"responses", responses(200, jsonResponse("Ready.", ref("Readiness"), nil), 413).with(
					"503", jsonResponse("A dependency is down.", ref("Readiness"), nil)))),
		"/psp/webhook/pix", o(
			"post", op("pspCallback", "PSP callbacks (API Pix webhook, mutual TLS)", "PSP",
				"description", "Where the PSP posts when the service terminates TLS itself: the caller must present a client certificate of PSP_CALLBACK_CA_FILE, else 401 psp_callback_unauthenticated. The body is API Pix's callback, {\"pix\": [...]}: each item is a hint, never proof. A received Pix (endToEndId) is queued for confirmation with the PSP (GET /pix/{e2eid}) before anything is credited, and its devoluções are checked; a payout (idEnvio) is checked with the PSP. A forged or replayed callback credits nothing. Items may carry any other API Pix field.",
				"security", []any{},
				"requestBody", body(true, o("type", "object", "required", []string{"pix"}, "properties", o("pix", o("type", "array", "minItems", 1, "maxItems", psp.MaxPixPerNotification,
					"items", o("type", "object", "properties", o(
						"endToEndId", describe(o("type", "string", "pattern", psp.EndToEndIDPattern.String()), "A Pix received (API Pix callback)."),
						"idEnvio", describe(o("type", "string", "pattern", psp.IDEnvioPattern.String()), "A payout that ended (payout port callback)."),
						"devolucoes", arrayOf(o("type", "object", "properties", o("id", str(), "status", str()))))))))),
				"responses", responses(200, jsonResponse("What was queued.", ref("PSPCallbackResult"), nil), 400, 401, 413, 415, 500))),
		"/psp/webhook/{token}/pix", o(
			"parameters", []any{pathParam("token", "PSP_CALLBACK_TOKEN: the unguessable token in the registered webhookUrl.", str())},
			"post", op("pspCallbackWithToken", "PSP callbacks behind a reverse proxy that terminates mutual TLS", "PSP",
				"description", "The same as /psp/webhook/pix, for a service behind a proxy that verifies the PSP's client certificate: the path token authenticates the proxy's forward. A wrong token is 401 psp_callback_unauthenticated.",
				"security", []any{},
				"requestBody", body(true, o("type", "object", "required", []string{"pix"}, "properties", o("pix", o("type", "array", "minItems", 1, "maxItems", psp.MaxPixPerNotification,
					"items", o("type", "object", "properties", o(
						"endToEndId", describe(o("type", "string", "pattern", psp.EndToEndIDPattern.String()), "A Pix received (API Pix callback)."),
						"idEnvio", describe(o("type", "string", "pattern", psp.IDEnvioPattern.String()), "A payout that ended (payout port callback)."),
						"devolucoes", arrayOf(o("type", "object", "properties", o("id", str(), "status", str()))))))))),
				"responses", responses(200, jsonResponse("What was queued.", ref("PSPCallbackResult"), nil), 400, 401, 413, 415, 500))),
		"/psp/webhook/rec", o(
			"post", op("pspRecCallback", "PSP callbacks of Pix Automático's recurrences (webhookrec, mutual TLS)", "PSP",
				"description", recCallbackDescription+" The caller must present a client certificate of PSP_CALLBACK_CA_FILE, else 401 psp_callback_unauthenticated.",
				"security", []any{},
				"requestBody", body(true, recCallbackBody()),
				"responses", responses(200, jsonResponse("What was queued.", ref("PSPCallbackResult"), nil), 400, 401, 413, 415, 500))),
		"/psp/webhook/{token}/rec", o(
			"parameters", []any{pathParam("token", "PSP_CALLBACK_TOKEN: the unguessable token in the registered webhookUrl.", str())},
			"post", op("pspRecCallbackWithToken", "PSP callbacks of recurrences behind a reverse proxy that terminates mutual TLS", "PSP",
				"description", recCallbackDescription+" A wrong token is 401 psp_callback_unauthenticated.",
				"security", []any{},
				"requestBody", body(true, recCallbackBody()),
				"responses", responses(200, jsonResponse("What was queued.", ref("PSPCallbackResult"), nil), 400, 401, 413, 415, 500))),
		"/psp/webhook/cobr", o(
			"post", op("pspCobRCallback", "PSP callbacks of Pix Automático's recurring charges (webhookcobr, mutual TLS)", "PSP",
				"description", cobrCallbackDescription+" The caller must present a client certificate of PSP_CALLBACK_CA_FILE, else 401 psp_callback_unauthenticated.",
				"security", []any{},
				"requestBody", body(true, cobrCallbackBody()),
				"responses", responses(200, jsonResponse("What was queued.", ref("PSPCallbackResult"), nil), 400, 401, 413, 415, 500))),
		"/psp/webhook/{token}/cobr", o(
			"parameters", []any{pathParam("token", "PSP_CALLBACK_TOKEN: the unguessable token in the registered webhookUrl.", str())},
			"post", op("pspCobRCallbackWithToken", "PSP callbacks of recurring charges behind a reverse proxy that terminates mutual TLS", "PSP",
				"description", cobrCallbackDescription+" A wrong token is 401 psp_callback_unauthenticated.",
				"security", []any{},
				"requestBody", body(true, cobrCallbackBody()),
				"responses", responses(200, jsonResponse("What was queued.", ref("PSPCallbackResult"), nil), 400, 401, 413, 415, 500))),
		"/psp/webhook/infracoes", o(
			"post", op("pspInfracaoCallback", "PSP callbacks of MED 2.0's infrações (mutual TLS)", "PSP",
				"description", infracaoCallbackDescription+" The caller must present a client certificate of PSP_CALLBACK_CA_FILE, else 401 psp_callback_unauthenticated.",
				"security", []any{},
				"requestBody", body(true, infracaoCallbackBody()),
				"responses", responses(200, jsonResponse("What was queued.", ref("PSPCallbackResult"), nil), 400, 401, 413, 415, 500))),
		"/psp/webhook/{token}/infracoes", o(
			"parameters", []any{pathParam("token", "PSP_CALLBACK_TOKEN: the unguessable token in the registered webhookUrl.", str())},
			"post", op("pspInfracaoCallbackWithToken", "PSP callbacks of infrações behind a reverse proxy that terminates mutual TLS", "PSP",
				"description", infracaoCallbackDescription+" A wrong token is 401 psp_callback_unauthenticated.",
				"security", []any{},
				"requestBody", body(true, infracaoCallbackBody()),
				"responses", responses(200, jsonResponse("What was queued.", ref("PSPCallbackResult"), nil), 400, 401, 413, 415, 500))),
		"/psp/webhook/med", o(
			"post", op("pspMEDCallback", "PSP callbacks of contested withdrawals' requests for a return (mutual TLS)", "PSP",
				"description", medCallbackDescription+" The caller must present a client certificate of PSP_CALLBACK_CA_FILE, else 401 psp_callback_unauthenticated.",
				"security", []any{},
				"requestBody", body(true, medCallbackBody()),
				"responses", responses(200, jsonResponse("What was queued.", ref("PSPCallbackResult"), nil), 400, 401, 413, 415, 500))),
		"/psp/webhook/{token}/med", o(
			"parameters", []any{pathParam("token", "PSP_CALLBACK_TOKEN: the unguessable token in the registered webhookUrl.", str())},
			"post", op("pspMEDCallbackWithToken", "PSP callbacks of requests for a return behind a reverse proxy that terminates mutual TLS", "PSP",
				"description", medCallbackDescription+" A wrong token is 401 psp_callback_unauthenticated.",
				"security", []any{},
				"requestBody", body(true, medCallbackBody()),
				"responses", responses(200, jsonResponse("What was queued.", ref("PSPCallbackResult"), nil), 400, 401, 413, 415, 500))),
		"/psp/disputes", o(
			"post", op("pspDisputeNotification", "PSP dispute (PIX MED) notifications", "PSP",
				"description", "Authenticated with `Authorization: Bearer <PSP_TOKEN>`. Reports a dispute as it stands. An unknown id opens a dispute on the payment the transfer (endToEndId) paid (holding what amount_cents claims of what is left: a payment may have several), and closes it at once if the status is already won or lost; a known id moves to the status reported; the same status again changes nothing (duplicate true). A closed dispute never reopens (409).",
				"security", pspSecurity,
				"requestBody", body(true, object(o(
					"id", describe(o("type", "string", "pattern", psp.ReferencePattern.String()), "The PSP's id for the dispute."),
					"endToEndId", describe(o("type", "string", "pattern", psp.EndToEndIDPattern.String()), "The disputed PIX transfer."),
					"reason", ref("DisputeReason"),
					"status", ref("DisputeStatus"),
					"amount_cents", describe(o("type", "integer", "minimum", 1), "What the payer's bank claims (MED 2.0); all that was received when absent.")),
					"id", "endToEndId", "reason", "status")),
				"responses", responses(200, jsonResponse("What the notification did.", ref("PSPResult"), nil), pspErrors...))),
		"/pay/{id}/qr.png", o(
			"get", op("getPaymentQRCode", "The payment's BR Code as a QR image (public, for the payer)", "Payer", "security", []any{},
				"parameters", []any{pathParam("id", "The payment id.", o("type", "string", "format", "uuid"))},
				"description", "Only a charge that can be paid has a QR: 404 while a live charge is not registered at the PSP yet, and once the charge is paid, expired, canceled or refunded.",
				"responses", responses(200, o("description", "PNG image.", "content", o("image/png", o("schema",
					o("type", "string", "contentMediaType", "image/png")))), 404, 500))),
		"/pay/subscriptions/{id}/qr.png", o(
			"get", op("getSubscriptionQRCode", "The subscription's authorization code as a QR image (public, for the payer)", "Payer", "security", []any{},
				"parameters", []any{pathParam("id", "The subscription id (sub_...).", str())},
				"description", "Only while the subscription awaits its payer's authorization on a QR journey; 404 otherwise.",
				"responses", responses(200, o("description", "PNG image.", "content", o("image/png", o("schema",
					o("type", "string", "contentMediaType", "image/png")))), 404, 500))),
		"/pay/link/{id}/qr.png", o(
			"get", op("getPaymentLinkQRImage", "A payment link's address as a QR image (public: to print or share)", "Payer", "security", []any{},
				"parameters", []any{pathParam("id", "The payment link id (plink_...).", str())},
				"responses", responses(200, o("description", "PNG image.", "content", o("image/png", o("schema",
					o("type", "string", "contentMediaType", "image/png")))), 404, 500))),
		"/pay/qr/{id}/qr.png", o(
			"get", op("getStaticQRCodeImage", "A static QR code as a QR image (public: to print, or show at a counter)", "Payer", "security", []any{},
				"parameters", []any{pathParam("id", "The static code id (pqr_...).", str())},
				"description", "While the code takes payments (active, not past its expiry); 404 otherwise. Not to be cached.",
				"responses", responses(200, o("description", "PNG image.", "content", o("image/png", o("schema",
					o("type", "string", "contentMediaType", "image/png")))), 404, 500))),
	)
}

func schemas() obj {
	webhook := o(
		"id", o("type", "string", "pattern", "^wh_[0-9A-Za-z]{22}$"),
		"object", constant("webhook"),
		"livemode", boolean(),
		"name", o("type", "string", "maxLength", store.MaxWebhookName),
		"url", o("type", "string", "format", "uri"),
		"api_version", enum(store.APIVersions),
		"events", o("type", "array", "minItems", 1, "uniqueItems", true, "items", ref("EventType")),
		"enabled", boolean(),
		"rate_limit", describe(o("type", []string{"integer", "null"}, "minimum", 1, "maximum", store.MaxRateLimit), rateLimitDescription),
		"ordered", describe(boolean(), orderedDescription),
		"forward_trace", describe(boolean(), forwardTraceDescription),
		"payments_version", describe(enum(versions.API.Dates()), paymentsVersionDescription),
		"filter", describe(nullableStr(), filterDescription+" null: every event of its types."),
		"disabled_reason", describe(nullableEnum(store.DisabledReasons),
			"endpoint_gone: the receiver answered 410; failing: 5 days of failures, at least 10."),
		"secret_hint", describe(str(), "The secret's last characters, e.g. whsec_...a1B2; for ed25519, its public key's (whpk_...a1B2): the signing key is never shown, not even in part."),
		"signature_algorithm", signatureAlgorithm(),
		"public_key", describe(o("type", []string{"string", "null"}, "pattern", "^whpk_[A-Za-z0-9+/]{43}=$"),
			"ed25519 only: the public key receivers verify v1a signatures with (Standard Webhooks' whpk_ form); null for hmac-sha256."),
		"previous_secret_expires_at", describe(nullableTimestamp(), "During a rotation, when the previous secret stops signing."),
		"failing_since", describe(nullableTimestamp(), "Start of the current run of failed attempts."),
		"paused_until", describe(nullableTimestamp(), "While the receiver's Retry-After (on a 429 or 503) holds: no delivery of this webhook is attempted before then."),
		"mtls", describe(o("oneOf", []any{ref("WebhookMTLS"), o("type", "null")}), "Mutual TLS to the receiver (null: none). The private key is never returned."),
		"created_at", timestamp(), "updated_at", timestamp(),
	)
	headers := func(values obj) obj { return o("type", "object", "additionalProperties", values) }
	event := eventEnvelope()
	eventRequired := slices.DeleteFunc(event.keys(), func(k string) bool { return k == "account" })
	return o(
		"EventType", describe(enum(store.EventTypes), "What happened. Each event's object is a payment, a refund, a dispute, a withdrawal, a subscription (subscription.*) or a report (report.*)."),
		"ReportType", describe(enum(store.ReportTypes), "payments, refunds and payouts (withdrawals) by the day they were created; ledger: every balance movement, with running balances."),
		"ReportFormat", describe(enum(store.ReportFormats), "ofx is the ledger's only."),
		"CSVDialect", describe(enum(store.CSVDialects), "rfc4180: commas, decimal points, ISO 8601, column keys as the header. excel_br: a BOM, semicolons, decimal commas, dd/mm/aaaa, Portuguese titles as the header."),
		"ReportStatus", describe(enum(store.ReportStatuses), "pending -> ready | failed."),
		"Report", object(o(
			"id", o("type", "string", "pattern", "^rpt_[0-9A-Za-z]{22}$"),
			"object", constant("report"),
			"livemode", boolean(),
			"type", ref("ReportType"),
			"format", ref("ReportFormat"),
			"csv_dialect", describe(o("oneOf", []any{ref("CSVDialect"), o("type", "null")}), "A CSV's dialect; null for xlsx and ofx."),
			"status", ref("ReportStatus"),
			"from", o("type", "string", "format", "date"),
			"to", o("type", "string", "format", "date"),
			"time_zone", describe(str(), "The account's time zone when the report was asked for: its days, and its times in the file."),
			"period_start", describe(timestamp(), "The first instant covered."),
			"period_end", describe(timestamp(), "The instant it stops at, excluded: the end of to, or the report's creation when that is sooner."),
			"scheduled", describe(boolean(), "The daily reconciliation report (Settings), not one asked for."),
			"row_count", describe(o("type", []string{"integer", "null"}, "minimum", 0), "Rows in the file (transactions, for OFX), once ready."),
			"size_bytes", o("type", []string{"integer", "null"}, "minimum", 0),
			"sha256", describe(nullableStr(), "The file's SHA-256 (hex), once ready."),
			"file_url", describe(nullableStr(), "Where the file is served (GET, with a key of the account), once ready, for 7 days."),
			"failure_reason", nullableStr(),
			"created_at", timestamp(), "updated_at", timestamp(), "completed_at", nullableTimestamp(),
			"expires_at", describe(nullableTimestamp(), "When the file stops being served."),
		)),
		"ReportList", listOf("/api/v1/reports", "Report", 0),
		"RefundStatus", describe(enum(store.RefundStatuses), "pending -> succeeded | failed."),
		"PaymentStatus", describe(enum(store.PaymentStatuses),
			"pending -> paid | expired | canceled; paid -> refunded. A PSP confirmation of an expired or canceled charge still makes it paid."),
		"DisputeStatus", describe(enum(store.DisputeStatuses), "open -> won | lost."),
		"DisputeReason", describe(enum(store.DisputeReasons), "MED 2.0's grounds: fraud, coercion, or an institution's operational failure (never a commercial disagreement)."),
		"WithdrawalStatus", describe(enum(store.WithdrawalStatuses), "pending -> completed | failed."),
		"DeliveryStatus", describe(enum(store.DeliveryStatuses), "pending (queued or retrying) -> succeeded | failed."),
		"Payment", object(o(
			"id", describe(o("type", "string", "format", "uuid"), "UUIDv7: time-ordered."),
			"object", constant("payment"),
			"livemode", boolean(),
			"status", ref("PaymentStatus"),
			"amount_cents", o("type", "integer", "minimum", store.MinAmountCents, "maximum", store.MaxAmountCents),
			"amount_label", moneyLabel,
			"currency", constant("BRL"),
			"payment_method", constant("pix"),
			"external_id", nullableStr(),
			"description", nullableStr(),
			"customer", o("oneOf", []any{ref("Customer"), o("type", "null")}),
			"metadata", metadata(),
			"correlation_id", describe(o("type", "string", "pattern", "^[A-Za-z0-9]{26,35}$"), "The PIX txid carried in the BR Code."),
			"fee_cents", o("type", "integer", "minimum", 0),
			"amount_refunded_cents", describe(o("type", "integer", "minimum", 0),
				"What the refunds that succeeded gave back to the payer (a lost dispute's included); equal to amount_cents once the payment is refunded."),
			"net_cents", describe(o("type", "integer"),
				"What the payment leaves the merchant: what it received (amount_paid_cents once paid, amount_cents before) - fee_cents - amount_refunded_cents, plus the fee's share each succeeded refund gave back (pro rata). For a payment not paid, what it would leave once paid."),
			"amount_due_cents", describe(o("type", "integer", "minimum", 0),
				"What the payer owes today (Brasília): amount_cents, or a due-date charge's amount with today's discount, fine and interest (GET .../amount_due has the parts); 0 when it cannot be paid."),
			"amount_paid_cents", describe(o("type", []string{"integer", "null"}, "minimum", 1),
				"What the payer paid: a due-date charge's amount due on the day it was paid. null until paid."),
			"due_date", describe(o("type", []string{"string", "null"}, "format", "date"), "A due-date charge's due date; null for an immediate charge."),
			"days_after_due", o("type", []string{"integer", "null"}, "minimum", 0),
			"fine", o("oneOf", []any{ref("DueValue"), o("type", "null")}),
			"interest", o("oneOf", []any{ref("DueInterest"), o("type", "null")}),
			"discounts", o("oneOf", []any{ref("DueDiscounts"), o("type", "null")}),
			"abatement", o("oneOf", []any{ref("DueValue"), o("type", "null")}),
			"subscription", describe(nullableStr(), "The subscription (sub_...) this payment is a cycle of; null otherwise."),
			"cycle", o("oneOf", []any{ref("Cycle"), o("type", "null")}),
			"pix_qr_code", describe(nullableStr(), "The static code (pqr_...) this payment was paid into; null otherwise."),
			"payment_link", describe(nullableStr(), "The payment link (plink_...) whose payer made this charge; null otherwise."),
			"splits", describe(arrayOf(ref("Split")), "Its parts for other accounts of its platform (empty: none); each's net_cents once paid."),
			"pix", object(o(
				"br_code", describe(nullableStr(), "EMV BR Code (copia e cola): in live mode the PSP's dynamic code; null while the PSP has not registered the charge."),
				"qr_code_url", describe(o("type", []string{"string", "null"}, "format", "uri"), "null while the BR Code is."))),
			"checkout_url", o("type", "string", "format", "uri"),
			"created_at", timestamp(), "updated_at", timestamp(), "paid_at", nullableTimestamp(), "expires_at", timestamp(),
			"canceled_at", nullableTimestamp(), "expired_at", nullableTimestamp(), "refunded_at", nullableTimestamp(),
		)),
		"Customer", object(o(
			"name", o("type", "string", "minLength", 1, "maxLength", store.MaxCustomerName),
			"email", describe(o("type", []string{"string", "null"}, "format", "email", "maxLength", store.MaxEmail),
				"null on a subscription's cycle: its customer is the subscriber, and a subscription takes no e-mail."),
			"document", describe(o("type", "string", "pattern", `^(\d{11}|[0-9A-Z]{12}\d{2})$`), "CPF (11 digits) or CNPJ (14 characters: 12 digits or upper-case letters, as alphanumeric CNPJs have since July 2026, then 2 check digits)."),
			"phone", nullableStr().with("pattern", store.PhonePattern.String()),
		)),
		"CustomerInput", describe(object(o(
			"name", o("type", "string", "minLength", 1, "maxLength", store.MaxCustomerName),
			"email", o("type", "string", "format", "email", "maxLength", store.MaxEmail),
			"document", describe(str(), "CPF (11 digits) or CNPJ (14 characters, digits or letters as alphanumeric CNPJs have them, e.g. 12.ABC.345/01DE-35) with valid check digits; the punctuation . - / is stripped and letters are stored in upper case."),
			"phone", describe(nullableStr(), "8 to 15 digits, optional leading +; spaces, dashes, dots and parentheses are stripped."),
		), "name", "email", "document"), "The payer, as given when creating a payment."),
		"PaymentList", listOf("/api/v1/payments", "Payment", 0),
		"Dispute", object(o(
			"id", o("type", "string", "pattern", "^dsp_[0-9A-Za-z]{22}$"),
			"object", constant("dispute"),
			"livemode", boolean(),
			"status", ref("DisputeStatus"),
			"payment_id", o("type", "string", "format", "uuid"),
			"amount_cents", describe(o("type", "integer", "minimum", 0), "What it holds (as amount_held_cents)."),
			"amount_label", moneyLabel,
			"currency", constant("BRL"),
			"reason", ref("DisputeReason"),
			"created_at", timestamp(), "updated_at", timestamp(), "closed_at", nullableTimestamp(),
			"amount_reported_cents", describe(o("type", "integer", "minimum", 1), "What the payer's bank claims."),
			"amount_held_cents", describe(o("type", "integer", "minimum", 0), "What it holds in the pending balance: what it claims of what was still the merchant's."),
			"infraction_id", describe(nullableStr(), "The PSP's id of the infração (live); null in test mode."),
			"stage", ref("DisputeStage"),
			"respond_by", describe(timestamp(), "The merchant's deadline to answer (POST .../defense)."),
			"analysis_deadline", describe(timestamp(), "When the institutions must have analysed it (7 days from the report)."),
			"return_deadline", describe(timestamp(), "When what they decide must have been returned (11 days from the report)."),
			"defense", o("oneOf", []any{ref("DisputeDefense"), o("type", "null")}),
		)),
		"DisputeStage", describe(enum(store.DisputeStages), "blocked (the money held, the merchant may answer) -> under_review (the institutions analyse) -> decided (with won or lost)."),
		"DisputeDefense", object(o(
			"text", str(),
			"submitted_at", timestamp(),
			"evidence", arrayOf(ref("DisputeEvidence")),
		)),
		"DisputeEvidence", object(o(
			"id", o("type", "string", "pattern", "^file_[0-9A-Za-z]{22}$"),
			"object", constant("dispute_evidence"),
			"file_name", str(),
			"content_type", enum(store.EvidenceTypes),
			"size_bytes", o("type", "integer", "minimum", 1, "maximum", store.MaxEvidenceBytes),
			"sha256", o("type", "string", "pattern", "^[0-9a-f]{64}$"),
			"url", describe(str(), "Where the file is served, a path of this service (GET, with a key of the account)."),
			"created_at", timestamp(),
		)),
		"DisputeList", listOf("/api/v1/disputes", "Dispute", 0),
		"Refund", object(o(
			"id", o("type", "string", "pattern", "^re_[0-9A-Za-z]{22}$"),
			"object", constant("refund"),
			"livemode", boolean(),
			"status", ref("RefundStatus"),
			"payment_id", o("type", "string", "format", "uuid"),
			"amount_cents", o("type", "integer", "minimum", 1),
			"amount_label", moneyLabel,
			"fee_cents", describe(o("type", "integer", "minimum", 0), "The part of the payment's fee this refund gives back."),
			"currency", constant("BRL"),
			"reason", describe(enum([]string{store.RefundRequested, store.RefundDisputeLost}), "requested: you asked; dispute_lost: a lost dispute took the money back."),
			"description", nullableStr(),
			"failure_reason", nullableStr(),
			"created_at", timestamp(), "updated_at", timestamp(), "completed_at", nullableTimestamp(),
		)),
		"RefundList", listOf("/api/v1/refunds", "Refund", 0),
		"Withdrawal", object(o(
			"id", o("type", "string", "pattern", "^wd_[0-9A-Za-z]{22}$"),
			"object", constant("withdrawal"),
			"livemode", boolean(),
			"status", ref("WithdrawalStatus"),
			"amount_cents", o("type", "integer", "minimum", 1),
			"amount_label", moneyLabel,
			"currency", constant("BRL"),
			"pix_key", describe(str(), "As the DICT holds it: digits, lower-case e-mail, +phone or lower-case UUID."),
			"pix_key_type", enum(pix.KeyTypes),
			"description", nullableStr(),
			"metadata", metadata(),
			"end_to_end_id", describe(nullableStr(), "The PIX transfer's id, once the PSP reports it."),
			"failure_reason", nullableStr(),
			"created_at", timestamp(), "updated_at", timestamp(), "completed_at", nullableTimestamp(), "failed_at", nullableTimestamp(),
			"contest", o("oneOf", []any{ref("WithdrawalContest"), o("type", "null")}),
		)),
		"WithdrawalContest", object(o(
			"status", describe(enum(store.ContestStatuses), "pending -> returned | partially_returned | refused."),
			"reason", ref("DisputeReason"),
			"description", str(),
			"amount_returned_cents", describe(o("type", []string{"integer", "null"}, "minimum", 0), "What came back, once it ended."),
			"reference", describe(nullableStr(), "The PSP's id of the request (live)."),
			"created_at", timestamp(),
			"resolved_at", nullableTimestamp(),
		)),
		"PixQRCode", object(o(
			"id", o("type", "string", "pattern", "^pqr_[0-9A-Za-z]{22}$"),
			"object", constant("pix_qr_code"),
			"livemode", boolean(),
			"status", enum([]string{store.QRCodeActive, store.QRCodeDisabled}),
			"amount_cents", describe(o("type", []string{"integer", "null"}, "minimum", 1), "Fixed; null: the payer types the amount."),
			"amount_label", o("oneOf", []any{moneyLabel, o("type", "null")}),
			"description", nullableStr(),
			"txid", describe(o("type", "string", "pattern", "^[0-9A-Za-z]{25}$"), "In the code (field 62-05): a Pix received with it pays into this code."),
			"br_code", describe(str(), "The static Pix copia e cola (EMV), CRC included."),
			"qr_code_url", describe(o("type", "string", "format", "uri"), "Its QR image (PNG), public, while it takes payments."),
			"page_url", describe(o("type", "string", "format", "uri"), "Its public page to print or show at a counter (the QR, its copia e cola, the amount or that the payer types it), in the browser's language, while it takes payments."),
			"expires_at", nullableTimestamp(),
			"payments", describe(o("type", "integer", "minimum", 0), "Payments into it."),
			"amount_received_cents", o("type", "integer", "minimum", 0),
			"created_at", timestamp(), "updated_at", timestamp(),
		)),
		"PixQRCodeList", listOf("/api/v1/pix_qr_codes", "PixQRCode", 0),
		"PaymentLink", object(o(
			"id", o("type", "string", "pattern", "^plink_[0-9A-Za-z]{22}$"),
			"object", constant("payment_link"),
			"livemode", boolean(),
			"status", enum([]string{store.LinkActive, store.LinkDisabled}),
			"available", describe(boolean(), "Whether its page takes a payer now: active, not past its expiry, a use left that no open charge holds."),
			"url", describe(o("type", "string", "format", "uri"), "Its hosted page, to share."),
			"qr_code_url", describe(o("type", "string", "format", "uri"), "Its url as a QR image (PNG), public."),
			"description", o("type", "string", "minLength", 1, "maxLength", store.MaxLinkDescription),
			"amount_cents", describe(o("type", []string{"integer", "null"}, "minimum", 1), "Fixed; null: the payer chooses between min_amount_cents and max_amount_cents."),
			"amount_label", o("oneOf", []any{moneyLabel, o("type", "null")}),
			"min_amount_cents", o("type", []string{"integer", "null"}, "minimum", 1),
			"max_amount_cents", o("type", []string{"integer", "null"}, "minimum", 1),
			"collect", o("type", "array", "items", enum(store.LinkCollectables)),
			"max_uses", o("type", []string{"integer", "null"}, "minimum", 1),
			"uses", describe(o("type", "integer", "minimum", 0), "Its charges paid."),
			"open_charges", describe(o("type", "integer", "minimum", 0), "Its charges a payer may still pay: each holds a use until it ends."),
			"amount_received_cents", o("type", "integer", "minimum", 0),
			"expires_at", nullableTimestamp(),
			"created_at", timestamp(), "updated_at", timestamp(),
		)),
		"PaymentLinkList", listOf("/api/v1/payment_links", "PaymentLink", 0),
		"SplitInput", object(o(
			"account", describe(o("type", "string", "pattern", "^acct_[0-9A-Za-z]{22}$"), "The platform, or another of its subaccounts."),
			"amount_cents", describe(o("type", "integer", "minimum", 1, "maximum", store.MaxAmountCents), "A fixed part; or percent."),
			"percent", describe(o("type", "number", "exclusiveMinimum", 0, "maximum", 100, "multipleOf", 0.01), "A percent of what is paid; or amount_cents."),
			"fee_payer", describe(o("type", "string", "enum", store.FeePayers, "default", store.FeePayerAccount), "account: the charge's account bears the fee; recipient: this part bears its share."),
		), "account"),
		"Split", object(o(
			"account", str(),
			"amount_cents", o("type", []string{"integer", "null"}, "minimum", 1),
			"percent", o("type", []string{"number", "null"}),
			"fee_payer", enum(store.FeePayers),
			"net_cents", describe(o("type", []string{"integer", "null"}, "minimum", 0), "What its account got when the charge was paid; null before."),
		)),
		"Account", object(o(
			"id", o("type", "string", "pattern", "^acct_[0-9A-Za-z]{22}$"),
			"object", constant("account"),
			"name", str(),
			"document", describe(nullableStr(), "CPF or CNPJ, compact (digits, or upper-case letters and digits)."),
			"email", str(),
			"pix_key", describe(nullableStr(), "Where its withdrawals go, in the DICT's form."),
			"status", enum([]string{store.AccountActive, store.AccountDisabled}),
			"platform", describe(nullableStr(), "The platform (acct_...) whose subaccount it is."),
			"live_enabled", describe(boolean(), "Whether it moves live money (the platform's live mode)."),
			"created_at", timestamp(),
		)),
		"AccountList", listOf("/api/v1/subaccounts", "Account", 0),
		"WithdrawalList", listOf("/api/v1/withdrawals", "Withdrawal", 0),
		"Balance", object(o(
			"object", constant("balance"),
			"livemode", boolean(),
			"currency", constant("BRL"),
			"available_cents", describe(integer(), "Can be withdrawn now. Negative when a dispute holds more than was available."),
			"available_label", moneyLabel,
			"pending_cents", describe(o("type", "integer", "minimum", 0), "Held by open disputes."),
			"pending_label", moneyLabel,
		)),
		"Webhook", object(webhook),
		"WebhookMTLSInput", describe(object(o(
			"certificate", describe(o("type", "string", "maxLength", dispatcher.MaxPEM),
				"The client certificate the deliveries present, PEM (the leaf first, any intermediates after it); valid now, for client authentication when its extended key usage is set."),
			"private_key", describe(o("type", "string", "maxLength", dispatcher.MaxPEM),
				"Its private key, PEM (PKCS #8, PKCS #1 or SEC 1, unencrypted). Encrypted at rest; never returned."),
			"server_ca", describe(o("type", "string", "maxLength", dispatcher.MaxPEM),
				"CA certificates, PEM, the receiver's certificate must chain to instead of the public roots (pinning)."),
		), optional...), "certificate and private_key together, server_ca, or all three."),
		"WebhookMTLS", object(o(
			"client_certificate", o("oneOf", []any{object(o(
				"subject", str(), "issuer", str(),
				"fingerprint_sha256", describe(o("type", "string", "pattern", "^([0-9A-F]{2}:){31}[0-9A-F]{2}$"), "SHA-256 of the certificate (DER), as openssl x509 -fingerprint -sha256 prints it."),
				"expires_at", timestamp(),
				"expiring_soon", describe(boolean(), "It ends within 30 days (or has ended): the owners are told once, by e-mail and in the activity log."),
			)), o("type", "null")}),
			"server_ca", o("oneOf", []any{object(o(
				"subjects", describe(str(), "The pinned CAs' subjects, separated by \"; \"."),
				"fingerprint_sha256", describe(o("type", "string", "pattern", "^([0-9A-F]{2}:){31}[0-9A-F]{2}$"), "SHA-256 of the first pinned CA."),
			)), o("type", "null")}),
		)),
		"WebhookWithSecret", object(webhook.with("secret", describe(str(), "The HMAC signing secret, shown only in this response; absent for ed25519 webhooks (the service keeps the signing key).")),
			webhook.keys()...),
		"WebhookList", object(o("object", constant("list"), "url", constant("/api/v1/webhooks"), "has_more", o("type", "boolean", "const", false),
			"data", arrayOf(ref("Webhook")).with("maxItems", store.MaxWebhooksPerAccount))),
		"DeletedWebhook", object(o("deleted", o("type", "boolean", "const", true), "id", str(), "object", constant("webhook"))),
		"Attempt", object(o(
			"id", describe(o("type", "string", "pattern", "^dlv_[0-9A-Za-z]{22}$"), "Also sent as X-Service-Delivery."),
			"object", constant("webhook_attempt"),
			"attempt", o("type", "integer", "minimum", 1),
			"event_id", str(),
			"event_type", ref("EventType"),
			"request", object(o("url", str(),
				"headers", describe(headers(str()), fmt.Sprintf("As sent; a body cut to what is kept carries one more entry, `%s`, its whole length in bytes.", store.TruncatedBodyHeader)),
				"body", describe(str(), fmt.Sprintf("The first %d KiB of what was sent (the whole event is GET /api/v1/events/{id}).", dispatcher.MaxStoredRequestBody>>10)))),
			"response", o("oneOf", []any{o("type", "null"), object(o(
				"status", integer(),
				"headers", describe(headers(arrayOf(str())), fmt.Sprintf("At most %d KiB of names and values, in name order; beyond them a `%s` entry says how many headers and bytes were not kept. An answer with more than %d MiB of headers is not read: the attempt fails (network).",
					dispatcher.MaxStoredResponseHeaders>>10, dispatcher.TruncatedHeader, dispatcher.MaxResponseHeaderBytes>>20)),
				"body", describe(str(), fmt.Sprintf("The first %d KiB; a longer answer (not read further) has a `%s` entry among the headers: `more than %d`.",
					dispatcher.MaxResponseBody>>10, store.TruncatedBodyHeader, dispatcher.MaxResponseBody))))}),
			"duration_ms", o("type", "integer", "minimum", 0),
			"error", o("oneOf", []any{o("type", "null"), object(o("class", str(), "message", str()))}),
			"created_at", timestamp(),
		)),
		"Delivery", object(o(
			"id", o("type", "string", "pattern", "^whd_[0-9A-Za-z]{22}$"),
			"object", constant("webhook_delivery"),
			"webhook_id", str(), "event_id", str(),
			"event_type", ref("EventType"),
			"livemode", boolean(),
			"status", ref("DeliveryStatus"),
			"test", describe(boolean(), "A \"send test\": one attempt of a sample event, never retried."),
			"attempt_count", o("type", "integer", "minimum", 0),
			"next_attempt_at", nullableTimestamp(),
			"last_status_code", o("type", []string{"integer", "null"}),
			"last_error", nullableStr(),
			"created_at", timestamp(), "updated_at", timestamp(), "completed_at", nullableTimestamp(),
			"attempts", arrayOf(ref("Attempt")),
		)),
		"DeliveryList", listOf("", "Delivery", 0),
		"WebhookTest", object(o("object", constant("webhook_test"), "webhook_id", str(), "success", boolean(),
			"status", o("type", []string{"integer", "null"}), "latency_ms", o("type", "integer", "minimum", 0),
			"attempt", ref("Attempt"))),
		"Event", object(event, eventRequired...),
		"EventWithDeliveries", object(event.with("deliveries", listOf("", "Delivery", 0)), append(eventRequired, "deliveries")...),
		"EventList", describe(object(o("object", constant("list"), "url", constant("/api/v1/events"), "has_more", boolean(),
			"data", arrayOf(ref("Event")))), "One page, newest first; has_more says whether older events follow."),
		"WebhookReplay", object(o("id", o("type", "string", "pattern", "^rpl_[0-9A-Za-z]{22}$"), "object", constant("webhook_replay"),
			"webhook", str(), "livemode", boolean(), "from", timestamp(), "to", timestamp(),
			"types", o("type", "array", "items", ref("EventType")),
			"status", describe(enum([]string{store.ReplayRunning, store.ReplayCompleted}), "running while deliveries are being queued; completed once every event of the window is."),
			"events_total", describe(o("type", "integer", "minimum", 0), "Events of the window (once completed: how many were queued)."),
			"events_queued", describe(o("type", "integer", "minimum", 0), "Events of the window gone through so far, each queued again unless the webhook's filter holds it back."),
			"created_at", timestamp(), "completed_at", nullableTimestamp())),
		"WebhookReplayList", listOf("", "WebhookReplay", 0),
		"EventTypeDoc", object(o("object", constant("event_type").with("x-enum-varnames", []string{"EventTypeDocObjectEventType"}), "type", ref("EventType"),
			"object_type", enum([]string{"payment", "refund", "dispute", "withdrawal", "subscription", "report"}),
			"description", str(),
			"schemas", describe(object(o("v2", o("type", "object"), "v1", o("type", "object"))),
				"The payload's JSON Schema (draft 2020-12, self-contained: what it refers to is under $defs) for each api_version."))),
		"EventTypeList", listOf("/api/v1/event_types", "EventTypeDoc", 0),
		"APIVersion", object(o("object", constant("api_version").with("x-enum-varnames", []string{"APIVersionObjectAPIVersion"}),
			"version", describe(enum(versions.API.Dates()), "Its name: what Payments-Version carries."),
			"current", describe(boolean(), "true for the newest: what new accounts are pinned to."),
			"changes", describe(arrayOf(str()), "The breaking changes it made from the version before, and what older versions get instead."))),
		"APIVersionList", listOf("/api/v1/api_versions", "APIVersion", 0),
		"WebhookRecovery", object(o("object", constant("webhook_recovery"), "webhook_id", str(), "since", timestamp(), "until", timestamp(),
			"requeued", o("type", "integer", "minimum", 0))),
		"WebhookResend", object(o("object", constant("webhook_resend"), "requeued", o("type", "integer", "minimum", 0), "webhook_id", str())),
		"PSPCallbackResult", object(o(
			"received", describe(o("type", "integer", "minimum", 1), "Items in the callback."),
			"queued", describe(o("type", "integer", "minimum", 0), "Transfers newly queued for confirmation (a replay queues none)."))),
		"PSPResult", object(o("id", str(), "object", constant("dispute"), "status", str(), "duplicate", boolean())),
		"Error", object(o("error", object(o(
			"type", enum(reply.Types),
			"code", describe(str(), "Stable, machine-readable: see the README's error code table."),
			"message", str(),
			"param", describe(nullableStr(), "The offending parameter, e.g. customer.email or metadata[order]."),
			"request_id", o("type", "string", "pattern", "^req_[0-9A-Za-z]{22}$"))))),
		"Health", object(o("status", constant("ok"))),
		"Readiness", object(o("checks", o("type", "object", "additionalProperties", enum([]string{"ok", "unavailable"})),
			"status", enum([]string{"ready", "unavailable"}))),
	)
}

func document() obj {
	return o(
		"openapi", "3.1.0",
		"jsonSchemaDialect", "https://json-schema.org/draft/2020-12/schema",
		"info", o("title", "Payments API", "version", versions.API.Current(),
			"description", "PIX payments: create, read, list and cancel charges, partial and full refunds, disputes, withdrawals and signed webhooks. Authenticate every /api/v1 call with `Authorization: Bearer <API key>` or `X-API-Key: <API key>`. Test keys (sk_test_) see test data; live keys (sk_live_) see live data. Restricted keys (rk_test_, rk_live_) hold only their permissions (payments, refunds, withdrawals, disputes, balance, events, webhooks; read or write, write including read): a call outside them is 403 permission_denied, naming the permission it needed. A key with an allow-list of addresses answers 403 ip_not_allowed from any other. Every response carries X-Request-Id. POSTs accept an Idempotency-Key (kept 24h). Path ids may be percent-encoded. Errors have one shape (components/schemas/Error). "+
				"Versions: each account is pinned to the dated version (YYYY-MM-DD) current when it was made, and changes it in the dashboard; a request's "+
				"Payments-Version header answers it in another (an unknown one is 400 payments_version_unknown naming the header), and every answer names its "+
				"version in Payments-Version. A breaking change is a new version; older ones keep their shapes (GET /api/v1/api_versions, the changelog). "+
				"This document is the current version's; GET /api/v1/openapi.json with the header gives another's.",
			"license", o("name", "Proprietary", "identifier", "LicenseRef-Proprietary")),
		"servers", []any{o("url", "/", "description", "The service itself.")},
		// Payments-Account goes with either key header: a security scheme,
		// so that clients add it by a request editor and no operation's
		// signature changes for platforms.
		"security", []any{o("bearer", []string{}), o("apiKeyHeader", []string{}),
			o("bearer", []string{}, "paymentsAccount", []string{}), o("apiKeyHeader", []string{}, "paymentsAccount", []string{})},
		"tags", []any{
			o("name", "Payments", "description", "PIX charges."),
			o("name", "Test helpers", "description", "Test mode only: move objects as the PSP or the payer's bank would."),
			o("name", "Refunds", "description", "Money returned to payers (devoluções)."),
			o("name", "Balance", "description", "The money of an account in one mode."),
			o("name", "Disputes", "description", "PIX MED claims on paid payments."),
			o("name", "Withdrawals", "description", "Payouts of the available balance to a PIX key."),
			o("name", "Static QR codes", "description", "Static Pix codes paid many times: a counter's printed QR."),
			o("name", "Payment links", "description", "Hosted pages a seller shares: a charge per payer."),
			o("name", "Subaccounts", "description", "A platform's accounts for its sellers, acted for with the Payments-Account header."),
			o("name", "Reports", "description", "Files of payments, refunds, the ledger and payouts for accountants and reconciliation: CSV, XLSX, OFX."),
			o("name", "Events", "description", "Every state change, as webhooks receive it: listed, streamed, delivered again."),
			o("name", "Webhooks", "description", "Endpoints that receive signed events, and their deliveries."),
			o("name", "Meta", "description", "This document and the health checks."),
			o("name", "PSP", "description", "Callbacks of the payment service provider."),
			o("name", "Payer", "description", "Public pages for the payer."),
		},
		"paths", paths(),
		"webhooks", eventWebhooks(),
		"components", o(
			"securitySchemes", o(
				"bearer", o("type", "http", "scheme", "bearer", "description", "Authorization: Bearer sk_test_..., sk_live_..., rk_test_... or rk_live_..."),
				"apiKeyHeader", o("type", "apiKey", "in", "header", "name", "X-API-Key"),
				"paymentsAccount", o("type", "apiKey", "in", "header", "name", AccountHeader,
					"description", "With a key: a subaccount of the key's account (acct_...) the request acts for, as if made with its own key (its payments, balance, webhooks, events, reports). A key limited to chosen subaccounts must name one of them; an unknown, foreign or disabled account is 403 account_invalid."),
				"pspToken", o("type", "http", "scheme", "bearer", "description", "The shared PSP_TOKEN.")),
			"parameters", o(
				"IdempotencyKey", o("name", "Idempotency-Key", "in", "header", "required", false,
					"description", "Up to 255 characters. A retry with the same key and body returns the first response with Idempotent-Replayed: true; the same key with another body is 422; while the first is running, 409.",
					"schema", o("type", "string", "maxLength", 255))),
			"headers", o(
				"RateLimit-Limit", o("description", "Requests allowed per second for this key.", "schema", integer()),
				"RateLimit-Remaining", o("description", "Requests left in the current second.", "schema", integer()),
				"RateLimit-Reset", o("description", "Seconds until the budget resets.", "schema", integer()),
				"X-Request-Id", o("description", "This request's id (req_...); quote it to support.", "schema", str()),
				versions.Header, o("description", "The dated API version this answer is in: the request's Payments-Version header, else the account's pin.",
					"schema", enum(versions.API.Dates())),
				"Idempotent-Replayed", o("description", "true when this is the stored answer to an earlier request with the same Idempotency-Key.", "schema", constant("true"))),
			"responses", o(
				"Error", o("description", fmt.Sprintf("An error, in the one error shape of the API. 413 body_too_large: the body is over %d bytes. 503 service_unavailable: the database is briefly out of reach; nothing was changed; retry after Retry-After seconds.", DefaultBodyLimit),
					"headers", o("X-Request-Id", o("$ref", "#/components/headers/X-Request-Id"),
						versions.Header, o("$ref", "#/components/headers/"+versions.Header),
						"Retry-After", o("description", "On 429 and 503: seconds to wait before retrying.", "schema", integer())),
					"content", o("application/json", o("schema", ref("Error"))))),
			"schemas", append(append(append(schemas(), dueSchemas()...), subscriptionSchemas()...), eventPayloadSchemas()...),
		),
	)
}

const (
	recCallbackDescription      = "API Pix's webhookrec callback, {\"recs\": [...]}: each item names a recurrence whose status changed, a hint, never proof. A recurrence that is one of the service's live subscriptions is read from the PSP (GET /rec/{idRec}) and the subscription follows what the PSP says (activated, rejected, canceled by the payer, expired); others are ignored. Items may carry any other API Pix field."
	medCallbackDescription      = "The PSP's callback for contested withdrawals (MED 2.0 for money sent), {\"med\": [...]}: each item names a request for a return (its idSolicitacao is the withdrawal's payout id) that moved on, a hint, never proof. Its withdrawal's check is read from the PSP now (GET /v2/gn/med/{id}): a decided request ends the contest, what came back credited."
	infracaoCallbackDescription = "The PSP's MED 2.0 callback (modelled on Efí's infrações), {\"infracoes\": [...]}: each item names an infração a payer's bank reported, or one that moved on (under analysis, decided), a hint, never proof. Each is read from the PSP (GET /v2/gn/infracoes/{id}): on a Pix that paid one of the service's charges, its dispute opens (holding what it claims of what is left), moves to its stage, or closes as decided (DEVOLVER: lost, MANTER: won). Others are ignored."
	cobrCallbackDescription     = "API Pix's webhookcobr callback, {\"cobsr\": [...]}: each item names a recurring charge that changed, a hint, never proof. A charge that is one of the service's live cycles is read from the PSP (GET /cobr/{txid}): a paid attempt's Pix is credited once, refused attempts are counted (retried within the policy, or the cycle failed). Others are ignored."
)

func recCallbackBody() obj {
	return o("type", "object", "required", []string{"recs"}, "properties", o("recs", o("type", "array", "minItems", 1, "maxItems", psp.MaxPixPerNotification,
		"items", o("type", "object", "required", []string{"idRec"}, "properties", o(
			"idRec", o("type", "string", "pattern", psp.RecIDPattern.String()), "status", str())))))
}

func medCallbackBody() obj {
	return o("type", "object", "required", []string{"med"}, "properties", o("med", o("type", "array", "minItems", 1, "maxItems", psp.MaxPixPerNotification,
		"items", o("type", "object", "required", []string{"idSolicitacao"}, "properties", o(
			"idSolicitacao", o("type", "string", "pattern", psp.InfracaoIDPattern.String()), "situacao", str())))))
}

func infracaoCallbackBody() obj {
	return o("type", "object", "required", []string{"infracoes"}, "properties", o("infracoes", o("type", "array", "minItems", 1, "maxItems", psp.MaxPixPerNotification,
		"items", o("type", "object", "required", []string{"idInfracao"}, "properties", o(
			"idInfracao", o("type", "string", "pattern", psp.InfracaoIDPattern.String()), "situacao", str())))))
}

func cobrCallbackBody() obj {
	return o("type", "object", "required", []string{"cobsr"}, "properties", o("cobsr", o("type", "array", "minItems", 1, "maxItems", psp.MaxPixPerNotification,
		"items", o("type", "object", "required", []string{"txid"}, "properties", o(
			"txid", o("type", "string", "pattern", psp.TxIDPattern.String()), "idRec", str(), "status", str())))))
}

// eventEnvelope is an event as v2 webhooks receive it and the Events API
// lists it, whatever its type.
func eventEnvelope() obj {
	return o(
		"id", o("type", "string", "pattern", "^evt_[0-9A-Za-z]{22}$"),
		"type", ref("EventType"),
		"api_version", constant("v2"),
		"created", describe(integer(), "Unix seconds."),
		"created_at", timestamp(),
		"livemode", boolean(),
		"account", describe(o("type", "string", "pattern", "^acct_[0-9A-Za-z]{22}$"), "Only at a platform's webhook, for an event of one of its subaccounts: that subaccount."),
		"data", object(o("object", describe(o("oneOf", []any{ref("Payment"), ref("Refund"), ref("Dispute"), ref("Withdrawal"), ref("Subscription"), ref("Report")}),
			"The object as it was when the event happened."))),
		"source", constant(envelope.Source),
	)
}
