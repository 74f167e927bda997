// Command wsflood measures what one flooding WebSocket costs the gateway's
// other callers: it measures a normal query's latency over HTTP alone,
// then again while one graphql-transport-ws connection sends subscribe
// messages of the introspection query as fast as the gateway reads them
// (a burst of -burst, then one more each time one ends), and prints both.
// bench/websocket.sh runs it against the real binary.
//
//	go run ./bench/wsflood -url http://127.0.0.1:8080/graphql
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
)

const introspection = `query IntrospectionQuery { __schema { queryType { name } mutationType { name } subscriptionType { name }
  types { kind name description fields(includeDeprecated: true) { name description args { name description type { kind name ofType { kind name ofType { kind name } } } defaultValue }
  type { kind name ofType { kind name ofType { kind name ofType { kind name } } } } isDeprecated deprecationReason }
  inputFields { name type { kind name ofType { kind name } } defaultValue } interfaces { name } enumValues(includeDeprecated: true) { name description isDeprecated deprecationReason }
  possibleTypes { name } } directives { name description locations args { name type { kind name ofType { kind name } } defaultValue } } } }`

func main() {
	url := flag.String("url", "http://127.0.0.1:8080/graphql", "the gateway's GraphQL endpoint")
	query := flag.String("query", `query Monster($id: Int!) { monster(id: $id) { id name combatLevel drops { baseChance item { id name } } } }`,
		"the normal query, POSTed with $id from 1 to 100 in turn")
	secs := flag.Duration("duration", 10*time.Second, "how long each phase lasts")
	workers := flag.Int("c", 4, "HTTP callers, each sending its next query once answered")
	burst := flag.Int("burst", 3000, "subscribe messages the WebSocket sends at once, and keeps outstanding (0: no flood, the callers alone)")
	from := flag.String("from", "127.0.0.2", "the address the HTTP callers connect from: another client than the flood's, "+
		"since the gateway's turns for a core are fair between clients, not within one")
	flag.Parse()
	if err := run(*url, *query, *from, *secs, *workers, *burst); err != nil {
		fmt.Fprintln(os.Stderr, "wsflood:", err)
		os.Exit(1)
	}
}

func run(url, query, from string, d time.Duration, workers, burst int) error {
	fmt.Printf("%-26s %8s %9s %9s %9s %9s\n", "phase", "req/s", "p50", "p99", "max", "errors")
	alone, err := load(url, query, from, d, workers)
	if err != nil {
		return err
	}
	alone.print("HTTP alone")
	if burst == 0 {
		return nil
	}

	ctx, stop := context.WithCancel(context.Background())
	f := &flood{}
	floodErr := make(chan error, 1)
	go func() { floodErr <- f.run(ctx, url, burst) }()
	for f.sent.Load() < int64(burst) {
		select {
		case err := <-floodErr:
			stop()
			return fmt.Errorf("flooding: %w", err)
		case <-time.After(10 * time.Millisecond):
		}
	}
	flooded, err := load(url, query, from, d, workers)
	stop()
	if err != nil {
		return err
	}
	flooded.print("HTTP, one WebSocket flood")
	if err := <-floodErr; err != nil && ctx.Err() == nil {
		return fmt.Errorf("flooding: %w", err)
	}
	fmt.Printf("the flood: %d subscribe sent, %d answered, %d refused (%s), connection %s\n",
		f.sent.Load(), f.answered.Load(), f.refused.Load(), strings.Join(f.codes(), ", "), f.closedAs())
	return nil
}

type result struct {
	latencies []time.Duration
	errors    int
	d         time.Duration
}

func (r result) print(phase string) {
	slices.Sort(r.latencies)
	q := func(p float64) string {
		if len(r.latencies) == 0 {
			return "-"
		}
		return r.latencies[int(p*float64(len(r.latencies)-1))].Round(10 * time.Microsecond).String()
	}
	fmt.Printf("%-26s %8.0f %9s %9s %9s %9d\n", phase, float64(len(r.latencies))/r.d.Seconds(), q(0.5), q(0.99), q(1), r.errors)
}

