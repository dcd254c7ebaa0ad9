#!/bin/sh
# generic prolog/epilog: $1 = kind (prolog|epilog); exit code read from /tmp/ctl/$1.rc
kind=$1; shift
rc=$(cat /tmp/ctl/$kind.rc 2>/dev/null || echo 0)
echo "$kind stdout: uid=$(id -un) at $(date +%s.%N) rc-to-return=$rc"
echo "$kind stderr line" >&2
n=0; for a in "$@"; do n=$((n+1)); echo "$kind argv[$n]=<$a>"; done
env | sort > /tmp/ctl/out/$kind-env.$JOB_ID.$(id -un)
echo "$kind cwd=$(pwd) \$0=$0" 
exit $rc
