package verdict

import (
	"maps"
	"slices"
	"strconv"
	"strings"
)

// The table and queue parts of a conformance step's expectation and
// observation: messages returned, their dequeue counts, ids and pop
// receipts, an entity's properties, how many entities a query returned,
// and which operation of an entity group transaction failed.

// ServiceExpect is what a table or queue step's response must carry. Nil
// and empty fields constrain nothing.
type ServiceExpect struct {
	// Messages is how many messages Get or Peek Messages returns.
	Messages *int `json:"messages,omitempty"`
	// DequeueCount is the first message's dequeue count.
	DequeueCount *int `json:"dequeue_count,omitempty"`
	// Text is the first message's text.
	Text *string `json:"text,omitempty"`
	// MessageID is ETagEquals or ETagDiffers: the first message's id
	// compared with MessageIDRef.
	MessageID    string `json:"message_id,omitempty"`
	MessageIDRef string `json:"message_id_ref,omitempty"`
	// PopReceipt is ETagEquals or ETagDiffers: the first message's (or the
	// update's) pop receipt compared with PopReceiptRef.
	PopReceipt    string `json:"pop_receipt,omitempty"`
	PopReceiptRef string `json:"pop_receipt_ref,omitempty"`
	// NextVisibleIn is the seconds from the response's Date to the
	// message's time-next-visible, give or take one (both are to the
	// second).
	NextVisibleIn *int `json:"next_visible_in,omitempty"`
	// Properties are exactly the entity's string properties besides the
	// system ones; nil means not checked.
	Properties map[string]string `json:"properties,omitempty"`
	// Entities is how many entities a query returned.
	Entities *int `json:"entities,omitempty"`
	// FailedIndex is the index (from 0) of the failed operation of an
	// entity group transaction, as its error message begins.
	FailedIndex *int `json:"failed_index,omitempty"`
	// Parts are the statuses of a raw batch's response parts, in order;
	// nil means not checked.
	Parts []int `json:"parts,omitempty"`
}

// ServiceObservation is what a table or queue response carried.
type ServiceObservation struct {
	// BatchStatus is the status of an entity group transaction's own
	// response (202 Accepted) when one of its operations failed; Status
	// and ErrorCode are then the failed operation's, from the multipart
	// body. 0 otherwise.
	BatchStatus int `json:"batch_status,omitempty"`
	// FailedIndex is the index the failed operation's message begins
	// with; nil when there is none.
	FailedIndex *int `json:"failed_index,omitempty"`
	// Messages is how many messages the response listed; nil when it
	// listed none (an error, or an op that lists no messages).
	Messages *int `json:"messages,omitempty"`
	// Message is the first message listed, or the message an update
	// changed; nil when there is none.
	Message *ConformMessage `json:"message,omitempty"`
	// Properties are the entity's string properties besides the system
	// ones; nil when no entity was read.
	Properties map[string]string `json:"properties,omitempty"`
	// Entities is how many entities a query returned; nil when it did not
	// answer with entities.
	Entities *int `json:"entities,omitempty"`
	// Parts are the statuses of a raw batch's response parts, in order;
	// nil when the response was not a multipart batch response.
	Parts []int `json:"parts,omitempty"`
}

// ConformMessage is a queue message as a conformance step saw it.
type ConformMessage struct {
	ID         string `json:"id,omitempty"`
	PopReceipt string `json:"pop_receipt,omitempty"`
	Text       string `json:"text,omitempty"`
	// DequeueCount is nil when the response has none (Put, Update).
	DequeueCount *int64 `json:"dequeue_count,omitempty"`
	// NextVisibleIn is the time-next-visible minus the response's Date in
	// whole seconds; nil when either is missing.
	NextVisibleIn *int `json:"next_visible_in,omitempty"`
}

