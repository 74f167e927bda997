// Command mix writes the requests of one of bench/clients.sh's mixes, for
// wrk (a Lua script that sends them in random order) or for vegeta (JSON
// targets), with the headers a client sends: curl's and wrk's (none) or a
// browser's. The queries are written here once, for both load
// generators.
//
//	go run ./bench/mix -mix monster -headers browser -format wrk -url http://127.0.0.1:18490/graphql > monster.lua
//
// The monster page asks for a random monster, by the ids the gateway's
// /monsters lists; the filtered page, for a random one- or two-letter
// name term in a random order: like the page views of many users, no two
// in a row alike, so that an answer is made for each request.
package main

import (
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"strings"
)

// The queries, as docs/speed.md names them.
const (
	q1      = `{ item(id: 5) { id name value } }`
	q2      = `{ monsters(first: 100) { nodes { id name drops { itemId item { id name rarity } } } } }`
	q3      = `{ items(first: 200) { nodes { id name monsterDrops { monsterId monster { id name combatLevel } } } } }`
	q4      = `{ quests(first: 100) { nodes { questName questItems { item { name } } questRewards { item { name } } } } }`
	monster = `query Monster($id: Int!) { monster(id: $id) { id name drops { itemId item { id name rarity droppedByMonsters { id name } } } } }`
	// page and filtered select the same fields of the same 50 records'
	// worth of page; filtered adds a name term and an order.
	page     = `{ items(first: 50) { nodes { id name value monsterDrops { monsterId monster { id name } } } } }`
	filtered = `query Items($term: String!, $order: ItemOrder!) { items(first: 50, filter: {nameContains: $term}, orderBy: $order) { nodes { id name value monsterDrops { monsterId monster { id name } } } } }`
)

// headers are what each kind of client sends besides Content-Type.
var headers = map[string]map[string]string{
	// wrk and curl send neither.
	"identity": {},
	// Chrome's and Firefox's Accept-Encoding; the Accept of a GraphQL
	// client in a page (Apollo Client's, graphql-request's).
	"browser": {
		"Accept-Encoding": "gzip, deflate, br, zstd",
		"Accept":          "application/graphql-response+json, application/json;q=0.9",
	},
}

func main() {
	mix := flag.String("mix", "q1", "the mix: q1, q2, q3, q4, monster, page or filtered")
	kind := flag.String("headers", "identity", "the client's headers: identity (none) or browser")
	format := flag.String("format", "wrk", "wrk (a Lua script), vegeta (JSON targets) or body (the first request's body)")
	target := flag.String("url", "http://127.0.0.1:18490/graphql", "the GraphQL endpoint; the monster ids are read from its /monsters")
	n := flag.Int("n", 2000, "how many requests a random mix draws")
	flag.Parse()
	if err := run(os.Stdout, *mix, *kind, *format, *target, *n); err != nil {
		fmt.Fprintln(os.Stderr, "mix:", err)
		os.Exit(1)
	}
}

func run(w io.Writer, mix, kind, format, target string, n int) error {
	h, ok := headers[kind]
	if !ok {
		return fmt.Errorf("no headers %q", kind)
	}
	bodies, err := requests(mix, target, n)
	if err != nil {
		return err
	}
	switch format {
	case "wrk":
		return writeWrk(w, h, bodies)
	case "vegeta":
		return writeVegeta(w, target, h, bodies)
	case "body":
		_, err := w.Write(bodies[0])
		return err
	}
	return fmt.Errorf("no format %q", format)
}

