package gateway_test

// The monitoring that ships in deploy/monitoring names metrics by hand, in
// PromQL: a rule or a panel naming a metric the gateway does not export
// would never fire or never draw, and nothing else would say so. These
// tests read every expression there and check each name against what the
// real gateway, reading a stand-in upstream, serves at /metrics.

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"

	"github.com/catalogue-gateway/gateway/internal/config"
	"github.com/catalogue-gateway/gateway/internal/gatewaytest"
)

// monitoringExprs returns every PromQL expression deploy/monitoring holds
// (the rules', the dashboard's panels'), each with where it comes from,
// the metrics the dashboard's variables read, and the names the recording
// rules define.
func monitoringExprs(t *testing.T) (exprs map[string]string, variables []string, recorded map[string]bool) {
	t.Helper()
	raw, err := os.ReadFile("../../deploy/monitoring/prometheusrule.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var rule struct {
		Spec struct {
			Groups []struct {
				Rules []struct{ Record, Alert, Expr string }
			}
		}
	}
	if err := yaml.Unmarshal(raw, &rule); err != nil {
		t.Fatalf("prometheusrule.yaml: %v", err)
	}
	exprs, recorded = map[string]string{}, map[string]bool{}
	for _, g := range rule.Spec.Groups {
		for _, r := range g.Rules {
			if r.Record != "" {
				recorded[r.Record] = true
				exprs["record "+r.Record] = r.Expr
			} else {
				exprs["alert "+r.Alert] = r.Expr
			}
		}
	}

	raw, err = os.ReadFile("../../deploy/monitoring/dashboard.json")
	if err != nil {
		t.Fatal(err)
	}
	var dash struct {
		Panels []struct {
			Title   string
			Targets []struct{ RefID, Expr string }
		}
		Templating struct {
			List []struct{ Name, Type, Query string }
		}
	}
	if err := json.Unmarshal(raw, &dash); err != nil {
		t.Fatalf("dashboard.json: %v", err)
	}
	for _, p := range dash.Panels {
		if len(p.Targets) == 0 {
			t.Errorf("dashboard panel %q has no query", p.Title)
		}
		for _, q := range p.Targets {
			exprs["panel "+p.Title+" "+q.RefID] = q.Expr
		}
	}
	labelValues := regexp.MustCompile(`^label_values\(([a-zA-Z_:][a-zA-Z0-9_:]*)`)
	for _, v := range dash.Templating.List {
		if v.Type != "query" {
			continue
		}
		m := labelValues.FindStringSubmatch(v.Query)
		if m == nil {
			t.Errorf("dashboard variable %s: query %q, want label_values(metric…)", v.Name, v.Query)
			continue
		}
		variables = append(variables, m[1])
	}
	if len(exprs) == 0 {
		t.Fatal("no expressions in deploy/monitoring")
	}
	return exprs, variables, recorded
}

// TestMonitoringNamesExportedMetrics scrapes the real gateway, after a
// refresh of a stand-in upstream, a GraphQL request and a subscription
// stream, and checks that
// every metric a rule, a panel or a dashboard variable names is among its
// families (a histogram's by its _bucket, _sum and _count series), or is
// one a recording rule makes; and that every bucket a rule picks by its le
// label exists.
func TestMonitoringNamesExportedMetrics(t *testing.T) {
	exprs, variables, recorded := monitoringExprs(t)

	u := newUpstreams(t)
	g := startGateway(t, u.config(time.Hour, ""), nil)
	g.waitReady(t, readyWithin)
	g.graphQLOK(t, itemsQuery)
	g.streamFor(t, 0)
	resp, body := gatewaytest.Get(t, g.client, g.URL+"/metrics")
	if resp.StatusCode != 200 {
		t.Fatalf("/metrics status %d", resp.StatusCode)
	}
	scrape := string(body)
	types := map[string]string{} // family → counter, gauge, histogram…
	for line := range strings.Lines(scrape) {
		if f := strings.Fields(line); len(f) == 4 && f[0] == "#" && f[1] == "TYPE" {
			types[f[2]] = f[3]
		}
	}

	exported := func(name string) bool {
		if recorded[name] {
			return true
		}
		if typ, ok := types[name]; ok {
			return typ != "histogram" && typ != "summary" // those are read by their series
		}
		for _, suffix := range []string{"_bucket", "_sum", "_count"} {
			if base, ok := strings.CutSuffix(name, suffix); ok && types[base] == "histogram" {
				return true
			}
		}
		return false
	}
	names := 0
	for where, expr := range exprs {
		for _, name := range metricNames(expr) {
			names++
			if !exported(name) {
				t.Errorf("%s names %s, which /metrics does not have", where, name)
			}
		}
		for _, m := range bucketMatcher.FindAllStringSubmatch(expr, -1) {
			if !strings.Contains(scrape, m[1]+"{") || !regexp.MustCompile(regexp.QuoteMeta(m[1])+`\{[^}]*le="`+regexp.QuoteMeta(m[2])+`"`).MatchString(scrape) {
				t.Errorf("%s picks the bucket %s{le=%q}, which /metrics does not have", where, m[1], m[2])
			}
		}
	}
	for _, name := range variables {
		if !exported(name) {
			t.Errorf("a dashboard variable reads %s, which /metrics does not have", name)
		}
	}
	if names < len(exprs) {
		t.Errorf("%d metric names in %d expressions: the lexer misses names", names, len(exprs))
	}

	// The timestamp is of the refresh just done, not of some other clock.
	m := g.metrics(t)
	ts := m[`catalogue_last_good_read_timestamp_seconds{collection="items"}`]
	if now := float64(time.Now().Unix()); ts < now-readyWithin.Seconds()-5 || ts > now+1 {
		t.Errorf("catalogue_last_good_read_timestamp_seconds{items} = %v, want about now (%v)", ts, now)
	}
	if got := m["catalogue_refresh_interval_seconds"]; got != time.Hour.Seconds() {
		t.Errorf("catalogue_refresh_interval_seconds = %v, want %v", got, time.Hour.Seconds())
	}
	if got := m["graphql_subscriptions_max"]; got != float64(config.Default().MaxSubscriptions) {
		t.Errorf("graphql_subscriptions_max = %v, want %d", got, config.Default().MaxSubscriptions)
	}
}

