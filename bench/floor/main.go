// Command floor is the least a Go HTTP server can do for Q1: net/http,
// reading the POST body and answering fixed bytes, nothing else. Beside
// the gateway in bench/tail.sh it separates what the gateway adds to a
// small query's latency from what Go's HTTP server and scheduler give
// any program on the same machine.
//
//	go run ./bench/floor -addr 127.0.0.1:18495 -body answer.json
package main

import (
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"time"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:18495", "where to listen")
	file := flag.String("body", "", "the file whose bytes every request is answered with")
	flag.Parse()
	body, err := os.ReadFile(*file)
	if err != nil {
		fmt.Fprintln(os.Stderr, "floor:", err)
		os.Exit(2)
	}
	length := strconv.Itoa(len(body))
	srv := &http.Server{
		Addr:              *addr,
		ReadHeaderTimeout: 5 * time.Second,
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if _, err := io.Copy(io.Discard, r.Body); err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Length", length)
			w.Write(body)
		}),
	}
	fmt.Fprintln(os.Stderr, "floor:", srv.ListenAndServe())
	os.Exit(1)
}
