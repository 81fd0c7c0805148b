package api

import (
	"sort"
	"strings"
	"unicode/utf8"

	"payments/handlers/reply"
	"payments/handlers/request"
	"payments/store"
)

// parseMetadata reads the metadata field of a payment or a withdrawal by
// the rules of store/metadata.go.
func parseMetadata(o request.Object) (map[string]string, *reply.Error) {
	m, apiErr := o.Object("metadata")
	if apiErr != nil {
		return nil, apiErr
	}
	keys := m.Fields()
	if len(keys) > store.MaxMetadataKeys {
		return nil, reply.InvalidParam("parameter_invalid", "metadata", "metadata can have at most %d keys.", store.MaxMetadataKeys)
	}
	sort.Strings(keys) // report the same key first on every run
	out := make(map[string]string, len(keys))
	for _, k := range keys {
		param := "metadata[" + k + "]"
		if k == "" || utf8.RuneCountInString(k) > store.MaxMetadataKey || strings.ContainsRune(k, 0) {
			return nil, reply.InvalidParam("parameter_invalid", param, "metadata keys must be 1 to %d characters.", store.MaxMetadataKey)
		}
		v, apiErr := m.Field(k, param).Str(param, store.MaxMetadataValue)
		if apiErr != nil {
			return nil, apiErr
		}
		out[k] = v
	}
	return out, nil
}
