#!/bin/sh
# Builds the gateway as the container ships it: a static binary (no cgo, so
# no libc to match), with build paths trimmed (reproducible, and no
# builder's paths in stack traces) and symbols stripped. The Dockerfile runs
# this; so does .ci/run, so the recipe cannot rot unseen.
#
#   sh deploy/build.sh OUTPUT      (from the repository root)
set -eu
out=${1:?usage: deploy/build.sh OUTPUT}
CGO_ENABLED=0 go build -trimpath -ldflags='-s -w' -o "$out" .
