package deploy_test

import (
	"context"
	"encoding/json"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// The Prometheus Operator's kinds, as much of them as monitoring/ uses;
// decoding is strict, so a field not listed here (a misspelt one among
// them) fails the test. The operator's own Go types would bring its
// module and its dependencies for two small shapes.
type (
	monitoringKustomization struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Namespace  string `json:"namespace"`
		Labels     []struct {
			Pairs            map[string]string `json:"pairs"`
			IncludeSelectors bool              `json:"includeSelectors"`
		} `json:"labels"`
		Resources          []string `json:"resources"`
		ConfigMapGenerator []struct {
			Name    string   `json:"name"`
			Files   []string `json:"files"`
			Options struct {
				DisableNameSuffixHash bool              `json:"disableNameSuffixHash"`
				Labels                map[string]string `json:"labels"`
			} `json:"options"`
		} `json:"configMapGenerator"`
	}
	serviceMonitor struct {
		APIVersion string            `json:"apiVersion"`
		Kind       string            `json:"kind"`
		Metadata   metav1.ObjectMeta `json:"metadata"`
		Spec       struct {
			Selector          metav1.LabelSelector `json:"selector"`
			NamespaceSelector *struct {
				Any        bool     `json:"any"`
				MatchNames []string `json:"matchNames"`
			} `json:"namespaceSelector"`
			Endpoints []struct {
				Port          string `json:"port"`
				Path          string `json:"path"`
				Interval      string `json:"interval"`
				ScrapeTimeout string `json:"scrapeTimeout"`
			} `json:"endpoints"`
		} `json:"spec"`
	}
	prometheusRule struct {
		APIVersion string            `json:"apiVersion"`
		Kind       string            `json:"kind"`
		Metadata   metav1.ObjectMeta `json:"metadata"`
		Spec       ruleFile          `json:"spec"`
	}
	// ruleFile is also Prometheus's rule file format, which promtool
	// reads: the PrometheusRule's spec is one.
	ruleFile struct {
		Groups []struct {
			Name  string `json:"name"`
			Rules []struct {
				Record      string            `json:"record,omitempty"`
				Alert       string            `json:"alert,omitempty"`
				Expr        string            `json:"expr"`
				For         string            `json:"for,omitempty"`
				Labels      map[string]string `json:"labels,omitempty"`
				Annotations map[string]string `json:"annotations,omitempty"`
			} `json:"rules"`
		} `json:"groups"`
	}
)

