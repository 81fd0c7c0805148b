#!/usr/bin/env python3
"""Generates handlers/openapi.json, the API contract (`make openapi`).

Edit this file, not the JSON: the schemas are shared between operations here.
The test suite validates every response it receives against the output.
"""
import json
ts = {"type": "string", "format": "date-time", "pattern": r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$"}
nts = {"type": ["string", "null"], "format": "date-time", "pattern": r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$"}
def obj(props, required=None, desc=None):
    o = {"type": "object", "additionalProperties": False, "properties": props,
         "required": required if required is not None else list(props)}
    if desc: o["description"] = desc
    return o
err = lambda: {"$ref": "#/components/responses/Error"}
def errors(*codes):
    return {str(c): err() for c in codes}
auth_errors = (400, 401, 429)
key_header = [{"$ref": "#/components/parameters/IdempotencyKey"}]
payment_ref = {"name": "id_or_external_id", "in": "path", "required": True,
               "description": "A payment id, or the external_id given at creation. A UUID that matches a payment id wins.",
               "schema": {"type": "string", "maxLength": 128}}
def json_resp(desc, ref, headers=None):
    r = {"description": desc, "content": {"application/json": {"schema": {"$ref": ref}}}}
    if headers: r["headers"] = headers
    return r
webhook_id = {"name": "id", "in": "path", "required": True, "description": "A webhook id (wh_...).", "schema": {"type": "string"}}
delivery_id = {"name": "delivery_id", "in": "path", "required": True, "description": "A delivery id (wd_...).", "schema": {"type": "string"}}
event_types = ["payment.created", "payment.paid", "payment.expired", "payment.canceled", "payment.refunded",
               "dispute.opened", "dispute.won", "dispute.lost", "withdrawal.completed", "withdrawal.failed"]
webhook_props = {
  "id": {"type": "string", "pattern": "^wh_[0-9A-Za-z]{22}$"},
  "object": {"const": "webhook"},
  "livemode": {"type": "boolean"},
  "name": {"type": "string", "maxLength": 120},
  "url": {"type": "string", "format": "uri"},
  "api_version": {"enum": ["v1", "v2"]},
  "events": {"type": "array", "minItems": 1, "uniqueItems": True, "items": {"$ref": "#/components/schemas/EventType"}},
  "enabled": {"type": "boolean"},
  "disabled_reason": {"enum": [None, "manual", "endpoint_gone", "failing"], "description": "endpoint_gone: the receiver answered 410; failing: 5 days of failures, at least 10."},
  "secret_hint": {"type": "string", "description": "The secret's last characters, e.g. whsec_...a1B2."},
  "previous_secret_expires_at": dict(nts, description="During a rotation, when the previous secret stops signing."),
  "failing_since": dict(nts, description="Start of the current run of failed attempts."),
  "created_at": ts, "updated_at": ts}
rl_headers = {h: {"$ref": f"#/components/headers/{h}"} for h in ["RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset", "X-Request-Id"]}

doc = {
 "openapi": "3.1.0",
 "jsonSchemaDialect": "https://json-schema.org/draft/2020-12/schema",
 "info": {"title": "Payments API", "version": "v1",
   "description": "PIX payments: create, read, list and cancel charges. Authenticate every /api/v1 call with `Authorization: Bearer <API key>` or `X-API-Key: <API key>`. Test keys (sk_test_) see test data; live keys (sk_live_) see live data. Every response carries X-Request-Id. POSTs accept an Idempotency-Key (kept 24h)."},
 "servers": [{"url": "/"}],
 "security": [{"bearer": []}, {"apiKeyHeader": []}],
 "paths": {
  "/api/v1/webhooks": {
   "post": {"operationId": "createWebhook", "summary": "Create a webhook endpoint", "tags": ["Webhooks"],
     "description": "The response carries the signing secret in `secret`, the only time it is shown. At most 20 webhooks per account, test and live together.",
     "parameters": key_header,
     "requestBody": {"required": True, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/CreateWebhookRequest"}}}},
     "responses": {"201": json_resp("The webhook, with its secret.", "#/components/schemas/WebhookWithSecret", rl_headers), **errors(400, 401, 409, 415, 422, 429, 500)}},
   "get": {"operationId": "listWebhooks", "summary": "List the webhooks of this mode", "tags": ["Webhooks"],
     "responses": {"200": json_resp("Every webhook (at most 20).", "#/components/schemas/WebhookList", rl_headers), **errors(400, 401, 429, 500)}}},
  "/api/v1/webhooks/{id}": {
   "parameters": [webhook_id],
   "get": {"operationId": "getWebhook", "summary": "Retrieve a webhook", "tags": ["Webhooks"],
     "responses": {"200": json_resp("The webhook.", "#/components/schemas/Webhook", rl_headers), **errors(400, 401, 404, 429, 500)}},
   "post": {"operationId": "updateWebhook", "summary": "Update a webhook", "tags": ["Webhooks"],
     "description": "Setting enabled to true clears a disabled reason and the failure streak.",
     "parameters": key_header,
     "requestBody": {"required": True, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/UpdateWebhookRequest"}}}},
     "responses": {"200": json_resp("The updated webhook.", "#/components/schemas/Webhook", rl_headers), **errors(400, 401, 404, 415, 422, 429, 500)}},
   "delete": {"operationId": "deleteWebhook", "summary": "Delete a webhook, its queued deliveries and their history", "tags": ["Webhooks"],
     "responses": {"200": json_resp("Deleted.", "#/components/schemas/DeletedWebhook", rl_headers), **errors(400, 401, 404, 429, 500)}}},
  "/api/v1/webhooks/{id}/rotate_secret": {
   "parameters": [webhook_id],
   "post": {"operationId": "rotateWebhookSecret", "summary": "Rotate the signing secret",
     "description": "The new secret (generated, or the one given) signs from now on; the previous one keeps signing beside it for 24 hours, so deliveries carry two v1 signatures.",
     "tags": ["Webhooks"], "parameters": key_header,
     "requestBody": {"required": False, "content": {"application/json": {"schema": obj({"secret": {"type": "string", "minLength": 16, "maxLength": 128}}, required=[])}}},
     "responses": {"200": json_resp("The webhook, with its new secret.", "#/components/schemas/WebhookWithSecret", rl_headers), **errors(400, 401, 404, 415, 422, 429, 500)}}},
  "/api/v1/webhooks/{id}/test": {
   "parameters": [webhook_id],
   "post": {"operationId": "testWebhook", "summary": "Send a sample event now and report what the receiver answered", "tags": ["Webhooks"],
     "parameters": key_header,
     "requestBody": {"required": False, "content": {"application/json": {"schema": obj({"event_type": {"$ref": "#/components/schemas/EventType"}}, required=[])}}},
     "responses": {"200": json_resp("The attempt's result (success false when the receiver failed).", "#/components/schemas/WebhookTest", rl_headers), **errors(400, 401, 404, 415, 422, 429, 500)}}},
  "/api/v1/webhooks/{id}/resend_failed": {
   "parameters": [webhook_id],
   "post": {"operationId": "resendFailedDeliveries", "summary": "Queue again every failed delivery created since a time", "tags": ["Webhooks"],
     "parameters": key_header,
     "requestBody": {"required": True, "content": {"application/json": {"schema": obj({"since": {"type": "integer", "minimum": 0, "description": "Unix seconds."}})}}},
     "responses": {"200": json_resp("How many were queued.", "#/components/schemas/WebhookResend", rl_headers), **errors(400, 401, 404, 415, 422, 429, 500)}}},
  "/api/v1/webhooks/{id}/deliveries": {
   "parameters": [webhook_id],
   "get": {"operationId": "listWebhookDeliveries", "summary": "List a webhook's deliveries with every attempt, newest first", "tags": ["Webhooks"],
     "parameters": [
       {"name": "limit", "in": "query", "schema": {"type": "integer", "minimum": 1, "maximum": 100, "default": 10}},
       {"name": "status", "in": "query", "schema": {"enum": ["pending", "succeeded", "failed"]}},
       {"name": "starting_after", "in": "query", "description": "A delivery id (wd_...).", "schema": {"type": "string"}}],
     "responses": {"200": json_resp("One page of deliveries.", "#/components/schemas/DeliveryList", rl_headers), **errors(400, 401, 404, 429, 500)}}},
  "/api/v1/webhooks/{id}/deliveries/{delivery_id}": {
   "parameters": [webhook_id, delivery_id],
   "get": {"operationId": "getWebhookDelivery", "summary": "Retrieve a delivery with every attempt", "tags": ["Webhooks"],
     "responses": {"200": json_resp("The delivery.", "#/components/schemas/Delivery", rl_headers), **errors(400, 401, 404, 429, 500)}}},
  "/api/v1/webhooks/{id}/deliveries/{delivery_id}/resend": {
   "parameters": [webhook_id, delivery_id],
   "post": {"operationId": "resendWebhookDelivery", "summary": "Attempt a delivery again now, whatever its status", "tags": ["Webhooks"],
     "parameters": key_header,
     "responses": {"200": json_resp("The delivery, queued.", "#/components/schemas/Delivery", rl_headers), **errors(400, 401, 404, 422, 429, 500)}}},
  "/api/v1/payments": {
   "post": {"operationId": "createPayment", "summary": "Create a PIX payment", "tags": ["Payments"],
     "parameters": key_header,
     "requestBody": {"required": True, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/CreatePaymentRequest"}}}},
     "responses": {"201": json_resp("The created payment, status pending.", "#/components/schemas/Payment", dict(rl_headers, Location={"description": "The payment's URL", "schema": {"type": "string"}})),
                   **errors(400, 401, 409, 413, 415, 422, 429, 500)}},
   "get": {"operationId": "listPayments", "summary": "List payments, newest first", "tags": ["Payments"],
     "parameters": [
       {"name": "limit", "in": "query", "schema": {"type": "integer", "minimum": 1, "maximum": 100, "default": 10}},
       {"name": "status", "in": "query", "schema": {"$ref": "#/components/schemas/PaymentStatus"}},
       {"name": "created[gte]", "in": "query", "description": "Created at or after this Unix time (seconds).", "schema": {"type": "integer", "minimum": 0}},
       {"name": "created[lte]", "in": "query", "description": "Created at or before this Unix time (seconds), that second included.", "schema": {"type": "integer", "minimum": 0}},
       {"name": "starting_after", "in": "query", "description": "A payment id: return the page of older payments after it.", "schema": {"type": "string", "format": "uuid"}},
       {"name": "ending_before", "in": "query", "description": "A payment id: return the page of newer payments before it.", "schema": {"type": "string", "format": "uuid"}}],
     "responses": {"200": json_resp("One page of payments.", "#/components/schemas/PaymentList", rl_headers), **errors(400, 401, 429, 500)}}},
  "/api/v1/payments/{id_or_external_id}": {
   "parameters": [payment_ref],
   "get": {"operationId": "getPayment", "summary": "Retrieve a payment", "tags": ["Payments"],
     "responses": {"200": json_resp("The payment.", "#/components/schemas/Payment", rl_headers), **errors(400, 401, 404, 429, 500)}},
   "delete": {"operationId": "cancelPayment", "summary": "Cancel a pending payment",
     "description": "A pending payment becomes canceled. Canceling a canceled payment returns it unchanged. Any other status is 409 payment_not_cancelable.",
     "tags": ["Payments"],
     "responses": {"200": json_resp("The canceled payment.", "#/components/schemas/Payment", rl_headers), **errors(400, 401, 404, 409, 429, 500)}}},
  "/api/v1/payments/{id_or_external_id}/refund": {
   "parameters": [payment_ref],
   "post": {"operationId": "refundPayment", "summary": "Refund a paid payment in full",
     "description": "paid -> refunded, with a payment.refunded event. Any other status is 409 payment_not_refundable.",
     "tags": ["Payments"], "parameters": key_header,
     "responses": {"200": json_resp("The refunded payment.", "#/components/schemas/Payment", rl_headers), **errors(400, 401, 404, 409, 422, 429, 500)}}},
  "/api/v1/test_helpers/payments/{id_or_external_id}/pay": {
   "parameters": [payment_ref],
   "post": {"operationId": "testHelperPayPayment", "summary": "Test mode: confirm a payment as the PSP would", "tags": ["Test helpers"],
     "parameters": key_header,
     "responses": {"200": json_resp("The paid payment.", "#/components/schemas/Payment", rl_headers), **errors(400, 401, 403, 404, 409, 422, 429, 500)}}},
  "/api/v1/test_helpers/payments/{id_or_external_id}/expire": {
   "parameters": [payment_ref],
   "post": {"operationId": "testHelperExpirePayment", "summary": "Test mode: expire a pending payment now", "tags": ["Test helpers"],
     "parameters": key_header,
     "responses": {"200": json_resp("The expired payment.", "#/components/schemas/Payment", rl_headers), **errors(400, 401, 403, 404, 409, 422, 429, 500)}}},
  "/api/v1/openapi.json": {
   "get": {"operationId": "getOpenAPI", "summary": "This document", "tags": ["Meta"], "security": [],
     "responses": {"200": {"description": "The OpenAPI 3.1 document.", "content": {"application/json": {"schema": {"type": "object", "required": ["openapi", "paths"]}}}}}}},
  "/healthz": {
   "get": {"operationId": "healthz", "summary": "Liveness", "tags": ["Meta"], "security": [],
     "responses": {"200": {"description": "The process is up.", "content": {"application/json": {"schema": obj({"status": {"const": "ok"}})}}}}}},
  "/readyz": {
   "get": {"operationId": "readyz", "summary": "Readiness: the database (and Redis, when configured) answer", "tags": ["Meta"], "security": [],
     "responses": {
       "200": {"description": "Ready.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Readiness"}}}},
       "503": {"description": "A dependency is down.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Readiness"}}}}}}},
  "/psp/pix": {
   "post": {"operationId": "pspPixNotification", "summary": "PSP settlement notifications (Banco Central Pix webhook body)", "tags": ["PSP"],
     "description": "Authenticated with `Authorization: Bearer <PSP_TOKEN>`. Each transfer is matched to a charge by txid (the payment's correlation_id) and is idempotent by endToEndId. The exact amount makes the charge paid (also when it had expired or been canceled: the money is real); a different amount, an unknown txid or a second transfer for a paid charge is recorded for support and pays nothing.",
     "security": [{"pspToken": []}],
     "requestBody": {"required": True, "content": {"application/json": {"schema": obj({"pix": {"type": "array", "minItems": 1, "maxItems": 100,
        "items": {"type": "object", "required": ["endToEndId", "txid", "valor"], "properties": {
          "endToEndId": {"type": "string", "pattern": "^[A-Za-z0-9]{32}$"}, "txid": {"type": "string"},
          "valor": {"type": "string", "pattern": "^[0-9]{1,12}\\.[0-9]{2}$"}, "horario": {"type": "string", "format": "date-time"}}}}})}}},
     "responses": {"200": {"description": "What each transfer did.", "content": {"application/json": {"schema": obj({
        "received": {"type": "integer", "minimum": 1},
        "results": {"type": "array", "items": obj({"endToEndId": {"type": "string"}, "outcome": {"enum": ["paid", "amount_mismatch", "unknown_txid", "already_paid"]},
                                                  "duplicate": {"type": "boolean"}})}})}}},
        **errors(400, 401, 415, 500)}}},
  "/pay/{id}/qr.png": {
   "get": {"operationId": "getPaymentQRCode", "summary": "The payment's BR Code as a QR image (public, for the payer)", "tags": ["Payer"], "security": [],
     "parameters": [{"name": "id", "in": "path", "required": True, "schema": {"type": "string", "format": "uuid"}}],
     "responses": {"200": {"description": "PNG image.", "content": {"image/png": {"schema": {"type": "string", "contentMediaType": "image/png"}}}},
                   **errors(404, 500)}}},
 },
 "components": {
  "securitySchemes": {
   "bearer": {"type": "http", "scheme": "bearer", "description": "Authorization: Bearer sk_test_... or sk_live_..."},
   "apiKeyHeader": {"type": "apiKey", "in": "header", "name": "X-API-Key"},
   "pspToken": {"type": "http", "scheme": "bearer", "description": "The shared PSP_TOKEN."}},
  "parameters": {
   "IdempotencyKey": {"name": "Idempotency-Key", "in": "header", "required": False,
     "description": "Up to 255 characters. A retry with the same key and body returns the first response with Idempotent-Replayed: true; the same key with another body is 422; while the first is running, 409.",
     "schema": {"type": "string", "maxLength": 255}}},
  "headers": {
   "RateLimit-Limit": {"description": "Requests allowed per second for this key.", "schema": {"type": "integer"}},
   "RateLimit-Remaining": {"description": "Requests left in the current second.", "schema": {"type": "integer"}},
   "RateLimit-Reset": {"description": "Seconds until the budget resets.", "schema": {"type": "integer"}},
   "X-Request-Id": {"description": "This request's id (req_...); quote it to support.", "schema": {"type": "string"}}},
  "responses": {
   "Error": {"description": "An error, in the one error shape of the API.",
     "headers": {"X-Request-Id": {"$ref": "#/components/headers/X-Request-Id"}},
     "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}},
  "schemas": {
   "EventType": {"enum": event_types},
   "Webhook": obj(webhook_props),
   "WebhookWithSecret": obj(dict(webhook_props, secret={"type": "string", "description": "The signing secret. Shown only in this response."})),
   "WebhookList": obj({"object": {"const": "list"}, "url": {"const": "/api/v1/webhooks"}, "has_more": {"const": False},
                       "data": {"type": "array", "maxItems": 20, "items": {"$ref": "#/components/schemas/Webhook"}}}),
   "DeletedWebhook": obj({"id": {"type": "string"}, "object": {"const": "webhook"}, "deleted": {"const": True}}),
   "CreateWebhookRequest": obj({
     "url": {"type": "string", "format": "uri", "maxLength": 2048, "description": "Public https endpoint."},
     "name": {"type": "string", "maxLength": 120},
     "api_version": {"enum": ["v1", "v2"], "default": "v2"},
     "events": {"type": "array", "minItems": 1, "items": {"$ref": "#/components/schemas/EventType"}},
     "enabled": {"type": "boolean", "default": True},
     "secret": {"type": "string", "description": "Optional custom secret, 16 to 128 printable ASCII characters; generated (whsec_...) when absent or empty."}},
     required=["url", "events"]),
   "UpdateWebhookRequest": obj({
     "url": {"type": "string", "format": "uri", "maxLength": 2048},
     "name": {"type": "string", "maxLength": 120},
     "api_version": {"enum": ["v1", "v2"]},
     "events": {"type": "array", "minItems": 1, "items": {"$ref": "#/components/schemas/EventType"}},
     "enabled": {"type": "boolean"}}, required=[]),
   "Attempt": obj({
     "id": {"type": "string", "pattern": "^dlv_[0-9A-Za-z]{22}$", "description": "Also sent as X-Service-Delivery."},
     "object": {"const": "webhook_attempt"},
     "attempt": {"type": "integer", "minimum": 1},
     "event_id": {"type": "string"},
     "event_type": {"$ref": "#/components/schemas/EventType"},
     "request": obj({"url": {"type": "string"}, "headers": {"type": "object", "additionalProperties": {"type": "string"}}, "body": {"type": "string"}}),
     "response": {"oneOf": [{"type": "null"}, obj({"status": {"type": "integer"},
                  "headers": {"type": "object", "additionalProperties": {"type": "array", "items": {"type": "string"}}},
                  "body": {"type": "string", "description": "The first 16 KiB."}})]},
     "duration_ms": {"type": "integer", "minimum": 0},
     "error": {"oneOf": [{"type": "null"}, obj({"class": {"type": "string"}, "message": {"type": "string"}})]},
     "created_at": ts}),
   "Delivery": obj({
     "id": {"type": "string", "pattern": "^wd_"},
     "object": {"const": "webhook_delivery"},
     "webhook_id": {"type": "string"}, "event_id": {"type": "string"},
     "event_type": {"$ref": "#/components/schemas/EventType"},
     "livemode": {"type": "boolean"},
     "status": {"enum": ["pending", "succeeded", "failed"]},
     "attempt_count": {"type": "integer", "minimum": 0},
     "next_attempt_at": nts,
     "last_status_code": {"type": ["integer", "null"]},
     "last_error": {"type": ["string", "null"]},
     "created_at": ts, "updated_at": ts, "completed_at": nts,
     "attempts": {"type": "array", "items": {"$ref": "#/components/schemas/Attempt"}}}),
   "DeliveryList": obj({"object": {"const": "list"}, "url": {"type": "string"}, "has_more": {"type": "boolean"},
                        "data": {"type": "array", "items": {"$ref": "#/components/schemas/Delivery"}}}),
   "WebhookTest": obj({"object": {"const": "webhook_test"}, "webhook_id": {"type": "string"}, "success": {"type": "boolean"},
                       "status": {"type": ["integer", "null"]}, "latency_ms": {"type": "integer", "minimum": 0},
                       "attempt": {"$ref": "#/components/schemas/Attempt"}}),
   "WebhookResend": obj({"object": {"const": "webhook_resend"}, "webhook_id": {"type": "string"}, "requeued": {"type": "integer", "minimum": 0}}),
   "PaymentStatus": {"type": "string", "enum": ["pending", "paid", "expired", "canceled", "refunded"],
     "description": "pending -> paid | expired | canceled; paid -> refunded. A PSP confirmation of an expired or canceled charge still makes it paid."},
   "Customer": obj({
     "name": {"type": "string", "minLength": 1, "maxLength": 120},
     "email": {"type": "string", "format": "email", "maxLength": 254},
     "document": {"type": "string", "pattern": r"^(\d{11}|\d{14})$", "description": "CPF (11) or CNPJ (14) digits."},
     "phone": {"type": ["string", "null"], "pattern": r"^\+?[0-9]{8,15}$"}}),
   "CustomerInput": obj({
     "name": {"type": "string", "minLength": 1, "maxLength": 120},
     "email": {"type": "string", "format": "email", "maxLength": 254},
     "document": {"type": "string", "description": "CPF or CNPJ with valid check digits; the punctuation . - / is stripped."},
     "phone": {"type": ["string", "null"], "description": "8 to 15 digits, optional leading +; spaces, dashes, dots and parentheses are stripped."}},
     required=["name", "email", "document"]),
   "CreatePaymentRequest": obj({
     "amount_cents": {"type": "integer", "minimum": 1, "maximum": 100000000},
     "description": {"type": ["string", "null"], "maxLength": 500},
     "external_id": {"type": ["string", "null"], "pattern": r"^[A-Za-z0-9._~:-]{1,128}$", "description": "Your reference, unique per account and mode; usable in place of the id."},
     "customer": {"oneOf": [{"$ref": "#/components/schemas/CustomerInput"}, {"type": "null"}]},
     "metadata": {"type": ["object", "null"], "maxProperties": 50, "propertyNames": {"minLength": 1, "maxLength": 40},
                  "additionalProperties": {"type": "string", "maxLength": 500}},
     "expires_in": {"type": ["integer", "null"], "minimum": 300, "maximum": 2592000, "default": 86400, "description": "Seconds until the charge expires."}},
     required=["amount_cents"]),
   "Payment": obj({
     "id": {"type": "string", "format": "uuid", "description": "UUIDv7: time-ordered."},
     "object": {"const": "payment"},
     "livemode": {"type": "boolean"},
     "status": {"$ref": "#/components/schemas/PaymentStatus"},
     "amount_cents": {"type": "integer", "minimum": 1, "maximum": 100000000},
     "amount_label": {"type": "string", "pattern": r"^R\$ \d{1,3}(\.\d{3})*,\d{2}$", "examples": ["R$ 1.234,56"]},
     "currency": {"const": "BRL"},
     "payment_method": {"const": "pix"},
     "external_id": {"type": ["string", "null"]},
     "description": {"type": ["string", "null"]},
     "customer": {"oneOf": [{"$ref": "#/components/schemas/Customer"}, {"type": "null"}]},
     "metadata": {"type": "object", "additionalProperties": {"type": "string"}},
     "correlation_id": {"type": "string", "pattern": "^[A-Za-z0-9]{26,35}$", "description": "The PIX txid carried in the BR Code."},
     "fee_cents": {"type": "integer", "minimum": 0},
     "pix": obj({"br_code": {"type": "string", "description": "EMV BR Code (copia e cola)."},
                 "qr_code_url": {"type": "string", "format": "uri"}}),
     "checkout_url": {"type": "string", "format": "uri"},
     "created_at": ts, "updated_at": ts, "paid_at": nts, "expires_at": nts, "canceled_at": nts, "expired_at": nts,
     "refunded_at": nts}),
   "PaymentList": obj({
     "object": {"const": "list"},
     "url": {"const": "/api/v1/payments"},
     "has_more": {"type": "boolean"},
     "data": {"type": "array", "items": {"$ref": "#/components/schemas/Payment"}}}),
   "Error": obj({"error": obj({
     "type": {"type": "string", "enum": ["invalid_request_error", "authentication_error", "permission_error", "idempotency_error", "rate_limit_error", "api_error"]},
     "code": {"type": "string", "description": "Stable, machine-readable: see the README's error code table."},
     "message": {"type": "string"},
     "param": {"type": ["string", "null"], "description": "The offending parameter, e.g. customer.email or metadata[order]."},
     "request_id": {"type": "string", "pattern": "^req_[0-9A-Za-z]{22}$"}})}),
   "Readiness": obj({"status": {"enum": ["ready", "unavailable"]},
                     "checks": {"type": "object", "additionalProperties": {"enum": ["ok", "unavailable"]}}}),
  }}}
import pathlib
out = pathlib.Path(__file__).resolve().parent.parent / "handlers" / "openapi.json"
out.write_text(json.dumps(doc, indent=2) + "\n")
