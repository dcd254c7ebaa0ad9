$ qsub -terse -N shell_start_mode-unix_behavior-binary -o out/shell_start_mode-unix_behavior-binary.o -e out/shell_start_mode-unix_behavior-binary.e -b y /bin/echo hello w o r l d
