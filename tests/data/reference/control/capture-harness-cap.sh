#!/bin/bash
# usage: cap.sh NAME SCRIPT [qsub args...]   (run as root, env sourced)
# Submits SCRIPT as sgeuser, follows it, writes captures to $REF.
. /tmp/ctl/env >/dev/null
REF=/work/main/tests/data/reference/control
NAME=$1; SCRIPT=$2; shift 2
case "$SCRIPT" in ""|/*) ;; *) SCRIPT=/tmp/ctl/$SCRIPT;; esac
OUTD=/tmp/ctl/out
rm -f $OUTD/$NAME.o $OUTD/$NAME.e
[ -n "$SCRIPT" ] && [ -f "$SCRIPT" ] && cp "$SCRIPT" "$REF/$NAME.sh"
T=$REF/$NAME.txt
ts() { date +%s.%N | cut -c1-14; }
{
echo "# experiment $NAME  ($(date -u +%FT%TZ))"
echo "# queue all.q settings that matter:"; qconf -sq all.q | grep -E '^(notify|prolog|epilog|shell_start_mode|starter_method|suspend_method|resume_method|terminate_method|priority|processors|shell|[sh]_(rt|cpu|fsize|data|stack|core|rss|vmem)) ' | grep -v INFINITY | sed 's/^/#   /'
} > $T
SUBCMD=($SGE_BIN/qsub -terse -N "$NAME" -o $OUTD/$NAME.o -e $OUTD/$NAME.e "$@" ${SCRIPT:+"$SCRIPT"})
T0=$(ts)
JID=$(cd /tmp/ctl && sge_as_user "${SUBCMD[@]}" 2>>$T); JID=${JID%%.*}
echo "\$ ${SUBCMD[*]}" | sed -e "s@/tmp/ctl/@@g" -e "s@/usr/lib/gridengine/@@" > $REF/$NAME.submit.cmd
echo "submitted job $JID at $T0" >> $T
[ -z "$JID" ] && { echo "submit failed"; exit 1; }
echo "$JID" > /tmp/ctl/out/$NAME.jid
last=""; snap=0; START=""
while :; do
  line=$(qstat -u '*' | awk -v j=$JID '$1==j')
  [ -z "$line" ] && break
  st=$(echo "$line" | awk '{print $5}')
  if [ "$st" != "$last" ]; then
     now=$(ts)
     echo "t=$(awk -v a=$T0 -v b=$now 'BEGIN{printf "%.1f", b-a}')s state $st   | $line" >> $T
     last=$st
     [ "$st" = r ] && [ -z "$START" ] && START=$now
  fi
  if [ "$st" = r ] && [ $snap = 0 ]; then
     snap=1; sleep ${SNAPDELAY:-0.3}
     ( echo "\$ qstat -j $JID" > $REF/$NAME.qstat-j.cmd
       sge_as_user $SGE_BIN/qstat -j $JID > $REF/$NAME.qstat-j.out 2> $REF/$NAME.qstat-j.err; echo $? > $REF/$NAME.qstat-j.rc
       echo "--- qstat -f while running:"; qstat -f -u '*'
       echo "--- ps while running:"; ps -eo pid,ppid,pgid,user,stat,ni,etimes,args --forest | awk -v e=$(cat /var/spool/gridengine/bench/execd/vm/execd.pid) '$1==e {p=1; print; next} p && $2==1 {p=0} p'  ) >> $T
  fi
  # also catch Eqw / error lines
  case "$st" in *E*) echo "--- qstat -j in state $st:" >> $T; sge_as_user $SGE_BIN/qstat -j $JID >> $T 2>&1; 
     echo "\$ qstat -j $JID" > $REF/$NAME.qstat-j-error.cmd
     sge_as_user $SGE_BIN/qstat -j $JID > $REF/$NAME.qstat-j-error.out 2> $REF/$NAME.qstat-j-error.err; echo $? > $REF/$NAME.qstat-j-error.rc
     echo "--- qstat -f:" >> $T; qstat -f -u '*' >> $T; [ -n "$STOP_ON_E" ] && break ;; esac
  case "$st" in *E*) [ -n "$EWAIT" ] && sleep $EWAIT;; esac
  sleep 0.2
done
TEND=$(ts)
echo "job gone from qstat at t=$(awk -v a=$T0 -v b=$TEND 'BEGIN{printf "%.1f", b-a}')s (start seen at t=$( [ -n "$START" ] && awk -v a=$T0 -v b=$START 'BEGIN{printf "%.1f", b-a}')s)" >> $T
[ -n "$STOP_ON_E" ] && { echo "$JID"; exit 0; }
for i in $(seq 60); do sge_as_user $SGE_BIN/qacct -j $JID >/dev/null 2>&1 && break; sleep 0.5; done
echo "\$ qacct -j $JID" > $REF/$NAME.qacct.cmd
sge_as_user $SGE_BIN/qacct -j $JID > $REF/$NAME.qacct.out 2> $REF/$NAME.qacct.err; echo $? > $REF/$NAME.qacct.rc
{
echo "--- qacct -j $JID (key fields):"; grep -E '^(qname|failed|exit_status|ru_wallclock|start_time|end_time|cpu|maxvmem|granted_pe|slots)' $REF/$NAME.qacct.out
echo "--- accounting line(s):"; awk -F: -v j=$JID '$6==j' $SGE_ROOT/$SGE_CELL/common/accounting
echo "--- job stdout ($NAME.o):"; cat $OUTD/$NAME.o 2>&1
echo "--- job stderr ($NAME.e):"; cat $OUTD/$NAME.e 2>&1
} >> $T
cp $OUTD/$NAME.o $REF/$NAME.job-stdout 2>/dev/null; cp $OUTD/$NAME.e $REF/$NAME.job-stderr 2>/dev/null
echo "$JID"
