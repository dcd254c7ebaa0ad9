#!/bin/bash
echo "start $(date +%s.%N)"
trap 'echo "got USR1 at $(date +%s.%N)"' USR1
trap 'echo "got USR2 at $(date +%s.%N)"' USR2
trap 'echo "got TERM at $(date +%s.%N)"' TERM
trap 'echo "got XCPU at $(date +%s.%N)"' XCPU
for i in $(seq 2000); do sleep 0.1; done
echo "end $(date +%s.%N)"
