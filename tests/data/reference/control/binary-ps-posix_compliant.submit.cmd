$ qsub -terse -N binary-ps-posix_compliant -o out/binary-ps-posix_compliant.o -e out/binary-ps-posix_compliant.e -b y /bin/sleep 3
