package throttle

import (
	"strings"
	"testing"
)

// feedAll feeds s whole, byte by byte and in chunks of 7, and checks that
// every way counts the same.
func feedAll(t *testing.T, mk func() counter, s string) int64 {
	t.Helper()
	whole := mk()
	whole.feed([]byte(s))
	bytewise := mk()
	for i := range len(s) {
		bytewise.feed([]byte{s[i]})
	}
	chunked := mk()
	for i := 0; i < len(s); i += 7 {
		chunked.feed([]byte(s[i:min(i+7, len(s))]))
	}
	if whole.count() != bytewise.count() || whole.count() != chunked.count() {
		t.Errorf("%q: whole %d, bytewise %d, chunked %d", s, whole.count(), bytewise.count(), chunked.count())
	}
	return whole.count()
}

func TestValueCounter(t *testing.T) {
	mk := func() counter { return &valueCounter{} }
	for _, tc := range []struct {
		body string
		want int64
	}{
		{`{"odata.metadata":"x","value":[]}`, 0},
		{`{"value":[{"PartitionKey":"a","RowKey":"1"}]}`, 1},
		{`{"odata.metadata":"https://h/$metadata#t","value":[{"PartitionKey":"a","RowKey":"1"},{"PartitionKey":"a","RowKey":"2"},{"PartitionKey":"a","RowKey":"3"}]}`, 3},
		// Commas, brackets and quotes inside strings, nested arrays and
		// objects, a nested member named "value", whitespace.
		{"{ \"value\" : [ {\"s\":\"a,b],[{\\\"\",\"value\":[1,2,3],\"o\":{\"x\":[{},{}]}} ,\n {\"k\":\"\\\\\"} ] , \"n\":\"v\" }", 2},
		// The member after "value" does not count; "value" as a string
		// value (not a member name) does not start counting.
		{`{"a":"value","b":[1,2],"value":[1,2,3,4],"c":[5,6]}`, 4},
		{`{"valueX":[1,2],"value":[true,false,null]}`, 3},
		{`{"odata.error":{"code":"ResourceNotFound"}}`, 0},
		{`[1,2,3]`, 0},
	} {
		if got := feedAll(t, mk, tc.body); got != tc.want {
			t.Errorf("%s: counted %d, want %d", tc.body, got, tc.want)
		}
	}
}

func TestSubstrCounter(t *testing.T) {
	mk := func() counter { return newSubstrCounter("<QueueMessage>") }
	msg := "<QueueMessage><MessageId>id</MessageId><MessageText>PFF1ZXVlTWVzc2FnZT4=</MessageText></QueueMessage>"
	for _, tc := range []struct {
		body string
		want int64
	}{
		{`<?xml version="1.0" encoding="utf-8"?><QueueMessagesList />`, 0},
		{`<?xml version="1.0" encoding="utf-8"?><QueueMessagesList>` + msg + `</QueueMessagesList>`, 1},
		{`<?xml version="1.0" encoding="utf-8"?><QueueMessagesList>` + strings.Repeat(msg, 32) + `</QueueMessagesList>`, 32},
		{`<QueueMessage><QueueMessage>`, 2},
	} {
		if got := feedAll(t, mk, tc.body); got != tc.want {
			t.Errorf("%s: counted %d, want %d", tc.body, got, tc.want)
		}
	}
}
