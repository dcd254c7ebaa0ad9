#!/bin/sh
env | sort > /tmp/ctl/out/job-env.$JOB_ID
echo "job ran at $(date +%s.%N) JOB_ID=$JOB_ID"
