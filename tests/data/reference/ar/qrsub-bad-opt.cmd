sgeuser$ qrsub -d 600 -zz
