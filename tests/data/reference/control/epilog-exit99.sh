#!/bin/sh
echo "job ran at $(date +%s.%N) JOB_ID=$JOB_ID"
echo "job stderr line" >&2
