package runner

// missedBuckets is how many buckets a missed record keeps at most: the
// record's size is fixed, its resolution the run's length over this.
const missedBuckets = 4096

// missed records, in bounded memory, when the arrivals an open loop could
// not serve were due: counts per bucket of intended start, the bucket width
// doubling (neighbours merged) whenever the record would outgrow
// missedBuckets. At the end each count is reported with the latency it had
// at least reached, the end minus its bucket's latest instant, so nothing
// is ever overstated.
type missed struct {
	width  int64   // bucket width in ns
	counts []int64 // counts[i]: arrivals due in [i*width, (i+1)*width)
	total  int64
}

func newMissed() *missed { return &missed{width: 1_000_000} } // 1 ms to start

// add counts n arrivals due at intended (ns since the run's start; a range
// of arrivals is added at its latest due time).
func (m *missed) add(intended, n int64) {
	if n <= 0 {
		return
	}
	intended = max(intended, 0)
	for intended/m.width >= missedBuckets {
		m.coarsen()
	}
	i := int(intended / m.width)
	if i >= len(m.counts) {
		m.counts = append(m.counts, make([]int64, i+1-len(m.counts))...)
	}
	m.counts[i] += n
	m.total += n
}

// coarsen doubles the bucket width, merging each pair of buckets.
func (m *missed) coarsen() {
	for i := 0; i < len(m.counts); i += 2 {
		c := m.counts[i]
		if i+1 < len(m.counts) {
			c += m.counts[i+1]
		}
		m.counts[i/2] = c
	}
	m.counts = m.counts[:(len(m.counts)+1)/2]
	m.width *= 2
}

// each calls fn with every bucket's count and the latency its arrivals had
// at least reached at end: end minus the bucket's last instant, at least 0.
func (m *missed) each(end int64, fn func(latency, count int64)) {
	for i, c := range m.counts {
		if c == 0 {
			continue
		}
		last := int64(i+1)*m.width - 1
		fn(max(end-last, 0), c)
	}
}
