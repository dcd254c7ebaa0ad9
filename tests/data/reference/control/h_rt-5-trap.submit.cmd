$ qsub -terse -N h_rt-5-trap -o out/h_rt-5-trap.o -e out/h_rt-5-trap.e -l h_rt=0:0:5 hrt.sh