// TestMonitoringManifests checks that monitoring/ parses, lists its files,
// and fits the base: the ServiceMonitor selects the Service by labels the
// Service carries once kustomized, scrapes its named port at the path the
// pods' scrape annotations give, in the namespace the base goes to.
func TestMonitoringManifests(t *testing.T) {
	var k monitoringKustomization
	decodeStrict(t, "monitoring/kustomization.yaml", &k)
	var base kustomization
	decodeStrict(t, "base/kustomization.yaml", &base)
	if k.Kind != "Kustomization" || k.APIVersion != base.APIVersion {
		t.Errorf("monitoring kustomization %s %s, want Kustomization %s", k.APIVersion, k.Kind, base.APIVersion)
	}
	files, _ := filepath.Glob("monitoring/*.yaml")
	var manifests []string
	for _, f := range files {
		if name := filepath.Base(f); name != "kustomization.yaml" {
			manifests = append(manifests, name)
		}
	}
	if listed := slices.Sorted(slices.Values(k.Resources)); !slices.Equal(listed, manifests) {
		t.Errorf("monitoring resources %q, files %q", listed, manifests)
	}

	// The dashboard's ConfigMap: a file that is a dashboard, labelled for
	// Grafana's sidecar, under a name that does not change with it.
	if len(k.ConfigMapGenerator) != 1 || len(k.ConfigMapGenerator[0].Files) != 1 {
		t.Fatalf("configMapGenerator %+v: want one ConfigMap of one file, the dashboard", k.ConfigMapGenerator)
	}
	gen := k.ConfigMapGenerator[0]
	key, file, ok := strings.Cut(gen.Files[0], "=")
	if !ok || !strings.HasSuffix(key, ".json") {
		t.Errorf("configMapGenerator file %q: want name.json=file", gen.Files[0])
	}
	if gen.Options.Labels["grafana_dashboard"] != "1" || !gen.Options.DisableNameSuffixHash {
		t.Errorf("dashboard ConfigMap options %+v: want the grafana_dashboard label and a fixed name", gen.Options)
	}
	raw, err := os.ReadFile(filepath.Join("monitoring", file))
	if err != nil {
		t.Fatal(err)
	}
	var dash struct {
		UID, Title string
		Panels     []json.RawMessage
	}
	if err := json.Unmarshal(raw, &dash); err != nil || dash.UID == "" || dash.Title == "" || len(dash.Panels) == 0 {
		t.Errorf("%s: not a dashboard with a uid, a title and panels (%v)", file, err)
	}

	// The ServiceMonitor finds the Service and scrapes what the pods serve.
	var sm serviceMonitor
	decodeStrict(t, "monitoring/servicemonitor.yaml", &sm)
	var svc corev1.Service
	decodeStrict(t, "base/service.yaml", &svc)
	var dep appsv1.Deployment
	decodeStrict(t, "base/deployment.yaml", &dep)
	if sm.APIVersion != "monitoring.coreos.com/v1" || sm.Kind != "ServiceMonitor" {
		t.Errorf("servicemonitor.yaml: %s %s", sm.APIVersion, sm.Kind)
	}
	// The Service's labels are its own and those the base's kustomization
	// gives every resource.
	svcLabels := maps.Clone(svc.Labels)
	if svcLabels == nil {
		svcLabels = map[string]string{}
	}
	for _, l := range base.Labels {
		maps.Copy(svcLabels, l.Pairs)
	}
	if len(sm.Spec.Selector.MatchLabels) == 0 || len(sm.Spec.Selector.MatchExpressions) > 0 {
		t.Errorf("the ServiceMonitor selects by %+v: want matchLabels only", sm.Spec.Selector)
	}
	for key, v := range sm.Spec.Selector.MatchLabels {
		if svcLabels[key] != v {
			t.Errorf("the ServiceMonitor selects %s=%s, which the Service (labels %v) does not carry", key, v, svcLabels)
		}
	}
	// Same namespace: the ServiceMonitor looks in its own, and both
	// kustomizations send their resources to the same one.
	if sm.Spec.NamespaceSelector != nil {
		t.Errorf("namespaceSelector %+v: the ServiceMonitor goes beside the Service, and looks in its own namespace", sm.Spec.NamespaceSelector)
	}
	if k.Namespace != base.Namespace || sm.Metadata.Namespace != svc.Namespace {
		t.Errorf("namespaces: monitoring %q/%q, base %q/%q; want the same", k.Namespace, sm.Metadata.Namespace, base.Namespace, svc.Namespace)
	}
	svcPorts := map[string]bool{}
	for _, p := range svc.Spec.Ports {
		svcPorts[p.Name] = true
	}
	path := dep.Spec.Template.Annotations["prometheus.io/path"]
	if len(sm.Spec.Endpoints) != 1 {
		t.Fatalf("%d ServiceMonitor endpoints, want 1", len(sm.Spec.Endpoints))
	}
	for _, e := range sm.Spec.Endpoints {
		if !svcPorts[e.Port] {
			t.Errorf("the ServiceMonitor scrapes port %q; the Service's are %v", e.Port, slices.Collect(maps.Keys(svcPorts)))
		}
		if e.Path != path {
			t.Errorf("the ServiceMonitor scrapes %q; the pods' annotations say %q", e.Path, path)
		}
		interval, err1 := time.ParseDuration(e.Interval)
		timeout, err2 := time.ParseDuration(e.ScrapeTimeout)
		if err1 != nil || err2 != nil || timeout > interval {
			t.Errorf("scrape interval %q, timeout %q: want durations, the timeout within the interval", e.Interval, e.ScrapeTimeout)
		}
	}

	// The PrometheusRule: every alert has a severity, words for people, a
	// test of its own (monitoring/tests/<alert>.yaml), and every test an
	// alert.
	var pr prometheusRule
	decodeStrict(t, "monitoring/prometheusrule.yaml", &pr)
	if pr.APIVersion != "monitoring.coreos.com/v1" || pr.Kind != "PrometheusRule" || sm.Metadata.Namespace != pr.Metadata.Namespace {
		t.Errorf("prometheusrule.yaml: %s %s in %q", pr.APIVersion, pr.Kind, pr.Metadata.Namespace)
	}
	var alerts []string
	for _, g := range pr.Spec.Groups {
		for _, r := range g.Rules {
			if (r.Alert == "") == (r.Record == "") {
				t.Errorf("group %s: a rule with alert %q and record %q: want one of them", g.Name, r.Alert, r.Record)
			}
			if r.Alert == "" {
				continue
			}
			alerts = append(alerts, r.Alert)
			if s := r.Labels["severity"]; s != "critical" && s != "warning" {
				t.Errorf("alert %s: severity %q, want critical or warning", r.Alert, s)
			}
			for _, a := range []string{"summary", "description", "runbook"} {
				if r.Annotations[a] == "" {
					t.Errorf("alert %s has no %s annotation", r.Alert, a)
				}
			}
			if _, err := time.ParseDuration(r.For); err != nil {
				t.Errorf("alert %s: for %q: want a duration, so that one bad scrape does not page", r.Alert, r.For)
			}
		}
	}
	slices.Sort(alerts)
	var tested []string
	tests, _ := filepath.Glob("monitoring/tests/*.yaml")
	for _, f := range tests {
		name := strings.TrimSuffix(filepath.Base(f), ".yaml")
		tested = append(tested, name)
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var unit struct {
			RuleFiles []string `json:"rule_files"`
			Tests     []struct {
				AlertRuleTest []struct {
					Alertname string `json:"alertname"`
					ExpAlerts []any  `json:"exp_alerts"`
				} `json:"alert_rule_test"`
			} `json:"tests"`
		}
		if err := yaml.Unmarshal(raw, &unit); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if !slices.Equal(unit.RuleFiles, []string{"rules.yaml"}) {
			t.Errorf("%s: rule_files %q, want [rules.yaml] (the PrometheusRule's spec, written there by TestPromtool)", f, unit.RuleFiles)
		}
		fires, quiet := false, false
		for _, tc := range unit.Tests {
			for _, a := range tc.AlertRuleTest {
				if a.Alertname != name {
					t.Errorf("%s tests %s; each file tests the alert it is named for", f, a.Alertname)
				}
				fires, quiet = fires || len(a.ExpAlerts) > 0, quiet || len(a.ExpAlerts) == 0
			}
		}
		if !fires || !quiet {
			t.Errorf("%s: want a case where %s fires and one where it does not", f, name)
		}
	}
	if !slices.Equal(alerts, tested) {
		t.Errorf("alerts %q, test files %q: want one test file per alert", alerts, tested)
	}
}

