#!/bin/sh
# burn CPU for $1 seconds
end=$(( $(date +%s) + $1 ))
while [ "$(date +%s)" -lt "$end" ]; do i=0; while [ $i -lt 2000 ]; do i=$((i+1)); done; done
