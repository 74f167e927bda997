package gateway_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/catalogue-gateway/gateway/catalogue"
	"github.com/catalogue-gateway/gateway/internal/gatewaytest"
)

// TestReplicasBehindNginx runs the gateway as it scales out: three
// processes of the real binary reading one upstream, behind nginx as a
// round-robin balancer, and checks that which replica answers never shows.
//
// It needs nginx (Debian's nginx-light). Without it the test is skipped,
// unless GATEWAY_TEST_REQUIRE_NGINX=1, as in CI, makes that a failure.
func TestReplicasBehindNginx(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary, and nginx")
	}
	nginx, err := exec.LookPath("nginx")
	if err != nil {
		nginx = "/usr/sbin/nginx"
		if _, err := os.Stat(nginx); err != nil {
			if os.Getenv("GATEWAY_TEST_REQUIRE_NGINX") == "1" {
				t.Fatal("nginx is required (GATEWAY_TEST_REQUIRE_NGINX=1) and not installed")
			}
			t.Skip("no nginx; apt-get install nginx-light")
		}
	}

	bodies := map[catalogue.Collection][]byte{}
	for c := range catalogue.NumCollections {
		b, err := os.ReadFile(filepath.Join("..", "..", "catalogue", "embedded", c.String()+".json"))
		if err != nil {
			t.Fatal(err)
		}
		bodies[c] = b
	}
	up := newUpstreamsOf(t, bodies)

	bin := gatewaytest.Build(t)
	const refresh = 2 * time.Second
	replicas := make([]*gatewaytest.Gateway, 3)
	for i := range replicas {
		replicas[i] = gatewaytest.Start(t, gatewaytest.Options{Binary: bin, Cold: true, Args: []string{
			"-base-url", up.Base.URL, "-worldboss-url", up.Boss.URL,
			"-refresh", refresh.String(), "-shutdown-delay", "500ms", "-access-log=false"}})
	}
	for _, r := range replicas {
		waitReadyAt(t, "http://"+r.Addr)
	}
	lb := startNginx(t, nginx, replicas)
	client := &http.Client{Timeout: 20 * time.Second}

	// answeredBy sends req through the balancer and returns the response,
	// its body and the replica that answered it.
	send := func(t *testing.T, req *http.Request) (*http.Response, []byte, string) {
		t.Helper()
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("%s %s: %v", req.Method, req.URL.Path, err)
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp, body, resp.Header.Get("X-Replica")
	}
	get := func(t *testing.T, path string, header map[string]string) (*http.Response, []byte, string) {
		t.Helper()
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, lb+path, nil)
		for k, v := range header {
			req.Header.Set(k, v)
		}
		return send(t, req)
	}

	t.Run("the upstream sees one conditional request per replica per collection per refresh", func(t *testing.T) {
		// Requests are counted as they arrive and answers as they go, so
		// a refresh in flight at either edge of the window is counted by
		// one and not the other: "all conditional" is read as no whole
		// body sent in the window.
		before := map[catalogue.Collection][2]int{}
		for c := range catalogue.NumCollections {
			before[c] = [2]int{up.Of(c).Requests(c), up.Of(c).Full(c)}
		}
		window := 3 * refresh
		time.Sleep(window)
		// Each replica refreshes every 2 s on its own clock: over 6 s, at
		// most 4 rounds each (a round may straddle each edge).
		maxRequests := len(replicas) * int(window/refresh+1)
		for c := range catalogue.NumCollections {
			n := up.Of(c).Requests(c) - before[c][0]
			full := up.Of(c).Full(c) - before[c][1]
			if n < len(replicas) || n > maxRequests || full != 0 {
				t.Errorf("%s: %d requests (%d answered with the whole body) in %s from %d replicas refreshing every %s; want %d to %d, all conditional",
					c.Path(), n, full, window, len(replicas), refresh, len(replicas), maxRequests)
			}
		}
	})

	t.Run("paging with cursors returns every record once, whichever replica answers", func(t *testing.T) {
		want := map[int64]bool{}
		snap := catalogue.NewSnapshot(mustDecode(t, catalogue.Items, bodies[catalogue.Items]))
		for i := range snap.Items().Len() {
			want[snap.Items().IDAt(i)] = true
		}
		seen := map[int64]int{}
		answeredBy := map[string]bool{}
		var after any // null on the first page
		for page := 0; ; page++ {
			if page > len(want) {
				t.Fatal("paging does not end")
			}
			vars, _ := json.Marshal(map[string]any{"after": after})
			q := url.Values{"query": {`query Page($after: String) { items(first: 97, after: $after) { nodes { id } pageInfo { hasNextPage endCursor } } }`},
				"variables": {string(vars)}}
			resp, body, by := get(t, "/graphql?"+q.Encode(), nil)
			answeredBy[by] = true
			var r struct {
				Data struct {
					Items struct {
						Nodes    []struct{ ID int64 }
						PageInfo struct {
							HasNextPage bool
							EndCursor   string
						}
					}
				}
			}
			if err := json.Unmarshal(body, &r); err != nil || resp.StatusCode != http.StatusOK {
				t.Fatalf("page %d: %d %.200s", page, resp.StatusCode, body)
			}
			for _, n := range r.Data.Items.Nodes {
				seen[n.ID]++
			}
			if !r.Data.Items.PageInfo.HasNextPage {
				break
			}
			after = r.Data.Items.PageInfo.EndCursor
		}
		for id := range want {
			if seen[id] != 1 {
				t.Errorf("item %d seen %d times", id, seen[id])
			}
		}
		if len(seen) != len(want) {
			t.Errorf("%d distinct items, want %d", len(seen), len(want))
		}
		if len(answeredBy) != len(replicas) {
			t.Errorf("pages answered by %v, want all %d replicas", answeredBy, len(replicas))
		}
	})

	t.Run("ETags agree across replicas, and each answers If-None-Match with 304", func(t *testing.T) {
		q := url.Values{"query": {`{ monsters(first: 20) { nodes { id name drops { item { name } } } } }`}}
		for _, path := range []string{"/graphql?" + q.Encode(), "/items", "/worldboss"} {
			for _, enc := range []string{"", "gzip"} {
				tags := map[string]string{} // replica → ETag
				header := map[string]string{"Accept-Encoding": enc}
				for range 2 * len(replicas) {
					resp, _, by := get(t, path, header)
					if resp.StatusCode != http.StatusOK {
						t.Fatalf("%s: %d", path, resp.StatusCode)
					}
					tags[by] = resp.Header.Get("ETag")
				}
				if len(tags) != len(replicas) {
					t.Fatalf("%s answered by %d replicas, want %d", path, len(tags), len(replicas))
				}
				var etag string
				for _, tag := range tags {
					if etag == "" {
						etag = tag
					}
					if tag == "" || tag != etag {
						t.Errorf("%s (%q): replicas' ETags %v differ", path, enc, tags)
						break
					}
				}
				revalidated := map[string]bool{}
				header["If-None-Match"] = etag
				for range 2 * len(replicas) {
					resp, _, by := get(t, path, header)
					if resp.StatusCode != http.StatusNotModified {
						t.Errorf("%s with If-None-Match from replica %s: %d, want 304", path, by, resp.StatusCode)
					}
					revalidated[by] = true
				}
				if len(revalidated) != len(replicas) {
					t.Errorf("%s: 304s came from %d replicas, want %d", path, len(revalidated), len(replicas))
				}
			}
		}
	})

	t.Run("a replica stopped mid-load costs no failed request", func(t *testing.T) {
		q := url.Values{"query": {`{ item(id: 197) { name droppedByMonsters { name } } }`}}
		paths := []string{"/graphql?" + q.Encode(), "/monsters", "/readyz"}
		var sent, failed atomic.Int64
		var failures sync.Map
		stop := make(chan struct{})
		var wg sync.WaitGroup
		for w := range 4 {
			wg.Go(func() {
				for i := 0; ; i++ {
					select {
					case <-stop:
						return
					default:
					}
					path := paths[(w+i)%len(paths)]
					req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, lb+path, nil)
					resp, err := client.Do(req)
					sent.Add(1)
					if err != nil {
						failed.Add(1)
						failures.Store(path, err.Error())
						continue
					}
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if resp.StatusCode != http.StatusOK {
						failed.Add(1)
						failures.Store(path, fmt.Sprintf("%d from %s", resp.StatusCode, resp.Header.Get("X-Replica")))
					}
				}
			})
		}
		time.Sleep(time.Second)
		victim := replicas[1]
		victim.Cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-victim.Exited:
		case <-time.After(20 * time.Second):
			t.Error("the stopped replica did not exit within 20s")
		}
		time.Sleep(time.Second) // and on without it
		close(stop)
		wg.Wait()
		if victim.Cmd.ProcessState != nil && !victim.Cmd.ProcessState.Success() {
			t.Errorf("the stopped replica exited with %v", victim.Cmd.ProcessState)
		}
		if failed.Load() != 0 {
			failures.Range(func(k, v any) bool { t.Errorf("%s: %s", k, v); return true })
			t.Errorf("%d of %d requests failed while a replica stopped", failed.Load(), sent.Load())
		}
		if sent.Load() < 20 {
			t.Errorf("only %d requests sent", sent.Load())
		}
		t.Logf("%d requests while replica %s stopped", sent.Load(), victim.Addr)
	})
}

