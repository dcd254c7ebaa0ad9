#!/bin/sh
{
echo "starter: \$0=$0 argc=$# uid=$(id -un) pid=$$ cwd=$(pwd)"
n=0; for a in "$@"; do n=$((n+1)); echo "starter argv[$n]=<$a>"; done
env | grep -E '^SGE_STARTER' | sort
echo "starter: SHELL=$SHELL JOB_ID=$JOB_ID"
} 
exec "$@"
