#!/bin/bash
echo "start $(date +%s.%N)"
echo "ulimit -v soft=$(ulimit -Sv) hard=$(ulimit -Hv)"
python3 -c 'import time; x=bytearray(70*1024*1024); x[::4096]=b"1"*len(x[::4096]); print("child1 allocated 70M", flush=True); time.sleep(40)' &
python3 -c 'import time; x=bytearray(70*1024*1024); x[::4096]=b"1"*len(x[::4096]); print("child2 allocated 70M", flush=True); time.sleep(40)' &
wait
echo "children done rc=$? at $(date +%s.%N)"
echo "end $(date +%s.%N)"
