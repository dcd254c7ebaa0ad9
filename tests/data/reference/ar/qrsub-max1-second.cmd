sgeuser$ qrsub -d 600 -N second
