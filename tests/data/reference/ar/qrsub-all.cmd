sgeuser$ qrsub -d 120 -N allopts -A acc -l h_rt=60 -pe smp 2 -q all.q -u sgeuser,sgeuser2 -m be -M sgeuser@vm -he y