// judgeServices judges the service expectations: Actual's parts, failure
// reasons, and whether every expectation kind is known.
func judgeServices(e ServiceExpect, o ServiceObservation) (actual, reasons []string, known bool) {
	known = true
	m := o.Message
	if e.Messages != nil {
		if o.Messages == nil {
			actual = append(actual, "no message list")
			reasons = append(reasons, "no message list returned, expected "+count(*e.Messages, "message"))
		} else {
			actual = append(actual, count(*o.Messages, "message"))
			if *o.Messages != *e.Messages {
				reasons = append(reasons, count(*o.Messages, "message")+" returned, expected "+strconv.Itoa(*e.Messages))
			}
		}
	}
	if e.DequeueCount != nil {
		switch {
		case m == nil || m.DequeueCount == nil:
			actual = append(actual, "no dequeue count")
			reasons = append(reasons, "no message with a dequeue count returned")
		default:
			actual = append(actual, "dequeue count "+strconv.FormatInt(*m.DequeueCount, 10))
			if *m.DequeueCount != int64(*e.DequeueCount) {
				reasons = append(reasons, "dequeue count "+strconv.FormatInt(*m.DequeueCount, 10)+", expected "+strconv.Itoa(*e.DequeueCount))
			}
		}
	}
	if e.Text != nil {
		if m == nil {
			actual = append(actual, "no message")
			reasons = append(reasons, "no message returned, expected text "+quoteBody(*e.Text))
		} else {
			actual = append(actual, "text "+quoteBody(m.Text))
			if m.Text != *e.Text {
				reasons = append(reasons, "text differs")
			}
		}
	}
	ref := func(kind, want, what string, got func(*ConformMessage) string) {
		if kind == "" {
			return
		}
		v := ""
		if m != nil {
			v = got(m)
		}
		form, reason, ok := judgeRef(kind, want, v, what)
		known = known && ok
		actual = append(actual, form)
		if reason != "" {
			reasons = append(reasons, reason)
		}
	}
	ref(e.MessageID, e.MessageIDRef, "message id", func(m *ConformMessage) string { return m.ID })
	ref(e.PopReceipt, e.PopReceiptRef, "pop receipt", func(m *ConformMessage) string { return m.PopReceipt })
	if e.NextVisibleIn != nil {
		if m == nil || m.NextVisibleIn == nil {
			actual = append(actual, "no time-next-visible")
			reasons = append(reasons, "no time-next-visible returned")
		} else {
			actual = append(actual, "next visible in "+strconv.Itoa(*m.NextVisibleIn)+"s")
			if d := *m.NextVisibleIn - *e.NextVisibleIn; d < -1 || d > 1 {
				reasons = append(reasons, "visible in "+strconv.Itoa(*m.NextVisibleIn)+"s, expected "+strconv.Itoa(*e.NextVisibleIn)+"s (±1s)")
			}
		}
	}
	if e.Properties != nil {
		if o.Properties == nil {
			actual = append(actual, "no entity")
			reasons = append(reasons, "no entity returned")
		} else {
			actual = append(actual, "properties "+propsForm(o.Properties))
			if !maps.Equal(o.Properties, e.Properties) {
				reasons = append(reasons, "properties differ")
			}
		}
	}
	if e.Entities != nil {
		if o.Entities == nil {
			actual = append(actual, "no entities")
			reasons = append(reasons, "no entity list returned, expected "+count(*e.Entities, "entity"))
		} else {
			actual = append(actual, count(*o.Entities, "entity"))
			if *o.Entities != *e.Entities {
				reasons = append(reasons, count(*o.Entities, "entity")+" returned, expected "+strconv.Itoa(*e.Entities))
			}
		}
	}
	if e.FailedIndex != nil {
		if o.FailedIndex == nil {
			actual = append(actual, "no failed operation index")
			reasons = append(reasons, "the error names no failed operation index, expected "+strconv.Itoa(*e.FailedIndex))
		} else {
			actual = append(actual, "failed op "+strconv.Itoa(*o.FailedIndex))
			if *o.FailedIndex != *e.FailedIndex {
				reasons = append(reasons, "failed operation "+strconv.Itoa(*o.FailedIndex)+", expected "+strconv.Itoa(*e.FailedIndex))
			}
		}
	}
	if e.Parts != nil {
		if o.Parts == nil {
			actual = append(actual, "no batch parts")
			reasons = append(reasons, "the response is not a batch response, expected parts "+partsForm(e.Parts))
		} else {
			actual = append(actual, "parts "+partsForm(o.Parts))
			if !slices.Equal(o.Parts, e.Parts) {
				reasons = append(reasons, "parts "+partsForm(o.Parts)+", expected "+partsForm(e.Parts))
			}
		}
	}
	return actual, reasons, known
}

