// Command gen writes the gateway's embedded default catalogue: the 13 bodies
// a real upstream of the catalogue service would serve, generated from one
// consistent, seeded world so every cross-reference resolves.
//
// Usage, from the repository root or from catalogue/:
//
//	go run ./catalogue/gen [-out dir] [-scale 1]
//	go run ./gen -out embedded
//
// Without -out the files go to catalogue/embedded of the enclosing module.
// -scale multiplies every collection's size, for benchmark catalogues. The
// output depends only on -scale: two runs write identical bytes.
package main

import (
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("gen", flag.ExitOnError)
	out := fs.String("out", "", "output directory (default: catalogue/embedded in the enclosing module)")
	scale := fs.Float64("scale", 1, "size multiplier for every collection")
	fs.Parse(args) // exits with status 2 on a bad flag
	if *scale <= 0 || math.IsInf(*scale, 0) || math.IsNaN(*scale) {
		return fmt.Errorf("-scale must be a positive number, not %v", *scale)
	}
	dir := *out
	if dir == "" {
		root, err := moduleRoot()
		if err != nil {
			return err
		}
		dir = filepath.Join(root, "catalogue", "embedded")
	}
	return generate(dir, *scale)
}

// generate writes every collection's body into dir.
func generate(dir string, scale float64) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, f := range build(scale).files() {
		if err := os.WriteFile(filepath.Join(dir, f.name), f.body, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// moduleRoot finds the directory holding go.mod, starting from the working
// directory, so the default output path works wherever in the module the
// generator is run from.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory; pass -out")
		}
		dir = parent
	}
}
