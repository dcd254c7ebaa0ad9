jsv_url $DIR/srv.sh, jsv_allowed_mod default; qalter -N other JOBID
