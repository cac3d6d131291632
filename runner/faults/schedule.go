package faults

import (
	"math/rand/v2"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/stormcheck/stormcheck/scenarios"
)

// Schedule holds a scenario's faults and when the load started: a fault
// acts only while the load runs and its window is open.
type Schedule struct {
	faults []scenarios.Fault
	stages []Stage // per fault; nil for a fault with no HTTP stage
	now    func() time.Time

	begun atomic.Int64 // unix nanoseconds of the load's start; 0 before
	ended atomic.Bool
	// lifted is closed by End: stages holding requests let them go.
	lifted   chan struct{}
	liftOnce sync.Once
	held     atomic.Int64

	// account and key sign requests a broken promise changes (SetAccount).
	account, key string

	// OnTouch, if set before Begin, receives every touch as it happens
	// (the runner writes it to the history).
	OnTouch func(Touch)

	mu      sync.Mutex
	rnd     *rand.Rand
	touches []Touch // the first maxKept
	counts  map[string]int64
	// unanswered holds, by attempt id (AttemptHeader), what a fault did to
	// a request whose client got no answer to carry Header; the runner
	// takes it when it records the attempt.
	unanswered map[string]string
}

// AttemptHeader carries the harness's id of one attempt, so that a fault
// that leaves the client without an answer can still be named in that
// attempt's record. It is not an x-ms-* header: the Shared Key signature
// does not cover it.
const AttemptHeader = "X-Stormcheck-Attempt"

// maxKept bounds the touches kept in memory; counts go on.
const maxKept = 10_000

// Touch is one request a fault touched.
type Touch struct {
	// At is when, since the load started.
	At time.Duration
	// Fault names the fault; Kind is its kind; Action says what was done
	// ("answered 503 ServerBusy", "response dropped after forwarding", ...).
	Fault, Kind, Action string
	// Request is the request as the proxy classified it; ClientRequestID
	// is its x-ms-client-request-id (the SDK sets one on every attempt).
	Request         Request
	Method, Path    string
	ClientRequestID string
	// Attempt is the harness's attempt id (AttemptHeader), if sent.
	Attempt string
}

// Unanswered returns (and forgets) what a fault did to attempt id when the
// client got no answer from it: "NAME (KIND): ACTION", or "".
func (s *Schedule) Unanswered(id string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	v := s.unanswered[id]
	delete(s.unanswered, id)
	return v
}

// NewSchedule returns the schedule of fs; seed drives which requests a
// fraction picks. now is the clock (nil: time.Now).
func NewSchedule(fs []scenarios.Fault, seed int64, now func() time.Time) *Schedule {
	if now == nil {
		now = time.Now
	}
	s := &Schedule{faults: fs, now: now, lifted: make(chan struct{}), rnd: rand.New(rand.NewPCG(uint64(seed), 0x5eed_fa17))}
	s.stages = make([]Stage, len(fs))
	for i, f := range fs {
		s.stages[i] = stageFor(f)
	}
	return s
}

// Faults returns the scheduled faults.
func (s *Schedule) Faults() []scenarios.Fault { return s.faults }

// HasHTTP reports whether any fault needs the HTTP proxy stage.
func (s *Schedule) HasHTTP() bool {
	for _, st := range s.stages {
		if st != nil {
			return true
		}
	}
	return false
}

// SetAccount gives the stages that change a signed request (a broken
// promise) the account's name and key to sign it again. Call before Begin.
func (s *Schedule) SetAccount(account, key string) { s.account, s.key = account, key }

// HasNet reports whether any fault is a network fault (Toxiproxy).
func (s *Schedule) HasNet() bool {
	for _, f := range s.faults {
		if f.Family() == "net" {
			return true
		}
	}
	return false
}

// Begin marks the start of the load: windows count from t.
func (s *Schedule) Begin(t time.Time) { s.begun.Store(t.UnixNano()) }

// End lifts every fault: the load is over.
func (s *Schedule) End() {
	s.ended.Store(true)
	s.liftOnce.Do(func() { close(s.lifted) })
}

// Held returns how many requests a stage holds back right now.
func (s *Schedule) Held() int64 { return s.held.Load() }

// Elapsed returns the time since the load started and whether it runs.
func (s *Schedule) Elapsed() (time.Duration, bool) {
	b := s.begun.Load()
	if b == 0 || s.ended.Load() {
		return 0, false
	}
	return s.now().Sub(time.Unix(0, b)), true
}

// pick returns the index of the first fault with an HTTP stage whose
// window is open and whose scope takes req (its fraction drawn), or -1.
func (s *Schedule) pick(req Request) int {
	return s.pickIf(req, func(i int) bool { return s.stages[i] != nil })
}

// pickIf returns the index of the first fault that takes (per take) whose
// window is open and whose scope takes req (its fraction drawn), or -1.
func (s *Schedule) pickIf(req Request, take func(i int) bool) int {
	el, running := s.Elapsed()
	if !running {
		return -1
	}
	for i, f := range s.faults {
		if !take(i) || !f.Active(el) || !inScope(f, req) {
			continue
		}
		if f.Fraction < 1 {
			s.mu.Lock()
			x := s.rnd.Float64()
			s.mu.Unlock()
			if x >= f.Fraction {
				continue
			}
		}
		return i
	}
	return -1
}

// inScope reports whether f's services, ops and keys take req.
func inScope(f scenarios.Fault, req Request) bool {
	if len(f.Services) > 0 && !contains(f.Services, req.Service) {
		return false
	}
	if len(f.Ops) > 0 && !contains(f.Ops, req.Op) {
		return false
	}
	return len(f.Keys) == 0 || (req.Key != "" && f.MatchKey(req.Key))
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// note logs that fault i did action to r.
// unanswered says the client gets no answer to carry Header.
func (s *Schedule) note(i int, req Request, r *http.Request, action string, unanswered bool) {
	el, _ := s.Elapsed()
	s.keep(Touch{At: el, Fault: s.faults[i].Name, Kind: s.faults[i].Kind, Action: action, Request: req,
		Method: r.Method, Path: r.URL.Path, ClientRequestID: r.Header.Get("x-ms-client-request-id"), Attempt: r.Header.Get(AttemptHeader)}, unanswered)
}

// keep counts touch t, keeps it (the first maxKept) and hands it to
// OnTouch.
func (s *Schedule) keep(t Touch, unanswered bool) {
	s.mu.Lock()
	if unanswered && t.Attempt != "" && len(s.unanswered) < maxKept {
		if s.unanswered == nil {
			s.unanswered = map[string]string{}
		}
		s.unanswered[t.Attempt] = t.Fault + " (" + t.Kind + "): " + t.Action
	}
	if len(s.touches) < maxKept {
		s.touches = append(s.touches, t)
	}
	if s.counts == nil {
		s.counts = map[string]int64{}
	}
	s.counts[t.Fault]++
	s.mu.Unlock()
	if s.OnTouch != nil {
		s.OnTouch(t)
	}
}

// Counts returns how many requests each fault touched, by name.
func (s *Schedule) Counts() map[string]int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]int64, len(s.counts))
	for k, v := range s.counts {
		out[k] = v
	}
	return out
}

// Touches returns the requests touched so far (the first 10,000), in the
// order touched.
func (s *Schedule) Touches() []Touch {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Touch(nil), s.touches...)
}
