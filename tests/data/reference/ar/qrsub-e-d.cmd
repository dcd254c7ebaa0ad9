sgeuser$ qrsub -e 11280451 -d 600 -N ed
