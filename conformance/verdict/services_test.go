package verdict

import "testing"

func intp(n int) *int       { return &n }
func int64p(n int64) *int64 { return &n }

func TestConformJudgeServices(t *testing.T) {
	msg := &ConformMessage{ID: "m1", PopReceipt: "p2", Text: "hello", DequeueCount: int64p(2), NextVisibleIn: intp(31)}
	two := ServiceObservation{Messages: intp(2), Message: msg}
	tests := []struct {
		name     string
		e        ServiceExpect
		o        ServiceObservation
		status   int
		pass     bool
		errored  bool
		expected string
		actual   string
	}{
		{"messages ok", ServiceExpect{Messages: intp(2)}, two, 200, true, false, "200, 2 messages", "200, 2 messages"},
		{"messages bad", ServiceExpect{Messages: intp(1)}, two, 200, false, false, "200, 1 message", "200, 2 messages"},
		{"no message list", ServiceExpect{Messages: intp(0)}, ServiceObservation{}, 200, false, false, "200, 0 messages", "200, no message list"},
		{"dequeue count ok", ServiceExpect{DequeueCount: intp(2)}, two, 200, true, false, "200, dequeue count 2", "200, dequeue count 2"},
		{"dequeue count bad", ServiceExpect{DequeueCount: intp(1)}, two, 200, false, false, "200, dequeue count 1", "200, dequeue count 2"},
		{"dequeue count without a message", ServiceExpect{DequeueCount: intp(1)}, ServiceObservation{Messages: intp(0)}, 200, false, false, "200, dequeue count 1", "200, no dequeue count"},
		{"text ok", ServiceExpect{Text: strp("hello")}, two, 200, true, false, `200, text "hello"`, `200, text "hello"`},
		{"text bad", ServiceExpect{Text: strp("bye")}, two, 200, false, false, `200, text "bye"`, `200, text "hello"`},
		{"message id equals", ServiceExpect{MessageID: ETagEquals, MessageIDRef: "m1"}, two, 200, true, false, "200, message id equals ref", "200, message id equals ref"},
		{"message id differs", ServiceExpect{MessageID: ETagEquals, MessageIDRef: "m0"}, two, 200, false, false, "200, message id equals ref", "200, message id differs from ref"},
		{"no message id", ServiceExpect{MessageID: ETagEquals, MessageIDRef: "m1"}, ServiceObservation{Messages: intp(0)}, 200, false, false, "200, message id equals ref", "200, no message id"},
		{"pop receipt new", ServiceExpect{PopReceipt: ETagDiffers, PopReceiptRef: "p1"}, two, 200, true, false, "200, pop receipt differs from ref", "200, pop receipt differs from ref"},
		{"pop receipt reused", ServiceExpect{PopReceipt: ETagDiffers, PopReceiptRef: "p2"}, two, 200, false, false, "200, pop receipt differs from ref", "200, pop receipt equals ref"},
		{"unknown pop receipt kind", ServiceExpect{PopReceipt: "sideways"}, two, 200, false, true, "200, pop receipt sideways", "200, pop receipt ?"},
		{"visible within a second", ServiceExpect{NextVisibleIn: intp(30)}, two, 200, true, false, "200, next visible in 30s", "200, next visible in 31s"},
		{"visible too late", ServiceExpect{NextVisibleIn: intp(2)}, two, 200, false, false, "200, next visible in 2s", "200, next visible in 31s"},
		{"properties ok", ServiceExpect{Properties: map[string]string{"a": "1", "b": "2"}}, ServiceObservation{Properties: map[string]string{"b": "2", "a": "1"}}, 200, true, false,
			`200, properties {a="1", b="2"}`, `200, properties {a="1", b="2"}`},
		{"property kept that replace drops", ServiceExpect{Properties: map[string]string{"d": "3"}}, ServiceObservation{Properties: map[string]string{"a": "1", "d": "3"}}, 200, false, false,
			`200, properties {d="3"}`, `200, properties {a="1", d="3"}`},
		{"no entity", ServiceExpect{Properties: map[string]string{}}, ServiceObservation{}, 404, false, false, "404, properties {}", "404, no entity"},
		{"entities ok", ServiceExpect{Entities: intp(100)}, ServiceObservation{Entities: intp(100)}, 200, true, false, "200, 100 entities", "200, 100 entities"},
		{"entities bad", ServiceExpect{Entities: intp(0)}, ServiceObservation{Entities: intp(1)}, 200, false, false, "200, 0 entities", "200, 1 entity"},
		{"failed index ok", ServiceExpect{FailedIndex: intp(1)}, ServiceObservation{BatchStatus: 202, FailedIndex: intp(1)}, 409, true, false, "409, failed op 1", "409 in 202 batch, failed op 1"},
		{"failed index missing", ServiceExpect{FailedIndex: intp(1)}, ServiceObservation{BatchStatus: 202}, 409, false, false, "409, failed op 1", "409 in 202 batch, no failed operation index"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v := JudgeStep(1, "queue.get", StepExpect{Status: []int{tc.status}, ServiceExpect: tc.e}, StepObservation{Status: tc.status, ServiceObservation: tc.o})
			if v.Pass != tc.pass || v.Errored != tc.errored {
				t.Errorf("pass %v errored %v, want %v %v (reason %q)", v.Pass, v.Errored, tc.pass, tc.errored, v.Reason)
			}
			if v.Expected != tc.expected || v.Actual != tc.actual {
				t.Errorf("expected %q actual %q, want %q %q", v.Expected, v.Actual, tc.expected, tc.actual)
			}
			if !tc.errored && (v.Reason == "") != v.Pass {
				t.Errorf("reason %q with pass %v", v.Reason, v.Pass)
			}
		})
	}
}

// A failed operation inside a processed transaction is judged on its own
// status and code, and the Actual keeps the transaction's 202.
func TestConformJudgeBatchFailure(t *testing.T) {
	o := StepObservation{Status: 409, ErrorCode: "EntityAlreadyExists", ServiceObservation: ServiceObservation{BatchStatus: 202, FailedIndex: intp(1)}}
	v := JudgeStep(2, "table.batch", StepExpect{Status: []int{400, 409}, ErrorCode: []string{"EntityAlreadyExists"}}, o)
	if !v.Pass || v.Actual != "409 EntityAlreadyExists in 202 batch" {
		t.Errorf("got %+v", v)
	}
	v = JudgeStep(2, "table.batch", StepExpect{Status: []int{202}}, o)
	if v.Pass || v.Reason != "status 409 not in 202" {
		t.Errorf("a transaction whose operation failed must not pass as a success: %+v", v)
	}
}
