package request_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"payments/handlers/request"
)

// A body is read as one JSON object, in one pass, and refused as
// encoding/json refused it: bad JSON names its byte (where the reader
// found it wrong), anything but an object is not a body, and a member
// given twice counts by its last value. An escaped lone surrogate, which
// encoding/json turned into U+FFFD, is refused as the bad UTF-8 it
// stands for.
func TestABodyIsOneJSONObject(t *testing.T) {
	t.Parallel()
	deep := `{"a":` + strings.Repeat("[", 20_000) + strings.Repeat("]", 20_000) + `}`
	for _, c := range []struct{ body, message string }{
		{`{"a": 1} x`, "The request body is not valid JSON (error at byte 9)."},
		{`{"a": 1}{}`, "The request body is not valid JSON (error at byte 8)."},
		{"{\"a\": 1}\f", "The request body is not valid JSON (error at byte 8)."},
		{`{"a": 1,}`, "The request body is not valid JSON (error at byte 7)."},
		{`{"a": }`, "The request body is not valid JSON (error at byte 6)."},
		{`{"a": 1`, "The request body is not valid JSON (error at byte 7)."},
		{`{"a": "\ud800"}`, "The request body is not valid JSON (error at byte 7)."},
		{`[1] x`, "The request body is not valid JSON (error at byte 4)."},
		{`[{"a": 1}]`, "The request body must be a JSON object."},
		{`null`, "The request body must be a JSON object."},
		{`"{}"`, "The request body must be a JSON object."},
		{" \n\t ", "The request body must be a JSON object."},
		{"{\"a\": \"\xff\"}", "The request body is not valid UTF-8."},
		{deep, "The request body is not valid JSON (error at byte 10004)."},
	} {
		_, apiErr := request.DecodeObject([]byte(c.body))
		require.NotNil(t, apiErr, "%.40q", c.body)
		require.Equal(t, []string{"invalid_json", "", c.message}, []string{apiErr.Code, apiErr.Param, apiErr.Message}, "%.40q", c.body)
	}

	o, apiErr := request.DecodeObject([]byte(" \r\n{\"amount_cents\": 1, \"amount\\u005fcents\": 2, \"s\": \"a\\\"b\\u00e9\\n\", \"t\": true, \"n\": null}\n "))
	require.Nil(t, apiErr)
	require.ElementsMatch(t, []string{"amount_cents", "s", "t", "n"}, o.Fields())
	require.Equal(t, "2", string(o.Raw("amount_cents")), "the last of a repeated member")
	s, apiErr := o.Str("s", 10)
	require.Nil(t, apiErr)
	require.Equal(t, "a\"bé\n", s)
	b, apiErr := o.Bool("t")
	require.Nil(t, apiErr)
	require.True(t, b)
	require.False(t, o.Present("n"))
	for name, want := range map[string]string{"t": "a string", "n": "a string"} {
		_, apiErr := o.Str(name, 10)
		require.Equal(t, "Invalid type for "+name+": expected "+want+".", apiErr.Message)
	}
	_, apiErr = o.Bool("s")
	require.Equal(t, "parameter_invalid_type", apiErr.Code)
}

// A body's members outlive its buffer: the server reuses that once the
// handler returns, and a member read later must still be what was sent.
func TestMembersOutliveTheBodysBuffer(t *testing.T) {
	t.Parallel()
	body := []byte(`{"description": "Camiseta", "customer": {"name": "Ana"}}`)
	o, apiErr := request.DecodeObject(body)
	require.Nil(t, apiErr)
	for i := range body {
		body[i] = 'x'
	}
	d, apiErr := o.Str("description", 100)
	require.Nil(t, apiErr)
	require.Equal(t, "Camiseta", d)
	customer, apiErr := o.Object("customer")
	require.Nil(t, apiErr)
	name, apiErr := customer.Str("name", 100)
	require.Nil(t, apiErr)
	require.Equal(t, "Ana", name)
}

// Nested objects and arrays of objects name what is wrong with them.
func TestNestedObjectsAndArrays(t *testing.T) {
	t.Parallel()
	o, apiErr := request.DecodeObject([]byte(`{"splits": [{"account": "acct_1", "percent": 10}, {"account": "acct_2", "account": "acct_3"}],
		"empty": [], "mixed": [{}, 2], "nulls": [null], "obj": {"x": {"y": 1}}, "num": 1, "arr": [1]}`))
	require.Nil(t, apiErr)
	splits, apiErr := o.Array("splits")
	require.Nil(t, apiErr)
	require.Len(t, splits, 2)
	require.Equal(t, "splits[1].account", splits[1].Param("account"))
	account, _ := splits[1].Str("account", 64)
	require.Equal(t, "acct_3", account)
	require.Equal(t, "10", string(splits[0].Raw("percent")))
	empty, apiErr := o.Array("empty")
	require.Nil(t, apiErr)
	require.Empty(t, empty)
	for name, want := range map[string][2]string{
		"mixed": {"mixed[1]", "Invalid type for mixed[1]: expected an object."},
		"nulls": {"nulls[0]", "Invalid type for nulls[0]: expected an object."},
		"obj":   {"obj", "Invalid type for obj: expected an array."},
		"num":   {"num", "Invalid type for num: expected an array."},
		"arr":   {"arr[0]", "Invalid type for arr[0]: expected an object."},
		"none":  {"none", "Invalid type for none: expected an array."},
	} {
		_, apiErr := o.Array(name)
		require.NotNil(t, apiErr, name)
		require.Equal(t, []string{"parameter_invalid_type", want[0], want[1]}, []string{apiErr.Code, apiErr.Param, apiErr.Message}, name)
	}
	nested, apiErr := o.Object("obj")
	require.Nil(t, apiErr)
	x, apiErr := nested.Object("x")
	require.Nil(t, apiErr)
	require.Equal(t, "obj.x.y", x.Param("y"))
	require.Equal(t, "1", string(x.Raw("y")))
	for _, name := range []string{"splits", "num", "none"} {
		_, apiErr := o.Object(name)
		require.Equal(t, "Invalid type for "+name+": expected an object.", apiErr.Message)
	}
}
