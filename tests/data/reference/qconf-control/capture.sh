#!/bin/bash
# Captures of Grid Engine 8.1.9's qconf -sobjl -shgrp_tree -shgrp_resolved -cq -bonsai and
# the daemon control options that stop nothing (-secl -sss -sds, refusals of -ke -kec -kt
# -at). Run as root in the sge-oracle's bench cell (SGE_CELL=bench . env.sh,
# /usr/lib/gridengine first on PATH), in this directory; it adds host groups @sub, @top
# and queue cq.q and deletes them again.
set -u
cd "$(dirname "$0")"
run() {  # run NAME command...
    local name=$1; shift
    printf '$ %s\n' "$*" > "$name.cmd"
    "$@" > "$name.out" 2> "$name.err"; echo $? > "$name.rc"
}
H=$(hostname)
printf 'group_name @sub\nhostlist %s\n' "$H" > sub.input
printf 'group_name @top\nhostlist @sub %s\n' "$H" > top.input
qconf -Ahgrp sub.input > /dev/null 2>&1; qconf -Ahgrp top.input > /dev/null 2>&1
run shgrp_tree qconf -shgrp_tree @top
run shgrp_tree-leaf qconf -shgrp_tree @sub
run shgrp_tree-missing qconf -shgrp_tree @nosuch
run shgrp_tree-noarg qconf -shgrp_tree
run shgrp_resolved qconf -shgrp_resolved @top
run shgrp_resolved-missing qconf -shgrp_resolved @nosuch
run sobjl-queue-slots qconf -sobjl queue slots 1
run sobjl-queue-pe qconf -sobjl queue pe_list '*mpi*'
run sobjl-queue-none qconf -sobjl queue slots 999
run sobjl-queue-star qconf -sobjl queue slots '*'
run sobjl-qi-slots qconf -sobjl queue_instance slots 4
run sobjl-qd-slots qconf -sobjl queue_domain slots 1
run sobjl-exechost qconf -sobjl exechost load_scaling NONE
run sobjl-exechost-name qconf -sobjl exechost hostname "$H"
run sobjl-bad-object qconf -sobjl pe slots 1
run sobjl-bad-attr qconf -sobjl queue nosuch 1
run sobjl-noarg qconf -sobjl queue slots
run bonsai qconf -bonsai
run cq-missing qconf -cq nosuch.q
run cq-all qconf -cq all.q
run cq-instance qconf -cq "all.q@$H"
run secl qconf -secl
run sss qconf -sss
run sds qconf -sds
run ke-unknown qconf -ke nosuchhost.invalid
run kej-unknown qconf -kej nosuchhost.invalid
run kec-missing qconf -kec 999
run kec-bad qconf -kec abc
run kt-bad qconf -kt nosuch
run at-bad qconf -at nosuch
run at-running qconf -at scheduler
run kt-noarg qconf -kt
qconf -dhgrp @top > /dev/null 2>&1; qconf -dhgrp @sub > /dev/null 2>&1
rm -f sub.input top.input
# -sds: a queue whose host values name a host outside its hostlist (sds-detached-refs
# needs the checkpointing environment c1, calendar cal1 and project p1)
qconf -Aq sds-detached.input > /dev/null 2>&1
run sds-detached qconf -sds
qconf -dq ck.q > /dev/null 2>&1
# options qconf -help lists (qsub's, an 8.1.9 quirk) that 8.1.9's qconf refuses
for a in "-R y" "-ar 1" "-ckpt x" "-clear" "-display :0" "-dl 01010000" "-tc 2" "-verbose" "-w e"; do
    n=${a%% *}; run "help-listed${n}" qconf $a
done
