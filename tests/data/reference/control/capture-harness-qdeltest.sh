#!/bin/bash
# usage: qdeltest.sh NAME SCRIPT [qsub args]: submit, wait running 2 s, qdel, follow, qacct
. /tmp/ctl/env >/dev/null
R=/work/main/tests/data/reference/control; NAME=$1; S=$2; shift 2; T=$R/$NAME.txt; ts() { date +%s.%N | cut -c1-14; }
{
echo "# $NAME; queue: $(qconf -sq all.q | grep -E '^(notify|suspend_method|resume_method|terminate_method|starter_method|shell_start_mode|priority|processors) ' | tr -s ' ' | tr '\n' ';')"
J=$(sge_as_user $SGE_BIN/qsub -terse -N $NAME -o /tmp/ctl/out/$NAME.o -e /tmp/ctl/out/$NAME.e "$@" /tmp/ctl/$S)
echo "\$ qsub -terse -N $NAME -o out/$NAME.o -e out/$NAME.e $* $S -> $J"
for i in $(seq 40); do qstat -u '*' | awk -v j=$J '$1==j && $5=="r"' | grep -q . && break; sleep 0.25; done
sleep 2; echo "--- [$(ts)] running:"; ps -eo pid,ppid,pgid,user,stat,ni,psr,args --forest | awk -v e=$(cat /var/spool/gridengine/bench/execd/vm/execd.pid) '$1==e {p=1; next} p && $2==1 {p=0} p'
echo "=== [$(ts)] \$ qdel $J"; sge_as_user $SGE_BIN/qdel $J
for i in $(seq 120); do qstat -u '*' | awk -v j=$J '$1==j' | grep -q . || break; sleep 0.25; done
echo "--- [$(ts)] job gone from qstat"
for i in $(seq 60); do sge_as_user $SGE_BIN/qacct -j $J >/dev/null 2>&1 && break; sleep 0.5; done
sge_as_user $SGE_BIN/qacct -j $J | grep -E '^(failed|exit_status|ru_wallclock)'
awk -F: -v j=$J '$6==j' $SGE_ROOT/bench/common/accounting
echo "--- job stdout:"; cat /tmp/ctl/out/$NAME.o; echo "--- job stderr:"; cat /tmp/ctl/out/$NAME.e
} > $T 2>&1
