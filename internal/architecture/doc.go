// Package architecture holds the test that keeps the package map of
// docs/architecture.md true: every package of the module has a row there,
// imports only the stormcheck packages its row allows, and reaches the
// Azure SDK only where its row says so. It has no code of its own.
package architecture
