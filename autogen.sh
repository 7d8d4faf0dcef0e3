#!/bin/sh
# Generate configure and Makefile.in from configure.ac and Makefile.am.
set -e
cd "$(dirname "$0")"
mkdir -p m4 build-aux
# Serialize concurrent runs in one tree (they would delete each other's files).
exec 9>.autogen.lock
flock 9
autoreconf --install --warnings=all
