sgeuser$ qrsub -d 600
