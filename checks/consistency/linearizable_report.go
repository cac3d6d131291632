package consistency

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/stormcheck/stormcheck/checks"
)

// How a violation of linearizability is shown.
const (
	// linMaxExcerpt bounds the operations a violation carries.
	linMaxExcerpt = 8
	// linPictureOps: a key with at most this many operations is pictured
	// whole; a larger one through a window around the failure.
	linPictureOps = 400
	// linWindowTries and linWindowTimeout bound the search for a window.
	linWindowTries   = 5
	linWindowTimeout = time.Second
)

// linArtifact names the picture of a key's violation.
func linArtifact(key string) string {
	b := []byte(key)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			b[i] = '_'
		}
	}
	return "linearizable-" + string(b) + ".html"
}

// linStuck is where porcupine's search got stuck: the longest order of
// operations it could justify, and the first operation it could not add.
type linStuck struct {
	longest []*linOp
	state   linState // after longest
	writer  *linOp   // the last operation in longest that changed the state
	stuck   *linOp   // the unplaced operation that returned first
}

func (h *linHist) stuckAt(ops []*linOp, init linState, info porcupine.LinearizationInfo) (linStuck, bool) {
	var s linStuck
	parts := info.PartialLinearizations()
	if len(parts) == 0 {
		return s, false
	}
	var best []int
	for _, p := range parts[0] {
		if len(p) > len(best) {
			best = p
		}
	}
	placed := make([]bool, len(ops))
	s.state = init
	total := linTotal(init, ops)
	for _, id := range best {
		o := ops[id]
		placed[id] = true
		s.longest = append(s.longest, o)
		prev := s.state
		_, s.state = h.step(s.state, o, total)
		if s.state.val != prev.val || s.state.exists != prev.exists || (o.kind == lWrite || o.kind == lMeta) && s.state != prev {
			s.writer = o
		}
	}
	for i, o := range ops {
		if !placed[i] && (s.stuck == nil || o.ret < s.stuck.ret || o.ret == s.stuck.ret && o.call < s.stuck.call) {
			s.stuck = o
		}
	}
	return s, s.stuck != nil
}

// violation builds the violation of a key porcupine found not
// linearizable, its picture's name and the picture (nil if none). ops are
// the operations porcupine checked (all of the key's, or its writes alone);
// what names them in the message.
func (h *linHist) violation(model porcupine.Model, info porcupine.LinearizationInfo, ops []*linOp, what string) (*checks.Violation, string, []byte) {
	name := linArtifact(h.key)
	st, ok := h.stuckAt(ops, h.init, info)
	if !ok {
		// No partial linearization kept (the verbose search ran out of
		// time before its first backtrack): show the key's first ops.
		var first []checks.Op
		for _, o := range ops[:min(len(ops), linMaxExcerpt)] {
			first = append(first, *o.op)
		}
		return &checks.Violation{Key: h.key, Ops: first,
			Message: fmt.Sprintf("not linearizable: no order of %s on %s is a legal history of one blob (no picture: porcupine's search kept no partial order)", what, h.key)}, "", nil
	}

	var msg strings.Builder
	fmt.Fprintf(&msg, "not linearizable: no order of %s on %s explains %s; the longest legal order places %d of them and ends in %s",
		what, h.key, h.describeOp(st.stuck), len(st.longest), h.describeState(st.state))
	if st.writer != nil {
		fmt.Fprintf(&msg, " (written by #%d)", st.writer.op.Seq)
	}
	if hint := h.hint(st, ops); hint != "" {
		msg.WriteString("; " + hint)
	}

	html, where := h.picture(model, info, st, ops)
	if html != nil {
		fmt.Fprintf(&msg, "; see %s%s", name, where)
	} else {
		fmt.Fprintf(&msg, " (no picture: %s)", where)
		name = ""
	}
	return &checks.Violation{Key: h.key, Message: msg.String(), Ops: h.excerpt(st, ops)}, name, html
}

// hint names the usual culprits when the stuck operation shows one.
func (h *linHist) hint(st linStuck, ops []*linOp) string {
	o := st.stuck
	applied := func(p *linOp) bool { return p.kind >= lWrite && (p.res == lOK || p.res == lApplied) }
	switch {
	case o.kind == lWrite && o.res == lOK && o.ifMatch >= 0:
		for _, p := range ops {
			if p != o && applied(p) && p.ifMatch == o.ifMatch {
				return fmt.Sprintf("#%d and #%d both applied with If-Match %s: a lost update", p.op.Seq, o.op.Seq, h.etag(o.ifMatch))
			}
		}
	case o.kind == lWrite && o.res == lRefused:
		return fmt.Sprintf("the %d refused a condition that held wherever the request can be placed", o.op.Out.Status)
	case o.kind == lRead || o.kind == lRead304:
		// Stale for certain: a write sent after the read version's writer
		// returned, and done before the read was sent.
		var w *linOp
		if o.etag >= 0 && h.ackBy[o.etag] >= 0 {
			for _, p := range ops {
				if p.res == lOK && p.kind >= lWrite && p.etag == o.etag {
					w = p
				}
			}
		} else if o.kind == lRead {
			for _, p := range ops {
				if p.kind == lWrite && applied(p) && p.val == o.val {
					w = p
				}
			}
		}
		if w == nil {
			return ""
		}
		for _, p := range ops {
			if applied(p) && p.call > w.ret && p.ret < o.call {
				return fmt.Sprintf("a stale read: #%d replaced the version #%d wrote and had completed before #%d was sent", p.op.Seq, w.op.Seq, o.op.Seq)
			}
		}
	}
	return ""
}

