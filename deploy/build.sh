#!/bin/sh
# Builds the gateway as the container ships it: a static binary (no cgo, so
# no libc to match), with build paths trimmed (reproducible, and no
# builder's paths in stack traces) and symbols stripped, and its version and
# commit stamped in: VERSION and COMMIT from the environment, else git's
# (the release tag on HEAD, vX.Y.Z, and HEAD itself), else "dev". The
# Dockerfile runs this; so does .ci/run, so the recipe cannot rot unseen.
#
#   sh deploy/build.sh OUTPUT                  (from the repository root)
#   VERSION=1.1.0 COMMIT=4f0c2e1 sh deploy/build.sh OUTPUT
set -eu
out=${1:?usage: deploy/build.sh OUTPUT}
version=${VERSION:-$(git describe --tags --exact-match --match 'v[0-9]*' 2>/dev/null | sed 's/^v//' || true)}
commit=${COMMIT:-$(git rev-parse --short=12 HEAD 2>/dev/null || true)}
stamp=github.com/catalogue-gateway/gateway/internal/buildinfo
CGO_ENABLED=0 go build -trimpath -buildvcs=false \
  -ldflags="-s -w -X $stamp.version=${version:-dev} -X $stamp.commit=${commit}" -o "$out" .
