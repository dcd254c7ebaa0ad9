sgeuser$ qrsub -d 600 -he y
