$ qsub -terse -N selfkill-9 -o out/selfkill-9.o -e out/selfkill-9.e selfkill.sh
