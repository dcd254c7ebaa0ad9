sgeuser$ qrsub -a 11280149 -d 600
