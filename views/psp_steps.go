package views

// PSPStep is one call to the PSP about an object: what it asks, where it
// stands, how many attempts it took and the last thing that went wrong.
type PSPStep struct {
	Kind      string
	Label     string
	ObjectID  string
	Status    string
	Attempts  int
	LastError string
	At        string
}

// pspStepLabels say what each kind of call does, with the API Pix (or
// payout port) operation it is.
var pspStepLabels = map[string]string{
	"cob.create":       "Register the charge · PUT /cob/{txid}",
	"cob.remove":       "Remove the charge · PATCH /cob/{txid}",
	"pix.confirm":      "Confirm the transfer · GET /pix/{e2eid}",
	"devolucao.create": "Return the money · PUT /pix/{e2eid}/devolucao/{id}",
	"devolucao.check":  "Ask how the devolução ended · GET /pix/{e2eid}/devolucao/{id}",
	"payout.create":    "Pay out · PUT /v3/gn/pix/{idEnvio}",
	"payout.check":     "Ask how the payout ended · GET /v2/gn/pix/enviados/id-envio/{idEnvio}",
}

// PSPStepLabel is the label of a kind of call.
func PSPStepLabel(kind string) string {
	if l, ok := pspStepLabels[kind]; ok {
		return l
	}
	return kind
}
