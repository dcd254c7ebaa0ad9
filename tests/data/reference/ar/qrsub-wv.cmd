sgeuser$ qrsub -d 600 -w v
