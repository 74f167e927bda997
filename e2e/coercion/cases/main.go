// Command cases writes, as JSON on its standard output, the requests that
// try how a server coerces its inputs (querygen.InputCases), generated from
// the schema in the SDL file it is given: the one the gateway serves at
// /schema.graphql, which graphql-js builds too (e2e/coercion/run.sh).
//
//	go run ./e2e/coercion/cases schema.graphql > cases.json
package main

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/catalogue-gateway/gateway/graph/querygen"
	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "cases:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) != 1 {
		return fmt.Errorf("usage: cases schema.graphql")
	}
	sdl, err := os.ReadFile(args[0])
	if err != nil {
		return fmt.Errorf("reading the schema: %w", err)
	}
	schema, err := gqlparser.LoadSchema(&ast.Source{Name: args[0], Input: string(sdl)})
	if err != nil {
		return fmt.Errorf("loading the schema: %w", err)
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", " ")
	return enc.Encode(querygen.InputCases(schema))
}
