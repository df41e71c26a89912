// Package dimred is the root of the dimred module: supervised
// dimensionality reduction by graph embedding. The library lives in its
// subpackages (data, datasets, stats, preprocess, kernel, linalg, graph, embed,
// param, method, classify, evaluate, plot, progress); cmd/dimred is the command line. See
// README.md and docs/architecture.md.
package dimred
