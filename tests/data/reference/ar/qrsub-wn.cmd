sgeuser$ qrsub -d 600 -w n
