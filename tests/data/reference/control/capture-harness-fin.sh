#!/bin/bash
. /tmp/ctl/env >/dev/null
REF=/work/main/tests/data/reference/control; OUTD=/tmp/ctl/out
NAME=$1; JID=$2; T=$REF/$NAME.txt
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
