$ qsub -terse -N s_rt-5-h_rt-30-long -o out/s_rt-5-h_rt-30-long.o -e out/s_rt-5-h_rt-30-long.e -l s_rt=0:0:5,h_rt=0:0:30 srt-long.sh
