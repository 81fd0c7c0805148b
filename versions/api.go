package versions

import "slices"

// API is the service's versions, oldest first. The first is the API as the
// release of 2026-11-26 served it (web/apiclient/v20261126 keeps its
// document and a client generated from it); each later one is the breaking
// changes that came after, with their converters. Accounts made before
// versions existed are pinned to the newest, which is what they were
// being served.
var API = List{
	{Date: "2026-11-26"},
	{Date: "2026-11-27", Changes: []Change{
		{
			Summary: "A request body with members a route does not read is refused with 400 naming the member: `POST /api/v1/payments/{id}/refund` reads " +
				"`amount_cents` and `description`, `POST /api/v1/test_helpers/payments/{id}/pay` reads `date`, and `POST /api/v1/test_helpers/payments/{id}/expire` " +
				"and `POST /api/v1/webhooks/{id}/deliveries/{delivery_id}/resend` read none. In 2026-11-26 the members they do not read are dropped, as those " +
				"routes ignored their body then, and its document describes them without one. A refund's `amount_cents` is honoured in every version: " +
				"the release of 2026-11-26 refunded the whole payment whatever was asked, which no version repeats.",
			Resumo: "Um corpo com membros que a rota não lê é recusado com 400, que nomeia o membro: a devolução de um pagamento lê `amount_cents` e " +
				"`description`, o pagamento simulado lê `date`, e a expiração simulada e o reenvio de uma entrega não leem nenhum. Na 2026-11-26 os membros " +
				"que a rota não lê são descartados, como aquelas rotas ignoravam o corpo, e o documento as descreve sem corpo. O `amount_cents` de uma " +
				"devolução vale em todas as versões: a versão publicada em 2026-11-26 devolvia o pagamento inteiro, o que nenhuma versão repete.",
			Routes: []string{refundRoute, payRoute, expireRoute, resendRoute},
			Request: func(route string, body []byte) []byte {
				return keepMembers(body, readBy[route]...)
			},
			Document: func(doc map[string]any) {
				for _, path := range []string{"/api/v1/payments/{id_or_external_id}/refund", "/api/v1/test_helpers/payments/{id_or_external_id}/pay"} {
					delete(operation(doc, "post", path), "requestBody")
				}
			},
		},
		{
			Summary: "`GET /api/v1/webhooks/{id}/deliveries`: the `status` filter takes `failing` (every delivery whose last attempt failed, given up or " +
				"still retrying) beside `pending`, `succeeded` and `failed`, so the document gives it a type of its own. The document of 2026-11-26 keeps " +
				"`DeliveryStatus`, the type generated clients were built with; the server reads `failing` in every version.",
			Resumo: "Lista de entregas de um webhook: o filtro `status` aceita `failing` (toda entrega cuja última tentativa falhou, desistida ou ainda " +
				"em nova tentativa) além de `pending`, `succeeded` e `failed`, e o documento dá a ele um tipo próprio. O documento da 2026-11-26 mantém " +
				"`DeliveryStatus`, o tipo com que os clientes gerados foram feitos; o servidor aceita `failing` em todas as versões.",
			Document: func(doc map[string]any) {
				for _, p := range parameters(operation(doc, "get", "/api/v1/webhooks/{id}/deliveries")) {
					if p["name"] == "status" {
						p["schema"] = map[string]any{"$ref": "#/components/schemas/DeliveryStatus"}
					}
				}
			},
		},
	}},
	{Date: "2026-11-28", Changes: []Change{
		{
			Summary: "`POST /api/v1/webhooks` and `POST /api/v1/webhooks/{id}/rotate_secret`: `secret` is left out for an `ed25519` webhook, which has no " +
				"shared secret (the service keeps the signing key; receivers verify with `public_key`). 2026-11-27 and earlier answer `secret` as a " +
				"string always: an empty one for an `ed25519` webhook.",
			Resumo: "Criar um webhook e trocar o seu segredo: `secret` fica de fora num webhook `ed25519`, que não tem segredo compartilhado (o serviço " +
				"guarda a chave de assinatura; quem recebe verifica com `public_key`). Até a 2026-11-27, `secret` vem sempre como texto: vazio num " +
				"webhook `ed25519`.",
			Routes: []string{"POST /api/v1/webhooks", "POST /api/v1/webhooks/:id/rotate_secret"},
			Response: func(body *Object) error {
				if body.Has("secret") {
					return nil
				}
				return body.Set("secret", "")
			},
			Document: func(doc map[string]any) {
				schema := object(object(object(doc, "components"), "schemas"), "WebhookWithSecret")
				if required, ok := schema["required"].([]any); ok && !slices.Contains(required, any("secret")) {
					schema["required"] = append(required, "secret")
				}
				secret := object(object(schema, "properties"), "secret")
				secret["description"] = "The signing secret. Shown only in this response; an empty string for an ed25519 webhook, which has none."
			},
		},
	}},
}

// The routes 2026-11-27's body rule touches, and the members each reads.
const (
	refundRoute = "POST /api/v1/payments/:ref/refund"
	payRoute    = "POST /api/v1/test_helpers/payments/:ref/pay"
	expireRoute = "POST /api/v1/test_helpers/payments/:ref/expire"
	resendRoute = "POST /api/v1/webhooks/:id/deliveries/:delivery_id/resend"
)

var readBy = map[string][]string{
	refundRoute: {"amount_cents", "description"},
	payRoute:    {"date"},
}

// keepMembers is body with only the members named: nothing (no body) when
// body is not a JSON object or keeps none.
func keepMembers(body []byte, names ...string) []byte {
	o, err := parseObject(body)
	if err != nil {
		return nil
	}
	kept := &Object{values: map[string][]byte{}}
	for _, k := range o.keys {
		if slices.Contains(names, k) {
			kept.keys, kept.values[k] = append(kept.keys, k), o.values[k]
		}
	}
	if len(kept.keys) == 0 {
		return nil
	}
	b, _ := kept.MarshalJSON()
	return b
}

// object is m[key] as an object (a new, detached one when it is not).
func object(m map[string]any, key string) map[string]any {
	v, _ := m[key].(map[string]any)
	if v == nil {
		v = map[string]any{}
	}
	return v
}

func operation(doc map[string]any, method, path string) map[string]any {
	return object(object(object(doc, "paths"), path), method)
}

func parameters(op map[string]any) []map[string]any {
	list, _ := op["parameters"].([]any)
	var out []map[string]any
	for _, p := range list {
		if m, ok := p.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}
