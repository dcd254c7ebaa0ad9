jsv_url $DIR/srv.sh (bench cell); qsub -N rejectme -b y -o /dev/null -j y /bin/true
