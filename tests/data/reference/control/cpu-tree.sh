#!/bin/bash
echo "start $(date +%s.%N)"
trap 'echo "parent got XCPU at $(date +%s.%N)"' XCPU
busy() { trap "echo child$1 got XCPU at \$(date +%s.%N)" XCPU; end=$((SECONDS+8)); while [ $SECONDS -lt $end ]; do :; done; echo "child$1 done at $(date +%s.%N)"; }
busy 1 & busy 2 &
wait
echo "end $(date +%s.%N)"
