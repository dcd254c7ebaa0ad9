$ qsub -terse -N selfkill-TERM -o out/selfkill-TERM.o -e out/selfkill-TERM.e selfterm.sh