// excerpt picks at most linMaxExcerpt operations: the stuck one, the
// writer of the state the search ended in, the last operations placed, and
// the unplaced ones that overlap the stuck one.
func (h *linHist) excerpt(st linStuck, ops []*linOp) []checks.Op {
	pick := []*linOp{st.stuck, st.writer}
	for i := len(st.longest) - 1; i >= 0 && i >= len(st.longest)-3; i-- {
		pick = append(pick, st.longest[i])
	}
	placed := make(map[*linOp]bool, len(st.longest))
	for _, o := range st.longest {
		placed[o] = true
	}
	var overlap []*linOp
	for _, o := range ops {
		if !placed[o] && o != st.stuck && o.call <= st.stuck.ret && o.ret >= st.stuck.call {
			overlap = append(overlap, o)
		}
	}
	sort.Slice(overlap, func(i, j int) bool { return overlap[i].ret < overlap[j].ret })
	pick = append(pick, overlap...)
	var out []checks.Op
	seen := map[uint64]bool{}
	for _, o := range pick {
		if o == nil || seen[o.op.Seq] || len(out) == linMaxExcerpt {
			continue
		}
		seen[o.op.Seq] = true
		out = append(out, *o.op)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Seq < out[j].Seq })
	return out
}

// picture renders porcupine's HTML picture: of the whole key when it is
// small, else of a window that still shows the violation. where says which.
func (h *linHist) picture(model porcupine.Model, info porcupine.LinearizationInfo, st linStuck, ops []*linOp) ([]byte, string) {
	if len(ops) <= linPictureOps {
		var b bytes.Buffer
		if err := porcupine.Visualize(model, info, &b); err != nil {
			return nil, "porcupine could not draw it: " + err.Error()
		}
		return b.Bytes(), ""
	}
	// A window: a prefix of the longest legal order is settled (it holds
	// every operation that returned before any of its members was called,
	// by how porcupine searches), and the rest, from the state it ends in,
	// is cut a while after the stuck operation as linHist.prefix cuts. The
	// window may then be linearizable: it is checked again, and widened
	// until it is not.
	back, ahead := 20, 40
	total := linTotal(h.init, ops)
	for range linWindowTries {
		cut := max(0, len(st.longest)-back)
		init := h.init
		settled := make(map[*linOp]bool, cut)
		for _, o := range st.longest[:cut] {
			_, init = h.step(init, o, total)
			settled[o] = true
		}
		var rest []*linOp
		for _, o := range ops {
			if !settled[o] {
				rest = append(rest, o)
			}
		}
		sort.Slice(rest, func(i, j int) bool { return rest[i].call < rest[j].call })
		until := 0
		for until < len(rest) && rest[until].call <= st.stuck.ret {
			until++
		}
		t := rest[min(len(rest), until+ahead)-1].call
		if st.stuck.ret != linInf {
			t = max(t, st.stuck.ret)
		}
		window := linCut(rest, t)
		if len(window) > 0 && len(window) <= 4*linPictureOps {
			wm := h.model(init, window)
			res, winfo := porcupine.CheckOperationsVerbose(wm, h.operations(window, true), linWindowTimeout)
			if res == porcupine.Illegal {
				var b bytes.Buffer
				if err := porcupine.Visualize(wm, winfo, &b); err != nil {
					return nil, "porcupine could not draw it: " + err.Error()
				}
				return b.Bytes(), fmt.Sprintf(" (a window of %d operations from #%d, starting in %s)",
					len(window), minSeq(window), h.describeState(init))
			}
		}
		if cut == 0 && until+ahead >= len(rest) {
			break
		}
		back, ahead = 2*back, 2*ahead
	}
	return nil, fmt.Sprintf("no window of at most %d operations shows the violation on its own", 4*linPictureOps)
}

func minSeq(ops []*linOp) uint64 {
	m := ops[0].op.Seq
	for _, o := range ops[1:] {
		m = min(m, o.op.Seq)
	}
	return m
}
