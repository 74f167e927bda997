package telemetry

import (
	"bytes"
	"io"
	"os"
	"testing"
)

// TestLogFormatAuto: auto writes text to a terminal and JSON to anything
// else; json and text are what they say.
func TestLogFormatAuto(t *testing.T) {
	// The master side of a pseudo-terminal is a terminal, and opening one
	// needs no program and no controlling terminal.
	tty, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal to test with: %v", err)
	}
	defer tty.Close()
	file, err := os.Create(t.TempDir() + "/log")
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	for _, tt := range []struct {
		name   string
		format LogFormat
		w      io.Writer
		want   LogFormat
	}{
		{"auto on a terminal", "auto", tty, "text"},
		{"auto on a file", "auto", file, "json"},
		{"auto on a buffer", "auto", &bytes.Buffer{}, "json"},
		{"json on a terminal", "json", tty, "json"},
		{"text on a file", "text", file, "text"},
	} {
		if got := tt.format.Resolve(tt.w); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}
