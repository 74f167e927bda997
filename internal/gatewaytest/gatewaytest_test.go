package gatewaytest

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/catalogue-gateway/gateway/internal/config"
)

// TestStartEitherWay starts the gateway the same Options describe in this
// process and as the built binary, and finds both serving what the flags
// say; stopped, neither answers.
func TestStartEitherWay(t *testing.T) {
	for _, binary := range []bool{false, true} {
		name := "in process"
		if binary {
			name = "binary"
		}
		t.Run(name, func(t *testing.T) {
			o := Options{Args: []string{"-access-log=false", "-playground=false"}}
			if binary {
				o.Binary = Build(t)
			}
			g := Start(t, o)
			if !strings.HasPrefix(g.URL, "http://127.0.0.1:") || g.URL != "http://"+g.Addr {
				t.Errorf("URL %q, Addr %q: want a loopback port", g.URL, g.Addr)
			}
			for path, want := range map[string]int{"/healthz": http.StatusOK, "/": http.StatusNotFound} {
				resp, err := http.Get(g.URL + path)
				if err != nil {
					t.Fatal(err)
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != want {
					t.Errorf("GET %s: %d, want %d (-playground=false)", path, resp.StatusCode, want)
				}
			}
			g.Stop()
			if resp, err := http.Get(g.URL + "/healthz"); err == nil {
				resp.Body.Close()
				t.Error("the gateway still answers once stopped")
			}
		})
	}
}

// TestParse: Configure sees what Args and Env gave, and has the last word.
func TestParse(t *testing.T) {
	cfg := Parse(t, Options{
		Args:      []string{"-max-depth=7"},
		Env:       map[string]string{"GATEWAY_MAX_FIELDS": "40"},
		Configure: func(c *config.Config) { c.Limits.MaxDepth++ },
	})
	if cfg.Limits.MaxDepth != 8 || cfg.Limits.MaxFields != 40 {
		t.Errorf("limits %+v: want depth 8 (7, then Configure), fields 40 (Env)", cfg.Limits)
	}
}
