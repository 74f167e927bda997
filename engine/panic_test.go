package engine_test

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/catalogue-gateway/gateway/catalogue"
	"github.com/catalogue-gateway/gateway/engine"
	"github.com/catalogue-gateway/gateway/graphqlhttp"
	"github.com/catalogue-gateway/gateway/internal/execution"
	"github.com/catalogue-gateway/gateway/loader"
	"github.com/catalogue-gateway/gateway/resolvers"
)

// panicObserver counts the engine's declines by reason.
type panicObserver struct {
	panics, executedByGqlgen atomic.Int64
}

func (*panicObserver) Cached(bool)                                {}
func (*panicObserver) Request(string, string, time.Duration, int) {}
func (*panicObserver) StreamEnded(string, string, time.Duration)  {}
func (*panicObserver) Rejected(string)                            {}
func (*panicObserver) Streams(int)                                {}

func (o *panicObserver) Declined(reason string) {
	if reason == execution.DeclinePanic {
		o.panics.Add(1)
	}
}

func (o *panicObserver) Executed(executor string) {
	if executor == "gqlgen" {
		o.executedByGqlgen.Add(1)
	}
}

// errorLog keeps the error records logged through it.
type errorLog struct {
	mu      sync.Mutex
	records []slog.Record
}

func (l *errorLog) Enabled(_ context.Context, level slog.Level) bool { return level >= slog.LevelError }
func (l *errorLog) WithAttrs([]slog.Attr) slog.Handler               { return l }
func (l *errorLog) WithGroup(string) slog.Handler                    { return l }
func (l *errorLog) Handle(_ context.Context, r slog.Record) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.records = append(l.records, r.Clone())
	return nil
}

// TestPanicIsLoggedCountedAndAnsweredByGqlgen: a plan that panics is a
// bug, not a decline like the others: it is logged at error level with
// its stack (once per document), counted, and the query is still
// answered, by gqlgen, as it would have been.
func TestPanicIsLoggedCountedAndAnsweredByGqlgen(t *testing.T) {
	roots := (&resolvers.Resolver{}).RootFields()
	items := roots["items"]
	items.Resolve = func(context.Context, map[string]any) (any, error) { panic("a bug in the items root") }
	roots["items"] = items
	st := &catalogue.Store{}
	st.Publish(fixtureSnapshot(t))
	obs := &panicObserver{}
	logs := &errorLog{}
	h := resolvers.NewHandler(st, loader.Options{}, graphqlhttp.Options{Executor: engine.New(roots, nil), Observer: obs, Logger: slog.New(logs)})

	reference := resolvers.NewHandler(st, loader.Options{}, graphqlhttp.Options{Executor: execution.None})

	const q = `query SomeItems { items(first: 3) { nodes { name } } }`
	_, want := post(reference, q, nil)
	if !strings.Contains(string(want), `"name":"Copper Ore"`) {
		t.Fatalf("gqlgen answered %s", want)
	}
	for i := range 3 {
		if status, body := post(h, q, nil); status != 200 || string(body) != string(want) {
			t.Fatalf("run %d: status %d, body %s: want gqlgen's answer %s", i, status, body, want)
		}
	}
	if n := obs.panics.Load(); n != 3 {
		t.Errorf("%d panics counted, want 3", n)
	}
	if n := obs.executedByGqlgen.Load(); n != 3 {
		t.Errorf("gqlgen ran %d operations, want 3", n)
	}
	logs.mu.Lock()
	defer logs.mu.Unlock()
	if len(logs.records) != 1 {
		t.Fatalf("%d error log lines, want 1 (once per document)", len(logs.records))
	}
	attrs := map[string]string{}
	logs.records[0].Attrs(func(a slog.Attr) bool { attrs[a.Key] = a.Value.String(); return true })
	if attrs["reason"] != execution.DeclinePanic || attrs["operation"] != "SomeItems" || attrs["detail"] != "a bug in the items root" {
		t.Errorf("logged %v, want the panic's reason, operation and value", attrs)
	}
	// The stack names the function that panicked, here this test's.
	if stack := attrs["stack"]; !strings.Contains(stack, "TestPanicIsLoggedCountedAndAnsweredByGqlgen") || !strings.Contains(stack, "engine.(*Engine).Execute") {
		t.Errorf("logged stack %.2000s, want the panicking function's and the engine's frames", stack)
	}
}
