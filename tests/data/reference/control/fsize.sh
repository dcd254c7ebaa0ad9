#!/bin/bash
echo "start $(date +%s.%N)"
echo "ulimit -f soft=$(ulimit -Sf) hard=$(ulimit -Hf)"
dd if=/dev/zero of=/tmp/ctl/out/fsize.dat bs=1M count=5
echo "dd rc=$? at $(date +%s.%N)"
ls -l /tmp/ctl/out/fsize.dat
echo "end $(date +%s.%N)"
