$ qsub -terse -N s_rt-5-only-long -o out/s_rt-5-only-long.o -e out/s_rt-5-only-long.e -l s_rt=0:0:5 srt-long.sh
