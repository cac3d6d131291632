package html

// htmlTemplateText is the HTML report's page: one file, inline CSS, one
// inline script (script.go: tooltips, crosshairs, legend toggles), and a
// Content-Security-Policy that forbids loading anything from anywhere
// (only inline styles, data: images and that script, by its hash), so that
// the page shows the same offline as online. html/template escapes every value; the
// charts arrive as SVG built by svg.go, which escapes its own text.
const htmlTemplateText = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:; script-src 'SCRIPT-HASH'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="stormcheck">
<title>{{.Title}}</title>
<style>
:root { color-scheme: light; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; color: #1a1a1a; background: #fff; margin: 0; }
main { max-width: 1200px; margin: 0 auto; padding: 12px 24px 48px; }
h1 { font-size: 22px; margin: 10px 0 6px; }
h1 small.brand { font-size: 14px; font-weight: 600; color: #0059a0; margin-right: 6px; }
h2 { font-size: 18px; margin: 34px 0 8px; padding-bottom: 4px; border-bottom: 2px solid #d8d8d8; }
h3 { font-size: 15px; margin: 22px 0 6px; }
a { color: #0059a0; }
dl.meta { display: grid; grid-template-columns: max-content 1fr; gap: 2px 16px; margin: 6px 0 10px; }
dl.meta dt { color: #555; }
dl.meta dd { margin: 0; }
table { border-collapse: collapse; margin: 6px 0 10px; font-variant-numeric: tabular-nums; }
th, td { padding: 3px 9px; border-bottom: 1px solid #e4e4e4; text-align: right; white-space: nowrap; }
th { background: #f4f4f4; font-weight: 600; }
th:first-child, td:first-child, .l { text-align: left; }
td.wrap { white-space: normal; }
tr.unc td { color: #555; font-size: 12px; }
.scroll { overflow-x: auto; }
.badge { display: inline-block; min-width: 64px; text-align: center; padding: 1px 6px; border-radius: 3px; font-weight: 700; font-size: 12px; color: #fff; }
.badge.pass { background: #00704f; }
.badge.fail { background: #a84300; }
.badge.undecided { background: #7a5600; }
.banner { padding: 8px 12px; border-left: 6px solid; margin: 10px 0; }
.banner.warn { border-color: #E69F00; background: #fff5dd; }
.banner.err { border-color: #D55E00; background: #fdebe2; }
.banner.ok { border-color: #009E73; background: #e6f6f0; }
.note { color: #555; font-style: italic; }
nav.toc a { margin-right: 14px; }
figure { margin: 10px 0 18px; }
figcaption { font-weight: 600; margin-bottom: 2px; }
.grid2 { display: grid; grid-template-columns: repeat(auto-fill, minmax(440px, 1fr)); gap: 8px 28px; }
svg.chart { display: block; width: 100%; height: auto; max-width: 100%; }
svg.chart text { fill: #222; font-family: inherit; }
svg.chart text.muted { fill: #777; }
svg.chart text.axis, svg.chart text.ref { font-weight: 600; }
pre { background: #f6f6f6; padding: 6px 8px; overflow-x: auto; font-size: 12px; margin: 4px 0 8px; }
ul.violations { margin: 4px 0 8px; padding-left: 20px; }
section.workload { margin-bottom: 20px; }
.verdict { display: flex; align-items: center; gap: 12px; margin: 8px 0 4px; font-size: 15px; }
ul.failures { list-style: none; margin: 6px 0 10px; padding: 0; }
ul.failures li { margin: 3px 0; }
ul.failures .badge { min-width: 72px; margin-right: 6px; }
.verdict .badge { font-size: 15px; padding: 4px 12px; min-width: 90px; }
.cards { display: flex; flex-wrap: wrap; gap: 10px; margin: 10px 0; }
.card { border: 1px solid #d8d8d8; border-radius: 6px; padding: 8px 14px; min-width: 150px; }
.card .v { font-size: 22px; font-weight: 700; font-variant-numeric: tabular-nums; }
.card .k { color: #555; font-size: 12px; text-transform: uppercase; letter-spacing: .04em; }
.card .n { color: #555; font-size: 12px; }
.card.bad { border-color: #D55E00; background: #fdf3ee; }
.card.bad .v { color: #a84300; }
table.summary .badge { min-width: 0; margin-right: 4px; }
svg.chart g.li { cursor: pointer; }
svg.chart g.li.off { opacity: 0.35; }
svg.chart g.s.off { display: none; }
#tip { position: absolute; display: none; pointer-events: none; background: #fff; border: 1px solid #999; border-radius: 4px; padding: 4px 8px; font-size: 12px; box-shadow: 0 2px 6px rgba(0,0,0,.2); z-index: 10; white-space: nowrap; }
#tip .h { font-weight: 700; margin-bottom: 2px; }
#tip i { display: inline-block; width: 10px; height: 10px; margin-right: 5px; vertical-align: -1px; }
</style>
</head>
<body>
<main>
<header>
{{if .Breaks}}<p class="breaks"><strong>{{.Breaks}}</strong></p>{{end}}
<h1><small class="brand">stormcheck</small> {{.Scenario}}</h1>
<section id="verdict">
<div class="verdict"><span class="badge {{.Verdict}}">{{.Verdict}}</span><span>{{.VerdictText}}</span></div>
{{- if .Failures}}
<ul class="failures">
{{- range .Failures}}
<li class="failure" data-verdict="{{.Verdict}}"><span class="badge {{.Verdict}}">{{.Verdict}}</span> <strong>{{.What}}</strong>{{if not .Threshold}}:{{end}} {{.Detail}}</li>
{{- end}}
{{- with .MoreFailures}}
<li class="more">{{.}}</li>
{{- end}}
</ul>
{{- end}}
{{- if .Interrupted}}
<p class="banner warn"><strong>Interrupted:</strong> stopped before the end; the figures and checks cover what ran.</p>
{{- end}}
{{- with .Error}}
<p class="banner err"><strong>Error:</strong> {{.}}</p>
{{- end}}
{{- range .NotWritten}}
<p class="banner err"><strong>Not written:</strong> {{.}}</p>
{{- end}}
{{- range .NotRun}}
<p class="banner warn"><strong>Not run:</strong> {{.}}</p>
{{- end}}
{{- with .LeftOnTarget}}
<p class="banner err"><strong>Left on the target:</strong> {{.}}</p>
{{- end}}
{{- with .ChecksError}}
<p class="banner err"><strong>Checks failed to run:</strong> {{.}}</p>
{{- end}}
</section>
{{- if .Ran}}
<section id="summary">
<div class="cards">
{{- range .Summary.Cards}}
<div class="card{{if .Bad}} bad{{end}}"><div class="k">{{.Label}}</div><div class="v">{{.Value}}</div>{{with .Note}}<div class="n">{{.}}</div>{{end}}</div>
{{- end}}
</div>
{{- if .Summary.Rows}}
<div class="scroll"><table class="summary">
<thead><tr>{{range .Summary.Head}}<th{{if eq . "checks"}} class="l"{{end}}>{{.}}</th>{{end}}</tr></thead>
<tbody>
{{- range .Summary.Rows}}
<tr><td><a href="#{{.Anchor}}">{{.Name}}</a></td>{{range .Cells}}<td>{{.}}</td>{{end}}<td class="l">{{range .Checks}}<span class="badge {{.Verdict}}" title="{{.Verdict}}">{{.Check}}</span>{{end}}</td></tr>
{{- end}}
</tbody></table></div>
<p class="note">achieved: what each workload is for (acknowledged increments, creations, messages consumed); calls: every attempt; p99: the slowest op's, corrected; errors: error and unknown outcomes. Rates are over each workload's active period.</p>
{{- end}}
</section>
{{- end}}
<dl class="meta">
{{- range .Meta}}
<dt>{{.Key}}</dt><dd>{{.Value}}</dd>
{{- end}}
<dt>exit code</dt><dd><strong>{{.ExitCode}}</strong>{{with .ExitMeaning}}: {{.}}{{end}}</dd>
{{- if .Checks}}
<dt>checks</dt><dd>{{.Tally}}</dd>
{{- end}}
</dl>
{{- with .HlogNote}}
<p class="note">{{.}}</p>
{{- end}}
{{- range .HlogIssues}}
<p class="note">Latency log not read: {{.}}</p>
{{- end}}
{{- if .Workloads}}
<nav class="toc">Workloads:
{{- range .Workloads}} <a href="#{{.Anchor}}">{{.Name}}</a>{{end}}
{{- if .Checks}} <a href="#checks">checks</a>{{end}}
{{- if .Thresholds}} <a href="#thresholds">thresholds</a>{{end}}
{{- if .Files}} <a href="#files">files</a>{{end}}
</nav>
{{- end}}
<p class="note">Latency is in milliseconds. <em>Corrected</em> latency counts from the operation's intended start (as wrk2 does), so a client that fell behind cannot hide a slow service; <em>uncorrected</em> is call to return. Rates count ok+conflict attempts.</p>
</header>
{{- range .Workloads}}
<section class="workload" id="{{.Anchor}}">
<h2>Workload {{.Name}}{{with .Desc}} <small>({{.}})</small>{{end}}</h2>
{{- if .Empty}}
<p class="note">No operations recorded.</p>
{{- else}}
<div class="scroll"><table class="ops">
<thead><tr><th>op</th><th>count</th><th>ok</th><th>conflict</th><th>throttled</th><th>error</th><th>unknown</th><th>rate/s</th><th>p50</th><th>p90</th><th>p95</th><th>p99</th><th>p99.9</th><th>max</th><th>mean</th></tr></thead>
<tbody>
{{- range .Ops}}
<tr{{if .Uncorrected}} class="unc"{{end}}><td>{{if .Uncorrected}}&nbsp;&nbsp;uncorrected{{else}}{{.Op}}{{end}}</td>{{range .Cells}}<td>{{.}}</td>{{end}}</tr>
{{- end}}
</tbody></table></div>
<p class="note">Latency in ms, corrected. An <em>uncorrected</em> row gives the call-to-return latencies where they differ from the row above; its count cells are left blank (they are the row above's). A dash marks a figure with no value: no latency recorded, or (p95) a summary written before p95 was kept.</p>
{{- with .Achieved}}<p><strong>Achieved:</strong> {{.}}</p>{{end}}
{{- if .Responses}}
<h3>Errors and lost races by status and error code</h3>
<p class="note">Attempts not answered 2xx, per op, by HTTP status and <code>x-ms-error-code</code>: 412 ConditionNotMet (a stale ETag) and 409 LeaseAlreadyPresent tell different stories. "none": no response (a timeout or a connection error). An SMB call (files.open, files.lock...) is not HTTP: its rows say SMB and the NT status it got (STATUS_SHARING_VIOLATION).</p>
<table class="responses"><thead><tr><th>op</th><th>status</th><th class="l">x-ms-error-code</th><th>count</th><th>of op</th></tr></thead><tbody>
{{- range .Responses}}
<tr><td>{{index . 0}}</td><td>{{index . 1}}</td><td class="l">{{index . 2}}</td><td>{{index . 3}}</td><td>{{index . 4}}</td></tr>
{{- end}}
</tbody></table>
{{- end}}
{{- with .LateDrop}}<p>{{.}}</p>{{end}}
{{- with .SchedLag}}<p>{{.}}</p>{{end}}
{{- with .LimitedBy}}<p><strong>Limited by</strong> {{range $i, $l := .}}{{if $i}}; {{end}}{{$l}}{{end}}</p>{{end}}
{{- if .Density}}
<h3>Query density</h3>
<p class="note">Entities scanned against those returned by acknowledged reads (each scanned entity counts toward the targets).</p>
<table><thead><tr><th>op</th><th>scanned</th><th>returned</th><th>returned/scanned</th><th>scanned per read</th></tr></thead><tbody>
{{- range .Density}}
<tr><td>{{.Op}}</td><td>{{.Scanned}}</td><td>{{.Returned}}</td><td>{{.Ratio}}</td><td>{{.Per}}</td></tr>
{{- end}}
</tbody></table>
{{- end}}
<h3>Throughput over time</h3>
<figure><figcaption>{{.Throughput.Caption}}</figcaption>{{.Throughput.SVG}}</figure>
{{- if .InFlight.SVG}}
<h3>Active actors over time</h3>
<figure><figcaption>{{.InFlight.Caption}}</figcaption>{{.InFlight.SVG}}</figure>
{{- end}}
<h3>Outcomes over time</h3>
<p class="note">Attempts per second stacked by outcome, ok at the bottom.</p>
<div class="timecharts">
{{- range .Outcomes}}
<figure><figcaption>{{.Caption}}</figcaption>{{.SVG}}{{with .Note}}<p class="note">{{.}}</p>{{end}}</figure>
{{- end}}
</div>
<h3>Latency percentiles over time</h3>
{{- with .LatencyMsg}}
<p class="note">{{.}}</p>
{{- else}}
<p class="note">p50, p90 and p99 of each second's corrected latency (from the intended start, as in the tables), from the run's HdrHistogram logs.</p>
<div class="timecharts">
{{- range .Latency}}
<figure><figcaption>{{.Caption}}</figcaption>{{.SVG}}{{with .Note}}<p class="note">{{.}}</p>{{end}}</figure>
{{- end}}
</div>
{{- end}}
<h3>Latency by percentile</h3>
<p class="note">The whole run's distribution per op, corrected and uncorrected; the percentile axis stretches the tail (each step is ten times rarer).</p>
<div class="grid2">
{{- range .Spectrum}}
<figure><figcaption>{{.Caption}}</figcaption>{{.SVG}}{{with .Note}}<p class="note">{{.}}</p>{{end}}</figure>
{{- end}}
</div>
<h3>Latency histogram</h3>
<p class="note">The share of each op's attempts per latency bin (ten bins per factor of ten), corrected filled, uncorrected as a line.</p>
<div class="grid2">
{{- range .Histogram}}
<figure><figcaption>{{.Caption}}</figcaption>{{.SVG}}{{with .Note}}<p class="note">{{.}}</p>{{end}}</figure>
{{- end}}
</div>
{{- range .Units}}
<h3>{{.Title}}</h3>
<p>{{.Heading}}</p>
{{template "grid" .}}
{{- with .More}}<p>{{.}}</p>{{end}}
{{- with .Spread}}<p>{{.}}</p>{{end}}
{{- with .Chart}}
<figure>{{with .Caption}}<figcaption>{{.}}</figcaption>{{end}}{{.SVG}}{{with .Note}}<p class="note">{{.}}</p>{{end}}</figure>
{{- end}}
{{- end}}
{{- end}}
</section>
{{- end}}
{{- if or .AcrossTables .Account}}
<h2>Across workloads</h2>
{{- range .AcrossTables}}
<h3>{{.Title}}</h3>
{{template "grid" .}}
{{- end}}
{{- with .Account}}<p><strong>Account:</strong> {{.}}</p>{{end}}
{{- end}}
{{- with .Harness}}
<h2>Harness</h2>
<p>Setup and final reads, not in the figures above: {{.}}</p>
{{- end}}
{{- if .Checks}}
<h2 id="checks">Checks <small>({{.Tally}})</small></h2>
<div class="scroll"><table class="checks">
<thead><tr><th>verdict</th><th class="l">check</th><th class="l">workload</th><th class="l">summary</th></tr></thead>
<tbody>
{{- range .Checks}}
<tr><td><span class="badge {{.Verdict}}">{{.Verdict}}</span></td><td class="l">{{.Check}}</td><td class="l">{{.Workload}}</td><td class="l wrap">{{.Summary}}</td></tr>
{{- if or .Violations .Files .Known}}
<tr><td></td><td colspan="3" class="l wrap">
{{- range .Known}}
<p class="known">{{.Line}}</p>
{{- with .Example}}<ul class="violations"><li>e.g. {{with .Key}}<strong>{{.}}</strong>: {{end}}{{.Message}}{{with .Ops}}<pre>{{.}}</pre>{{end}}</li></ul>{{end}}
{{- end}}
{{- if .Violations}}
<ul class="violations">
{{- range .Violations}}
<li>{{with .Key}}<strong>{{.}}</strong>: {{end}}{{.Message}}{{with .Ops}}<pre>{{.}}</pre>{{end}}</li>
{{- end}}
</ul>
{{- end}}
{{- with .More}}<p>{{.}}</p>{{end}}
{{- range .Files}}<p>Picture: <a href="{{.Href}}">{{.Path}}</a></p>{{end}}
</td></tr>
{{- end}}
{{- end}}
</tbody></table></div>
{{- else if .Ran}}
<h2 id="checks">Checks</h2>
<p>None ran.</p>
{{- end}}
{{- if .Thresholds}}
<h2 id="thresholds">Thresholds</h2>
<table><thead><tr><th>verdict</th><th class="l">criterion</th><th class="l">measured</th></tr></thead><tbody>
{{- range .Thresholds}}
<tr><td><span class="badge {{.Verdict}}">{{.Verdict}}</span></td><td class="l">{{.Threshold}}</td><td class="l wrap">{{.Measured}}</td></tr>
{{- end}}
</tbody></table>
{{- end}}
{{- if .Files}}
<h2 id="files">Files</h2>
<table><tbody>
{{- range .Files}}
<tr><td>{{.Label}}</td><td class="l"><a href="{{.Href}}">{{.Path}}</a></td></tr>
{{- end}}
</tbody></table>
<p class="note">Paths are relative to the results directory, where this page is.</p>
{{- end}}
</main>
<script></script>
</body>
</html>
{{- define "grid"}}
<div class="scroll"><table>
<thead><tr>{{range .Head}}<th>{{.}}</th>{{end}}</tr></thead>
<tbody>
{{- range .Rows}}
<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>
{{- end}}
</tbody></table></div>
{{- end}}
`
