package main

// gqlgen and the reference graph's plugin (graph/refgraph), run by
// graph/gqlgen; gqlgen's version is the one go.mod pins.
//go:generate go run ./graph/gqlgen
