package views

// PSPStep is one call to the PSP about an object: what it asks, where it
// stands, how many attempts it took and the last thing that went wrong.
type PSPStep struct {
	Kind      string
	ObjectID  string
	Status    string
	Attempts  int
	LastError string
	// Trouble says in words what LastError is (apipix.Trouble), the raw
	// text staying behind a details toggle.
	Trouble string
	At      string
}

// pspOperations are the API Pix (or payout port) operations of each kind
// of call: protocol, shown as is.
var pspOperations = map[string]string{
	"cob.create":       "PUT /cob/{txid}",
	"cob.remove":       "PATCH /cob/{txid}",
	"pix.confirm":      "GET /pix/{e2eid}",
	"devolucao.create": "PUT /pix/{e2eid}/devolucao/{id}",
	"devolucao.check":  "GET /pix/{e2eid}/devolucao/{id}",
	"payout.create":    "PUT /v3/gn/pix/{idEnvio}",
	"payout.check":     "GET /v2/gn/pix/enviados/id-envio/{idEnvio}",
	"transfer.return":  "PUT /pix/{e2eid}/devolucao/{id}",
}

func pspOperation(kind string) string { return pspOperations[kind] }
