sgeuser$ qrsub -d 60 -N small
