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
delivery_id = {"name": "delivery_id", "in": "path", "required": True, "description": "A delivery id (whd_...).", "schema": {"type": "string"}}
dispute_id = {"name": "id", "in": "path", "required": True, "description": "A dispute id (dsp_...).", "schema": {"type": "string"}}
withdrawal_id = {"name": "id", "in": "path", "required": True, "description": "A withdrawal id (wd_...).", "schema": {"type": "string"}}
def id_list_params(status_ref, cursor_desc):
    return [{"name": "limit", "in": "query", "schema": {"type": "integer", "minimum": 1, "maximum": 100, "default": 10}},
            {"name": "status", "in": "query", "schema": {"$ref": status_ref}},
            {"name": "starting_after", "in": "query", "description": cursor_desc, "schema": {"type": "string"}}]
money_label = {"type": "string", "pattern": r"^-?R\$ \d{1,3}(\.\d{3})*,\d{2}$", "examples": ["R$ 1.234,56"]}
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
       {"name": "starting_after", "in": "query", "description": "A delivery id (whd_...).", "schema": {"type": "string"}}],
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
     "description": "paid -> refunded, with a payment.refunded event: the amount returns to the payer and the fee to you. Any other status is 409 payment_not_refundable; an open dispute is 409 payment_disputed; an available balance that cannot cover the amount less the fee is 409 balance_insufficient.",
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
  "/api/v1/test_helpers/payments/{id_or_external_id}/dispute": {
   "parameters": [payment_ref],
   "post": {"operationId": "testHelperDisputePayment", "summary": "Test mode: the payer's bank opens a PIX MED dispute on a paid payment", "tags": ["Test helpers"],
     "description": "The payment's amount moves from available to pending until the dispute closes; dispute.opened is sent.",
     "parameters": key_header,
     "requestBody": {"required": False, "content": {"application/json": {"schema": obj({"reason": {"$ref": "#/components/schemas/DisputeReason"}}, required=[])}}},
     "responses": {"201": json_resp("The open dispute.", "#/components/schemas/Dispute", rl_headers), **errors(400, 401, 403, 404, 409, 415, 422, 429, 500)}}},
  "/api/v1/test_helpers/disputes/{id}/win": {
   "parameters": [dispute_id],
   "post": {"operationId": "testHelperWinDispute", "summary": "Test mode: close an open dispute in the merchant's favour", "tags": ["Test helpers"],
     "description": "The held amount goes back to available; dispute.won is sent. Winning a won dispute returns it unchanged.",
     "parameters": key_header,
     "responses": {"200": json_resp("The won dispute.", "#/components/schemas/Dispute", rl_headers), **errors(400, 401, 403, 404, 409, 415, 422, 429, 500)}}},
  "/api/v1/test_helpers/disputes/{id}/lose": {
   "parameters": [dispute_id],
   "post": {"operationId": "testHelperLoseDispute", "summary": "Test mode: close an open dispute in the payer's favour", "tags": ["Test helpers"],
     "description": "The held amount returns to the payer, the fee returns to the merchant and the payment becomes refunded; dispute.lost and payment.refunded are sent.",
     "parameters": key_header,
     "responses": {"200": json_resp("The lost dispute.", "#/components/schemas/Dispute", rl_headers), **errors(400, 401, 403, 404, 409, 415, 422, 429, 500)}}},
  "/api/v1/test_helpers/withdrawals/{id}/complete": {
   "parameters": [withdrawal_id],
   "post": {"operationId": "testHelperCompleteWithdrawal", "summary": "Test mode: the PSP confirms a withdrawal", "tags": ["Test helpers"],
     "parameters": key_header,
     "responses": {"200": json_resp("The completed withdrawal.", "#/components/schemas/Withdrawal", rl_headers), **errors(400, 401, 403, 404, 409, 415, 422, 429, 500)}}},
  "/api/v1/test_helpers/withdrawals/{id}/fail": {
   "parameters": [withdrawal_id],
   "post": {"operationId": "testHelperFailWithdrawal", "summary": "Test mode: the PSP reports a withdrawal failed; its amount returns to available", "tags": ["Test helpers"],
     "parameters": key_header,
     "requestBody": {"required": False, "content": {"application/json": {"schema": obj({"failure_reason": {"type": "string", "maxLength": 500}}, required=[])}}},
     "responses": {"200": json_resp("The failed withdrawal.", "#/components/schemas/Withdrawal", rl_headers), **errors(400, 401, 403, 404, 409, 415, 422, 429, 500)}}},
  "/api/v1/balance": {
   "get": {"operationId": "getBalance", "summary": "The account's balance in this mode", "tags": ["Balance"],
     "description": "available: what can be withdrawn now (paid amounts less fees, refunds, lost disputes and withdrawals). pending: received money held by open disputes. Both are running sums of the ledger.",
     "responses": {"200": json_resp("The balance.", "#/components/schemas/Balance", rl_headers), **errors(400, 401, 429, 500)}}},
  "/api/v1/disputes": {
   "get": {"operationId": "listDisputes", "summary": "List disputes, newest first", "tags": ["Disputes"],
     "parameters": id_list_params("#/components/schemas/DisputeStatus", "A dispute id (dsp_...): return the older disputes after it."),
     "responses": {"200": json_resp("One page of disputes.", "#/components/schemas/DisputeList", rl_headers), **errors(400, 401, 429, 500)}}},
  "/api/v1/disputes/{id}": {
   "parameters": [dispute_id],
   "get": {"operationId": "getDispute", "summary": "Retrieve a dispute", "tags": ["Disputes"],
     "responses": {"200": json_resp("The dispute.", "#/components/schemas/Dispute", rl_headers), **errors(400, 401, 404, 429, 500)}}},
  "/api/v1/withdrawals": {
   "post": {"operationId": "createWithdrawal", "summary": "Withdraw available balance to a PIX key", "tags": ["Withdrawals"],
     "description": "The amount leaves the available balance at once and the withdrawal is pending until the PSP completes it (withdrawal.completed) or fails it (withdrawal.failed, the amount comes back). More than the available balance is 409 balance_insufficient; concurrent withdrawals never overdraw.",
     "parameters": key_header,
     "requestBody": {"required": True, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/CreateWithdrawalRequest"}}}},
     "responses": {"201": json_resp("The pending withdrawal.", "#/components/schemas/Withdrawal", rl_headers), **errors(400, 401, 409, 413, 415, 422, 429, 500)}},
   "get": {"operationId": "listWithdrawals", "summary": "List withdrawals, newest first", "tags": ["Withdrawals"],
     "parameters": id_list_params("#/components/schemas/WithdrawalStatus", "A withdrawal id (wd_...): return the older withdrawals after it."),
     "responses": {"200": json_resp("One page of withdrawals.", "#/components/schemas/WithdrawalList", rl_headers), **errors(400, 401, 429, 500)}}},
  "/api/v1/withdrawals/{id}": {
   "parameters": [withdrawal_id],
   "get": {"operationId": "getWithdrawal", "summary": "Retrieve a withdrawal", "tags": ["Withdrawals"],
     "responses": {"200": json_resp("The withdrawal.", "#/components/schemas/Withdrawal", rl_headers), **errors(400, 401, 404, 429, 500)}}},
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
  "/psp/disputes": {
   "post": {"operationId": "pspDisputeNotification", "summary": "PSP dispute (PIX MED) notifications", "tags": ["PSP"],
     "description": "Authenticated with `Authorization: Bearer <PSP_TOKEN>`. Reports a dispute as it stands. An unknown id opens a dispute on the payment the transfer (endToEndId) paid, and closes it at once if the status is already won or lost; a known id moves to the status reported; the same status again changes nothing (duplicate true). A closed dispute never reopens (409).",
     "security": [{"pspToken": []}],
     "requestBody": {"required": True, "content": {"application/json": {"schema": obj({
        "id": {"type": "string", "pattern": "^[A-Za-z0-9_.:-]{1,64}$", "description": "The PSP's id for the dispute."},
        "endToEndId": {"type": "string", "pattern": "^[A-Za-z0-9]{32}$", "description": "The disputed PIX transfer."},
        "reason": {"$ref": "#/components/schemas/DisputeReason"},
        "status": {"$ref": "#/components/schemas/DisputeStatus"}})}}},
     "responses": {"200": json_resp("What the notification did.", "#/components/schemas/PSPResult"), **errors(400, 401, 404, 409, 415, 500)}}},
  "/psp/withdrawals": {
   "post": {"operationId": "pspWithdrawalNotification", "summary": "PSP withdrawal outcome notifications", "tags": ["PSP"],
     "description": "Authenticated with `Authorization: Bearer <PSP_TOKEN>`. completed or failed (failure_reason required) ends a pending withdrawal; the same outcome again changes nothing (duplicate true); the other outcome is 409.",
     "security": [{"pspToken": []}],
     "requestBody": {"required": True, "content": {"application/json": {"schema": obj({
        "id": {"type": "string", "description": "Our withdrawal id (wd_...)."},
        "status": {"enum": ["completed", "failed"]},
        "endToEndId": {"type": "string", "pattern": "^[A-Za-z0-9]{32}$"},
        "failure_reason": {"type": "string", "maxLength": 500}}, required=["id", "status"])}}},
     "responses": {"200": json_resp("What the notification did.", "#/components/schemas/PSPResult"), **errors(400, 401, 404, 409, 415, 500)}}},
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
     "id": {"type": "string", "pattern": "^whd_"},
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
   "DisputeStatus": {"type": "string", "enum": ["open", "won", "lost"], "description": "open -> won | lost."},
   "DisputeReason": {"type": "string", "enum": ["fraud", "operational_failure"], "description": "The PIX MED grounds."},
   "Dispute": obj({
     "id": {"type": "string", "pattern": "^dsp_[0-9A-Za-z]{22}$"},
     "object": {"const": "dispute"},
     "livemode": {"type": "boolean"},
     "status": {"$ref": "#/components/schemas/DisputeStatus"},
     "payment_id": {"type": "string", "format": "uuid"},
     "amount_cents": {"type": "integer", "minimum": 1},
     "amount_label": money_label,
     "currency": {"const": "BRL"},
     "reason": {"$ref": "#/components/schemas/DisputeReason"},
     "created_at": ts, "updated_at": ts, "closed_at": nts}),
   "DisputeList": obj({"object": {"const": "list"}, "url": {"const": "/api/v1/disputes"}, "has_more": {"type": "boolean"},
                       "data": {"type": "array", "items": {"$ref": "#/components/schemas/Dispute"}}}),
   "WithdrawalStatus": {"type": "string", "enum": ["pending", "completed", "failed"], "description": "pending -> completed | failed."},
   "CreateWithdrawalRequest": obj({
     "amount_cents": {"type": "integer", "minimum": 1, "maximum": 10000000000},
     "pix_key": {"type": "string", "maxLength": 100, "description": "CPF or CNPJ (check digits valid; . - / stripped), e-mail, phone as +5561988880000, or a random key (UUID)."},
     "description": {"type": ["string", "null"], "maxLength": 140},
     "metadata": {"type": ["object", "null"], "maxProperties": 50, "propertyNames": {"minLength": 1, "maxLength": 40},
                  "additionalProperties": {"type": "string", "maxLength": 500}}},
     required=["amount_cents", "pix_key"]),
   "Withdrawal": obj({
     "id": {"type": "string", "pattern": "^wd_[0-9A-Za-z]{22}$"},
     "object": {"const": "withdrawal"},
     "livemode": {"type": "boolean"},
     "status": {"$ref": "#/components/schemas/WithdrawalStatus"},
     "amount_cents": {"type": "integer", "minimum": 1},
     "amount_label": money_label,
     "currency": {"const": "BRL"},
     "pix_key": {"type": "string", "description": "As the DICT holds it: digits, lower-case e-mail, +phone or lower-case UUID."},
     "pix_key_type": {"enum": ["cpf", "cnpj", "email", "phone", "evp"]},
     "description": {"type": ["string", "null"]},
     "metadata": {"type": "object", "additionalProperties": {"type": "string"}},
     "end_to_end_id": {"type": ["string", "null"], "description": "The PIX transfer's id, once the PSP reports it."},
     "failure_reason": {"type": ["string", "null"]},
     "created_at": ts, "updated_at": ts, "completed_at": nts, "failed_at": nts}),
   "WithdrawalList": obj({"object": {"const": "list"}, "url": {"const": "/api/v1/withdrawals"}, "has_more": {"type": "boolean"},
                          "data": {"type": "array", "items": {"$ref": "#/components/schemas/Withdrawal"}}}),
   "Balance": obj({
     "object": {"const": "balance"},
     "livemode": {"type": "boolean"},
     "currency": {"const": "BRL"},
     "available_cents": {"type": "integer", "description": "Can be withdrawn now. Negative when a dispute holds more than was available."},
     "available_label": money_label,
     "pending_cents": {"type": "integer", "minimum": 0, "description": "Held by open disputes."},
     "pending_label": money_label}),
   "PSPResult": obj({"id": {"type": "string"}, "object": {"enum": ["dispute", "withdrawal"]}, "status": {"type": "string"}, "duplicate": {"type": "boolean"}}),
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
out = pathlib.Path(__file__).resolve().parent.parent / "handlers" / "api" / "openapi.json"
out.write_text(json.dumps(doc, indent=2) + "\n")
