#!/bin/sh
kind=$1; shift
L=/tmp/ctl/out/method.log
{ echo "[$(date +%s.%N)] $kind method: uid=$(id -un) euid=$(id -u) pid=$$ ppid=$PPID cwd=$(pwd) argc=$#"
  n=0; for a in "$@"; do n=$((n+1)); echo "  argv[$n]=<$a>"; done
  echo "  env: $(env | sort | grep -E '^(JOB_ID|SGE_|USER|HOME|PATH|QUEUE|JOB_NAME|TMPDIR)' | tr '\n' ' ')"
} >> $L
env | sort > /tmp/ctl/out/method-env.$kind.$$
echo "$kind method stdout line"
echo "$kind method stderr line" >&2
case $kind in terminate) eval "/bin/kill -s TERM -- -\$$#" ; echo "  kill -TERM -pgrp rc=$?" >> $L;; esac
exit ${METHOD_RC:-0}
