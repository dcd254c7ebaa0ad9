#!/bin/bash
# Captures of Grid Engine 8.1.9's qconf daemon control: -ks -kt -at -kec -secl -sss as a
# manager and as the submit user, then -kej, -ke and -km (which stop the cell's daemons:
# run /work/shared/tools/sge-oracle/setup.sh again afterwards). Run as root in the
# sge-oracle's bench cell (SGE_CELL=bench), in this directory; it runs setup.sh once
# in between (after -km) and leaves the execd stopped (-kej, run setup.sh again).
set -u
cd "$(dirname "$0")"
. /work/shared/tools/sge-oracle/env.sh
export PATH=/usr/lib/gridengine:$PATH
run() {  # run NAME [as] command...: as the submit user with "as"
    local name=$1; shift
    local pre=()
    if [ "$1" = as ]; then shift; pre=(sge_as_user); fi
    printf '$ %s\n' "$*" > "$name.cmd"
    "${pre[@]}" "$@" > "$name.out" 2> "$name.err"; echo $? > "$name.rc"
}
H=$(hostname)
for opt in "-km" "-ks" "-kt scheduler" "-at scheduler" "-ke $H" "-kej $H" "-kec 1" "-kec all" "-secl" "-sss" "-kt jvm" "-at jvm"; do
    run "user${opt// /-}" as qconf $opt
done
run kec-scheduler qconf -kec 1
run secl-after-kec qconf -secl
run kt-jvm qconf -kt jvm
run at-jvm qconf -at jvm
run ks qconf -ks
sleep 2
run secl-after-ks qconf -secl
run sss-after-ks qconf -sss
run ks-again qconf -ks
run kt-after-ks qconf -kt scheduler
run at-scheduler qconf -at scheduler
sleep 3
run secl-after-at qconf -secl
run kt-scheduler qconf -kt scheduler
sleep 2
run at-scheduler-2 qconf -at scheduler
sleep 3
run kec-all qconf -kec all
sleep 2
run secl-after-kec-all qconf -secl
run ke-two qconf -ke nosuchhost.invalid,$H
sleep 3
run qhost-after-ke qhost
run kej-down qconf -kej $H
# (the execd is down now) -ks and -kec of a running scheduler, then -km
run secl-before-ks qconf -secl
run ks-running qconf -ks
sleep 3
run secl-after-ks-running qconf -secl
run at-scheduler-3 qconf -at scheduler
sleep 3
run kec-scheduler-running qconf -kec 1
sleep 3
run secl-after-kec-1 qconf -secl
run km qconf -km
sleep 3
run qstat-after-km qstat
# after setup.sh again: -kej with a running job, then -ke of the stopped execd
sleep 5  # (the stopped qmaster's pid must be gone for setup.sh to start a new one)
/work/shared/tools/sge-oracle/setup.sh > /dev/null
R=$(sge_as_user qsub -terse -b y -N kej /bin/sleep 600)
for _ in $(seq 60); do qstat -s r | grep -q " $R " && break; sleep 1; done
run kej-running qconf -kej $H
sleep 5
run qstat-after-kej qstat -u '*'
run ke-down qconf -ke $H
run ke-all-down qconf -ke all
sleep 20
run qstat-j-after-kej qstat -j $R
run qacct-after-kej qacct -j $R
