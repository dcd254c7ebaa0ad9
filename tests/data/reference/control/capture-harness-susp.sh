#!/bin/bash
# usage: susp.sh NAME [qsub args]   -- suspend/resume/qdel timeline
. /tmp/ctl/env >/dev/null
R=/work/main/tests/data/reference/control; NAME=$1; shift
T=$R/$NAME.txt; ts() { date +%s.%N | cut -c1-14; }
snap() { echo "--- [$(ts)] $1"; qstat -u '*' | awk -v j=$J '$1==j'; ps -eo pid,ppid,pgid,user,stat,ni,args --forest | awk -v e=$(cat /var/spool/gridengine/bench/execd/vm/execd.pid) '$1==e {p=1; next} p && $2==1 {p=0} p' ; }
act() { echo "=== [$(ts)] \$ $*"; "$@" 2>&1; echo "(rc=$?)"; }
{
echo "# $NAME; queue: $(qconf -sq all.q | grep -E '^(notify|suspend_method|resume_method|terminate_method) ' | tr -s ' ' | tr '\n' ';')"
J=$(sge_as_user $SGE_BIN/qsub -terse -N $NAME -o /tmp/ctl/out/$NAME.o -e /tmp/ctl/out/$NAME.e "$@" /tmp/ctl/sigjob.sh)
echo "\$ qsub -terse -N $NAME -o out/$NAME.o -e out/$NAME.e $* sigjob.sh -> $J"
for i in $(seq 40); do qstat -u '*' | awk -v j=$J '$1==j && $5=="r"' | grep -q . && break; sleep 0.25; done
sleep 2; snap running
act sge_as_user $SGE_BIN/qmod -sj $J
sleep 1; snap "1s after qmod -sj"
echo "\$ qstat -j $J" > $R/$NAME.qstat-j-suspended.cmd; sge_as_user $SGE_BIN/qstat -j $J > $R/$NAME.qstat-j-suspended.out 2>&1
sleep 6; snap "7s after qmod -sj"
act sge_as_user $SGE_BIN/qmod -usj $J
sleep 1; snap "1s after qmod -usj"
sleep 2
act sge_as_user $SGE_BIN/qdel $J
sleep 1; snap "1s after qdel"
for i in $(seq 80); do qstat -u '*' | awk -v j=$J '$1==j' | grep -q . || break; sleep 0.25; done
echo "--- [$(ts)] job gone from qstat"
for i in $(seq 60); do sge_as_user $SGE_BIN/qacct -j $J >/dev/null 2>&1 && break; sleep 0.5; done
sge_as_user $SGE_BIN/qacct -j $J | grep -E '^(failed|exit_status|ru_wallclock)'
awk -F: -v j=$J '$6==j' $SGE_ROOT/bench/common/accounting
echo "--- job stdout:"; cat /tmp/ctl/out/$NAME.o; echo "--- job stderr:"; cat /tmp/ctl/out/$NAME.e
} > $T 2>&1
