// Package conformreport writes conformance results: the text summary and
// divergences, the diff between two targets, JSON and JUnit XML.
//
// It may use reports and conformance/verdict.
package conformreport
