#!/bin/sh
echo "nice=$(nice) ps: $(ps -o pid=,ni=,pri=,psr=,args= -p $$)"
echo "affinity: $(taskset -p $$ 2>&1)"
grep -E 'Cpus_allowed_list' /proc/$$/status
sleep 3
