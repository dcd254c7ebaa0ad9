#!/bin/bash
echo "start $(date +%s.%N)"
while :; do date +%s.%N > /tmp/ctl/out/ticker.$JOB_ID.last; sleep 0.05; done
