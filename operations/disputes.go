package operations

import (
	"bytes"
	"context"
	"fmt"
	"path"
	"strings"
	"unicode"
	"unicode/utf8"

	"payments/store"
)

// SimulateDispute opens a test dispute on a paid payment, as the payer's
// bank would (MED 2.0): what it claims of what is still the merchant's is
// held. A payment may have several.
func (o *Operations) SimulateDispute(ctx context.Context, who store.Actor, scope store.Scope, ref string, report store.DisputeReport) (d *store.Dispute, err error) {
	err = o.simulation(ctx, who, scope, rule("SimulateDispute"), "dispute.created", func(ctx context.Context) (string, store.Changes, error) {
		if d, err = o.Store.OpenDispute(ctx, scope, ref, report); err != nil {
			return "", nil, err
		}
		return d.ID, store.Changes{"status": {nil, d.Status}, "reason": {nil, d.Reason}, "amount_reported_cents": {nil, d.AmountReportedCents}}, nil
	})
	return d, err
}

// SimulateDisputeOutcome closes an open test dispute, won or lost.
func (o *Operations) SimulateDisputeOutcome(ctx context.Context, who store.Actor, scope store.Scope, id, status string) (d *store.Dispute, err error) {
	err = o.simulation(ctx, who, scope, rule("SimulateDisputeOutcome"), "dispute.closed", func(ctx context.Context) (string, store.Changes, error) {
		if d, err = o.Store.CloseDispute(ctx, scope, id, status); err != nil {
			return "", nil, err
		}
		return d.ID, statusChange(store.DisputeOpen, d.Status), nil
	})
	return d, err
}

// ApplyPSPDispute brings a dispute to what the PSP reports about it (see
// store.ApplyPSPDispute), recorded as the PSP's doing. A repeated notice
// changes nothing and is not audited.
func (o *Operations) ApplyPSPDispute(ctx context.Context, in store.PSPDispute) (d *store.Dispute, duplicate bool, err error) {
	return o.Store.ApplyPSPDisputeAudited(store.WithActor(ctx, store.ActorPSP), in)
}

// DefenseInput is a merchant's defense as sent: its text and its files,
// each with the name it was sent under.
type DefenseInput struct {
	Text  string
	Files []EvidenceInput
}

// EvidenceInput is one file of a defense as sent.
type EvidenceInput struct {
	Name    string
	Content []byte
}

// DefendDispute answers the scope's open dispute id with in (MED 2.0):
// the merchant's account of the transfer and its evidence, PDF, PNG or
// JPEG by their content, within store's bounds. The dispute goes under
// review (dispute.updated); live, the defense is queued to the PSP in the
// same transaction. Who needs write permission on disputes.
func (o *Operations) DefendDispute(ctx context.Context, who store.Actor, scope store.Scope, id string, in DefenseInput) (d *store.Dispute, err error) {
	def, err := checkDefense(in)
	if err != nil {
		return nil, err
	}
	err = o.record(ctx, who, scope, rule("DefendDispute"), "dispute.defended", func(ctx context.Context) (string, store.Changes, error) {
		if d, err = o.Store.DefendDispute(ctx, scope, id, def); err != nil {
			return "", nil, err
		}
		return d.ID, store.Changes{"stage": {store.StageBlocked, d.Stage}, "evidence": {nil, len(d.Evidence)}}, nil
	})
	return d, err
}

// checkDefense is every rule of a defense's input: a text of 1 to
// MaxDefenseText characters, at most MaxEvidenceFiles files, each of 1 byte
// to MaxEvidenceBytes and a PDF, PNG or JPEG by its content (whatever its
// name says), named (a name is kept to its base, printable, at most
// MaxEvidenceName characters).
func checkDefense(in DefenseInput) (store.DisputeDefense, error) {
	text := strings.TrimSpace(in.Text)
	var errs InputErrors
	switch n := utf8.RuneCountInString(text); {
	case n == 0:
		errs = append(errs, &InputError{Param: "text", Code: "parameter_missing", Message: "text is required: the merchant's account of the transfer.",
			Words: "dispute.defense_text_missing"})
	case n > store.MaxDefenseText:
		errs = append(errs, &InputError{Param: "text", Code: "parameter_too_long",
			Message: fmt.Sprintf("text must be at most %d characters.", store.MaxDefenseText), Words: "dispute.defense_text_long"})
	}
	if len(in.Files) > store.MaxEvidenceFiles {
		errs = append(errs, &InputError{Param: "evidence", Message: fmt.Sprintf("Send at most %d evidence files.", store.MaxEvidenceFiles),
			Words: "dispute.evidence_too_many"})
	}
	def := store.DisputeDefense{Text: text}
	for i, f := range in.Files {
		param := fmt.Sprintf("evidence[%d]", i)
		kind := evidenceType(f.Content)
		switch {
		case len(f.Content) == 0 || len(f.Content) > store.MaxEvidenceBytes:
			errs = append(errs, &InputError{Param: param, Code: "file_too_large",
				Message: fmt.Sprintf("%s must have 1 byte to %d bytes (2 MiB).", param, store.MaxEvidenceBytes), Words: "dispute.evidence_size"})
		case kind == "":
			errs = append(errs, &InputError{Param: param, Code: "file_type_invalid",
				Message: param + " must be a PDF, PNG or JPEG (read from its content).", Words: "dispute.evidence_type"})
		}
		def.Evidence = append(def.Evidence, store.EvidenceFile{Name: evidenceName(f.Name, i, kind), ContentType: kind, Content: f.Content})
	}
	if len(errs) > 0 {
		return store.DisputeDefense{}, errs
	}
	return def, nil
}

// evidenceType is what a file's first bytes say it is, of the types taken.
func evidenceType(b []byte) string {
	switch {
	case bytes.HasPrefix(b, []byte("%PDF-")):
		return "application/pdf"
	case bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")):
		return "image/png"
	case bytes.HasPrefix(b, []byte("\xff\xd8\xff")):
		return "image/jpeg"
	}
	return ""
}

// evidenceName keeps a file's name to its base, without control or
// layout characters, at most MaxEvidenceName characters; a file without
// one is named by its place and type.
func evidenceName(name string, i int, kind string) string {
	name = path.Base(strings.ReplaceAll(name, "\\", "/"))
	name = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == '"' {
			return -1
		}
		return r
	}, strings.TrimSpace(name))
	if name == "" || name == "." || name == "/" {
		ext := map[string]string{"application/pdf": ".pdf", "image/png": ".png", "image/jpeg": ".jpg"}[kind]
		name = fmt.Sprintf("evidencia-%d%s", i+1, ext)
	}
	if r := []rune(name); len(r) > store.MaxEvidenceName {
		name = string(r[:store.MaxEvidenceName])
	}
	return name
}
