#!/bin/bash
log() { echo "$1 at $(date +%s.%N)"; }
log start
for s in USR1 USR2 TERM CONT TSTP INT HUP XCPU; do trap "log got-$s" $s; done
for i in $(seq 1200); do sleep 0.1; done
log end
