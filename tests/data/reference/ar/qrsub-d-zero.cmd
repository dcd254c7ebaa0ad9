sgeuser$ qrsub -d 0
