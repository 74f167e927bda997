package loader_test

import (
	"context"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/catalogue-gateway/gateway/catalogue"
	"github.com/catalogue-gateway/gateway/catalogue/upstreamtest"
	"github.com/catalogue-gateway/gateway/loader"
)

// TestBatchSpans checks that each batch, of a request's loader and of
// LoadMany, is a span in the trace of the context it was asked from, with
// its kind and number of keys.
func TestBatchSpans(t *testing.T) {
	var parts []*catalogue.Part
	for c, raw := range upstreamtest.FixtureBodies(t) {
		p, err := catalogue.Decode(c, raw)
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, p)
	}
	snap := catalogue.NewSnapshot(parts...)
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	defer tp.Shutdown(context.Background())
	tracer := tp.Tracer("test")

	for _, tt := range []struct {
		name string
		load func(ctx context.Context) error
		keys int64
	}{
		{"LoadMany", func(ctx context.Context) error {
			_, err := loader.LoadMany(ctx, catalogue.ItemKind, []int64{1, 2, 3})
			return err
		}, 3},
		{"Item", func(ctx context.Context) error {
			_, err := loader.Item(ctx, 2)
			return err
		}, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			exp.Reset()
			ctx, parent := tracer.Start(t.Context(), "request")
			ctx = loader.NewContext(ctx, loader.New(snap, loader.Options{Tracer: tracer}))
			if err := tt.load(ctx); err != nil {
				t.Fatal(err)
			}
			parent.End()
			var batches []sdktrace.ReadOnlySpan
			for _, s := range exp.GetSpans().Snapshots() {
				if s.Name() == "loader.batch" {
					batches = append(batches, s)
				}
			}
			if len(batches) != 1 {
				t.Fatalf("%d loader.batch spans, want 1", len(batches))
			}
			b := batches[0]
			if b.Parent().SpanID() != parent.SpanContext().SpanID() || b.SpanContext().TraceID() != parent.SpanContext().TraceID() {
				t.Errorf("batch's parent %s in trace %s, want the request's span %s in %s", b.Parent().SpanID(),
					b.SpanContext().TraceID(), parent.SpanContext().SpanID(), parent.SpanContext().TraceID())
			}
			got := map[string]any{}
			for _, kv := range b.Attributes() {
				got[string(kv.Key)] = kv.Value.AsInterface()
			}
			if got["loader.kind"] != "item" || got["loader.keys"] != tt.keys {
				t.Errorf("attributes %v, want loader.kind item and loader.keys %d", got, tt.keys)
			}
		})
	}
}
