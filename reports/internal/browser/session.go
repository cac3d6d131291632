package browser

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// Session is a page open in a headless Chromium, for a test to look at and
// act on (hover, click) before it closes it.
type Session struct {
	ctx    context.Context
	cancel []context.CancelFunc
	mu     sync.Mutex
	seen   Page // console messages and requests so far
}

// Open loads the local file path in a fresh headless Chromium (no sandbox,
// no GPU, every host name resolving to nothing so that no request can leave
// the machine) and waits for the load event. o.Timeout bounds the whole
// session; Close ends it.
func Open(ctx context.Context, path string, o Options) (*Session, error) {
	if o.Width == 0 {
		o.Width, o.Height = 1280, 2400
	}
	if o.Timeout == 0 {
		o.Timeout = 60 * time.Second
	}
	u, err := FileURL(path)
	if err != nil {
		return nil, err
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(o.Chromium),
		chromedp.Flag("headless", "new"),
		chromedp.Flag("disable-gpu", true),
		chromedp.NoSandbox,
		chromedp.WindowSize(o.Width, o.Height),
		chromedp.Flag("host-resolver-rules", "MAP * ~NOTFOUND"),
		chromedp.Flag("allow-file-access-from-files", false),
	)
	s := &Session{}
	tctx, cancel := context.WithTimeout(ctx, o.Timeout)
	actx, cancelAlloc := chromedp.NewExecAllocator(tctx, opts...)
	bctx, cancelBrowser := chromedp.NewContext(actx)
	s.ctx, s.cancel = bctx, []context.CancelFunc{cancelBrowser, cancelAlloc, cancel}
	err = chromedp.Listen(bctx, func(ev any) {
		s.mu.Lock()
		defer s.mu.Unlock()
		switch e := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			var parts []string
			for _, a := range e.Args {
				if a.Description != "" {
					parts = append(parts, a.Description)
				} else {
					parts = append(parts, strings.Trim(string(a.Value), `"`))
				}
			}
			s.seen.Messages = append(s.seen.Messages, Message{Type: string(e.Type), Text: strings.Join(parts, " ")})
		case *runtime.EventExceptionThrown:
			d := e.ExceptionDetails
			text := d.Text
			if d.Exception != nil {
				text += " " + d.Exception.Description
			}
			s.seen.Messages = append(s.seen.Messages, Message{Type: "exception", Text: text, URL: d.URL})
		case *log.EventEntryAdded:
			s.seen.Messages = append(s.seen.Messages, Message{Type: string(e.Entry.Level), Text: e.Entry.Text, URL: e.Entry.URL})
		case *network.EventRequestWillBeSent:
			s.seen.Requests = append(s.seen.Requests, e.Request.URL)
		}
	})
	if err != nil {
		s.Close()
		return nil, fmt.Errorf("starting %s: %w", o.Chromium, err)
	}
	if err := chromedp.Do(bctx, chromedp.EmulateViewport(int64(o.Width), int64(o.Height)), chromedp.Navigate(u)); err != nil {
		s.Close()
		return nil, fmt.Errorf("loading %s: %w", u, err)
	}
	return s, nil
}

// Close ends the session and its browser.
func (s *Session) Close() {
	for _, c := range s.cancel {
		c()
	}
}

// Eval evaluates a JavaScript expression in the page and decodes its
// value (JSON) into a T.
func Eval[T any](s *Session, expr string) (T, error) {
	v, err := chromedp.Run(s.ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		var zero T
		return zero, fmt.Errorf("evaluating %q: %w", shorten(expr), err)
	}
	return v, nil
}

func shorten(s string) string {
	if len(s) > 80 {
		return s[:77] + "..."
	}
	return s
}

// MouseMove moves the mouse to (x, y), in CSS pixels of the viewport.
func (s *Session) MouseMove(x, y float64) error {
	return chromedp.Do(s.ctx, chromedp.MouseEvent(chromedp.MouseMoved, x, y))
}

// Click clicks the left button at (x, y), in CSS pixels of the viewport.
func (s *Session) Click(x, y float64) error {
	return chromedp.Do(s.ctx, chromedp.MouseClickXY(x, y))
}

// Screenshot is a PNG of the viewport as it is now.
func (s *Session) Screenshot() ([]byte, error) {
	return chromedp.Run(s.ctx, chromedp.CaptureScreenshot())
}

// Messages are the console messages so far.
func (s *Session) Messages() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Message(nil), s.seen.Messages...)
}

// Page is what the page shows now: its title, <svg> elements, height, the
// console and the requests so far, and screenshots of the first screen
// and of the whole page.
func (s *Session) Page() (*Page, error) {
	title, err := chromedp.Run(s.ctx, chromedp.Title())
	if err != nil {
		return nil, err
	}
	svgs, err := Eval[[]SVG](s, svgScript)
	if err != nil {
		return nil, fmt.Errorf("listing svg elements: %w", err)
	}
	height, err := Eval[float64](s, `document.documentElement.scrollHeight`)
	if err != nil {
		return nil, err
	}
	top, err := s.Screenshot()
	if err != nil {
		return nil, fmt.Errorf("screenshot: %w", err)
	}
	shot, err := chromedp.Run(s.ctx, chromedp.FullScreenshot(100))
	if err != nil {
		return nil, fmt.Errorf("screenshot: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	p := &Page{Messages: append([]Message(nil), s.seen.Messages...), Requests: append([]string(nil), s.seen.Requests...)}
	p.Title, p.SVGs, p.Height, p.Screenshot, p.Top = title, svgs, height, shot, top
	return p, nil
}
