env JOB_ID=9999 SGE_TASK_ID=undefined /usr/lib/gridengine/qrsh -inherit vm hostname
