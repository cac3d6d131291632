// Package html writes the HTML report: one self-contained page with the
// verdict, the charts (SVG drawn here) and the tables.
//
// It may use reports, reports/text (the shared table cells), checks and
// scenarios.
package html
