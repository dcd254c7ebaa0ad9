$ qsub -terse -N script-ps-script_from_stdin -o out/script-ps-script_from_stdin.o -e out/script-ps-script_from_stdin.e niceshow.sh
