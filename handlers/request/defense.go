package request

import (
	"io"
	"mime"
	"net/http"

	"github.com/gofiber/fiber/v2"

	"payments/handlers/reply"
	"payments/operations"
	"payments/store"
)

// Defense reads a dispute's defense as the API and the dashboard send it:
// multipart/form-data with a "text" field and up to store.MaxEvidenceFiles
// "evidence" files, or JSON {"text": ...} without files. It reads types
// and shape only: operations.DefendDispute checks the rest.
func Defense(c *fiber.Ctx) (operations.DefenseInput, *reply.Error) {
	mediaType, _, _ := mime.ParseMediaType(c.Get(fiber.HeaderContentType))
	switch mediaType {
	case fiber.MIMEApplicationJSON:
		o, apiErr := Body(c, "text")
		if apiErr != nil || !o.Present("text") {
			return operations.DefenseInput{}, apiErr
		}
		text, apiErr := o.Str("text", store.MaxDefenseText*2)
		return operations.DefenseInput{Text: text}, apiErr
	case fiber.MIMEMultipartForm:
	default:
		return operations.DefenseInput{}, reply.InvalidRequest(http.StatusUnsupportedMediaType, "content_type_unsupported",
			"Send the defense as multipart/form-data (a text field and evidence files) or as JSON {\"text\": ...}.")
	}
	form, err := c.MultipartForm()
	if err != nil {
		return operations.DefenseInput{}, reply.InvalidRequest(http.StatusBadRequest, "body_invalid", "The multipart body could not be read.")
	}
	var in operations.DefenseInput
	for name, values := range form.Value {
		switch {
		case name == "_csrf": // the dashboard's form
		case name != "text":
			return in, reply.InvalidParam("parameter_unknown", name, "Unknown parameter: %s. A defense takes text and evidence.", name)
		case len(values) > 1:
			return in, reply.InvalidParam("parameter_invalid", "text", "Send text once.")
		default:
			in.Text = values[0]
		}
	}
	for name, files := range form.File {
		if name != "evidence" {
			return in, reply.InvalidParam("parameter_unknown", name, "Unknown file field: %s. Send files as evidence.", name)
		}
		if len(files) > store.MaxEvidenceFiles {
			return in, reply.InvalidParam("parameter_invalid", "evidence", "Send at most %d evidence files.", store.MaxEvidenceFiles)
		}
		for _, fh := range files {
			if fh.Size > store.MaxEvidenceBytes {
				// Read no further than the bound: the operation refuses it by its size.
				in.Files = append(in.Files, operations.EvidenceInput{Name: fh.Filename, Content: make([]byte, store.MaxEvidenceBytes+1)})
				continue
			}
			f, err := fh.Open()
			if err != nil {
				return in, reply.InvalidRequest(http.StatusBadRequest, "body_invalid", "An evidence file could not be read.")
			}
			content, err := io.ReadAll(io.LimitReader(f, store.MaxEvidenceBytes+1))
			_ = f.Close()
			if err != nil {
				return in, reply.InvalidRequest(http.StatusBadRequest, "body_invalid", "An evidence file could not be read.")
			}
			in.Files = append(in.Files, operations.EvidenceInput{Name: fh.Filename, Content: content})
		}
	}
	return in, nil
}