// judgeRef compares a returned value (v, "" when none) with a captured
// one; what names it in the forms.
func judgeRef(kind, want, v, what string) (form, reason string, known bool) {
	switch kind {
	case ETagEquals:
		switch {
		case v == "":
			return "no " + what, "no " + what + " returned, expected the reference", true
		case v != want:
			return what + " differs from ref", what + " differs from the reference", true
		}
		return what + " equals ref", "", true
	case ETagDiffers:
		switch {
		case v == "":
			return "no " + what, "no " + what + " returned, expected one differing from the reference", true
		case v == want:
			return what + " equals ref", what + " equals the reference, expected it to differ", true
		}
		return what + " differs from ref", "", true
	}
	return what + " ?", "unknown " + what + " expectation " + strconv.Quote(kind), false
}

// serviceExpectedForm is the one-line form of the service expectations.
func serviceExpectedForm(e ServiceExpect) []string {
	var parts []string
	if e.Messages != nil {
		parts = append(parts, count(*e.Messages, "message"))
	}
	if e.DequeueCount != nil {
		parts = append(parts, "dequeue count "+strconv.Itoa(*e.DequeueCount))
	}
	if e.Text != nil {
		parts = append(parts, "text "+quoteBody(*e.Text))
	}
	refForm := func(kind, what string) {
		switch kind {
		case "":
		case ETagEquals:
			parts = append(parts, what+" equals ref")
		case ETagDiffers:
			parts = append(parts, what+" differs from ref")
		default:
			parts = append(parts, what+" "+kind)
		}
	}
	refForm(e.MessageID, "message id")
	refForm(e.PopReceipt, "pop receipt")
	if e.NextVisibleIn != nil {
		parts = append(parts, "next visible in "+strconv.Itoa(*e.NextVisibleIn)+"s")
	}
	if e.Properties != nil {
		parts = append(parts, "properties "+propsForm(e.Properties))
	}
	if e.Entities != nil {
		parts = append(parts, count(*e.Entities, "entity"))
	}
	if e.FailedIndex != nil {
		parts = append(parts, "failed op "+strconv.Itoa(*e.FailedIndex))
	}
	if e.Parts != nil {
		parts = append(parts, "parts "+partsForm(e.Parts))
	}
	return parts
}

// partsForm is [201 204], or [] for a response without parts; a long run
// of one status is written once with its count ([400 x101]); a part that
// is not an HTTP response (status 0) is "unparsed".
func partsForm(p []int) string {
	var out []string
	for i := 0; i < len(p); {
		j := i
		for j < len(p) && p[j] == p[i] {
			j++
		}
		st := strconv.Itoa(p[i])
		if p[i] == 0 {
			st = "unparsed"
		}
		if j-i > 3 {
			out = append(out, st+" x"+strconv.Itoa(j-i))
		} else {
			for k := i; k < j; k++ {
				out = append(out, st)
			}
		}
		i = j
	}
	return "[" + strings.Join(out, " ") + "]"
}

// propsForm is {a=x, b=y}, sorted, values shortened like bodies.
func propsForm(p map[string]string) string {
	keys := slices.Sorted(maps.Keys(p))
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + quoteBody(p[k])
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// count is "1 message", "3 messages", "1 entity", "0 entities".
func count(n int, what string) string {
	many := what + "s"
	if what == "entity" {
		many = "entities"
	}
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + many
}
