env JOB_ID=9999 /usr/lib/gridengine/qrsh -inherit vm hostname
