$ qsub -terse -N h_cpu-3 -o out/h_cpu-3.o -e out/h_cpu-3.e -l h_cpu=0:0:3 hcpu-notrap.sh
