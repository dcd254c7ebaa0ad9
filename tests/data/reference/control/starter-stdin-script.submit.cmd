$ qsub -terse -N starter-stdin-script -o out/starter-stdin-script.o -e out/starter-stdin-script.e showme.sh
