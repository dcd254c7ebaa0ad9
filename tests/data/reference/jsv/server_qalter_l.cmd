jsv_url $DIR/srv.sh, jsv_allowed_mod default; qalter -l h_rt=100 JOBID
