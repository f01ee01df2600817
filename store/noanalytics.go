//go:build tonql_noanalytics

package store

// Built with -tags tonql_noanalytics, a store keeps no analytics rollups:
// only to measure what keeping them costs an import as a whole process
// (docs/PERFORMANCE.md), never for a real deployment.
func init() { analyticsOffByBuild = true }
