package main

// gqlgen is pinned as a module tool (go.mod's tool directive), so every
// checkout generates with the same version.
//go:generate go tool gqlgen generate
