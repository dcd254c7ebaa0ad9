#!/bin/bash
echo "start $(date +%s.%N)"
trap 'echo "parent got XCPU at $(date +%s.%N)"' XCPU
python3 -c 'import time,signal,sys
signal.signal(signal.SIGXCPU, lambda s,f: print("child1 got XCPU at %.3f" % time.time(), flush=True))
x=bytearray(70*1024*1024); x[::4096]=b"1"*len(x[::4096]); print("child1 allocated 70M", flush=True)
t=time.time()+8
while time.time()<t: time.sleep(0.1)' &
python3 -c 'import time,signal,sys
signal.signal(signal.SIGXCPU, lambda s,f: print("child2 got XCPU at %.3f" % time.time(), flush=True))
x=bytearray(70*1024*1024); x[::4096]=b"1"*len(x[::4096]); print("child2 allocated 70M", flush=True)
t=time.time()+8
while time.time()<t: time.sleep(0.1)' &
while [ $(jobs -r | wc -l) -gt 0 ]; do wait; done
echo "end $(date +%s.%N)"
