sgeuser$ qrsub -d 600 -m z
