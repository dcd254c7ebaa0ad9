$ qsub -terse -N s_rt-5-notify60 -o out/s_rt-5-notify60.o -e out/s_rt-5-notify60.e -l s_rt=0:0:5,h_rt=0:0:30 srt.sh
