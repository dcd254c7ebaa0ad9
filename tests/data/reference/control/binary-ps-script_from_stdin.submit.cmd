$ qsub -terse -N binary-ps-script_from_stdin -o out/binary-ps-script_from_stdin.o -e out/binary-ps-script_from_stdin.e -b y /bin/sleep 3
