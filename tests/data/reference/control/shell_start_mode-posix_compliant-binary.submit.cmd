$ qsub -terse -N shell_start_mode-posix_compliant-binary -o out/shell_start_mode-posix_compliant-binary.o -e out/shell_start_mode-posix_compliant-binary.e -b y /bin/echo hello w o r l d