// bucketMatcher finds a histogram bucket picked by its le label in PromQL:
// the series name and the bound.
var bucketMatcher = regexp.MustCompile(`([a-zA-Z_:][a-zA-Z0-9_:]*_bucket)\{[^}]*\ble="([^"]+)"`)

// promQLWords are PromQL's keywords, aggregations and functions: the names
// in an expression that are not metrics. Functions are known by the "("
// after them; these are the words that may stand without one.
var promQLWords = map[string]bool{
	"and": true, "or": true, "unless": true, "bool": true, "offset": true, "atan2": true, "inf": true, "nan": true,
	"sum": true, "min": true, "max": true, "avg": true, "group": true, "stddev": true, "stdvar": true,
	"count": true, "count_values": true, "bottomk": true, "topk": true, "quantile": true, "limitk": true, "limit_ratio": true,
}

// promQLLabelLists are the words followed by a list of label names.
var promQLLabelLists = map[string]bool{
	"by": true, "without": true, "on": true, "ignoring": true, "group_left": true, "group_right": true,
}

// metricNames returns the metric names an expression reads: the
// identifiers left once strings, label matchers, ranges, Grafana's
// variables, numbers, label lists, keywords and function names are set
// aside. It is a lexer, not a parser: enough for the expressions we
// write, and tested below.
func metricNames(expr string) []string {
	var out []string
	isIdent := func(c byte, first bool) bool {
		return c == '_' || c == ':' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || !first && '0' <= c && c <= '9'
	}
	// skip returns the index after the closing byte matching the opening
	// one at i, stepping over quoted strings.
	skip := func(i int, closing byte) int {
		for i++; i < len(expr) && expr[i] != closing; i++ {
			if q := expr[i]; q == '"' || q == '\'' || q == '`' {
				for i++; i < len(expr) && expr[i] != q; i++ {
					if expr[i] == '\\' {
						i++
					}
				}
			}
		}
		return i + 1
	}
	nextNonSpace := func(i int) int {
		for i < len(expr) && strings.ContainsRune(" \t\n", rune(expr[i])) {
			i++
		}
		return i
	}
	for i := 0; i < len(expr); {
		c := expr[i]
		switch {
		case c == '"' || c == '\'' || c == '`':
			i = skip(i, c)
		case c == '{':
			i = skip(i, '}')
		case c == '[':
			i = skip(i, ']')
		case c == '$': // a Grafana variable: $name or ${name}
			i++
			if i < len(expr) && expr[i] == '{' {
				i = skip(i, '}')
			}
			for i < len(expr) && isIdent(expr[i], false) {
				i++
			}
		case '0' <= c && c <= '9' || c == '.':
			for i < len(expr) && (isIdent(expr[i], false) || expr[i] == '.') {
				i++
			}
		case isIdent(c, true):
			j := i
			for j < len(expr) && isIdent(expr[j], false) {
				j++
			}
			word, next := expr[i:j], nextNonSpace(j)
			switch {
			case promQLLabelLists[word]:
				if next < len(expr) && expr[next] == '(' {
					j = skip(next, ')')
				}
			case promQLWords[strings.ToLower(word)]:
			case next < len(expr) && expr[next] == '(': // a function
			default:
				out = append(out, word)
			}
			i = j
		default:
			i++
		}
	}
	return out
}

func TestMetricNames(t *testing.T) {
	for _, tt := range []struct {
		expr string
		want []string
	}{
		{`up`, []string{"up"}},
		{`sum by (namespace, job, le) (rate(graphql_request_duration_seconds_bucket{outcome!="rejected", le!="+Inf"}[5m]))`,
			[]string{"graphql_request_duration_seconds_bucket"}},
		{`label_replace(sum by (le) (rate(x_bucket{le="13.1072"}[5m])), "le", "+Inf", "le", ".*")`, []string{"x_bucket"}},
		{`(time() - a_seconds) > ignoring(collection) group_left 3 * b_seconds or (c == 1 unless on(job, instance, collection) d and on(job) e)`,
			[]string{"a_seconds", "b_seconds", "c", "d", "e"}},
		{`histogram_quantile(0.99, job:x:rate5m)`, []string{"job:x:rate5m"}},
		{`sum(rate(m_total{namespace="$namespace", job="$job"}[$__rate_interval])) / sum(m_total offset 1h)`, []string{"m_total", "m_total"}},
		{`max(go_gc_gomemlimit_bytes < 1e18) > bool 0.9`, []string{"go_gc_gomemlimit_bytes"}},
		{`count by (version) (gateway_build_info{job=~"a|b}"})`, []string{"gateway_build_info"}},
		{`topk(5, sum without (instance) (y))`, []string{"y"}},
	} {
		if diff := cmp.Diff(tt.want, metricNames(tt.expr)); diff != "" {
			t.Errorf("metricNames(%q) (-want +got):\n%s", tt.expr, diff)
		}
	}
}
