#!/bin/bash
# sample the state of calt.q@vm every 0.1 s for 200 s
end=$((SECONDS+200))
while [ $SECONDS -lt $end ]; do
  s=$(qstat -f -q calt.q 2>&1 | awk '/calt.q@/{print $6}')
  echo "$(date +%T.%N | cut -c1-12) [$s]"
  sleep 0.1
done
