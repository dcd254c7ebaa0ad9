sgeuser$ qrsub -d 600 -N first
