package browser

import (
	"context"
	"net/url"
	"path/filepath"
	"strings"
	"time"
)

// Options says how to load a page.
type Options struct {
	// Chromium is the browser binary (see Chromium).
	Chromium string
	// Width and Height are the viewport's size in CSS pixels (default 1280
	// x 2400).
	Width, Height int
	// Timeout bounds the whole load (default 60 s).
	Timeout time.Duration
}

// Message is one console message: a console API call, an uncaught
// exception, or a browser log entry (a failed load, a CSP violation).
type Message struct {
	// Type is log, info, warning, error, exception, verbose...
	Type string
	Text string
	URL  string
}

func (m Message) String() string { return m.Type + ": " + m.Text + " (" + m.URL + ")" }

// IsError reports whether the message is an error or an exception.
func (m Message) IsError() bool {
	return m.Type == "error" || m.Type == "exception" || m.Type == "assert"
}

// SVG describes one rendered <svg> element.
type SVG struct {
	// ID and Label are its id and aria-label attributes.
	ID    string `json:"id"`
	Label string `json:"label"`
	// Width and Height are its rendered size in CSS pixels.
	Width  float64 `json:"width"`
	Height float64 `json:"height"`
	// Shapes counts the drawn elements inside it (path, line, rect,
	// polyline, polygon, circle, text).
	Shapes int `json:"shapes"`
}

// Page is what loading a page found.
type Page struct {
	Title string
	// Messages are every console message, in order.
	Messages []Message
	// Requests are the URLs of every request the page made, the page
	// itself included.
	Requests []string
	// SVGs are the page's <svg> elements in document order.
	SVGs []SVG
	// Height is the document's scroll height in CSS pixels.
	Height float64
	// Screenshot is a PNG of the whole page; Top one of the window's first
	// screen (Width x Height).
	Screenshot, Top []byte
}

// Errors returns the messages that are errors or exceptions.
func (p *Page) Errors() []Message {
	var out []Message
	for _, m := range p.Messages {
		if m.IsError() {
			out = append(out, m)
		}
	}
	return out
}

// External returns the requests to anything but the file itself and data:
// URLs: what a self-contained page must not make.
func (p *Page) External(self string) []string {
	var out []string
	for _, u := range p.Requests {
		if u == self || strings.HasPrefix(u, "data:") || strings.HasPrefix(u, "about:") {
			continue
		}
		out = append(out, u)
	}
	return out
}

// FileURL is the file:// URL of a local path.
func FileURL(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String(), nil
}

// svgScript lists the rendered <svg> elements with their sizes.
const svgScript = `Array.from(document.querySelectorAll("svg")).map(s => {
  const r = s.getBoundingClientRect();
  return {id: s.id || "", label: s.getAttribute("aria-label") || "", width: r.width, height: r.height,
    shapes: s.querySelectorAll("path,line,rect,polyline,polygon,circle,text").length};
})`

// Load opens the local file path in a fresh headless Chromium (no sandbox,
// no GPU, every host name resolving to nothing so that no request can leave
// the machine), waits for the load event, and returns what it found, with a
// full-page screenshot.
func Load(ctx context.Context, path string, o Options) (*Page, error) {
	s, err := Open(ctx, path, o)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	return s.Page()
}
