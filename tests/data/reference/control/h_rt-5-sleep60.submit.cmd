$ qsub -terse -N h_rt-5-sleep60 -o out/h_rt-5-sleep60.o -e out/h_rt-5-sleep60.e -l h_rt=0:0:5 hrt-plain.sh
