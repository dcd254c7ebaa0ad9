$ qsub -terse -N binary-ps-unix_behavior -o out/binary-ps-unix_behavior.o -e out/binary-ps-unix_behavior.e -b y /bin/sleep 3
