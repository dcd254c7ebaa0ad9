$ qsub -terse -N h_rt-4-ticker-run1 -o out/h_rt-4-ticker-run1.o -e out/h_rt-4-ticker-run1.e -S /bin/bash -l h_rt=0:0:4 ticker.sh
