package html

import (
	"crypto/sha256"
	"encoding/base64"
	"strings"
)

// reportScript is the page's one script, inline: hovering a chart shows
// each series' value at that point in a tooltip (and, on the charts over
// time, a crosshair at the same instant on every one of them, since they
// share one time axis); clicking a legend entry (or Enter on it) hides or
// shows its series.
// It reads what svg.go writes: the plot's box and x domain (data-plot,
// data-x), the tooltip's unit and x format (data-unit, data-xfmt), and
// each series' points (g.s: data-xs, data-v). The page works without it.
const reportScript = `(function () {
  "use strict";
  var tip = document.createElement("div");
  tip.id = "tip";
  tip.setAttribute("role", "tooltip");
  document.body.appendChild(tip);
  function nums(s) { return (s || "").trim() === "" ? [] : s.trim().split(/\s+/).map(Number); }
  function fmt(v) {
    if (!isFinite(v)) return "-";
    var a = Math.abs(v);
    if (a >= 1000) return Math.round(v).toLocaleString("en-US");
    if (a >= 100) return v.toFixed(0);
    if (a >= 10) return v.toFixed(1);
    if (a >= 1) return v.toFixed(2);
    return v === 0 ? "0" : v.toPrecision(2);
  }
  function xname(kind, x) {
    switch (kind) {
    case "time": return "at " + Math.floor(x) + " s";
    case "pct": return "p" + String(+(100 * (1 - Math.pow(10, -x))).toPrecision(6));
    case "logms": return fmt(Math.pow(10, x)) + " ms";
    }
    return fmt(x);
  }
  var charts = Array.prototype.slice.call(document.querySelectorAll("svg.chart[data-x]")).map(function (svg) {
    var p = nums(svg.getAttribute("data-plot")), xd = nums(svg.getAttribute("data-x"));
    var c = {svg: svg, l: p[0], t: p[1], r: p[2], b: p[3], x0: xd[0], x1: xd[1],
      unit: svg.getAttribute("data-unit") || "", xfmt: svg.getAttribute("data-xfmt") || "", series: []};
    Array.prototype.forEach.call(svg.querySelectorAll("g.s"), function (g) {
      c.series.push({g: g, id: g.getAttribute("data-s"), name: g.getAttribute("data-name"), color: g.getAttribute("data-color"),
        xs: nums(g.getAttribute("data-xs")), v: nums(g.getAttribute("data-v"))});
    });
    var cross = document.createElementNS(svg.namespaceURI, "line");
    cross.setAttribute("class", "cross");
    cross.setAttribute("y1", c.t);
    cross.setAttribute("y2", c.b);
    cross.setAttribute("stroke", "#333");
    cross.setAttribute("stroke-width", "1");
    cross.setAttribute("stroke-dasharray", "3 3");
    cross.style.display = "none";
    svg.appendChild(cross);
    c.cross = cross;
    Array.prototype.forEach.call(svg.querySelectorAll("g.li"), function (li) {
      function toggle() {
        var off = li.classList.toggle("off");
        li.setAttribute("aria-pressed", off ? "true" : "false");
        c.series.forEach(function (s) { if (s.id === li.getAttribute("data-s")) s.g.classList.toggle("off", off); });
      }
      li.addEventListener("click", toggle);
      li.addEventListener("keydown", function (e) {
        if (e.key === "Enter" || e.key === " ") { e.preventDefault(); toggle(); }
      });
    });
    return c;
  });
  function px(c, x) { return c.l + (x - c.x0) / (c.x1 - c.x0) * (c.r - c.l); }
  function nearest(xs, x) {
    var best = -1, d = Infinity;
    for (var i = 0; i < xs.length; i++) { var e = Math.abs(xs[i] - x); if (e < d) { d = e; best = i; } }
    return best;
  }
  function hide() {
    tip.style.display = "none";
    charts.forEach(function (c) { c.cross.style.display = "none"; });
  }
  charts.forEach(function (c) {
    c.svg.addEventListener("mousemove", function (e) {
      var m = c.svg.getScreenCTM();
      if (!m) return;
      var pt = c.svg.createSVGPoint();
      pt.x = e.clientX; pt.y = e.clientY;
      var q = pt.matrixTransform(m.inverse());
      if (q.x < c.l || q.x > c.r || q.y < c.t || q.y > c.b || c.x1 <= c.x0) { hide(); return; }
      var x = c.x0 + (q.x - c.l) / (c.r - c.l) * (c.x1 - c.x0);
      var rows = [], at = x;
      c.series.forEach(function (s) {
        if (s.g.classList.contains("off")) return;
        var i = nearest(s.xs, x);
        if (i < 0) return;
        at = s.xs[i];
        rows.push('<div><i style="background:' + s.color + '"></i>' + esc(s.name) + ": <b>" + fmt(s.v[i]) + esc(c.unit) + "</b></div>");
      });
      var same = c.xfmt === "time" ? charts.filter(function (o) { return o.xfmt === "time"; }) : [c];
      same.forEach(function (o) {
        if (x < o.x0 || x > o.x1) { o.cross.style.display = "none"; return; }
        o.cross.setAttribute("x1", px(o, x));
        o.cross.setAttribute("x2", px(o, x));
        o.cross.style.display = "";
      });
      if (!rows.length) { tip.style.display = "none"; return; }
      tip.innerHTML = '<div class="h">' + esc(xname(c.xfmt, at)) + "</div>" + rows.join("");
      tip.style.display = "block";
      var w = tip.offsetWidth, left = e.pageX + 14;
      if (left + w > window.scrollX + document.documentElement.clientWidth - 4) left = e.pageX - w - 14;
      tip.style.left = left + "px";
      tip.style.top = (e.pageY + 14) + "px";
    });
    c.svg.addEventListener("mouseleave", hide);
  });
  function esc(s) {
    return String(s).replace(/[&<>"']/g, function (ch) {
      return {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"}[ch];
    });
  }
})();`

// reportScriptHash is the script's Content-Security-Policy hash: the page
// runs this script and no other.
var reportScriptHash = func() string {
	sum := sha256.Sum256([]byte(reportScript))
	return "sha256-" + base64.StdEncoding.EncodeToString(sum[:])
}()

// withScript puts the script and its hash into the page's template text.
func withScript(page string) string {
	return strings.NewReplacer("SCRIPT-HASH", reportScriptHash, "<script></script>", "<script>"+reportScript+"</script>").Replace(page)
}
