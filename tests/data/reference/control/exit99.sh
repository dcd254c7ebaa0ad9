#!/bin/sh
echo "run at $(date +%s.%N) JOB_ID=$JOB_ID RESTARTED=$RESTARTED"
exit 99
