sgeuser$ qrsub -d 600 -now y
