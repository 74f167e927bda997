// Package buildinfo says which build of the gateway is running: the
// version and commit deploy/build.sh stamps, or what the Go toolchain
// recorded. It imports nothing of the gateway's.
package buildinfo

import (
	"fmt"
	"runtime"
	"runtime/debug"
)

// version and commit are stamped at build time by deploy/build.sh (which
// the Dockerfile runs):
//
//	go build -ldflags "-X github.com/catalogue-gateway/gateway/internal/buildinfo.version=1.1.0 -X github.com/catalogue-gateway/gateway/internal/buildinfo.commit=4f0c2e1" .
//
// The linker sets them before the program starts; nothing changes them
// after. A plain `go run .` leaves them empty, and Get falls back to
// what the Go toolchain recorded, or "dev".
var version, commit string

// Info is what the running binary is: shown by -version, in the
// start-up log line, the upstream User-Agent, /readyz and the
// gateway_build_info metric.
type Info struct {
	Version   string `json:"version"`
	Commit    string `json:"commit,omitempty"`
	GoVersion string `json:"goVersion"`
}

// Get returns the binary's build information.
func Get() Info {
	b := Info{Version: version, Commit: commit, GoVersion: runtime.Version()}
	if bi, ok := debug.ReadBuildInfo(); ok {
		if b.Version == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			b.Version = bi.Main.Version // go install …@v1.1.0
		}
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && b.Commit == "" {
				b.Commit = s.Value
			}
		}
	}
	if b.Version == "" {
		b.Version = "dev"
	}
	if len(b.Commit) > 12 {
		b.Commit = b.Commit[:12]
	}
	return b
}

func (b Info) String() string {
	s := "catalogue-gateway " + b.Version
	if b.Commit != "" {
		s += fmt.Sprintf(" (commit %s)", b.Commit)
	}
	return s + " " + b.GoVersion
}

// UserAgent names the gateway and its version to the upstream.
func (b Info) UserAgent() string { return "catalogue-gateway/" + b.Version }
