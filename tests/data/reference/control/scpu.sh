#!/bin/bash
echo "start $(date +%s.%N)"
echo "ulimit -t soft=$(ulimit -St) hard=$(ulimit -Ht)"
trap 'echo "got XCPU at $(date +%s.%N)"; exit 7' XCPU
trap 'echo "got USR1 at $(date +%s.%N)"' USR1
trap 'echo "got USR2 at $(date +%s.%N)"' USR2
i=0; while [ $i -lt 100000000 ]; do i=$((i+1)); done
echo "end $(date +%s.%N)"