// waitReadyAt waits, at most 30 s, until /readyz at base answers 200.
func waitReadyAt(t *testing.T, base string) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; {
		resp, err := http.Get(base + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s was not ready within 30s", base)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// startNginx runs nginx as a round-robin balancer in front of replicas, on
// a free loopback port, and returns its base URL. Idempotent requests that
// meet a closed or failing replica are retried on the next one; each answer
// names its replica in X-Replica.
func startNginx(t *testing.T, nginx string, replicas []*gatewaytest.Gateway) string {
	t.Helper()
	dir := t.TempDir()
	os.Chmod(dir, 0o755) // nginx's workers drop root, when it has it
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	var servers strings.Builder
	for _, r := range replicas {
		fmt.Fprintf(&servers, "    server %s;\n", r.Addr)
	}
	user := ""
	if os.Geteuid() == 0 {
		user = "user root;"
	}
	conf := fmt.Sprintf(`%s
worker_processes 1;
error_log %[2]s/error.log warn;
pid %[2]s/nginx.pid;
events { worker_connections 512; }
http {
  access_log off;
  client_body_temp_path %[2]s/body;
  proxy_temp_path %[2]s/proxy;
  fastcgi_temp_path %[2]s/fastcgi;
  uwsgi_temp_path %[2]s/uwsgi;
  scgi_temp_path %[2]s/scgi;
  upstream gateways {
%[3]s    keepalive 16;
  }
  server {
    listen %[4]s;
    location / {
      proxy_pass http://gateways;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_max_temp_file_size 0;
      proxy_next_upstream error timeout http_502 http_503;
      proxy_next_upstream_tries 3;
      add_header X-Replica $upstream_addr always;
    }
  }
}
`, user, dir, servers.String(), addr)
	confPath := filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(confPath, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(nginx, "-p", dir, "-c", confPath, "-g", "daemon off;")
	out := &strings.Builder{}
	cmd.Stderr = out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGQUIT)
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
		}
		if t.Failed() {
			log, _ := os.ReadFile(filepath.Join(dir, "error.log"))
			t.Logf("nginx: %s\n%s", out, log)
		}
	})
	base := "http://" + addr
	for deadline := time.Now().Add(10 * time.Second); ; {
		if resp, err := http.Get(base + "/healthz"); err == nil {
			resp.Body.Close()
			break
		}
		select {
		case <-done:
			t.Fatalf("nginx exited: %s", out)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("nginx did not answer within 10s: %s", out)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return base
}

func mustDecode(t *testing.T, c catalogue.Collection, raw []byte) *catalogue.Part {
	t.Helper()
	p, err := catalogue.Decode(c, raw)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
