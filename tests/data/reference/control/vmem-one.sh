#!/bin/bash
echo "start $(date +%s.%N)"
echo "ulimit -v soft=$(ulimit -Sv) hard=$(ulimit -Hv)"
python3 -c 'x=bytearray(200*1024*1024); print("allocated 200M")'
echo "python rc=$?"
echo "end $(date +%s.%N)"
