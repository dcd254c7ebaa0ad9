sgeuser$ qrsub -d 600 -q all.q
