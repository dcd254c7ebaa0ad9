#!/bin/bash
echo "start $(date +%s.%N)"
trap 'echo "got XFSZ at $(date +%s.%N)"' XFSZ
head -c 5242880 /dev/zero > /tmp/ctl/out/fsize2.dat
echo "head rc=$? at $(date +%s.%N)"
echo "end $(date +%s.%N)"
