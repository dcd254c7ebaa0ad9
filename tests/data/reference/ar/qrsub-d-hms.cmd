sgeuser$ qrsub -d 0:5:0
