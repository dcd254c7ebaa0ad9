sgeuser$ qrsub -d 600 -w w