// load POSTs query from workers callers for d, and measures each answer.
func load(url, query, from string, d time.Duration, workers int) (result, error) {
	dialer := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}}
	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: workers, DialContext: dialer.DialContext}}
	var mu sync.Mutex
	res := result{d: d}
	end := time.Now().Add(d)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := w; time.Now().Before(end); i += workers {
				body, _ := json.Marshal(map[string]any{"query": query, "variables": map[string]any{"id": 1 + i%100}})
				start := time.Now()
				resp, err := client.Post(url, "application/json", bytes.NewReader(body))
				ok := err == nil && resp.StatusCode == http.StatusOK
				if err == nil {
					b, _ := io.ReadAll(resp.Body)
					resp.Body.Close()
					ok = ok && bytes.HasPrefix(b, []byte(`{"data":`))
				}
				took := time.Since(start)
				mu.Lock()
				if ok {
					res.latencies = append(res.latencies, took)
				} else {
					res.errors++
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if len(res.latencies) == 0 {
		return res, fmt.Errorf("no query answered")
	}
	return res, nil
}

// flood is one WebSocket sending subscribe messages of the introspection
// query, burst at a time outstanding.
type flood struct {
	sent, answered, refused atomic.Int64

	mu     sync.Mutex
	errors map[string]int
	closed string
}

func (f *flood) codes() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for code, n := range f.errors {
		out = append(out, code+" "+strconv.Itoa(n))
	}
	slices.Sort(out)
	return out
}

func (f *flood) closedAs() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed == "" {
		return "open until the end"
	}
	return "closed: " + f.closed
}

type message struct {
	Type    string          `json:"type"`
	ID      string          `json:"id,omitempty"`
	Payload json.RawMessage `json:"payload,omitempty"`
}

func (f *flood) run(ctx context.Context, url string, burst int) error {
	conn, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(url, "http"),
		&websocket.DialOptions{Subprotocols: []string{"graphql-transport-ws"}})
	if err != nil {
		return err
	}
	defer conn.CloseNow()
	conn.SetReadLimit(64 << 20)
	send := func(m message) error {
		b, _ := json.Marshal(m)
		return conn.Write(ctx, websocket.MessageText, b)
	}
	if err := send(message{Type: "connection_init"}); err != nil {
		return err
	}
	// Whenever an operation ends, one more is sent, so that burst stay
	// outstanding; the reader only counts, the writer sends.
	more := make(chan struct{}, burst)
	for range burst {
		more <- struct{}{}
	}
	readErr := make(chan error, 1)
	go func() {
		for {
			_, b, err := conn.Read(ctx)
			if err != nil {
				f.mu.Lock()
				if ctx.Err() == nil {
					f.closed = err.Error()
				}
				f.mu.Unlock()
				readErr <- err
				return
			}
			var m message
			json.Unmarshal(b, &m)
			switch m.Type {
			case "ping":
				go send(message{Type: "pong"})
			case "next":
				f.answered.Add(1)
			case "error":
				f.refused.Add(1)
				var errs []struct{ Extensions struct{ Code string } }
				json.Unmarshal(m.Payload, &errs)
				f.mu.Lock()
				if f.errors == nil {
					f.errors = map[string]int{}
				}
				if len(errs) > 0 {
					f.errors[errs[0].Extensions.Code]++
				}
				f.mu.Unlock()
				more <- struct{}{}
			case "complete":
				more <- struct{}{}
			}
		}
	}()
	payload, _ := json.Marshal(map[string]any{"query": introspection})
	for i := 0; ; i++ {
		select {
		case <-ctx.Done():
			return nil
		case err := <-readErr:
			return err
		case <-more:
		}
		if err := send(message{Type: "subscribe", ID: strconv.Itoa(i), Payload: payload}); err != nil {
			return err
		}
		f.sent.Add(1)
	}
}
