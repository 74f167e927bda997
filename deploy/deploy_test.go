// Package deploy holds the gateway's Kubernetes manifests (base/, a
// kustomize base) and its container build recipe (build.sh). Its test
// decodes every manifest strictly into the Kubernetes API types, so a
// misspelt field fails here rather than at kubectl apply.
package deploy_test

import (
	"bytes"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	"sigs.k8s.io/yaml"

	"github.com/catalogue-gateway/gateway/catalogue"
	"github.com/catalogue-gateway/gateway/internal/memory"
	"github.com/catalogue-gateway/gateway/pictures"
)

// kustomization is the part of kustomize's Kustomization this base uses;
// decoding is strict, so a field not listed here fails the test.
type kustomization struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	// Namespace is where the resources go; monitoring/ must agree.
	Namespace string `json:"namespace"`
	Labels    []struct {
		Pairs            map[string]string `json:"pairs"`
		IncludeSelectors bool              `json:"includeSelectors"`
	} `json:"labels"`
	Resources []string `json:"resources"`
	Images    []struct {
		Name    string `json:"name"`
		NewTag  string `json:"newTag"`
		NewName string `json:"newName"`
	} `json:"images"`
}

// decodeStrict decodes a YAML manifest into v, refusing unknown and
// duplicate fields.
func decodeStrict(t *testing.T, path string, v any) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(raw, []byte("\n---")) {
		t.Fatalf("%s holds several documents; keep one per file", path)
	}
	if err := yaml.UnmarshalStrict(raw, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

func TestManifests(t *testing.T) {
	var k kustomization
	decodeStrict(t, "base/kustomization.yaml", &k)
	if k.Kind != "Kustomization" {
		t.Errorf("kustomization kind %q", k.Kind)
	}
	// Every manifest in base/ is a resource of the kustomization, and the
	// other way round.
	files, _ := filepath.Glob("base/*.yaml")
	var manifests []string
	for _, f := range files {
		if name := filepath.Base(f); name != "kustomization.yaml" {
			manifests = append(manifests, name)
		}
	}
	listed := slices.Clone(k.Resources)
	slices.Sort(listed)
	if !slices.Equal(listed, manifests) {
		t.Errorf("kustomization resources %q, files %q", listed, manifests)
	}

	var dep appsv1.Deployment
	decodeStrict(t, "base/deployment.yaml", &dep)
	var svc corev1.Service
	decodeStrict(t, "base/service.yaml", &svc)
	var hpa autoscalingv2.HorizontalPodAutoscaler
	decodeStrict(t, "base/hpa.yaml", &hpa)
	var pdb policyv1.PodDisruptionBudget
	decodeStrict(t, "base/pdb.yaml", &pdb)
	var np networkingv1.NetworkPolicy
	decodeStrict(t, "base/networkpolicy.yaml", &np)

	for _, m := range []struct{ kind, want, got string }{
		{"Deployment", "apps/v1", dep.APIVersion}, {"Service", "v1", svc.APIVersion},
		{"HorizontalPodAutoscaler", "autoscaling/v2", hpa.APIVersion}, {"PodDisruptionBudget", "policy/v1", pdb.APIVersion},
		{"NetworkPolicy", "networking.k8s.io/v1", np.APIVersion},
	} {
		if m.got != m.want {
			t.Errorf("%s apiVersion %q, want %q", m.kind, m.got, m.want)
		}
	}

	// The pieces point at each other.
	podLabels := dep.Spec.Template.Labels
	for name, sel := range map[string]map[string]string{
		"deployment": dep.Spec.Selector.MatchLabels, "service": svc.Spec.Selector, "pdb": pdb.Spec.Selector.MatchLabels,
		"network policy": np.Spec.PodSelector.MatchLabels,
	} {
		for k, v := range sel {
			if podLabels[k] != v {
				t.Errorf("the %s selects %s=%s, which the pods do not carry", name, k, v)
			}
		}
	}
	if ref := hpa.Spec.ScaleTargetRef; ref.Kind != "Deployment" || ref.Name != dep.Name {
		t.Errorf("the autoscaler scales %s/%s, not the deployment %s", ref.Kind, ref.Name, dep.Name)
	}
	if len(dep.Spec.Template.Spec.Containers) != 1 {
		t.Fatalf("%d containers, want 1", len(dep.Spec.Template.Spec.Containers))
	}
	c := dep.Spec.Template.Spec.Containers[0]
	if svc.Spec.Ports[0].TargetPort.StrVal != c.Ports[0].Name {
		t.Errorf("the service targets port %q; the container's is %q", svc.Spec.Ports[0].TargetPort.StrVal, c.Ports[0].Name)
	}

	// Probes on the gateway's endpoints.
	for name, p := range map[string]*corev1.Probe{"readiness": c.ReadinessProbe, "startup": c.StartupProbe, "liveness": c.LivenessProbe} {
		if p == nil || p.HTTPGet == nil {
			t.Errorf("no HTTP %s probe", name)
		}
	}
	if c.ReadinessProbe.HTTPGet.Path != "/readyz" || c.StartupProbe.HTTPGet.Path != "/readyz" || c.LivenessProbe.HTTPGet.Path != "/healthz" {
		t.Errorf("probes on %s, %s, %s; want /readyz, /readyz, /healthz",
			c.ReadinessProbe.HTTPGet.Path, c.StartupProbe.HTTPGet.Path, c.LivenessProbe.HTTPGet.Path)
	}
	if c.Resources.Requests.Cpu().IsZero() || c.Resources.Requests.Memory().IsZero() || c.Resources.Limits.Memory().IsZero() {
		t.Errorf("resources %+v: want CPU and memory requests and a memory limit", c.Resources)
	}

	// Termination matches the server's shutdown: the grace period covers
	// the shutdown delay plus the server's wait for requests in flight.
	env := map[string]string{}
	for _, e := range c.Env {
		env[e.Name] = e.Value
	}
	delay, err := time.ParseDuration(env["GATEWAY_SHUTDOWN_DELAY"])
	if err != nil || delay <= 0 {
		t.Fatalf("GATEWAY_SHUTDOWN_DELAY %q: want a positive duration (%v)", env["GATEWAY_SHUTDOWN_DELAY"], err)
	}
	grace := time.Duration(*dep.Spec.Template.Spec.TerminationGracePeriodSeconds) * time.Second
	const (
		serverShutdownWait = 15 * time.Second // internal/gateway/serve.go, shutdownTimeout
		lastTracesWait     = 5 * time.Second  // internal/telemetry/tracing.go, shutdownTimeoutTracing
	)
	if grace < delay+serverShutdownWait+lastTracesWait {
		t.Errorf("terminationGracePeriodSeconds %s < shutdown delay %s + %s + %s", grace, delay, serverShutdownWait, lastTracesWait)
	}
	// A pod is out of the endpoints before it stops listening, and one
	// missed probe (a GC pause, a busy node) does not take a serving pod
	// out.
	rp := c.ReadinessProbe
	if rp.FailureThreshold < 2 {
		t.Errorf("readiness failureThreshold %d: one missed probe takes a serving pod out; want at least 2", rp.FailureThreshold)
	}
	if notice := time.Duration(rp.PeriodSeconds*rp.FailureThreshold) * time.Second; notice >= delay {
		t.Errorf("readiness notices a draining pod after %s, not within the %s shutdown delay", notice, delay)
	}

	// The disk cache's volume is mounted where CATALOGUE_CACHE_DIR says.
	mounted := false
	for _, m := range c.VolumeMounts {
		mounted = mounted || m.MountPath == env["CATALOGUE_CACHE_DIR"]
	}
	if !mounted {
		t.Errorf("CATALOGUE_CACHE_DIR %q is not a mounted volume", env["CATALOGUE_CACHE_DIR"])
	}
	if a := dep.Spec.Template.Annotations; a["prometheus.io/scrape"] != "true" || a["prometheus.io/path"] != "/metrics" {
		t.Errorf("scrape annotations %v", a)
	}
	for name := range env {
		if !strings.HasPrefix(name, "CATALOGUE_") && !strings.HasPrefix(name, "GATEWAY_") && name != "ADDR" && !strings.HasPrefix(name, "GO") && !strings.HasPrefix(name, "OTEL_") {
			t.Errorf("env %s is not one of the gateway's", name)
		}
	}
}

// gateway returns the Deployment's one container and its environment.
func gateway(t *testing.T) (corev1.Container, map[string]string) {
	t.Helper()
	var dep appsv1.Deployment
	decodeStrict(t, "base/deployment.yaml", &dep)
	if len(dep.Spec.Template.Spec.Containers) != 1 {
		t.Fatalf("%d containers, want 1", len(dep.Spec.Template.Spec.Containers))
	}
	c := dep.Spec.Template.Spec.Containers[0]
	env := map[string]string{}
	for _, e := range c.Env {
		env[e.Name] = e.Value
	}
	return c, env
}

// byteSize parses a size as the gateway's byte flags and GOMEMLIMIT write
// it: a whole number of bytes, or with a KiB, MiB or GiB suffix.
func byteSize(s string) (int64, error) {
	digits, shift := s, 0
	for suffix, sh := range map[string]int{"KiB": 10, "MiB": 20, "GiB": 30} {
		if d, ok := strings.CutSuffix(s, suffix); ok {
			digits, shift = d, sh
		}
	}
	n, err := strconv.ParseInt(digits, 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%q is not a number of bytes such as 8MiB", s)
	}
	return n << shift, nil
}

// TestMemoryFitsTheUpstreamBound checks that what the upstream and the
// stores that outlive a request can make the gateway hold fits the pod:
//
//	heap   = 2 × 13 × CATALOGUE_MAX_UPSTREAM_BYTES + the memory budget
//	heap              ≤ GOMEMLIMIT
//	GOMEMLIMIT + 64Mi ≤ the memory limit
//
// A refresh reads the 13 collections at once, each body up to the bound,
// while the snapshot being served still holds the 13 before them: twice
// 13 bodies. The memory budget (GATEWAY_MEMORY_BUDGET, or the default the
// gateway derives from GOMEMLIMIT) covers every store that outlives a
// request: parsed documents and their plans, renderings, the response
// cache (GATEWAY_RESPONSE_CACHE_BYTES only caps its share), persisted
// queries and WebSocket buffers, each charged at its real size. That heap
// must fit under GOMEMLIMIT, or the collector runs without end and the pod
// is killed anyway; and GOMEMLIMIT bounds the heap only, so the limit
// keeps 64 MiB above it for the rest (goroutine stacks, the runtime's own,
// the binary). The base's figures: 2 × 13 × 6 MiB + 64 MiB = 220 MiB ≤ 256
// MiB, and 256 + 64 = 320 MiB ≤ 384 MiB; with the default 64 MiB bound, a
// refresh alone could need 1.6 GiB. This counts the bytes the bound lets
// in, not the records decoded from them: on the real catalogue, whose
// largest body is about 1.3 MB, those are in the measured figures the
// requests and limit come from (docs/speed.md, A replica on the real
// catalogue).
//
// Every input is read from the manifest, none from the gateway's defaults
// but the budget's derivation, so that a change to any of them, there or
// here, is checked.
func TestMemoryFitsTheUpstreamBound(t *testing.T) {
	const nonHeap = 64 << 20
	c, env := gateway(t)
	sizes := map[string]int64{}
	for _, name := range []string{"CATALOGUE_MAX_UPSTREAM_BYTES", "GOMEMLIMIT"} {
		v, ok := env[name]
		if !ok {
			t.Fatalf("the Deployment does not set %s: the memory budget needs it", name)
		}
		n, err := byteSize(v)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		sizes[name] = n
	}
	budget := memory.DefaultBudget(sizes["GOMEMLIMIT"])
	if v, ok := env["GATEWAY_MEMORY_BUDGET"]; ok && v != "0" {
		n, err := byteSize(v)
		if err != nil {
			t.Fatalf("GATEWAY_MEMORY_BUDGET: %v", err)
		}
		budget = n
	}
	limit := c.Resources.Limits.Memory().Value()
	heap := 2*int64(catalogue.NumCollections)*sizes["CATALOGUE_MAX_UPSTREAM_BYTES"] + budget
	const mib = 1 << 20
	if heap > sizes["GOMEMLIMIT"] {
		t.Errorf("2 × %d × %d MiB bodies + %d MiB memory budget = %d MiB, over GOMEMLIMIT %d MiB",
			catalogue.NumCollections, sizes["CATALOGUE_MAX_UPSTREAM_BYTES"]/mib, budget/mib,
			heap/mib, sizes["GOMEMLIMIT"]/mib)
	}
	if sizes["GOMEMLIMIT"]+nonHeap > limit {
		t.Errorf("GOMEMLIMIT %d MiB + %d MiB beside the heap > the memory limit %d MiB",
			sizes["GOMEMLIMIT"]/mib, nonHeap/mib, limit/mib)
	}
}

// TestCacheFitsTheVolume checks that what the gateway keeps under
// CATALOGUE_CACHE_DIR fits the volume mounted there, whose sizeLimit the
// kubelet enforces by evicting the pod:
//
//	(13 + 1) × CATALOGUE_MAX_UPSTREAM_BYTES   the snapshot's bodies, one being written
//	+ GATEWAY_IMAGES_DISK_BYTES + GATEWAY_IMAGES_MAX_BYTES   the pictures, one being written
//	≤ the volume's sizeLimit
//
// The pictures' variables default to the gateway's own defaults when the
// manifest leaves them out, so that dropping one is checked too.
func TestCacheFitsTheVolume(t *testing.T) {
	c, env := gateway(t)
	dir := env["CATALOGUE_CACHE_DIR"]
	if dir == "" {
		t.Skip("no CATALOGUE_CACHE_DIR: nothing kept on disk")
	}
	size := func(name string, def int64) int64 {
		v, ok := env[name]
		if !ok {
			return def
		}
		n, err := byteSize(v)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return n
	}
	var dep appsv1.Deployment
	decodeStrict(t, "base/deployment.yaml", &dep)
	var volume string
	for _, m := range c.VolumeMounts {
		if m.MountPath == dir {
			volume = m.Name
		}
	}
	var limit int64
	for _, v := range dep.Spec.Template.Spec.Volumes {
		if v.Name == volume && v.EmptyDir != nil && v.EmptyDir.SizeLimit != nil {
			limit = v.EmptyDir.SizeLimit.Value()
		}
	}
	if limit == 0 {
		t.Fatalf("no emptyDir with a sizeLimit is mounted at %s", dir)
	}
	bodies := (int64(catalogue.NumCollections) + 1) * size("CATALOGUE_MAX_UPSTREAM_BYTES", catalogue.DefaultMaxBodyBytes)
	pics := size("GATEWAY_IMAGES_DISK_BYTES", pictures.DefaultDiskBytes) + size("GATEWAY_IMAGES_MAX_BYTES", pictures.DefaultMaxBytes)
	if bodies+pics > limit {
		t.Errorf("%d MiB of bodies + %d MiB of pictures = %d MiB, over the cache volume's %d MiB",
			bodies>>20, pics>>20, (bodies+pics)>>20, limit>>20)
	}
}

// TestNetworkPolicy checks that the pods take connections on the
// gateway's port only, and open them only to DNS and to the upstream.
func TestNetworkPolicy(t *testing.T) {
	var np networkingv1.NetworkPolicy
	decodeStrict(t, "base/networkpolicy.yaml", &np)
	c, env := gateway(t)
	if !slices.Contains(np.Spec.PolicyTypes, networkingv1.PolicyTypeIngress) || !slices.Contains(np.Spec.PolicyTypes, networkingv1.PolicyTypeEgress) {
		t.Errorf("policyTypes %v, want Ingress and Egress", np.Spec.PolicyTypes)
	}

	// A rule without ports allows every port: each must list its own.
	ports := func(kind string, rules [][]networkingv1.NetworkPolicyPort) []string {
		var out []string
		for i, rule := range rules {
			if len(rule) == 0 {
				t.Errorf("%s rule %d allows every port", kind, i)
			}
			for _, p := range rule {
				if p.Port == nil || p.Protocol == nil || p.EndPort != nil {
					t.Errorf("%s rule %d: port %+v, want one port and its protocol", kind, i, p)
					continue
				}
				port := p.Port.String()
				if p.Port.IntValue() == int(c.Ports[0].ContainerPort) {
					port = c.Ports[0].Name // the same port, by number
				}
				out = append(out, port+"/"+string(*p.Protocol))
			}
		}
		slices.Sort(out)
		return out
	}
	var ingress, egress [][]networkingv1.NetworkPolicyPort
	for _, r := range np.Spec.Ingress {
		ingress = append(ingress, r.Ports)
	}
	for _, r := range np.Spec.Egress {
		egress = append(egress, r.Ports)
	}
	if got, want := ports("ingress", ingress), []string{c.Ports[0].Name + "/TCP"}; !slices.Equal(got, want) {
		t.Errorf("ingress to %q, want only the gateway's port %q", got, want)
	}
	// The upstream is assumed on 443 (see the manifest); a base URL set
	// here must be reachable.
	upstream := "443/TCP"
	if base := env["CATALOGUE_BASE_URL"]; base != "" {
		u, err := url.Parse(base)
		if err != nil {
			t.Fatalf("CATALOGUE_BASE_URL %q: %v", base, err)
		}
		if p := u.Port(); p != "" {
			upstream = p + "/TCP"
		} else if u.Scheme == "http" {
			upstream = "80/TCP"
		}
	}
	want := []string{"53/TCP", "53/UDP", upstream}
	slices.Sort(want)
	if got := ports("egress", egress); !slices.Equal(got, want) {
		t.Errorf("egress to %q, want DNS and the upstream only: %q", got, want)
	}
}

// TestImagePinned checks that the image the base deploys, after
// kustomize's images rewrite, names a release: not latest, nor no tag
// (which is latest).
func TestImagePinned(t *testing.T) {
	var k kustomization
	decodeStrict(t, "base/kustomization.yaml", &k)
	c, _ := gateway(t)
	name, version := splitImage(c.Image)
	for _, rule := range k.Images {
		if rule.Name != name {
			continue
		}
		if rule.NewName != "" {
			name = rule.NewName
		}
		if rule.NewTag != "" {
			version = ":" + rule.NewTag
		}
		break
	}
	if err := pinned(name + version); err != nil {
		t.Error(err)
	}
}

// splitImage splits an image reference into its name and its tag or
// digest (":1.0.0", "@sha256:…", or "").
func splitImage(ref string) (name, version string) {
	if i := strings.IndexByte(ref, '@'); i >= 0 {
		return ref[:i], ref[i:]
	}
	// A colon after the last slash starts the tag; one before it is a
	// registry's port.
	if i := strings.LastIndexByte(ref, ':'); i > strings.LastIndexByte(ref, '/') {
		return ref[:i], ref[i:]
	}
	return ref, ""
}

// pinned says why ref does not name one release, or nil if it does.
func pinned(ref string) error {
	switch _, version := splitImage(ref); version {
	case "":
		return fmt.Errorf("image %q has no tag, which pulls latest: want a release tag or a digest", ref)
	case ":latest":
		return fmt.Errorf("image %q: latest moves; want a release tag or a digest", ref)
	}
	return nil
}

func TestPinned(t *testing.T) {
	for _, tt := range []struct {
		ref string
		ok  bool
	}{
		{"catalogue-gateway:1.0.0", true},
		{"images.example:5000/catalogue-gateway:1.0.0", true},
		{"catalogue-gateway@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", true},
		{"catalogue-gateway", false},
		{"catalogue-gateway:latest", false},
		{"images.example:5000/catalogue-gateway", false},
		{"images.example:5000/catalogue-gateway:latest", false},
	} {
		t.Run(tt.ref, func(t *testing.T) {
			if err := pinned(tt.ref); (err == nil) != tt.ok {
				t.Errorf("pinned(%q) = %v, want ok %v", tt.ref, err, tt.ok)
			}
		})
	}
}
