#!/bin/bash
echo "start $(date +%s.%N)"
echo "ulimit -t soft=$(ulimit -St) hard=$(ulimit -Ht)"
i=0; while [ $i -lt 100000000 ]; do i=$((i+1)); done
echo "end $(date +%s.%N)"
