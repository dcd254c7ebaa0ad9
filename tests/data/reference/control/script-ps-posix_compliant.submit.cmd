$ qsub -terse -N script-ps-posix_compliant -o out/script-ps-posix_compliant.o -e out/script-ps-posix_compliant.e niceshow.sh