// TestPromtool runs promtool on the PrometheusRule's spec: `check rules`,
// then `test rules` with each of monitoring/tests. Without promtool the
// test is skipped, unless GATEWAY_TEST_REQUIRE_PROMTOOL=1 (as in CI,
// which installs it) makes that a failure.
func TestPromtool(t *testing.T) {
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		if os.Getenv("GATEWAY_TEST_REQUIRE_PROMTOOL") == "1" {
			t.Fatal("promtool not found, and GATEWAY_TEST_REQUIRE_PROMTOOL=1")
		}
		t.Skip("promtool not found (Debian: apt-get install prometheus)")
	}
	var pr prometheusRule
	decodeStrict(t, "monitoring/prometheusrule.yaml", &pr)
	rules, err := yaml.Marshal(pr.Spec)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "rules.yaml"), rules, 0o644); err != nil {
		t.Fatal(err)
	}
	tests, _ := filepath.Glob("monitoring/tests/*.yaml")
	args := []string{"test", "rules"}
	for _, f := range tests {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(f)), raw, 0o644); err != nil {
			t.Fatal(err)
		}
		args = append(args, filepath.Base(f))
	}
	for _, args := range [][]string{{"check", "rules", "rules.yaml"}, args} {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		cmd := exec.CommandContext(ctx, promtool, args...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		cancel()
		if err != nil {
			t.Errorf("promtool %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
}
