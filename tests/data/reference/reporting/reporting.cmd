# bench cell, reporting_params accounting=true reporting=true flush_time=00:00:01 joblog=true sharelog=00:00:00
# (report_variables NONE), as sgeuser:
qsub -N ok -b y -o /dev/null -j y /bin/true        # 28
qsub -N bad -b y -o /dev/null -j y /bin/false      # 29
qsub -h -N held -b y -o /dev/null -j y /bin/true   # 30, qdel'd while held
qsub -t 1-2 -N arr -b y -o /dev/null -j y /bin/sleep 1   # 31
qsub -N run -b y -o /dev/null -j y /bin/sleep 30   # 32, qdel'd while running
cat $SGE_ROOT/bench/common/reporting
