#!/bin/bash
echo "shell: $0 BASH_VERSION=$BASH_VERSION"
echo "ulimit -Sv=$(ulimit -Sv) -Hv=$(ulimit -Hv)"
echo "--- ulimit -a (soft)"; ulimit -a
echo "--- ulimit -Ha (hard)"; ulimit -Ha
echo "--- /proc/self/limits"; cat /proc/self/limits