// requests returns the bodies of the mix: one for a fixed query, n drawn
// at random (with a fixed seed, so that runs compare) for the others.
func requests(mix, target string, n int) ([][]byte, error) {
	type params struct {
		Query     string         `json:"query"`
		Variables map[string]any `json:"variables,omitempty"`
	}
	fixed := map[string]string{"q1": q1, "q2": q2, "q3": q3, "q4": q4, "page": page}
	if q, ok := fixed[mix]; ok {
		b, err := json.Marshal(params{Query: q})
		return [][]byte{b}, err
	}
	rnd := rand.New(rand.NewPCG(7, 7))
	var draw func() map[string]any
	switch mix {
	case "monster":
		ids, err := monsterIDs(target)
		if err != nil {
			return nil, err
		}
		draw = func() map[string]any { return map[string]any{"id": ids[rnd.IntN(len(ids))]} }
	case "filtered":
		fields := []string{"ID", "NAME", "VALUE"}
		directions := []string{"ASC", "DESC"}
		draw = func() map[string]any {
			term := string(rune('a' + rnd.IntN(26)))
			if rnd.IntN(2) == 0 {
				term += string(rune('a' + rnd.IntN(26)))
			}
			return map[string]any{"term": term, "order": map[string]string{
				"field": fields[rnd.IntN(len(fields))], "direction": directions[rnd.IntN(len(directions))]}}
		}
	default:
		return nil, fmt.Errorf("no mix %q", mix)
	}
	query := map[string]string{"monster": monster, "filtered": filtered}[mix]
	bodies := make([][]byte, n)
	for i := range bodies {
		b, err := json.Marshal(params{Query: query, Variables: draw()})
		if err != nil {
			return nil, err
		}
		bodies[i] = b
	}
	return bodies, nil
}

// monsterIDs reads the ids of the monsters the gateway at target serves,
// from its REST path, in the upstream's envelope.
func monsterIDs(target string) ([]int64, error) {
	u, err := url.Parse(target)
	if err != nil {
		return nil, err
	}
	u.Path, u.RawQuery = "/monsters", ""
	resp, err := http.Get(u.String())
	if err != nil {
		return nil, fmt.Errorf("reading the monsters' ids: %w", err)
	}
	defer resp.Body.Close()
	var pages []struct {
		Results []struct {
			ID int64 `json:"id"`
		} `json:"results"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&pages); err != nil {
		return nil, fmt.Errorf("reading the monsters' ids: %w", err)
	}
	var ids []int64
	for _, p := range pages {
		for _, r := range p.Results {
			ids = append(ids, r.ID)
		}
	}
	if len(ids) == 0 {
		return nil, fmt.Errorf("%s lists no monster", u)
	}
	return ids, nil
}

// writeWrk writes a wrk script that POSTs the bodies in random order.
func writeWrk(w io.Writer, h map[string]string, bodies [][]byte) error {
	var b strings.Builder
	b.WriteString("wrk.method = \"POST\"\nwrk.headers[\"Content-Type\"] = \"application/json\"\n")
	for k, v := range h {
		fmt.Fprintf(&b, "wrk.headers[%q] = %q\n", k, v)
	}
	b.WriteString("local bodies = {\n")
	for _, body := range bodies {
		fmt.Fprintf(&b, "  [==[%s]==],\n", body)
	}
	b.WriteString("}\n")
	if len(bodies) == 1 {
		b.WriteString("wrk.body = bodies[1]\n")
	} else {
		b.WriteString("request = function() return wrk.format(nil, nil, nil, bodies[math.random(#bodies)]) end\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeVegeta writes the bodies as vegeta's JSON targets, one a line.
func writeVegeta(w io.Writer, target string, h map[string]string, bodies [][]byte) error {
	header := map[string][]string{"Content-Type": {"application/json"}}
	for k, v := range h {
		header[k] = []string{v}
	}
	enc := json.NewEncoder(w)
	for _, body := range bodies {
		t := struct {
			Method string              `json:"method"`
			URL    string              `json:"url"`
			Header map[string][]string `json:"header"`
			Body   string              `json:"body"`
		}{"POST", target, header, base64.StdEncoding.EncodeToString(body)}
		if err := enc.Encode(t); err != nil {
			return err
		}
	}
	return nil
}
