# default cell (other sessions used it at the same time: the ARs 8-13 and the queue
# disable/suspend at 1795856347 are theirs), as root unless "as sgeuser":
# complex mlic INT <= YES YES 0 0 added; global's complex_values lic=10 (lic INT, default 1)
qconf -Mconf global   # reporting_params accounting=true reporting=true flush_time=00:00:01 joblog=true sharelog=00:00:05, load_report_time 00:00:10
qconf -mattr exechost report_variables cpu,np_load_avg,lic global
qconf -mattr exechost complex_values mlic=4 vm
qconf -mattr exechost report_variables load_avg,mem_free,slots,mlic,lic vm
# the share tree: Root (1 share) with leaves sgeuser (80) and sgeuser2 (20)
qmod -d all.q@vm; qmod -e all.q@vm; qmod -s all.q@vm; qmod -us all.q@vm       # 2 s apart
qsub -N cons -l lic=1,mlic=1 -r y -b y -o /dev/null -j y /bin/sleep 20          # 303, as sgeuser
qsub -h -N alt -b y -o /dev/null -j y /bin/sleep 3                              # 304, as sgeuser
qalter -N alt2 304; qalter -l h_rt=100 304; qrls 304                            # as sgeuser: no job_log lines
qmod -rj 303                                                                    # as sgeuser, while running
qrsub -a <now+12s> -d 00:00:15 -N ar1 -A acct1 -l mlic=1                        # 6
qrsub -a <now+1h> -d 60 -N ar2 -pe smp 2                                        # 7, qrdel'd 3 s later
qsub -N rq -r y -b y -o /dev/null -j y /bin/sleep 15                            # 356, as sgeuser
qmod -rq all.q@vm                                                               # while 356 ran
qrsub -a <now+8s> -d 00:00:12 -N ar3 -l mlic=1 -pe smp 2                        # 20: starts and ends
cat $SGE_ROOT/default/common/reporting
