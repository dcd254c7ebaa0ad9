sgeuser$ qrsub -d
