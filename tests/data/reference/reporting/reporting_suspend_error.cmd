# bench cell, reporting_params accounting=true reporting=true flush_time=00:00:01 joblog=true sharelog=00:00:00
# (the lines appended by these commands), as sgeuser:
j=$(qsub -terse -N susp -b y -o /dev/null -j y /bin/sleep 8); sleep 3; qmod -sj $j; sleep 2; qmod -usj $j   # 33
qsub -terse -N err -wd /nonexistent/dir -b y -o /dev/null -j y /bin/true   # 34: Eqw
