sgeuser$ qrsub -d 600 -q nosuch.q
