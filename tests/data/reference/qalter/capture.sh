#!/bin/bash
# Captures of Grid Engine 8.1.9's qalter -c/-ckpt, -w, -verify and -u, and the qstat -j
# lines of checkpointing and -hold_jid_ad. Run as root in the sge-oracle's bench cell
# (SGE_CELL=bench . env.sh, /usr/lib/gridengine first on PATH), in this directory. The
# jobs are submitted as the submit user ($SGE_ORACLE_USER); the checkpointing
# environment c1 it adds it deletes again. Job ids in the captures are replaced by
# JOB (pending), RUN (running), PRE/SUC (the -hold_jid_ad pair).
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
printf 'ckpt_name          c1\ninterface          userdefined\nckpt_command       none\nmigr_command       none\nrestart_command    none\nclean_command      none\nckpt_dir           /tmp\nsignal             none\nwhen               sx\n' > /tmp/qa-c1
qconf -Ackpt /tmp/qa-c1 >/dev/null
JOB=$(sge_as_user qsub -terse -h -b y -N qa /bin/sleep 600)
RUN=$(sge_as_user qsub -terse -b y -N qr /bin/sleep 600)
for _ in $(seq 60); do qstat -s r | grep -q " $RUN " && break; sleep 1; done
printf '%s %s\n' "$JOB" "$RUN" > ids.txt
run qstat-j-no-ckpt qstat -j $JOB
run ckpt-nosuch as qalter -ckpt nosuch $JOB
run c-without-ckpt as qalter -c s $JOB
run c-interval-without-ckpt as qalter -c 00:10:00 $JOB
run ckpt as qalter -ckpt c1 $JOB
run qstat-j-ckpt qstat -j $JOB
run c-letters as qalter -c sx $JOB
run qstat-j-c-letters qstat -j $JOB
run c-interval as qalter -c 00:10:00 $JOB
run qstat-j-c-interval qstat -j $JOB
run c-bad as qalter -c q $JOB
run c-n as qalter -c n $JOB
run qstat-j-c-n qstat -j $JOB
run ckpt-and-c as qalter -ckpt c1 -c m $JOB
run ckpt-running as qalter -ckpt c1 $RUN
run c-running as qalter -c m $RUN
run w-e as qalter -w e -N qa2 $JOB
run w-w as qalter -w w -N qa3 $JOB
run w-n as qalter -w n -N qa $JOB
run w-v as qalter -w v -N never $JOB
run w-v-alone as qalter -w v $JOB
run w-p as qalter -w p -N never $JOB
run w-e-impossible as qalter -w e -l arch=nosuch $JOB
run w-w-impossible as qalter -w w -l arch=nosuch $JOB
run w-v-impossible as qalter -w v -l arch=nosuch $JOB
run qstat-j-after-w qstat -j $JOB
run w-bad as qalter -w x -N qa $JOB
run w-e-running as qalter -w e -N qr2 $RUN
run w-v-running as qalter -w v $RUN
run verify as qalter -verify -N never $JOB
run verify-alone as qalter -verify $JOB
run u-star as qalter -u $SGE_ORACLE_USER -p -5 '*'
run u-nojob as qalter -u $SGE_ORACLE_USER -p -6
run u-job as qalter -u $SGE_ORACLE_USER -p -7 $JOB
run u-other as qalter -u nosuchuser -p -8
run u-other-star as qalter -u nosuchuser -p -8 '*'
run u-root-star qalter -u $SGE_ORACLE_USER -N byroot '*'
run u-root-nojob qalter -u '*' -N byroot2
run u-all-users as qalter -u '*' -N byuser
run u-noarg as qalter -u
run qstat-after-u qstat -u '*'
run qstat-j-running qstat -j $RUN
sge_as_user qdel $JOB $RUN >/dev/null
# -hold_jid_ad: the lines of the predecessor and of the successor
PRE=$(sge_as_user qsub -terse -h -t 1-3 -b y -N pre /bin/true | cut -d. -f1)
SUC=$(sge_as_user qsub -terse -t 1-3 -hold_jid_ad $PRE -b y -N suc /bin/true | cut -d. -f1)
printf '%s %s\n' "$PRE" "$SUC" >> ids.txt
run qstat-j-ad-pre qstat -j $PRE
run qstat-j-ad-suc qstat -j $SUC
run qstat-j-ad-both qstat -j $PRE,$SUC
sge_as_user qdel $PRE $SUC >/dev/null
# the same with -ckpt given at submission, with -c interval
CK=$(sge_as_user qsub -terse -h -ckpt c1 -c 00:02:00 -b y /bin/true)
echo "$CK" >> ids.txt
run qstat-j-submit-ckpt-c qstat -j $CK
sge_as_user qdel $CK >/dev/null
sleep 2
qconf -dckpt c1 >/dev/null
# -w on pending jobs that are not held: one that cannot run anywhere, one waiting for its
# start time (-a), and -u with a job of another user
NORUN=$(sge_as_user qsub -terse -w n -l arch=nosuch -b y -N norun /bin/true)
LATER=$(sge_as_user qsub -terse -a 203001010000 -b y -N later /bin/true)
ROOTJOB=$(qsub -terse -h -b y -N rootjob /bin/true 2>/dev/null)
printf '%s %s %s\n' "$NORUN" "$LATER" "$ROOTJOB" >> ids.txt
run w-v-norun as qalter -w v $NORUN
run w-e-norun as qalter -w e -N norun2 $NORUN
run w-w-norun as qalter -w w -N norun3 $NORUN
run w-p-norun as qalter -w p $NORUN
run w-v-later as qalter -w v $LATER
run w-e-later as qalter -w e -N later2 $LATER
run w-e-later-impossible as qalter -w e -l arch=nosuch $LATER
run w-w-later-impossible as qalter -w w -l arch=nosuch $LATER
run w-v-later-impossible as qalter -w v -l arch=nosuch $LATER
run qstat-j-w-later qstat -j $LATER
run u-with-other-job qalter -u nosuchuser -p -9 $LATER
run u-root-job-list qalter -u root -p -9 $LATER
run verify-norun as qalter -verify -N x $NORUN
run verify-two as qalter -verify -N x $NORUN $LATER
qdel $NORUN $LATER $ROOTJOB >/dev/null 2>&1
# -verify with several options (what it prints does not depend on the job)
V=$(sge_as_user qsub -terse -h -b y -N vjob /bin/true)
echo "$V" >> ids.txt
run verify-several as qalter -verify -p -3 -l h_rt=100,arch=lx-amd64 -o /tmp/o -ckpt c1 -c 00:01:00 -A acct -hold_jid 1 $V
run verify-nosuch as qalter -verify -N x 999999
run verify-u as qalter -verify -u $SGE_ORACLE_USER -N x
sge_as_user qdel $V >/dev/null
