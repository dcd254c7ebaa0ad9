$ qsub -terse -N ulimit-h_rss_100M -o out/ulimit-h_rss_100M.o -e out/ulimit-h_rss_100M.e -S /bin/bash -l h_rss=100M ulimits.sh
